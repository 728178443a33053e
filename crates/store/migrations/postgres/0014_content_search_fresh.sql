-- An item queued for indexing because it was just made has no row in the
-- search index yet: it is inserted, not replaced. (On SQLite a replace in a
-- contentless FTS5 index first writes a delete, which flushed the index's
-- in-memory segment once per item of an import.) PostgreSQL keeps the same
-- queue, so the flag is here too and means the same: the item has no row
-- in content_search yet.
--
-- As SQLite's 0014: the column, the insert trigger made again to queue the
-- item as fresh, and every queued item marked fresh. content_search_queue()
-- (0013) learns the 'fresh:<row field>' argument for it.
ALTER TABLE content_search_pending ADD COLUMN fresh BIGINT NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION content_search_queue() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    arg    TEXT;
    kind   TEXT;
    source TEXT;
    target BIGINT;
BEGIN
    FOREACH arg IN ARRAY TG_ARGV LOOP
        kind := split_part(arg, ':', 1);
        source := split_part(arg, ':', 2);
        IF source = 'NEW.id' THEN target := NEW.id;
        ELSIF source = 'OLD.id' THEN target := OLD.id;
        ELSIF source = 'NEW.content_id' THEN target := NEW.content_id;
        ELSIF source = 'OLD.content_id' THEN target := OLD.content_id;
        ELSE RAISE EXCEPTION 'content_search_queue: unknown source %', arg;
        END IF;
        IF kind = 'item' THEN
            INSERT INTO content_search_pending (content_id) VALUES (target) ON CONFLICT DO NOTHING;
        ELSIF kind = 'fresh' THEN
            INSERT INTO content_search_pending (content_id, fresh) VALUES (target, 1) ON CONFLICT DO NOTHING;
        ELSIF kind = 'author' THEN
            INSERT INTO content_search_pending (content_id)
                SELECT content_id FROM content_authors WHERE author_id = target ON CONFLICT DO NOTHING;
        ELSIF kind = 'tag' THEN
            INSERT INTO content_search_pending (content_id)
                SELECT content_id FROM content_tags WHERE tag_id = target ON CONFLICT DO NOTHING;
        ELSE
            RAISE EXCEPTION 'content_search_queue: unknown kind %', arg;
        END IF;
    END LOOP;
    RETURN NULL;
END;
$$;

DROP TRIGGER content_search_insert ON content;
CREATE TRIGGER content_search_insert AFTER INSERT ON content
    FOR EACH ROW EXECUTE FUNCTION content_search_queue('fresh:NEW.id');

-- Whatever is still queued now was never indexed (the store empties the
-- queue in the same transaction as it indexes): insert those too.
UPDATE content_search_pending SET fresh = 1;
