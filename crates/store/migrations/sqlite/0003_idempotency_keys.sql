-- Idempotency keys: a repeated write with the same key is answered from here
-- and applies nothing twice. The row is written in the same transaction as
-- the write's effect; the answer is added right after.

CREATE TABLE idempotency_keys (
    user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       INTEGER,
    content_type TEXT,
    response     BLOB,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
) STRICT;
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
