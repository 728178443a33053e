-- Signing in a person can do: a password per user (argon2id, PHC string),
-- one-time sign-in links (only the SHA-256 of the token is kept), failed
-- attempts (for the rate limit), and a label on each key pair so that a
-- browser's key can be told apart from others and revoked.
CREATE TABLE user_passwords (
    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    hash    TEXT NOT NULL,
    set_at  TEXT NOT NULL
) STRICT;

CREATE TABLE sign_in_links (
    token_sha256 TEXT PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at   TEXT NOT NULL,
    expires_at   INTEGER NOT NULL,
    used_at      TEXT
) STRICT;

CREATE TABLE sign_in_failures (
    id      INTEGER PRIMARY KEY,
    name    TEXT,
    address TEXT,
    at      INTEGER NOT NULL
) STRICT;
CREATE INDEX sign_in_failures_name ON sign_in_failures (name, at);
CREATE INDEX sign_in_failures_address ON sign_in_failures (address, at);

ALTER TABLE key_pairs ADD COLUMN label TEXT NOT NULL DEFAULT '';
