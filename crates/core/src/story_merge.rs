//! A story edited from an older version, merged onto the version it has now: a save or a draft whose writer started before someone else saved.
//!
//! The merge is sync's own (`merge::fields`): a field changed on one side
//! takes that side, the body and abstract merge paragraph by paragraph and
//! word by word, and only the same words changed differently are a
//! conflict. This module reads the three sides from the store and turns
//! them into the merge's fields and back; it knows nothing of HTTP or of
//! who may save.

use crate::db::{OptionalExtension as _, Transaction, params};
use serde_json::Value;

use crate::error::Result;
use copydesk_text::merge::fields::{self, FieldConflict, Fields};

/// What a person edits in a story, as one side of the merge. Authors and
/// tags are row ids in byline order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StorySide {
    pub title: String,
    pub slug: String,
    pub content_type: String,
    pub weight: i64,
    pub state: i64,
    pub abstract_text: String,
    pub abstract_raw: String,
    pub body: String,
    pub body_raw: String,
    pub published_at: Option<String>,
    pub dominant_attachment_id: Option<i64>,
    pub authors: Vec<i64>,
    pub tags: Vec<i64>,
}

/// The rich-text fields and their Draft.js raw twins, as sync names them.
const RICH_TEXT: [(&str, &str); 2] = [("content", "content_raw"), ("abstract", "abstract_raw")];

fn text(value: &str) -> Value {
    Value::String(value.to_owned())
}

fn ids(list: &[i64]) -> Value {
    Value::Array(
        list.iter()
            .map(|id| Value::String(id.to_string()))
            .collect(),
    )
}

fn to_fields(side: &StorySide) -> Fields {
    let mut f = Fields::new();
    f.insert("title".into(), text(&side.title));
    f.insert("slug".into(), text(&side.slug));
    f.insert("type".into(), text(&side.content_type));
    f.insert("weight".into(), text(&side.weight.to_string()));
    f.insert("state".into(), text(&side.state.to_string()));
    f.insert("abstract".into(), text(&side.abstract_text));
    f.insert("abstract_raw".into(), text(&side.abstract_raw));
    f.insert("content".into(), text(&side.body));
    f.insert("content_raw".into(), text(&side.body_raw));
    f.insert(
        "published_at".into(),
        text(side.published_at.as_deref().unwrap_or("")),
    );
    f.insert(
        "dominant_attachment".into(),
        text(
            &side
                .dominant_attachment_id
                .map(|id| id.to_string())
                .unwrap_or_default(),
        ),
    );
    f.insert("authors".into(), ids(&side.authors));
    f.insert("tags".into(), ids(&side.tags));
    f
}

/// The merged fields back as a side; a field the merge did not write keeps `like`'s value.
fn from_fields(merged: &Fields, like: &StorySide) -> StorySide {
    let text = |name: &str, or: &str| {
        merged
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or(or)
            .to_owned()
    };
    let number = |name: &str, or: i64| {
        merged
            .get(name)
            .and_then(Value::as_str)
            .and_then(|s| s.parse().ok())
            .unwrap_or(or)
    };
    let optional = |name: &str| Some(text(name, "")).filter(|s| !s.is_empty());
    let list = |name: &str, or: &[i64]| match merged.get(name) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| item.as_str()?.parse().ok())
            .collect(),
        _ => or.to_vec(),
    };
    StorySide {
        title: text("title", &like.title),
        slug: text("slug", &like.slug),
        content_type: text("type", &like.content_type),
        weight: number("weight", like.weight),
        state: number("state", like.state),
        abstract_text: text("abstract", &like.abstract_text),
        abstract_raw: text("abstract_raw", &like.abstract_raw),
        body: text("content", &like.body),
        body_raw: text("content_raw", &like.body_raw),
        published_at: optional("published_at"),
        dominant_attachment_id: optional("dominant_attachment").and_then(|id| id.parse().ok()),
        authors: list("authors", &like.authors),
        tags: list("tags", &like.tags),
    }
}

/// Merges `mine` and `theirs`, both edited from `base`: the merged story,
/// or the conflicts where both changed the same thing differently.
pub fn merge(
    base: &StorySide,
    mine: &StorySide,
    theirs: &StorySide,
) -> std::result::Result<StorySide, Vec<FieldConflict>> {
    let (merged, conflicts) = fields::three_way(
        &RICH_TEXT,
        &to_fields(base),
        &to_fields(mine),
        &to_fields(theirs),
    );
    if conflicts.is_empty() {
        Ok(from_fields(&merged, theirs))
    } else {
        Err(conflicts)
    }
}

/// Like [`merge`], but always gives a merged story: where both changed the
/// same words, theirs stays in it and the conflict lists mine.
pub fn merge_keeping_theirs(
    base: &StorySide,
    mine: &StorySide,
    theirs: &StorySide,
) -> (StorySide, Vec<FieldConflict>) {
    let (merged, conflicts) = fields::three_way(
        &RICH_TEXT,
        &to_fields(base),
        &to_fields(mine),
        &to_fields(theirs),
    );
    (from_fields(&merged, theirs), conflicts)
}

/// The conflicts in words, for a person: "the title; paragraph 2 of the body".
pub fn conflicts_in_words(conflicts: &[FieldConflict]) -> String {
    conflicts
        .iter()
        .map(|c| {
            let field = match c.field.as_str() {
                "content" => "the body",
                "abstract" => "the abstract",
                "title" => "the headline",
                "dominant_attachment" => "the lead photo",
                "published_at" => "the publication time",
                other => other,
            };
            match &c.block {
                Some(place) => format!("paragraph {} of {field}", place.position + 1),
                None => field.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn linked(tx: &Transaction<'_>, sql: &str, id: i64) -> Result<Vec<i64>> {
    let rows = tx
        .prepare_cached(sql)?
        .query_map([id], |row| row.get(0))?
        .collect::<std::result::Result<_, _>>()?;
    Ok(rows)
}

/// The story as version `version` of item `content_id` held it; `None` when that version is not kept.
pub fn version_side(
    tx: &Transaction<'_>,
    content_id: i64,
    version: i64,
) -> Result<Option<StorySide>> {
    let row = tx
        .prepare_cached(
            "SELECT id, title, slug, type, weight, state, abstract, abstract_raw, content, content_raw, published_at,
             dominant_attachment_id FROM versions WHERE content_id = ?1 AND version = ?2",
        )?
        .query_row(params![content_id, version], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                StorySide {
                    title: row.get(1)?,
                    slug: row.get(2)?,
                    content_type: row.get(3)?,
                    weight: row.get(4)?,
                    state: row.get(5)?,
                    abstract_text: row.get(6)?,
                    abstract_raw: row.get(7)?,
                    body: row.get(8)?,
                    body_raw: row.get(9)?,
                    published_at: row.get(10)?,
                    dominant_attachment_id: row.get(11)?,
                    authors: Vec::new(),
                    tags: Vec::new(),
                },
            ))
        })
        .optional()?;
    let Some((version_id, mut side)) = row else {
        return Ok(None);
    };
    side.authors = linked(
        tx,
        "SELECT author_id FROM version_authors WHERE version_id = +?1 ORDER BY position",
        version_id,
    )?;
    side.tags = linked(
        tx,
        "SELECT tag_id FROM version_tags WHERE version_id = +?1 ORDER BY position",
        version_id,
    )?;
    Ok(Some(side))
}

/// The story as the item holds it now.
pub fn current_side(tx: &Transaction<'_>, content_id: i64) -> Result<StorySide> {
    let mut side = tx
        .prepare_cached(
            "SELECT title, slug, type, weight, state, abstract, abstract_raw, content, content_raw, published_at,
             dominant_attachment_id FROM content WHERE id = ?1",
        )?
        .query_row([content_id], |row| {
            Ok(StorySide {
                title: row.get(0)?,
                slug: row.get(1)?,
                content_type: row.get(2)?,
                weight: row.get(3)?,
                state: row.get(4)?,
                abstract_text: row.get(5)?,
                abstract_raw: row.get(6)?,
                body: row.get(7)?,
                body_raw: row.get(8)?,
                published_at: row.get(9)?,
                dominant_attachment_id: row.get(10)?,
                authors: Vec::new(),
                tags: Vec::new(),
            })
        })?;
    (side.authors, side.tags) = current_links(tx, content_id)?;
    Ok(side)
}

/// The item's authors and tags now, as row ids in their order.
pub fn current_links(tx: &Transaction<'_>, content_id: i64) -> Result<(Vec<i64>, Vec<i64>)> {
    Ok((
        linked(
            tx,
            "SELECT author_id FROM content_authors WHERE content_id = +?1 ORDER BY position",
            content_id,
        )?,
        linked(
            tx,
            "SELECT tag_id FROM content_tags WHERE content_id = +?1 ORDER BY position",
            content_id,
        )?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn story(title: &str, body: &str, authors: &[i64]) -> StorySide {
        StorySide {
            title: title.into(),
            slug: "s".into(),
            content_type: "article".into(),
            body: body.into(),
            authors: authors.to_vec(),
            ..StorySide::default()
        }
    }

    #[test]
    fn the_headline_one_changed_and_the_body_the_other_changed_are_both_kept() {
        let base = story("Old", "<p>One.</p><p>Two.</p>", &[1]);
        let theirs = story("New headline", "<p>One.</p><p>Two.</p>", &[1]);
        let mine = story("Old", "<p>One.</p><p>Two, longer.</p>", &[1, 2]);
        let merged = merge(&base, &mine, &theirs).expect("no conflict");
        assert_eq!(merged.title, "New headline");
        assert_eq!(merged.body, "<p>One.</p><p>Two, longer.</p>");
        assert_eq!(merged.authors, vec![1, 2]);
    }

    #[test]
    fn the_same_words_changed_differently_are_a_conflict_named_in_words() {
        let base = story("Old", "<p>Rates rose 6%.</p><p>Two.</p>", &[]);
        let theirs = story("Theirs", "<p>Rates rose 7%.</p><p>Two.</p>", &[]);
        let mine = story("Mine", "<p>Rates rose 8%.</p><p>Two.</p>", &[]);
        let conflicts = merge(&base, &mine, &theirs).expect_err("conflicts");
        assert_eq!(
            conflicts_in_words(&conflicts),
            "paragraph 1 of the body; the headline"
        );
        let (kept, listed) = merge_keeping_theirs(&base, &mine, &theirs);
        assert_eq!(kept.title, "Theirs");
        assert!(kept.body.contains("7%"));
        assert_eq!(listed.len(), 2);
    }

    proptest! {
        /// A save that changed nothing since its base never changes what
        /// someone else saved, and a save onto an unchanged story is itself.
        #[test]
        fn an_unchanged_side_gives_the_other(
            title in "[a-z ]{0,12}",
            words in proptest::collection::vec("[a-z]{1,6}", 1..8),
            other in proptest::collection::vec("[a-z]{1,6}", 1..8),
            authors in proptest::collection::vec(1i64..5, 0..3),
        ) {
            let base = story("base", &format!("<p>{}</p>", words.join(" ")), &[]);
            let changed = story(&title, &format!("<p>{}</p>", other.join(" ")), &authors);
            let kept = merge(&base, &base, &changed).expect("nothing to conflict");
            prop_assert_eq!(&kept.title, &changed.title);
            prop_assert_eq!(&kept.body, &changed.body);
            prop_assert_eq!(&kept.authors, &changed.authors);
            let taken = merge(&base, &changed, &base).expect("nothing to conflict");
            prop_assert_eq!(&taken.title, &changed.title);
            prop_assert_eq!(&taken.body, &changed.body);
            prop_assert_eq!(&taken.authors, &changed.authors);
        }
    }
}
