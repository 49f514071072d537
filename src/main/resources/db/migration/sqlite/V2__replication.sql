-- Published-snapshot pointers (the index is a blob) and sync leases, shared by every process.
CREATE TABLE snapshot_pointers (repository TEXT PRIMARY KEY, snapshot_id TEXT NOT NULL, manifest TEXT NOT NULL,
  index_sha256 TEXT NOT NULL, index_size INTEGER NOT NULL, published_at INTEGER NOT NULL, published_by TEXT NOT NULL);
CREATE TABLE sync_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, token INTEGER NOT NULL,
  expires_at INTEGER NOT NULL, released INTEGER NOT NULL DEFAULT 0, finished_at INTEGER);
