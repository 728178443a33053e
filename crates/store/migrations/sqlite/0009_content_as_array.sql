-- Keys for clients of the hosted service that read a single content item as
-- element 0 of an array (`key create --content-as-array`).
ALTER TABLE key_pairs ADD COLUMN content_as_array INTEGER NOT NULL DEFAULT 0 CHECK (content_as_array IN (0, 1));
