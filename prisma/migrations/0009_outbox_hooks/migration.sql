-- The outbox, read in commit order (docs/architecture.md "Outbox"): a bigserial id is taken at
-- insert, not at commit, so readers order events by the writing transaction's id and read only
-- transactions older than every one still running (txid < pg_snapshot_xmin(pg_current_snapshot())).
-- One copy of the document per event: `after` for created/updated, `before` for deleted.
ALTER TABLE document_events ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE document_events DROP COLUMN processed_at;
UPDATE document_events SET before = NULL WHERE kind = 'updated';
CREATE INDEX document_events_position_idx ON document_events (txid, id);
CREATE INDEX document_events_project_position_idx ON document_events (project_id, txid, id);
CREATE INDEX document_events_age_idx ON document_events (project_id, created_at);

-- Readers sleep until a write commits: one NOTIFY per writing transaction (PostgreSQL folds
-- identical notifications of one transaction into one).
CREATE FUNCTION arca_notify_document_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('arca_events', '');
  RETURN NULL;
END $$;
CREATE TRIGGER document_events_notify AFTER INSERT ON document_events
  FOR EACH STATEMENT EXECUTE FUNCTION arca_notify_document_events();

-- Where each consumer of the outbox stands: (txid, event id) of the last event it has taken.
CREATE TABLE outbox_cursors (
  name     text PRIMARY KEY,
  txid     xid8 NOT NULL,
  event_id bigint NOT NULL
);
INSERT INTO outbox_cursors (name, txid, event_id)
  SELECT 'hooks', coalesce((SELECT txid FROM document_events ORDER BY txid DESC, id DESC LIMIT 1), '0'::xid8),
                  coalesce((SELECT id FROM document_events ORDER BY txid DESC, id DESC LIMIT 1), 0);

-- `_hooks` (CONTRACT §8): the hook as the API shows it in `data`, with its defaults filled.
CREATE TABLE hooks (
  project_id    text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id            text NOT NULL,
  collection_id text NOT NULL,
  is_active     boolean NOT NULL,
  data          jsonb NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);
CREATE INDEX hooks_collection_idx ON hooks (project_id, collection_id) WHERE is_active;

-- One row per (hook, event): the delivery queue and, at once, `_hooks_history` (its `id` is the
-- X-Hook-Operation-ID, stable across the attempts of one delivery).
CREATE TABLE hook_deliveries (
  seq             bigserial PRIMARY KEY,
  id              text NOT NULL UNIQUE,
  project_id      text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  hook_id         text NOT NULL,
  event_id        bigint,
  trigger         text NOT NULL,
  collection_id   text NOT NULL,
  document_id     text NOT NULL,
  payload         jsonb,
  state           text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'success', 'error')),
  attempt         integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz(3) NOT NULL DEFAULT now(),
  lease_until     timestamptz(3),
  request         jsonb,
  response        jsonb,
  error           text,
  date_created    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX hook_deliveries_due_idx ON hook_deliveries (next_attempt_at, seq) WHERE state = 'queued';
CREATE INDEX hook_deliveries_order_idx ON hook_deliveries (project_id, hook_id, document_id, seq) WHERE state = 'queued';
CREATE INDEX hook_deliveries_event_idx ON hook_deliveries (event_id) WHERE state = 'queued';
CREATE INDEX hook_deliveries_history_idx ON hook_deliveries (project_id, date_created);
