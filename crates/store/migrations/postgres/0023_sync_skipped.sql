-- Records of the central server this replica's key may not read, skipped so
-- that the change feed's cursor moves on past them. The same on PostgreSQL
-- as in SQLite's 0023 (a replica runs on SQLite; a server keeps the table
-- empty, as it keeps sync_remote).
CREATE TABLE sync_skipped (
    record_type TEXT NOT NULL,
    remote_uuid TEXT NOT NULL,
    parent      TEXT NOT NULL DEFAULT '',
    action      TEXT NOT NULL,
    skipped_at  TEXT NOT NULL,
    tried_at    TEXT NOT NULL,
    PRIMARY KEY (record_type, remote_uuid)
);
CREATE INDEX sync_skipped_oldest ON sync_skipped(record_type, skipped_at);

ALTER TABLE sync_remote ADD COLUMN last_error TEXT;
ALTER TABLE sync_remote ADD COLUMN last_error_at TEXT;
