-- The search index again, with a hidden column, `filters`: a term for each
-- of a story's tags (`0tag<id>`) and authors (`0author<id>`). A search within
-- a tag or by an author matches that term along with the words, so the index
-- intersects them as it does words; before, every hit of the words was looked
-- up in the story's tags, thousands of lookups for a common word. Typed words
-- are matched in the other columns only, so a word never matches a filter
-- term.
--
-- The index is built again from the stored items: every item is queued, and
-- the store indexes the queue when it opens the database, in batches.
DROP TABLE content_search;
CREATE VIRTUAL TABLE content_search USING fts5(
    title, abstract, body, slug, authors, tags, filters,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3 4 5'
);

DELETE FROM content_search_pending;
INSERT INTO content_search_pending (content_id, fresh) SELECT id, 1 FROM content;
