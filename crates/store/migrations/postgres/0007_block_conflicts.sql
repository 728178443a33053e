-- A conflict on one paragraph of a story's body or abstract: where the
-- paragraph stands, its Draft.js key, and the merged text around it. The
-- same on PostgreSQL as in SQLite's 0007 (the position is BIGINT).
ALTER TABLE sync_conflicts ADD COLUMN block_position BIGINT;
ALTER TABLE sync_conflicts ADD COLUMN block_key TEXT;
ALTER TABLE sync_conflicts ADD COLUMN block_before TEXT;
ALTER TABLE sync_conflicts ADD COLUMN block_after TEXT;
