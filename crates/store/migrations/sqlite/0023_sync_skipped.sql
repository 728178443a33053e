-- Records of the central server this replica's key may not read, skipped so
-- that the change feed's cursor moves on past them: each with the record it
-- is read through (a comment's story, an assignment comment's assignment;
-- empty for none), the access action the server named when it refused, when
-- it was first skipped and when it was last tried. A row whose remote_uuid
-- is empty stands for a whole type a plain remote would not list. A row goes
-- when the record is fetched at last, or deleted on the server.
CREATE TABLE sync_skipped (
    record_type TEXT NOT NULL,
    remote_uuid TEXT NOT NULL,
    parent      TEXT NOT NULL DEFAULT '',
    action      TEXT NOT NULL,
    skipped_at  TEXT NOT NULL,
    tried_at    TEXT NOT NULL,
    PRIMARY KEY (record_type, remote_uuid)
) STRICT;
CREATE INDEX sync_skipped_oldest ON sync_skipped(record_type, skipped_at);

-- Why the last sync round failed, whatever the reason (NULL once a round
-- succeeds), and when; last_sync_at is from now on the end of the last round
-- that succeeded.
ALTER TABLE sync_remote ADD COLUMN last_error TEXT;
ALTER TABLE sync_remote ADD COLUMN last_error_at TEXT;
