-- Web sessions: the sha256 of the cookie's random id (never the id), whose token and user it
-- stands for, and when it ends. Revoking or deleting the token, or removing the user, ends it.
CREATE TABLE web_sessions (id_sha256 TEXT PRIMARY KEY,
  user_name TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
  token_id TEXT NOT NULL REFERENCES tokens(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);
CREATE INDEX web_sessions_token ON web_sessions (token_id);
CREATE INDEX web_sessions_user ON web_sessions (user_name, created_at);
