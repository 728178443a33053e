-- Sync carries every record a journalist or the print desk writes:
-- containers, assignments, workflows, issues, print documents, attachments,
-- note and assignment comments and drafts join authors, tags and content in
-- the outbox.

DROP TRIGGER outbox_from_change_log;
CREATE TRIGGER outbox_from_change_log AFTER INSERT ON change_log
WHEN NEW.record_type IN ('author', 'tag', 'content', 'assignment', 'container', 'workflow', 'issue',
                         'print_document', 'attachment', 'note_comment', 'assignment_comment', 'draft')
 AND EXISTS (SELECT 1 FROM sync_remote)
 AND NOT EXISTS (SELECT 1 FROM meta WHERE key = 'applying_remote')
BEGIN
    INSERT INTO outbox (record_type, uuid, operation) VALUES (NEW.record_type, NEW.uuid, NEW.operation);
END;
