-- The system collections `_usage` and `_debug` (CONTRACT §10), written by lib/usage/.
-- `usage`: one row per project and hour. Requests are counted in memory per process and added
-- here by one upsert every few seconds (one writer per process, so no hot row); data_size and
-- files_size are the project's totals as of the latest flush of that hour.
CREATE TABLE usage (
  project_id text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  hour       timestamptz NOT NULL,
  requests   bigint NOT NULL DEFAULT 0,
  bytes_in   bigint NOT NULL DEFAULT 0,
  bytes_out  bigint NOT NULL DEFAULT 0,
  data_size  bigint NOT NULL DEFAULT 0,
  files_size bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, hour)
);

-- `debug_records`: the API calls of projects with settings.debug on, the newest 1,000 per project.
CREATE TABLE debug_records (
  project_id   text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id           text NOT NULL,
  date_created timestamptz(3) NOT NULL DEFAULT now(),
  record       jsonb NOT NULL,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX debug_records_project_date_idx ON debug_records (project_id, date_created DESC, id DESC);
