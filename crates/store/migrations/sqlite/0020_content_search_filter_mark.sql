-- The search index again, its filter terms starting with a private-use
-- character (U+E000) in place of `0`: `<U+E000>tag<id>` and
-- `<U+E000>author<id>`. That character is taken out of every other column's
-- text and out of every typed word, so no typed word or half-typed start can
-- match a filter term, and a search no longer restricts its words to the
-- other columns: FTS5 then steps through each word's list without checking
-- every entry's column, a fifth of a three-word search's time over a million
-- stories whose index is in many segments.
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
