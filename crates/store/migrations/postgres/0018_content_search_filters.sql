-- The search index gains `filters`, the terms SQLite's 0018 keeps in a
-- hidden FTS5 column: one for each of a story's tags (`0tag<id>`) and authors
-- (`0author<id>`). A search within a tag or by an author matches that term
-- along with the words, so the index intersects them as it does words. Here
-- it is a TEXT[] column under a GIN index (`filters @> ARRAY['0tag7']`), apart
-- from `document`, so a typed word never matches a filter term.
--
-- SQLite builds its index again (drop, create); here the column and its index
-- are added with ALTER TABLE and CREATE INDEX, and, as there, the index is
-- emptied and every item queued as fresh (no row in the index yet): the
-- store indexes the queue when it opens the database, in batches.
ALTER TABLE content_search ADD COLUMN filters TEXT[] NOT NULL DEFAULT '{}';
CREATE INDEX content_search_filters ON content_search USING GIN (filters);

DELETE FROM content_search;
DELETE FROM content_search_pending;
INSERT INTO content_search_pending (content_id, fresh) SELECT id, 1 FROM content;
