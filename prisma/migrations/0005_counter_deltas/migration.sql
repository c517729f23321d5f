-- Counters without hot rows. Every document or file write used to update one row of `projects`
-- (data_size, files_size) and one of `collections` (documents_count): concurrent writers queued on
-- those row locks, one commit (one fsync) at a time. Writes now append their change here, which
-- takes no lock; a worker folds the rows into the counters (lib/projects/counters.ts). A counter's
-- value is its column plus the sum of its pending deltas, exact at any moment.
CREATE TABLE counter_deltas (
  id            bigserial PRIMARY KEY,
  project_id    text NOT NULL,
  collection_id text NOT NULL,
  documents     bigint NOT NULL DEFAULT 0,
  data_size     bigint NOT NULL DEFAULT 0,
  files_size    bigint NOT NULL DEFAULT 0
);
CREATE INDEX counter_deltas_scope_idx ON counter_deltas (project_id, collection_id);

CREATE VIEW project_totals AS
  SELECT p.id AS project_id,
         (p.data_size + coalesce((SELECT sum(d.data_size) FROM counter_deltas d WHERE d.project_id = p.id), 0))::bigint AS data_size,
         (p.files_size + coalesce((SELECT sum(d.files_size) FROM counter_deltas d WHERE d.project_id = p.id), 0))::bigint AS files_size
  FROM projects p;

