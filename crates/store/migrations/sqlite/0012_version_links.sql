-- The authors and tags an item had when each of its versions was saved, so
-- that the versions screen can compare them and a restore can bring them back.
--
-- They are link tables shaped like content_authors and content_tags rather
-- than a JSON copy in the versions row: a version's authors and tags are then
-- read with the same indexed join the item's own are (one lookup by
-- version_id, no parsing), they embed each author and tag as it is now (the
-- shape the content item shows), and a deleted author or tag leaves every
-- version as it leaves the item, through the same cascade.
CREATE TABLE version_authors (
    version_id INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
    author_id  INTEGER NOT NULL REFERENCES authors(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    PRIMARY KEY (version_id, author_id)
) STRICT;
CREATE INDEX version_authors_author ON version_authors(author_id);

CREATE TABLE version_tags (
    version_id INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
    tag_id     INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    PRIMARY KEY (version_id, tag_id)
) STRICT;
CREATE INDEX version_tags_tag ON version_tags(tag_id);

-- Versions saved before this migration get the item's links of today:
-- nothing older was stored, so nothing older is known.
INSERT INTO version_authors (version_id, author_id, position)
SELECT v.id, ca.author_id, ca.position
FROM versions v JOIN content_authors ca ON ca.content_id = v.content_id;

INSERT INTO version_tags (version_id, tag_id, position)
SELECT v.id, ct.tag_id, ct.position
FROM versions v JOIN content_tags ct ON ct.content_id = v.content_id;
