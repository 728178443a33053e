-- The search index again, with prefix indexes for the first 4 and 5
-- characters of every word as well as 2 and 3. The word still being typed
-- is searched as a prefix: without its own prefix index, a four- or
-- five-letter start is answered by merging the doclists of every word that
-- begins with it (hundreds of thousands of stories for a common start over
-- an archive of a million, tens of milliseconds a search). A longer start
-- matches few words, so merging them stays cheap.
--
-- The index is built again from the stored items: every item is queued, and
-- the store indexes the queue when it opens the database, in batches.
DROP TABLE content_search;
CREATE VIRTUAL TABLE content_search USING fts5(
    title, abstract, body, slug, authors, tags,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3 4 5'
);

DELETE FROM content_search_pending;
INSERT INTO content_search_pending (content_id, fresh) SELECT id, 1 FROM content;
