-- A print document's tracking label as the print desk typed it (a path and a
-- file name, "2026-11-24/p02.indd"), kept beside the normalised label the
-- specification defines (punctuation removed), which stays the unique key.
-- Documents made before this keep an empty one: they show the normalised label.
-- The same on PostgreSQL as in SQLite's 0011.
ALTER TABLE print_documents ADD COLUMN tracking_path TEXT NOT NULL DEFAULT '';
