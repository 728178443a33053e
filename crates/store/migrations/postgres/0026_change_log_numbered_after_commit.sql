-- Writes run side by side across nodes, so their transactions commit in
-- any order: a `seq` handed out as a row is written could become visible
-- after a higher one that a replica has already read past. From here on a
-- change-log row is written unnumbered, with the transaction that wrote it
-- (`xact`) and its place in writing order (`written`), and is given its
-- `seq` only once every transaction that could still add a row before it
-- has ended: by `change_log_number()`, which the feed runs before it reads.
-- Rows written so far keep their seq. ARCHITECTURE.md says why the feed
-- then never skips a change.
ALTER TABLE change_log ALTER COLUMN seq DROP IDENTITY;
ALTER TABLE change_log DROP CONSTRAINT change_log_pkey;
ALTER TABLE change_log ALTER COLUMN seq DROP NOT NULL;
ALTER TABLE change_log ADD COLUMN written BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY;
ALTER TABLE change_log ADD COLUMN xact xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE UNIQUE INDEX change_log_seq ON change_log(seq);
CREATE INDEX change_log_unnumbered ON change_log(xact, written) WHERE seq IS NULL;

-- A tombstone keeps the delete's place in writing order: the row's seq is
-- not known yet when the delete writes it (nothing reads a tombstone's seq).
CREATE OR REPLACE FUNCTION change_log_note() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    noted BIGINT;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO change_log (record_type, uuid, operation) VALUES (TG_ARGV[0], NEW.uuid, 'create');
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO change_log (record_type, uuid, operation) VALUES (TG_ARGV[0], NEW.uuid, 'update');
    ELSE
        INSERT INTO change_log (record_type, uuid, operation) VALUES (TG_ARGV[0], OLD.uuid, 'delete')
            RETURNING written INTO noted;
        INSERT INTO tombstones (record_type, uuid, seq) VALUES (TG_ARGV[0], OLD.uuid, noted)
            ON CONFLICT (record_type, uuid) DO UPDATE SET seq = EXCLUDED.seq, deleted_at = EXCLUDED.deleted_at;
    END IF;
    RETURN NULL;
END;
$$;

-- Numbers, in the order of their transactions' ids, the unnumbered rows of
-- every transaction older than the oldest one still running: those are
-- all committed or rolled back, so no row can join them later. One
-- numbering at a time (a transaction-scoped advisory lock, released once
-- its commit is visible), each after the last one's highest seq. Every
-- statement of this VOLATILE function reads a snapshot taken after the
-- lock. Returns the feed's head.
CREATE FUNCTION change_log_number() RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    head BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock(4859226189633778541);
    SELECT COALESCE(MAX(seq), 0) INTO head FROM change_log;
    UPDATE change_log c SET seq = head + due.place
    FROM (
        SELECT written, row_number() OVER (ORDER BY xact, written) AS place
        FROM change_log
        WHERE seq IS NULL AND xact < pg_snapshot_xmin(pg_current_snapshot())
    ) due
    WHERE c.written = due.written;
    SELECT COALESCE(MAX(seq), 0) INTO head FROM change_log;
    RETURN head;
END;
$$;
