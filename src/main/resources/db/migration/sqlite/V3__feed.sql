-- The changes feed (one event per published snapshot) and webhook deliveries (until delivered or given up).
CREATE TABLE changes (id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, repository TEXT NOT NULL,
  snapshot TEXT, time INTEGER NOT NULL, json TEXT NOT NULL);
CREATE TABLE webhook_deliveries (id TEXT PRIMARY KEY, webhook TEXT NOT NULL, event TEXT NOT NULL, body TEXT NOT NULL,
  attempts INTEGER NOT NULL, next_at INTEGER NOT NULL, state TEXT NOT NULL, last_status INTEGER NOT NULL,
  last_error TEXT, created_at INTEGER NOT NULL, delivered_at INTEGER);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_at);
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
