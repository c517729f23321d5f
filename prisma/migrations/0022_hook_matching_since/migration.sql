-- A hook matches a change as it was when the change committed (lib/hooks/dispatch-hook-events.ts).
-- Each version of a hook's matching (made, activated, other triggers, conditions or collection)
-- records the snapshot it began at: changes committed before it (visible in it) belong to the
-- versions before, whose deliveries were queued when it changed; the dispatcher skips them for
-- this one. NULL: hooks older than this column match everything they read, as before.
ALTER TABLE hooks ADD COLUMN matching_since pg_snapshot;
