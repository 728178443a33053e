-- What lets a search order its hits by relevance without reading all of
-- them (see search_index::relevance):
--
-- - content_headline_search, an FTS5 index of the headline fields alone
--   (title, standfirst, slug, byline, tags) and the filter terms. A common
--   word is in a few stories' headlines, and its list here holds only
--   those, so the headline hits come newest first without stepping through
--   every story that holds the word in its body, as a column filter on
--   content_search does.
-- - content_search_words, every word of six characters or more that the
--   index holds, folded as the index folds it (copydesk_terms). A word
--   still being typed is asked for as the few whole words it can be the
--   start of: FTS5 answers a start longer than its prefix indexes (five
--   characters) by merging the whole lists of those words first. A word no
--   story holds any more stays listed; it finds nothing.
--
-- Both indexes are built again from the stored items: every item is
-- queued, and the store indexes the queue when it opens the database, in
-- batches.
DROP TABLE content_search;
CREATE VIRTUAL TABLE content_search USING fts5(
    title, abstract, body, slug, authors, tags, filters,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3 4 5'
);
CREATE VIRTUAL TABLE content_headline_search USING fts5(
    title, abstract, slug, authors, tags, filters,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3 4 5'
);
CREATE TABLE content_search_words (
    word TEXT PRIMARY KEY
) WITHOUT ROWID;

DELETE FROM content_search_pending;
INSERT INTO content_search_pending (content_id, fresh) SELECT id, 1 FROM content;
