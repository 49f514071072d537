-- Who runs a sync (the holder of its lease), so that a run whose process is gone can be closed.
ALTER TABLE sync_runs ADD COLUMN owner TEXT;
CREATE INDEX sync_runs_running ON sync_runs (repository) WHERE outcome = 'running';
