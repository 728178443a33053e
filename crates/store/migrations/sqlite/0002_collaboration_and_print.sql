-- Locks, comments, assignments and the print side: exports, print documents,
-- workflows, workflow sections and issues.

CREATE TABLE lock_requests (
    id           INTEGER PRIMARY KEY,
    uuid         TEXT NOT NULL UNIQUE,
    content_id   INTEGER REFERENCES content(id) ON DELETE CASCADE,
    container_id INTEGER REFERENCES containers(id) ON DELETE CASCADE,
    user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    state        TEXT NOT NULL DEFAULT 'accepted',
    created_at   TEXT NOT NULL,
    modified_at  TEXT NOT NULL,
    CHECK ((content_id IS NULL) <> (container_id IS NULL))
) STRICT;
-- One exclusive lock per item: the second writer of a race fails here.
CREATE UNIQUE INDEX lock_requests_content ON lock_requests(content_id) WHERE content_id IS NOT NULL;
CREATE UNIQUE INDEX lock_requests_container ON lock_requests(container_id) WHERE container_id IS NOT NULL;

CREATE TABLE assignments (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    title       TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    due_at      TEXT,
    assignee_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
    content_id  INTEGER REFERENCES content(id) ON DELETE SET NULL,
    user_id     INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at  TEXT NOT NULL,
    modified_at TEXT NOT NULL
) STRICT;
CREATE INDEX assignments_modified ON assignments(modified_at, id);
CREATE INDEX assignments_content ON assignments(content_id);

CREATE TABLE note_comments (
    id         INTEGER PRIMARY KEY,
    uuid       TEXT NOT NULL UNIQUE,
    reference  TEXT NOT NULL,
    user_id    INTEGER REFERENCES users(id) ON DELETE SET NULL,
    comment    TEXT NOT NULL,
    version    INTEGER NOT NULL DEFAULT 0,
    draft_uuid TEXT NOT NULL DEFAULT '',
    parent_id  INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
) STRICT;
CREATE INDEX note_comments_reference ON note_comments(reference, id);

CREATE TABLE assignment_comments (
    id            INTEGER PRIMARY KEY,
    uuid          TEXT NOT NULL UNIQUE,
    assignment_id INTEGER NOT NULL REFERENCES assignments(id) ON DELETE CASCADE,
    user_id       INTEGER REFERENCES users(id) ON DELETE SET NULL,
    comment       TEXT NOT NULL,
    created_at    TEXT NOT NULL
) STRICT;
CREATE INDEX assignment_comments_assignment ON assignment_comments(assignment_id, id);

CREATE TABLE workflows (
    id            INTEGER PRIMARY KEY,
    uuid          TEXT NOT NULL UNIQUE,
    slug          TEXT NOT NULL,
    name          TEXT NOT NULL,
    status        INTEGER NOT NULL DEFAULT 1,
    is_web        INTEGER NOT NULL DEFAULT 0,
    is_print      INTEGER NOT NULL DEFAULT 1,
    priority      INTEGER NOT NULL DEFAULT 0,
    is_content    INTEGER NOT NULL DEFAULT 1,
    is_assignment INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL,
    modified_at   TEXT NOT NULL
) STRICT;

CREATE TABLE workflow_sections (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    workflow_id INTEGER REFERENCES workflows(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    slug        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    modified_at TEXT NOT NULL
) STRICT;

CREATE TABLE issues (
    id              INTEGER PRIMARY KEY,
    uuid            TEXT NOT NULL UNIQUE,
    label           TEXT NOT NULL,
    description     TEXT NOT NULL DEFAULT '',
    status          INTEGER NOT NULL DEFAULT 1,
    decorated_label TEXT NOT NULL DEFAULT '',
    published_at    TEXT,
    created_at      TEXT NOT NULL,
    modified_at     TEXT NOT NULL
) STRICT;

-- The print side of a content item, made on its first update.
CREATE TABLE exports (
    id                  INTEGER PRIMARY KEY,
    uuid                TEXT NOT NULL UNIQUE,
    content_id          INTEGER NOT NULL UNIQUE REFERENCES content(id) ON DELETE CASCADE,
    workflow_id         INTEGER NOT NULL DEFAULT 0,
    assignee_id         INTEGER NOT NULL DEFAULT 0,
    issue_id            INTEGER NOT NULL DEFAULT 0,
    workflow_section_id INTEGER NOT NULL DEFAULT 0,
    content             TEXT NOT NULL DEFAULT '',
    version             INTEGER NOT NULL DEFAULT 1,
    user_id             INTEGER REFERENCES users(id) ON DELETE SET NULL,
    locked_by           INTEGER REFERENCES users(id) ON DELETE SET NULL,
    locked_at           TEXT,
    created_at          TEXT NOT NULL,
    modified_at         TEXT NOT NULL
) STRICT;

CREATE TABLE export_versions (
    id         INTEGER PRIMARY KEY,
    uuid       TEXT NOT NULL UNIQUE,
    export_id  INTEGER NOT NULL REFERENCES exports(id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    content    TEXT NOT NULL,
    user_id    INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    UNIQUE (export_id, version)
) STRICT;

CREATE TABLE print_documents (
    id                  INTEGER PRIMARY KEY,
    uuid                TEXT NOT NULL UNIQUE,
    label               TEXT NOT NULL,
    tracking_label      TEXT NOT NULL UNIQUE COLLATE NOCASE,
    issue_id            INTEGER NOT NULL DEFAULT 0,
    workflow_id         INTEGER NOT NULL DEFAULT 0,
    assignee_id         INTEGER NOT NULL DEFAULT 0,
    workflow_section_id INTEGER NOT NULL DEFAULT 0,
    print_locked_user   INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at          TEXT NOT NULL,
    modified_at         TEXT NOT NULL
) STRICT;
CREATE INDEX print_documents_modified ON print_documents(modified_at, id);

-- The print documents' history: who locked, unlocked, took over or forced.
CREATE TABLE print_document_audit (
    id                INTEGER PRIMARY KEY,
    uuid              TEXT NOT NULL UNIQUE,
    print_document_id INTEGER NOT NULL REFERENCES print_documents(id) ON DELETE CASCADE,
    user_id           INTEGER REFERENCES users(id) ON DELETE SET NULL,
    action            TEXT NOT NULL,
    detail            TEXT NOT NULL DEFAULT '',
    created_at        TEXT NOT NULL
) STRICT;
CREATE INDEX print_document_audit_document ON print_document_audit(print_document_id, id);

CREATE TRIGGER lock_requests_ci AFTER INSERT ON lock_requests BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('lock_request', NEW.uuid, 'create'); END;
CREATE TRIGGER lock_requests_cd AFTER DELETE ON lock_requests BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('lock_request', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('lock_request', OLD.uuid, last_insert_rowid()); END;

CREATE TRIGGER assignments_ci AFTER INSERT ON assignments BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('assignment', NEW.uuid, 'create'); END;
CREATE TRIGGER assignments_cu AFTER UPDATE ON assignments BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('assignment', NEW.uuid, 'update'); END;
CREATE TRIGGER assignments_cd AFTER DELETE ON assignments BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('assignment', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('assignment', OLD.uuid, last_insert_rowid()); END;

CREATE TRIGGER note_comments_ci AFTER INSERT ON note_comments BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('note_comment', NEW.uuid, 'create'); END;
CREATE TRIGGER note_comments_cd AFTER DELETE ON note_comments BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('note_comment', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('note_comment', OLD.uuid, last_insert_rowid()); END;

CREATE TRIGGER assignment_comments_ci AFTER INSERT ON assignment_comments BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('assignment_comment', NEW.uuid, 'create'); END;
CREATE TRIGGER assignment_comments_cd AFTER DELETE ON assignment_comments BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('assignment_comment', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('assignment_comment', OLD.uuid, last_insert_rowid()); END;

CREATE TRIGGER workflows_ci AFTER INSERT ON workflows BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('workflow', NEW.uuid, 'create'); END;
CREATE TRIGGER workflows_cu AFTER UPDATE ON workflows BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('workflow', NEW.uuid, 'update'); END;
CREATE TRIGGER workflow_sections_ci AFTER INSERT ON workflow_sections BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('workflow_section', NEW.uuid, 'create'); END;
CREATE TRIGGER issues_ci AFTER INSERT ON issues BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('issue', NEW.uuid, 'create'); END;
CREATE TRIGGER issues_cu AFTER UPDATE ON issues BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('issue', NEW.uuid, 'update'); END;

CREATE TRIGGER exports_ci AFTER INSERT ON exports BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('export', NEW.uuid, 'create'); END;
CREATE TRIGGER exports_cu AFTER UPDATE ON exports BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('export', NEW.uuid, 'update'); END;
CREATE TRIGGER exports_cd AFTER DELETE ON exports BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('export', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('export', OLD.uuid, last_insert_rowid()); END;

CREATE TRIGGER print_documents_ci AFTER INSERT ON print_documents BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('print_document', NEW.uuid, 'create'); END;
CREATE TRIGGER print_documents_cu AFTER UPDATE ON print_documents BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('print_document', NEW.uuid, 'update'); END;
CREATE TRIGGER print_documents_cd AFTER DELETE ON print_documents BEGIN INSERT INTO change_log(record_type, uuid, operation) VALUES ('print_document', OLD.uuid, 'delete'); INSERT OR REPLACE INTO tombstones(record_type, uuid, seq) VALUES ('print_document', OLD.uuid, last_insert_rowid()); END;
