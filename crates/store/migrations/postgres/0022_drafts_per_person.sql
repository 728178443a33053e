-- A draft is one person's: GET /v3/draft answers the caller's own, and the
-- editor tells whose unsaved text is in a story.
--
-- fields: the rest of the form the draft was typed in (headline, abstract,
-- slug, authors, tags, URLs, lead photo, the published box), as a JSON
-- object; NULL for a draft of the body alone, as every draft before this.
-- saved: its writer saved a version of the item since (1), so it is no
-- longer anyone's unsaved text.
ALTER TABLE drafts ADD COLUMN fields TEXT;
ALTER TABLE drafts ADD COLUMN saved BIGINT NOT NULL DEFAULT 0;
CREATE INDEX drafts_content_user ON drafts(content_id, user_id, id);

-- Drafts from before: saved where their writer saved a version of the item
-- at or after the draft's time.
UPDATE drafts SET saved = 1 WHERE EXISTS (
    SELECT 1 FROM versions v
    WHERE v.content_id = drafts.content_id AND v.user_id = drafts.user_id AND v.created_at >= drafts.created_at
);
