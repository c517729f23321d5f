-- Start-up cleanup after a crash (lib/files/clean-up-after-crash.ts). A pending upload's marker
-- (a blob_deletions row due in a day, deleted by the upload's transaction) now names the process
-- that wrote it (`<host tag>-<pid>`, lib/blob/process-owner.ts): the next process on the host
-- sees a dead owner and removes the stray blob at once instead of after a day, while a live
-- upload of another process keeps its blob. NULL: an ordinary deletion, or a marker from before.
ALTER TABLE blob_deletions ADD COLUMN owner text;

-- Start-up looks up the markers of pending uploads only.
CREATE INDEX blob_deletions_owner_idx ON blob_deletions(owner) WHERE owner IS NOT NULL;

-- The start-up walk asks, per blob on disk, whether any queue row names it.
CREATE INDEX blob_deletions_blob_key_idx ON blob_deletions(blob_key);
