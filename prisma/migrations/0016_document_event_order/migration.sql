-- Per-document commit order in the outbox. Readers take events in (txid, id) order, txid being the
-- writing transaction's id. A transaction that got its id before it waited for a document's row
-- lock (it wrote something else first, e.g. an `X-Action: update` over many documents) commits
-- its change of that document AFTER the lock's holder, yet has the smaller id: read by txid, the
-- two events of that document came out in the wrong order, and a consumer kept the stale state.
-- Each document now remembers the position of its last event, and a write orders its own event
-- at least there: greatest(own txid, the document's last). Still safe for readers: the value is
-- never below the writer's own txid, so nothing can appear behind a reader's horizon.
ALTER TABLE documents ADD COLUMN event_txid xid8;
