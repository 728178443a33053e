-- Attachments carry the SHA-256 of their master file, so a client (and sync)
-- can tell whether it already has a file without sending it again.

ALTER TABLE attachments ADD COLUMN sha256 TEXT NOT NULL DEFAULT '';
CREATE INDEX attachments_sha256 ON attachments(sha256);
