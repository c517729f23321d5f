-- Guessing limits (lib/rate-limits): one row per counted key (e.g. `login:address:<email>`,
-- `auth:ip:<address>`), shared by every process. A window starts with the first point and
-- ends at `expires_at`; the next point after that starts a new window (one atomic upsert).
CREATE TABLE rate_limits (
  key        text PRIMARY KEY,
  points     integer NOT NULL,
  expires_at timestamptz(3) NOT NULL
);
CREATE INDEX rate_limits_expires_idx ON rate_limits (expires_at);

-- Sign-up codes: wrong tries counted per address (a code dies after a few), one live code per user.
ALTER TABLE signup_codes ADD COLUMN failed_attempts integer NOT NULL DEFAULT 0;
