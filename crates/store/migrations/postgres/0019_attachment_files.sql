-- Every attachment file in the database, written in the transaction that
-- records it: every node reads it, the standby and pg_basebackup carry it.
-- A node's files directory is a cache filled from here.
CREATE UNIQUE INDEX attachments_salt ON attachments(salt);

CREATE TABLE attachment_files (
    salt  TEXT NOT NULL REFERENCES attachments(salt) ON DELETE CASCADE,
    name  TEXT NOT NULL,
    bytes BYTEA NOT NULL,
    PRIMARY KEY (salt, name)
);
-- Photographs and PDFs are compressed already: stored out of line, as they are.
ALTER TABLE attachment_files ALTER COLUMN bytes SET STORAGE EXTERNAL;
