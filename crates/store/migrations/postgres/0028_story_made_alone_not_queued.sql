-- A create that makes one story and nothing else (no authors, tags, URLs,
-- file or lead photo) renders and indexes it itself, from the rows it just
-- wrote, and writes its kept answer and search row with its commit
-- (`Store::write_making_story` and `Transaction::declare_made_alone`).
-- Its transaction begins with `SET LOCAL copydesk.story_made_alone = 'on'`,
-- and the queue triggers of its rows (the story, its first version, its
-- audit rows) stand aside: a trigger's WHEN is evaluated without running
-- its PL/pgSQL function, so the create makes four calls fewer (five when
-- published at once), and the queues never hold the story. The setting
-- ends with the transaction. Every other write queues as before; debug
-- builds check at each such commit that the transaction queued nothing
-- and wrote no row of another story.
DROP TRIGGER content_rendered_content_insert ON content;
CREATE TRIGGER content_rendered_content_insert AFTER INSERT ON content FOR EACH ROW
    WHEN (current_setting('copydesk.story_made_alone', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION content_rendered_queue('queue:NEW.id');
DROP TRIGGER content_search_insert ON content;
CREATE TRIGGER content_search_insert AFTER INSERT ON content FOR EACH ROW
    WHEN (current_setting('copydesk.story_made_alone', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION content_search_queue('fresh:NEW.id');
DROP TRIGGER content_rendered_versions_insert ON versions;
CREATE TRIGGER content_rendered_versions_insert AFTER INSERT ON versions FOR EACH ROW
    WHEN (current_setting('copydesk.story_made_alone', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION content_rendered_queue('item:NEW.content_id');
DROP TRIGGER content_rendered_audit_insert ON audit;
CREATE TRIGGER content_rendered_audit_insert AFTER INSERT ON audit FOR EACH ROW
    WHEN (current_setting('copydesk.story_made_alone', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION content_rendered_queue('item:NEW.content_id');
