-- Attachment files stay in the data directory's `files/` on SQLite (one
-- machine); PostgreSQL's migration of the same number keeps them in the
-- database. Both find an attachment by its salt, the key of its public URLs.
CREATE INDEX attachments_salt ON attachments(salt);
