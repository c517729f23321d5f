-- The outbox counts (issue 17): `status.events_size` is the bytes of the document copies the
-- project's events hold, kept like the other counters (deltas folded by the compactor); a write
-- adds its event's copy, pruning subtracts what it removes.
ALTER TABLE counter_deltas ADD COLUMN events_size bigint NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN events_size bigint NOT NULL DEFAULT 0;
UPDATE projects p SET events_size = coalesce((
  SELECT sum(octet_length(coalesce(e.after, e.before)::text)) FROM document_events e
  WHERE e.project_id = p.id AND e.collection_id <> '_files'), 0);
CREATE OR REPLACE VIEW project_totals AS
  SELECT p.id AS project_id,
         (p.data_size + coalesce((SELECT sum(d.data_size) FROM counter_deltas d WHERE d.project_id = p.id), 0))::bigint AS data_size,
         (p.files_size + coalesce((SELECT sum(d.files_size) FROM counter_deltas d WHERE d.project_id = p.id), 0))::bigint AS files_size,
         (p.events_size + coalesce((SELECT sum(d.events_size) FROM counter_deltas d WHERE d.project_id = p.id), 0))::bigint AS events_size
  FROM projects p;
