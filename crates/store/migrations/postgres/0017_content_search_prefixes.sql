-- Nothing to do on PostgreSQL. SQLite's 0017 builds its FTS5 index again
-- with prefix indexes for the first 4 and 5 characters of every word, and
-- queues every item to be indexed again. Here content_search (0013) is a
-- table of tsvectors under GIN indexes, which answer a prefix (`word:*`) of
-- any length without a prefix index of their own, so its rows stay valid
-- and nothing is rebuilt. (0018 empties the index and queues every item
-- again, as SQLite's 0018 does, so the two engines agree after it.)
SELECT 1;
