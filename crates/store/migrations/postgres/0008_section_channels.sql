-- Whether a workflow section is for print, for the web, or both, as the
-- hosted service's sections say (a print plugin keeps only print sections).
-- Sections made before this knew no such thing: both. The same on
-- PostgreSQL as in SQLite's 0008: BIGINT flags holding 0 or 1.
ALTER TABLE workflow_sections ADD COLUMN is_print BIGINT NOT NULL DEFAULT 1 CHECK (is_print IN (0, 1));
ALTER TABLE workflow_sections ADD COLUMN is_web BIGINT NOT NULL DEFAULT 1 CHECK (is_web IN (0, 1));
