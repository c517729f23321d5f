-- Every write inserts an event: one index less on it is a cheaper write. Pruning finds a
-- project's old events through (project_id, txid, id): they are the first in that order.
DROP INDEX IF EXISTS document_events_age_idx;
