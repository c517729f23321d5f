-- CONTRACT §2: at 80 % of a size limit the project is notified and its owner mailed, once per
-- crossing. `limit_warnings` remembers which limit ({"data_size": <limit>, "files_size": <limit>})
-- was warned about; it is cleared when usage falls back below 80 % or the limit changes.
ALTER TABLE projects ADD COLUMN limit_warnings jsonb NOT NULL DEFAULT '{}'::jsonb;
