-- The schema as it was before migrations (IF NOT EXISTS: a data directory from then is adopted as is).
CREATE TABLE IF NOT EXISTS sync_runs (id INTEGER PRIMARY KEY AUTOINCREMENT, repository TEXT NOT NULL,
  started_at INTEGER NOT NULL, finished_at INTEGER, outcome TEXT NOT NULL, snapshot_id TEXT, message TEXT);
CREATE INDEX IF NOT EXISTS sync_runs_repo ON sync_runs (repository, id);

CREATE TABLE IF NOT EXISTS access_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
INSERT OR IGNORE INTO access_version VALUES (1, 0);
CREATE TABLE IF NOT EXISTS users (name TEXT PRIMARY KEY, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS groups (name TEXT PRIMARY KEY, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS group_members (group_name TEXT NOT NULL REFERENCES groups(name) ON DELETE CASCADE,
  user_name TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE, PRIMARY KEY (group_name, user_name));
CREATE TABLE IF NOT EXISTS tokens (id TEXT PRIMARY KEY, user_name TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
  name TEXT, sha256 TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, expires_at INTEGER, revoked_at INTEGER);
CREATE TABLE IF NOT EXISTS bindings (principal TEXT NOT NULL, role TEXT NOT NULL, target TEXT NOT NULL,
  created_at INTEGER NOT NULL, created_by TEXT, PRIMARY KEY (principal, role, target));
CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, actor TEXT NOT NULL,
  action TEXT NOT NULL, principal TEXT, role TEXT, target TEXT, detail TEXT);
