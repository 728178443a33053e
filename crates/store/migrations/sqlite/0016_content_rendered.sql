-- Each content item's answer, kept ready: the JSON a client reads, as the
-- HTTP layer renders it (`format` names the renderer and the namespace it
-- rendered under; a row of another format is not used). A read of one item
-- or of a page then reads stored text instead of a dozen tables.
--
-- A row is never stale: every change to anything an item's answer shows
-- deletes the row in the same transaction (the triggers below) and queues
-- the item; the write renders what it queued before it commits. An item
-- without a row is assembled from its tables, as before.
CREATE TABLE content_rendered (
    content_id INTEGER PRIMARY KEY REFERENCES content(id) ON DELETE CASCADE,
    format     TEXT NOT NULL,
    body       TEXT NOT NULL
) STRICT;

CREATE TABLE content_render_pending (
    content_id INTEGER PRIMARY KEY
) STRICT;

-- For the triggers that follow a lead photo to the stories leading with it.
CREATE INDEX content_dominant_attachment ON content(dominant_attachment_id)
    WHERE dominant_attachment_id IS NOT NULL;
CREATE INDEX lock_requests_user ON lock_requests(user_id);

CREATE TRIGGER content_rendered_content_insert AFTER INSERT ON content BEGIN
    INSERT OR IGNORE INTO content_render_pending (content_id) VALUES (NEW.id);
END;

CREATE TRIGGER content_rendered_content_update AFTER UPDATE ON content BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.id WHERE NEW.id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id IN (SELECT id FROM content WHERE dominant_attachment_id IN (SELECT id FROM attachments WHERE content_id = NEW.id));
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT id FROM content WHERE dominant_attachment_id IN (SELECT id FROM attachments WHERE content_id = NEW.id);
END;

CREATE TRIGGER content_rendered_content_authors_insert AFTER INSERT ON content_authors BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id IN (SELECT id FROM content WHERE dominant_attachment_id IN (SELECT id FROM attachments WHERE content_id = NEW.content_id));
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT id FROM content WHERE dominant_attachment_id IN (SELECT id FROM attachments WHERE content_id = NEW.content_id);
END;

CREATE TRIGGER content_rendered_content_authors_update AFTER UPDATE ON content_authors BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id IN (SELECT id FROM content WHERE dominant_attachment_id IN (SELECT id FROM attachments WHERE content_id = NEW.content_id));
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT id FROM content WHERE dominant_attachment_id IN (SELECT id FROM attachments WHERE content_id = NEW.content_id);
END;

CREATE TRIGGER content_rendered_content_authors_delete AFTER DELETE ON content_authors BEGIN
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id IN (SELECT id FROM content WHERE dominant_attachment_id IN (SELECT id FROM attachments WHERE content_id = OLD.content_id));
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT id FROM content WHERE dominant_attachment_id IN (SELECT id FROM attachments WHERE content_id = OLD.content_id);
END;

CREATE TRIGGER content_rendered_content_tags_insert AFTER INSERT ON content_tags BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_content_tags_update AFTER UPDATE ON content_tags BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_content_tags_delete AFTER DELETE ON content_tags BEGIN
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_content_urls_insert AFTER INSERT ON content_urls BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_content_urls_update AFTER UPDATE ON content_urls BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_content_urls_delete AFTER DELETE ON content_urls BEGIN
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_versions_insert AFTER INSERT ON versions BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_versions_update AFTER UPDATE ON versions BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_versions_delete AFTER DELETE ON versions BEGIN
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_audit_insert AFTER INSERT ON audit BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_audit_update AFTER UPDATE ON audit BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_audit_delete AFTER DELETE ON audit BEGIN
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_lock_requests_insert AFTER INSERT ON lock_requests BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_lock_requests_update AFTER UPDATE ON lock_requests BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_lock_requests_delete AFTER DELETE ON lock_requests BEGIN
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_exports_insert AFTER INSERT ON exports BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_exports_update AFTER UPDATE ON exports BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_exports_delete AFTER DELETE ON exports BEGIN
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_attachments_insert AFTER INSERT ON attachments BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id IN (SELECT id FROM content WHERE dominant_attachment_id = NEW.id);
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT id FROM content WHERE dominant_attachment_id = NEW.id;
END;

CREATE TRIGGER content_rendered_attachments_update AFTER UPDATE ON attachments BEGIN
    DELETE FROM content_rendered WHERE content_id = NEW.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT NEW.content_id WHERE NEW.content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id IN (SELECT id FROM content WHERE dominant_attachment_id = NEW.id);
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT id FROM content WHERE dominant_attachment_id = NEW.id;
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
END;

CREATE TRIGGER content_rendered_attachments_delete AFTER DELETE ON attachments BEGIN
    DELETE FROM content_rendered WHERE content_id = OLD.content_id;
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT OLD.content_id WHERE OLD.content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id IN (SELECT id FROM content WHERE dominant_attachment_id = OLD.id);
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT id FROM content WHERE dominant_attachment_id = OLD.id;
END;

CREATE TRIGGER content_rendered_authors_update AFTER UPDATE ON authors BEGIN
    DELETE FROM content_rendered WHERE content_id IN (SELECT content_id FROM content_authors WHERE author_id = NEW.id);
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT content_id FROM content_authors WHERE author_id = NEW.id;
    DELETE FROM content_rendered WHERE content_id IN (SELECT c.id FROM content c JOIN attachments a ON a.id = c.dominant_attachment_id JOIN content_authors ca ON ca.content_id = a.content_id WHERE ca.author_id = NEW.id);
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT c.id FROM content c JOIN attachments a ON a.id = c.dominant_attachment_id JOIN content_authors ca ON ca.content_id = a.content_id WHERE ca.author_id = NEW.id;
END;

CREATE TRIGGER content_rendered_tags_update AFTER UPDATE ON tags BEGIN
    DELETE FROM content_rendered WHERE content_id IN (SELECT content_id FROM content_tags WHERE tag_id = NEW.id);
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT content_id FROM content_tags WHERE tag_id = NEW.id;
END;

CREATE TRIGGER content_rendered_users_update AFTER UPDATE ON users BEGIN
    DELETE FROM content_rendered WHERE content_id IN (SELECT content_id FROM audit WHERE user_id = NEW.id);
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT content_id FROM audit WHERE user_id = NEW.id;
    DELETE FROM content_rendered WHERE content_id IN (SELECT content_id FROM lock_requests WHERE user_id = NEW.id AND content_id IS NOT NULL);
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT content_id FROM lock_requests WHERE user_id = NEW.id AND content_id IS NOT NULL;
    DELETE FROM content_rendered WHERE content_id IN (SELECT content_id FROM exports WHERE user_id = NEW.id OR locked_by = NEW.id);
    INSERT OR IGNORE INTO content_render_pending (content_id) SELECT content_id FROM exports WHERE user_id = NEW.id OR locked_by = NEW.id;
END;


-- Every item there is now waits for its first rendering.
INSERT INTO content_render_pending (content_id) SELECT id FROM content;
