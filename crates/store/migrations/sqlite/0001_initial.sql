-- The first schema of a Copydesk instance: people and keys, the content side,
-- and the change log with tombstones that sync reads.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

CREATE TABLE users (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL UNIQUE,
    slug        TEXT NOT NULL,
    email       TEXT NOT NULL DEFAULT '',
    is_vendor   INTEGER NOT NULL DEFAULT 0,
    avatar      TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    modified_at TEXT NOT NULL
) STRICT;

CREATE TABLE key_pairs (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    public_key  TEXT NOT NULL UNIQUE,
    private_key TEXT NOT NULL,
    created_at  TEXT NOT NULL
) STRICT;

CREATE TABLE user_roles (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role    TEXT NOT NULL,
    PRIMARY KEY (user_id, role)
) STRICT;

CREATE TABLE user_actions (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    action  TEXT NOT NULL,
    PRIMARY KEY (user_id, action)
) STRICT;

CREATE TABLE authors (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    slug        TEXT NOT NULL,
    name        TEXT NOT NULL,
    email       TEXT NOT NULL DEFAULT '',
    tagline     TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    status      INTEGER NOT NULL DEFAULT 1,
    created_at  TEXT NOT NULL,
    modified_at TEXT NOT NULL
) STRICT;
CREATE INDEX authors_modified ON authors(modified_at, id);

CREATE TABLE tags (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    slug        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    modified_at TEXT NOT NULL
) STRICT;
CREATE INDEX tags_modified ON tags(modified_at, id);

CREATE TABLE content (
    id                     INTEGER PRIMARY KEY,
    uuid                   TEXT NOT NULL UNIQUE,
    title                  TEXT NOT NULL,
    slug                   TEXT NOT NULL,
    type                   TEXT NOT NULL CHECK (type IN ('article', 'post', 'media', 'page')),
    version                INTEGER NOT NULL,
    weight                 INTEGER NOT NULL DEFAULT 0,
    abstract               TEXT NOT NULL DEFAULT '',
    abstract_raw           TEXT NOT NULL DEFAULT '',
    content                TEXT NOT NULL DEFAULT '',
    content_raw            TEXT NOT NULL DEFAULT '',
    created_at             TEXT NOT NULL,
    modified_at            TEXT NOT NULL,
    published_at           TEXT,
    state                  INTEGER NOT NULL DEFAULT 0,
    user_id                INTEGER REFERENCES users(id) ON DELETE SET NULL,
    assignment_id          INTEGER,
    workflow_id            INTEGER NOT NULL DEFAULT 0,
    dominant_attachment_id INTEGER,
    container_id           INTEGER,
    has_attachment         INTEGER NOT NULL DEFAULT 0,
    ssts_path              TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX content_version ON content(version, id);
CREATE INDEX content_modified ON content(modified_at, id);
CREATE INDEX content_created ON content(created_at, id);
CREATE INDEX content_published ON content(published_at, id);
CREATE INDEX content_type ON content(type, version, id);
CREATE INDEX content_has_attachment ON content(has_attachment, version, id);

CREATE TABLE content_authors (
    content_id INTEGER NOT NULL REFERENCES content(id) ON DELETE CASCADE,
    author_id  INTEGER NOT NULL REFERENCES authors(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    PRIMARY KEY (content_id, author_id)
) STRICT;
CREATE INDEX content_authors_author ON content_authors(author_id);

CREATE TABLE content_tags (
    content_id INTEGER NOT NULL REFERENCES content(id) ON DELETE CASCADE,
    tag_id     INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    PRIMARY KEY (content_id, tag_id)
) STRICT;
CREATE INDEX content_tags_tag ON content_tags(tag_id);

CREATE TABLE content_urls (
    id         INTEGER PRIMARY KEY,
    uuid       TEXT NOT NULL UNIQUE,
    content_id INTEGER NOT NULL REFERENCES content(id) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    position   INTEGER NOT NULL,
    created_at TEXT NOT NULL
) STRICT;
CREATE INDEX content_urls_content ON content_urls(content_id, position);

CREATE TABLE versions (
    id                     INTEGER PRIMARY KEY,
    uuid                   TEXT NOT NULL UNIQUE,
    content_id             INTEGER NOT NULL REFERENCES content(id) ON DELETE CASCADE,
    version                INTEGER NOT NULL,
    title                  TEXT NOT NULL,
    slug                   TEXT NOT NULL,
    type                   TEXT NOT NULL,
    weight                 INTEGER NOT NULL,
    abstract               TEXT NOT NULL,
    abstract_raw           TEXT NOT NULL,
    content                TEXT NOT NULL,
    content_raw            TEXT NOT NULL,
    published_at           TEXT,
    state                  INTEGER NOT NULL,
    workflow_id            INTEGER NOT NULL,
    dominant_attachment_id INTEGER,
    user_id                INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at             TEXT NOT NULL,
    modified_at            TEXT NOT NULL,
    UNIQUE (content_id, version)
) STRICT;
CREATE INDEX versions_modified ON versions(content_id, modified_at, id);

CREATE TABLE drafts (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    content_id  INTEGER NOT NULL REFERENCES content(id) ON DELETE CASCADE,
    content     TEXT NOT NULL,
    content_raw TEXT NOT NULL,
    version     INTEGER NOT NULL,
    user_id     INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at  TEXT NOT NULL
) STRICT;
CREATE INDEX drafts_content ON drafts(content_id, id);

CREATE TABLE attachments (
    id                INTEGER PRIMARY KEY,
    uuid              TEXT NOT NULL UNIQUE,
    content_id        INTEGER NOT NULL REFERENCES content(id) ON DELETE CASCADE,
    base_name         TEXT NOT NULL,
    salt              TEXT NOT NULL,
    extension         TEXT NOT NULL,
    preview_extension TEXT NOT NULL,
    type              TEXT NOT NULL,
    width             INTEGER NOT NULL,
    height            INTEGER NOT NULL,
    angle             INTEGER NOT NULL DEFAULT 0,
    size_bytes        INTEGER NOT NULL,
    metadata          TEXT,
    created_at        TEXT NOT NULL,
    modified_at       TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX attachments_content ON attachments(content_id);

CREATE TABLE containers (
    id             INTEGER PRIMARY KEY,
    uuid           TEXT NOT NULL UNIQUE,
    title          TEXT NOT NULL,
    slug           TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    type           TEXT NOT NULL CHECK (type IN ('automatic', 'manual', 'blog', 'gallery')),
    sort_order     TEXT,
    published_at   TEXT,
    placeholder_id INTEGER REFERENCES content(id) ON DELETE SET NULL,
    created_at     TEXT NOT NULL,
    modified_at    TEXT NOT NULL
) STRICT;
CREATE INDEX containers_modified ON containers(modified_at, id);
CREATE INDEX containers_type ON containers(type, modified_at, id);

CREATE TABLE container_content (
    container_id INTEGER NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
    content_id   INTEGER NOT NULL REFERENCES content(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    PRIMARY KEY (container_id, content_id)
) STRICT;
CREATE INDEX container_content_content ON container_content(content_id);

CREATE TABLE container_tags (
    container_id INTEGER NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
    tag_id       INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    PRIMARY KEY (container_id, tag_id)
) STRICT;

CREATE TABLE audit (
    id         INTEGER PRIMARY KEY,
    uuid       TEXT NOT NULL UNIQUE,
    content_id INTEGER NOT NULL REFERENCES content(id) ON DELETE CASCADE,
    user_id    INTEGER REFERENCES users(id) ON DELETE SET NULL,
    action     TEXT NOT NULL,
    detail     TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
) STRICT;
CREATE INDEX audit_content ON audit(content_id, id);

-- Every write to a synced record leaves a row here, in the same transaction
-- (the triggers below make that true by construction); deletes also leave a
-- tombstone. The sequence is this instance's order of changes, never a clock.
CREATE TABLE change_log (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    record_type TEXT NOT NULL,
    uuid        TEXT NOT NULL,
    operation   TEXT NOT NULL CHECK (operation IN ('create', 'update', 'delete')),
    changed_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now'))
) STRICT;
CREATE INDEX change_log_record ON change_log(record_type, uuid);

CREATE TABLE tombstones (
    record_type TEXT NOT NULL,
    uuid        TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    deleted_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now')),
    PRIMARY KEY (record_type, uuid)
) STRICT;

CREATE TRIGGER users_ci AFTER INSERT ON users BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('user', NEW.uuid, 'create'); END;
CREATE TRIGGER users_cu AFTER UPDATE ON users BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('user', NEW.uuid, 'update'); END;
CREATE TRIGGER users_cd AFTER DELETE ON users BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('user', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('user', OLD.uuid, last_insert_rowid()); END;

CREATE TRIGGER authors_ci AFTER INSERT ON authors BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('author', NEW.uuid, 'create'); END;
CREATE TRIGGER authors_cu AFTER UPDATE ON authors BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('author', NEW.uuid, 'update'); END;
CREATE TRIGGER authors_cd AFTER DELETE ON authors BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('author', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('author', OLD.uuid, last_insert_rowid()); END;

CREATE TRIGGER tags_ci AFTER INSERT ON tags BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('tag', NEW.uuid, 'create'); END;
CREATE TRIGGER tags_cu AFTER UPDATE ON tags BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('tag', NEW.uuid, 'update'); END;
CREATE TRIGGER tags_cd AFTER DELETE ON tags BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('tag', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('tag', OLD.uuid, last_insert_rowid()); END;

CREATE TRIGGER content_ci AFTER INSERT ON content BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('content', NEW.uuid, 'create'); END;
CREATE TRIGGER content_cu AFTER UPDATE ON content BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('content', NEW.uuid, 'update'); END;
CREATE TRIGGER content_cd AFTER DELETE ON content BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('content', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('content', OLD.uuid, last_insert_rowid()); END;

CREATE TRIGGER versions_ci AFTER INSERT ON versions BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('version', NEW.uuid, 'create'); END;
CREATE TRIGGER versions_cd AFTER DELETE ON versions BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('version', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('version', OLD.uuid, last_insert_rowid()); END;

CREATE TRIGGER drafts_ci AFTER INSERT ON drafts BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('draft', NEW.uuid, 'create'); END;
CREATE TRIGGER drafts_cd AFTER DELETE ON drafts BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('draft', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('draft', OLD.uuid, last_insert_rowid()); END;

CREATE TRIGGER attachments_ci AFTER INSERT ON attachments BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('attachment', NEW.uuid, 'create'); END;
CREATE TRIGGER attachments_cu AFTER UPDATE ON attachments BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('attachment', NEW.uuid, 'update'); END;
CREATE TRIGGER attachments_cd AFTER DELETE ON attachments BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('attachment', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('attachment', OLD.uuid, last_insert_rowid()); END;

CREATE TRIGGER containers_ci AFTER INSERT ON containers BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('container', NEW.uuid, 'create'); END;
CREATE TRIGGER containers_cu AFTER UPDATE ON containers BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('container', NEW.uuid, 'update'); END;
CREATE TRIGGER containers_cd AFTER DELETE ON containers BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('container', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('container', OLD.uuid, last_insert_rowid()); END;
