-- Whether a workflow section is for print, for the web, or both, as the
-- hosted service's sections say (a print plugin keeps only print sections).
-- Sections made before this knew no such thing: both.
ALTER TABLE workflow_sections ADD COLUMN is_print INTEGER NOT NULL DEFAULT 1 CHECK (is_print IN (0, 1));
ALTER TABLE workflow_sections ADD COLUMN is_web INTEGER NOT NULL DEFAULT 1 CHECK (is_web IN (0, 1));
