-- The due index serves the workers' walk of the queue in due order, and nothing else. Its
-- predicate now carries a clause only that walk (and the workers' timer) states,
-- `next_attempt_at > '-infinity'` (true of every row), so no other statement can use it.
-- The claim's order check ("no earlier queued delivery of this document") had been planned as a
-- skip scan of this index on `seq` alone, reading every queued row before each candidate, instead
-- of the order index's probe by hook and document: on a queue vacuumed while empty (its indexes'
-- row estimates 0) and an order index grown to 433 pages against this one's 4, the two looked
-- equally cheap. With a backlog that reads the queue once per candidate.
DROP INDEX hook_deliveries_due_idx;
CREATE INDEX hook_deliveries_due_idx ON hook_deliveries (next_attempt_at, seq) WHERE state = 'queued' AND next_attempt_at > '-infinity';
