-- Each outbox event records the size of its document copy (octet_length of its JSON text, the
-- figure the writer already computes for the counters), so readers can page the outbox by bytes
-- as well as by count: a backlog of large documents must not be read 500 at a time into one
-- process's memory. Older events have NULL and are measured by their stored size instead.
ALTER TABLE document_events ADD COLUMN size integer;
