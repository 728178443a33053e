-- SQLite's 0025 adds a headline-only index and a list of long words; here
-- the headline fields already have a tsvector of their own
-- (content_search.headline) and PostgreSQL's GIN index answers a word's
-- start without merging lists. What changes is the tsvector itself: each
-- field's words now start one position after the previous field's end, so
-- that typed words match as a phrase only within one field, as FTS5
-- matches a phrase within one column. Every item is queued to be indexed
-- again.
DELETE FROM content_search_pending;
INSERT INTO content_search_pending (content_id, fresh) SELECT id, 0 FROM content;
