-- A replica's side of sync: its remote and cursor, the outbox of local
-- changes, the base each record was last synced at, and the conflicts a
-- person must settle. A central server leaves these empty.

CREATE TABLE sync_remote (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    url          TEXT NOT NULL,
    cursor       INTEGER NOT NULL DEFAULT 0,
    last_sync_at TEXT,
    -- Whether the last round reached the remote.
    online       INTEGER NOT NULL DEFAULT 0
) STRICT;

-- The remote identity and the last synced remote state of each record.
CREATE TABLE sync_records (
    record_type TEXT NOT NULL,
    uuid        TEXT NOT NULL,
    remote_uuid TEXT NOT NULL,
    base        TEXT NOT NULL,
    PRIMARY KEY (record_type, uuid),
    UNIQUE (record_type, remote_uuid)
) STRICT;

CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY,
    record_type     TEXT NOT NULL,
    uuid            TEXT NOT NULL,
    operation       TEXT NOT NULL,
    idempotency_key TEXT NOT NULL DEFAULT (lower(hex(randomblob(16)))),
    state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'attention')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now'))
) STRICT;
CREATE INDEX outbox_record ON outbox(record_type, uuid, id);

CREATE TABLE sync_conflicts (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    record_type TEXT NOT NULL,
    record_uuid TEXT NOT NULL,
    field       TEXT NOT NULL,
    mine        TEXT NOT NULL,
    theirs      TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    resolved_at TEXT,
    resolution  TEXT
) STRICT;

-- Every local change of a synced record type lands in the outbox, in the
-- change's own transaction, once the instance is a replica; changes applied
-- from the remote (marked by the 'applying_remote' row) do not.
CREATE TRIGGER outbox_from_change_log AFTER INSERT ON change_log
WHEN NEW.record_type IN ('author', 'tag', 'content')
 AND EXISTS (SELECT 1 FROM sync_remote)
 AND NOT EXISTS (SELECT 1 FROM meta WHERE key = 'applying_remote')
BEGIN
    INSERT INTO outbox (record_type, uuid, operation) VALUES (NEW.record_type, NEW.uuid, NEW.operation);
END;

-- On a replica, the server's lock request behind a local one.
ALTER TABLE lock_requests ADD COLUMN remote_uuid TEXT;
