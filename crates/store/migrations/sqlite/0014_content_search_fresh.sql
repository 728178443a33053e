-- An item queued for indexing because it was just made has no row in the
-- search index yet: it is inserted, not replaced. A replace in a contentless
-- FTS5 index first writes a delete, which flushes the index's in-memory
-- segment each time; an import of many items then wrote one tiny segment
-- per item, and every search had to read them all.
ALTER TABLE content_search_pending ADD COLUMN fresh INTEGER NOT NULL DEFAULT 0;

DROP TRIGGER content_search_insert;
CREATE TRIGGER content_search_insert AFTER INSERT ON content BEGIN
    INSERT OR IGNORE INTO content_search_pending (content_id, fresh) VALUES (NEW.id, 1);
END;

-- Whatever is still queued now was never indexed (the store empties the
-- queue in the same transaction as it indexes): insert those too.
UPDATE content_search_pending SET fresh = 1;
