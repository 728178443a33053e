-- Nothing changes on PostgreSQL: SQLite's migration 0020 gives the FTS5
-- index's filter terms a first character no typed word holds, and here the
-- filter terms are a column of their own (`content_search.filters`, migration
-- 0018), which typed words are never matched against. The migration is kept
-- so that both engines' schemas carry the same numbers.
SELECT 1;
