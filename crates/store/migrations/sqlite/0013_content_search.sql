-- Full-text search over content (SQLite FTS5), for archives of a million
-- stories: title, abstract, body text (tags stripped), slug, author names and
-- tag names, diacritics folded ("cafe" finds "café"), with prefix indexes for
-- the word still being typed.
--
-- The index is contentless (`content=''`): it keeps only the index, not a
-- second copy of every story, which matters at a million stories; snippets are
-- made by the client from the item it gets. `contentless_delete=1` lets a row
-- be replaced and deleted.
--
-- Which items need reindexing is recorded by triggers in
-- `content_search_pending`, whatever writes them (the API, a restore, sync);
-- the store reindexes them before the same transaction commits
-- (`search_index::flush_pending`), so a search sees every committed edit and
-- delete at once, and an item written several times in one transaction is
-- indexed once. The rows below queue every existing item: the store indexes
-- them when it opens the database, in batches.
CREATE VIRTUAL TABLE content_search USING fts5(
    title, abstract, body, slug, authors, tags,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
);

CREATE TABLE content_search_pending (
    content_id INTEGER PRIMARY KEY
) STRICT;

CREATE TRIGGER content_search_insert AFTER INSERT ON content BEGIN
    INSERT OR IGNORE INTO content_search_pending (content_id) VALUES (NEW.id);
END;
CREATE TRIGGER content_search_update AFTER UPDATE OF title, abstract, content, slug ON content BEGIN
    INSERT OR IGNORE INTO content_search_pending (content_id) VALUES (NEW.id);
END;
CREATE TRIGGER content_search_delete AFTER DELETE ON content BEGIN
    INSERT OR IGNORE INTO content_search_pending (content_id) VALUES (OLD.id);
END;
CREATE TRIGGER content_search_author_linked AFTER INSERT ON content_authors BEGIN
    INSERT OR IGNORE INTO content_search_pending (content_id) VALUES (NEW.content_id);
END;
CREATE TRIGGER content_search_author_unlinked AFTER DELETE ON content_authors BEGIN
    INSERT OR IGNORE INTO content_search_pending (content_id) VALUES (OLD.content_id);
END;
CREATE TRIGGER content_search_tag_linked AFTER INSERT ON content_tags BEGIN
    INSERT OR IGNORE INTO content_search_pending (content_id) VALUES (NEW.content_id);
END;
CREATE TRIGGER content_search_tag_unlinked AFTER DELETE ON content_tags BEGIN
    INSERT OR IGNORE INTO content_search_pending (content_id) VALUES (OLD.content_id);
END;
CREATE TRIGGER content_search_author_renamed AFTER UPDATE OF name ON authors BEGIN
    INSERT OR IGNORE INTO content_search_pending (content_id)
        SELECT content_id FROM content_authors WHERE author_id = NEW.id;
END;
CREATE TRIGGER content_search_tag_renamed AFTER UPDATE OF name ON tags BEGIN
    INSERT OR IGNORE INTO content_search_pending (content_id)
        SELECT content_id FROM content_tags WHERE tag_id = NEW.id;
END;

INSERT INTO content_search_pending (content_id) SELECT id FROM content;
