-- Idempotency keys on PostgreSQL, as in SQLite's 0003: a repeated write with
-- the same key is answered from here and applies nothing twice. The row is
-- written in the same transaction as the write's effect; the answer is added
-- right after. The stored answer (BLOB there) is BYTEA here.

CREATE TABLE idempotency_keys (
    user_id      BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       BIGINT,
    content_type TEXT,
    response     BYTEA,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
