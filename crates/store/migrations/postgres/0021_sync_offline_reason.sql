-- Why the last sync round did not reach the remote, in words (NULL once a
-- round reaches it), and whether that was a certificate this copy does not
-- trust: it does not pass by itself as an outage does, and a person is told
-- so.
ALTER TABLE sync_remote ADD COLUMN offline_reason TEXT;
ALTER TABLE sync_remote ADD COLUMN certificate_untrusted BIGINT NOT NULL DEFAULT 0;
