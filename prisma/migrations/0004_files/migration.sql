-- Files (CONTRACT §6). `not_before` lets an upload announce its blob BEFORE writing it: a marker
-- row due in a day is inserted, the blob committed, and the upload's transaction deletes the
-- marker. A crash in between leaves the marker, and the deletion worker removes the stray blob
-- once it is due. Ordinary deletions are due at once (the default).
ALTER TABLE blob_deletions ADD COLUMN not_before timestamptz(3) NOT NULL DEFAULT now();
CREATE INDEX blob_deletions_due_idx ON blob_deletions(not_before);

-- The orphan sweep reads only the files it has marked.
CREATE INDEX files_orphaned_idx ON files(project_id, orphaned_at) WHERE orphaned_at IS NOT NULL;

-- The deletion worker re-checks that no file record still names a blob before removing it.
CREATE INDEX files_blob_key_idx ON files(blob_key);
