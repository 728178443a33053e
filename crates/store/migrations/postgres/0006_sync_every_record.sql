-- Sync carries every record a journalist or the print desk writes:
-- containers, assignments, workflows, issues, print documents, attachments,
-- note and assignment comments and drafts join authors, tags and content in
-- the outbox.
--
-- On PostgreSQL, as in SQLite's 0006, the trigger is made again with the
-- longer list in its WHEN; its function (0005) is unchanged and still reads
-- the replica markers itself, since a WHEN may not hold a subquery here.

DROP TRIGGER outbox_from_change_log ON change_log;
CREATE TRIGGER outbox_from_change_log AFTER INSERT ON change_log FOR EACH ROW
WHEN (NEW.record_type IN ('author', 'tag', 'content', 'assignment', 'container', 'workflow', 'issue',
                          'print_document', 'attachment', 'note_comment', 'assignment_comment', 'draft'))
EXECUTE FUNCTION outbox_from_change_log();
