-- A list of ids (`SELECT value FROM json_each(?1)`) holds a page's ids or a
-- write's few items, but a set-returning function is planned as a thousand
-- rows unless it says otherwise. Against a table of a few thousand rows the
-- cached generic plan then hashed the whole table for every statement: each
-- create read all of `content_rendered`, `content`, `versions` and `audit`
-- (12 to 17 ms a create at 3,000 stories, and growing with the archive). At
-- twenty rows the planner looks each id up in its index, as SQLite does.
ALTER FUNCTION json_each(TEXT) ROWS 20;
