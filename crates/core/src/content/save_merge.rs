//! A save whose writer started from an older version, merged onto the item as it is now (see `story_merge`).

use crate::db::Transaction;

use super::Editable;
use crate::error::{CoreError, Result};
use crate::story_merge::{self, StorySide};

impl Editable {
    /// The side of a save's merge this state of the item is, with its authors and tags.
    fn side(&self, authors: Vec<i64>, tags: Vec<i64>) -> StorySide {
        StorySide {
            title: self.title.clone(),
            slug: self.slug.clone(),
            content_type: self.content_type.clone(),
            weight: self.weight,
            state: self.state,
            abstract_text: self.abstract_text.clone(),
            abstract_raw: self.abstract_raw.clone(),
            body: self.body.clone(),
            body_raw: self.body_raw.clone(),
            published_at: self.published_at.clone(),
            dominant_attachment_id: self.dominant_attachment_id,
            authors,
            tags,
        }
    }

    fn take(&mut self, merged: StorySide) {
        self.title = merged.title;
        self.slug = merged.slug;
        self.content_type = merged.content_type;
        self.weight = merged.weight;
        self.state = merged.state;
        self.abstract_text = merged.abstract_text;
        self.abstract_raw = merged.abstract_raw;
        self.body = merged.body;
        self.body_raw = merged.body_raw;
        self.published_at = merged.published_at;
        self.dominant_attachment_id = merged.dominant_attachment_id;
    }
}

/// Which raw twins a save sent with its text.
#[derive(Debug, Clone, Copy)]
pub(super) struct SentRaw {
    pub(super) abstract_raw: bool,
    pub(super) body_raw: bool,
}

/// A save whose writer started from `base_version` while the item is at
/// `current` now: merges what they changed (`after`, with the authors and
/// tags they sent) onto what the item holds (`before`), as sync merges a
/// pulled change, and leaves the merged story in `after` and the links.
/// Where both changed the same words, nothing is saved: the error says
/// where, and the writer's text is theirs to merge (through a draft, whose
/// merge shows each paragraph) before saving again.
pub(super) fn merge_onto_current(
    tx: &Transaction<'_>,
    (content_id, current, base_version): (i64, i64, i64),
    before: &Editable,
    (after, raw_sent): (&mut Editable, SentRaw),
    (authors, tags): (&mut Option<Vec<i64>>, &mut Option<Vec<i64>>),
) -> Result<()> {
    if base_version < 1 || base_version > current {
        return Err(CoreError::invalid_field(
            "base_version",
            format!(
                "the item has versions 1 to {current}; base_version {base_version} is none of them"
            ),
        ));
    }
    let base = story_merge::version_side(tx, content_id, base_version)?.ok_or_else(|| CoreError::Conflict {
        message: format!(
            "version {base_version}, which this save is based on, is no longer kept, so it cannot be merged with version {current}; nothing was saved"
        ),
        field: Some("base_version".into()),
    })?;
    // Text sent without its raw twin: the raw of whichever side holds that
    // text (the base's, or what the item holds now), else none, so that the
    // raw never tells another text than the one sent.
    let twin = |sent: &str, base_text: &str, base_raw: &str, now_text: &str, now_raw: &str| {
        if sent == base_text {
            base_raw.to_owned()
        } else if sent == now_text {
            now_raw.to_owned()
        } else {
            String::new()
        }
    };
    if !raw_sent.abstract_raw {
        after.abstract_raw = twin(
            &after.abstract_text,
            &base.abstract_text,
            &base.abstract_raw,
            &before.abstract_text,
            &before.abstract_raw,
        );
    }
    if !raw_sent.body_raw {
        after.body_raw = twin(
            &after.body,
            &base.body,
            &base.body_raw,
            &before.body,
            &before.body_raw,
        );
    }
    let (now_authors, now_tags) = story_merge::current_links(tx, content_id)?;
    let theirs = before.side(now_authors.clone(), now_tags.clone());
    let mine = after.side(
        authors.clone().unwrap_or_else(|| now_authors.clone()),
        tags.clone().unwrap_or_else(|| now_tags.clone()),
    );
    let merged = story_merge::merge(&base, &mine, &theirs).map_err(|conflicts| CoreError::Conflict {
        message: format!(
            "version {current} was saved since version {base_version}, which this save is based on, and both changed the same words in {}; nothing was saved",
            story_merge::conflicts_in_words(&conflicts)
        ),
        field: conflicts.first().map(|c| if c.field == "dominant_attachment" { "dominantAttachment".to_owned() } else { c.field.clone() }),
    })?;
    *authors = (merged.authors != now_authors).then(|| merged.authors.clone());
    *tags = (merged.tags != now_tags).then(|| merged.tags.clone());
    after.take(merged);
    Ok(())
}
