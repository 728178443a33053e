-- Keys for clients of the hosted service that read a single content item as
-- element 0 of an array (`key create --content-as-array`). The same on
-- PostgreSQL as in SQLite's 0009: a BIGINT flag holding 0 or 1.
ALTER TABLE key_pairs ADD COLUMN content_as_array BIGINT NOT NULL DEFAULT 0 CHECK (content_as_array IN (0, 1));
