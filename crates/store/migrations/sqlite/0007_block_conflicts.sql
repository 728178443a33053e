-- A conflict on one paragraph of a story's body or abstract: where the
-- paragraph stands, its Draft.js key, and the merged text around it.
ALTER TABLE sync_conflicts ADD COLUMN block_position INTEGER;
ALTER TABLE sync_conflicts ADD COLUMN block_key TEXT;
ALTER TABLE sync_conflicts ADD COLUMN block_before TEXT;
ALTER TABLE sync_conflicts ADD COLUMN block_after TEXT;
