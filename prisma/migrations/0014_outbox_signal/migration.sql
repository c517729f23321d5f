-- Writers no longer NOTIFY inside their transaction: PostgreSQL serialises every notifying commit
-- on one lock held through its WAL flush, which cut document commits ~2.5x on these machines.
-- The writing process signals after commit instead (lib/outbox/outbox-listener.ts,
-- signalOutboxCommit): its own readers at once, other processes by one NOTIFY outside the write.
DROP TRIGGER IF EXISTS document_events_notify ON document_events;
DROP FUNCTION IF EXISTS arca_notify_document_events();
