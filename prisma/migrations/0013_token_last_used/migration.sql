-- Tokens' last use (issue 14), for the dashboard's tokens page only (the `_tokens` record shape is
-- fixed by CONTRACT §9). Written off the request path, at most once a minute per token and
-- process (lib/auth/token-last-used.ts); NULL: not used since this column exists.
ALTER TABLE tokens ADD COLUMN last_used_at timestamptz(3);
