-- Per-record commit order of `_files` events, as migration 0016 gives documents: a file record
-- remembers its `created` event's position, and the event of its deletion is placed at least
-- there. A transaction that got its id before it waited for the document's lock (a multipart
-- PATCH inserts its new file first) deleted the record another had just created, and its
-- `deleted` event sorted before that `created` one.
ALTER TABLE files ADD COLUMN event_txid xid8;
