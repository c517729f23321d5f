-- Arca's first schema. Written by hand: Prisma's native migrate engine cannot be fetched on these
-- machines; lib/db/migrate.ts applies these files in order and records them in _prisma_migrations.

CREATE TABLE users (
  id            text PRIMARY KEY,
  email         text NOT NULL UNIQUE,
  name          text NOT NULL DEFAULT '',
  password_hash text NOT NULL,
  confirmed_at  timestamptz(3),
  created_at    timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE signup_codes (
  code_hash  text PRIMARY KEY,
  user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  expires_at timestamptz(3) NOT NULL,
  used_at    timestamptz(3)
);
CREATE INDEX signup_codes_user_id_idx ON signup_codes(user_id);

CREATE TABLE sessions (
  id_hash    text PRIMARY KEY,
  user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  expires_at timestamptz(3) NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX sessions_user_id_idx ON sessions(user_id);

CREATE TABLE projects (
  id         text PRIMARY KEY,
  name       text NOT NULL,
  owner_id   text NOT NULL REFERENCES users(id),
  settings   jsonb NOT NULL,
  is_active  boolean NOT NULL DEFAULT true,
  files_size bigint NOT NULL DEFAULT 0,
  data_size  bigint NOT NULL DEFAULT 0,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX projects_owner_id_idx ON projects(owner_id);

CREATE TABLE members (
  project_id  text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  email       text NOT NULL,
  user_id     text REFERENCES users(id) ON DELETE CASCADE,
  role        text NOT NULL,
  is_active   boolean NOT NULL DEFAULT true,
  date_joined timestamptz(3),
  invited_at  timestamptz(3) NOT NULL DEFAULT now(),
  invited_by  text,
  PRIMARY KEY (project_id, email)
);
CREATE INDEX members_user_id_idx ON members(user_id);

CREATE TABLE invitations (
  token_hash text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  email      text NOT NULL,
  expires_at timestamptz(3) NOT NULL,
  used_at    timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX invitations_project_id_email_idx ON invitations(project_id, email);

CREATE TABLE tokens (
  project_id  text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id          text NOT NULL,
  name        text NOT NULL,
  secret_hash text NOT NULL UNIQUE,
  is_active   boolean NOT NULL DEFAULT true,
  permission  jsonb NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);

CREATE TABLE notifications (
  project_id text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id         text NOT NULL,
  author     text NOT NULL,
  subject    text NOT NULL,
  message    text NOT NULL,
  date_sent  timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);

CREATE TABLE collections (
  project_id      text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id              text NOT NULL,
  name            text NOT NULL DEFAULT '',
  description     text NOT NULL DEFAULT '',
  schema          jsonb,
  indexes         jsonb NOT NULL DEFAULT '[]',
  documents_count bigint NOT NULL DEFAULT 0,
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);

CREATE TABLE documents (
  project_id    text NOT NULL,
  collection_id text NOT NULL,
  id            text NOT NULL,
  data          jsonb NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, collection_id, id),
  FOREIGN KEY (project_id, collection_id) REFERENCES collections(project_id, id) ON DELETE CASCADE
);

-- The outbox: every document write records its event in the writing transaction; hooks and
-- processors consume it.
CREATE TABLE document_events (
  id            bigserial PRIMARY KEY,
  project_id    text NOT NULL,
  collection_id text NOT NULL,
  document_id   text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('created', 'updated', 'deleted')),
  before        jsonb,
  after         jsonb,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  processed_at  timestamptz(3)
);
CREATE INDEX document_events_pending_idx ON document_events(id) WHERE processed_at IS NULL;

CREATE TABLE files (
  project_id    text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id            text NOT NULL,
  collection_id text NOT NULL,
  document_id   text NOT NULL,
  property      text NOT NULL DEFAULT '',
  name          text NOT NULL,
  content_type  text NOT NULL,
  size          bigint NOT NULL,
  md5           text NOT NULL,
  blob_key      text NOT NULL,
  date_created  timestamptz(3) NOT NULL DEFAULT now(),
  last_access   timestamptz(3) NOT NULL DEFAULT now(),
  orphaned_at   timestamptz(3),
  PRIMARY KEY (project_id, id)
);
CREATE INDEX files_document_idx ON files(project_id, collection_id, document_id);

-- Bytes are deleted only after the transaction that drops their record commits; this queue makes
-- that durable across a crash.
CREATE TABLE blob_deletions (
  id         bigserial PRIMARY KEY,
  blob_key   text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
