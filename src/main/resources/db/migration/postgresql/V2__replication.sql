-- Published-snapshot pointers (the index is a blob) and sync leases, shared by every replica.
CREATE TABLE snapshot_pointers (repository TEXT PRIMARY KEY, snapshot_id TEXT NOT NULL, manifest TEXT NOT NULL,
  index_sha256 TEXT NOT NULL, index_size BIGINT NOT NULL, published_at BIGINT NOT NULL, published_by TEXT NOT NULL);
CREATE TABLE sync_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, token BIGINT NOT NULL,
  expires_at BIGINT NOT NULL, released BOOLEAN NOT NULL DEFAULT FALSE, finished_at BIGINT);
