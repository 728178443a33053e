//! Drafts: each person's autosaved state of an item (HTML plus Draft.js raw content, and the rest of the form), kept apart from versions.
//!
//! A draft is its writer's: two people typing in one story keep a draft
//! each, and neither is restored as the other's.

use crate::access::Action;
use crate::db::{OptionalExtension as _, Row, Transaction, params};
use crate::record_type::RecordType;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Cms;
use crate::access::Principal;
use crate::authors::AUTHORS;
use crate::clock;
use crate::content::CONTENT;
use crate::error::{CoreError, Result};
use crate::records::Table;
use crate::records::new_uuid;
use crate::srn::Srn;
use crate::story_merge::{self, StorySide};
use crate::tags::TAGS;
use crate::users::User;
use copydesk_text::draftjs;
use copydesk_text::merge::fields::FieldConflict;

/// The last draft of an item carried onto its current version: what the
/// editor reopens when someone saved a version since the draft was made.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedDraft {
    pub draft: Draft,
    /// The item's version now, which the merged text is based on.
    pub version: i64,
    pub body: String,
    pub body_raw: String,
    /// The draft's other fields merged likewise (those it held).
    pub fields: Option<DraftFields>,
    /// Fields, or paragraphs of the body and abstract, that the draft and the
    /// newer version changed in the same words: the newer version's wording
    /// is in the merged text, the draft's is here.
    pub conflicts: Vec<FieldConflict>,
}

/// How many drafts of one item each person keeps; older autosaves are dropped.
const KEPT_PER_PERSON: i64 = 20;

/// Most authors, tags or URLs a draft holds: a form's worth, not a bulk store.
const MOST_LISTED: usize = 1_000;

/// The rest of the editor's form, kept with a draft's body (a Copydesk
/// addition to the specification's draft): `None` is a field the draft
/// does not hold. Stored as this JSON object.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DraftFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slug: Option<String>,
    #[serde(default, rename = "abstract", skip_serializing_if = "Option::is_none")]
    pub abstract_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authors: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urls: Option<Vec<String>>,
    /// The lead photo: a media item's (or attachment's) UUID, `Some(None)` taken off.
    #[serde(
        default,
        rename = "dominantAttachment",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub dominant_attachment: Option<Option<String>>,
    /// The form's Published box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<bool>,
}

/// A field that is there, `null` included: `Some(None)` for `null`.
fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(deserializer).map(Some)
}

impl DraftFields {
    fn check(&self) -> Result<()> {
        for (field, list) in [
            ("authors", &self.authors),
            ("tags", &self.tags),
            ("urls", &self.urls),
        ] {
            if list.as_ref().is_some_and(|l| l.len() > MOST_LISTED) {
                return Err(CoreError::invalid_field(
                    field,
                    format!("a draft holds at most {MOST_LISTED} {field}"),
                ));
            }
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub id: i64,
    pub uuid: String,
    pub content_id: i64,
    pub body: String,
    pub body_raw: String,
    pub version: i64,
    pub user_id: Option<i64>,
    pub created_at: String,
    pub fields: Option<DraftFields>,
    /// Its writer saved a version of the item since: no longer unsaved text.
    pub saved: bool,
    /// Who wrote it, for another person's screen.
    pub user: Option<User>,
}

#[derive(Debug, Clone, Default)]
pub struct DraftInput {
    pub body: Option<String>,
    pub body_raw: Option<Value>,
    pub fields: Option<DraftFields>,
    /// The version the text was typed on; `None`: the item's current one.
    pub version: Option<i64>,
}

const COLUMNS: &str =
    "id, uuid, content_id, content, content_raw, version, user_id, created_at, fields, saved";

fn draft_from_row(row: &Row<'_>) -> crate::db::Result<Draft> {
    let fields: Option<String> = row.get(8)?;
    Ok(Draft {
        id: row.get(0)?,
        uuid: row.get(1)?,
        content_id: row.get(2)?,
        body: row.get(3)?,
        body_raw: row.get(4)?,
        version: row.get(5)?,
        user_id: row.get(6)?,
        created_at: row.get(7)?,
        // Fields a server sent in a shape this copy does not read are none:
        // the body stands, and the draft is never a refusal to read it.
        fields: fields.and_then(|text| serde_json::from_str(&text).ok()),
        saved: row.get::<_, i64>(9)? != 0,
        user: None,
    })
}

fn content_srn(raw: Option<&str>) -> Result<Srn> {
    let raw = raw
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| CoreError::required("content"))?;
    Ok(Srn::parse_typed(
        "content",
        raw.trim(),
        RecordType::Content,
    )?)
}

/// The last draft `user_id` wrote of the item. On a replica, a draft its
/// server sent has no writer here: the server answers only the sync key's
/// own drafts, so it is the person's own, typed on another computer, and
/// counts as theirs.
fn last_draft_of(tx: &Transaction<'_>, content_id: i64, user_id: i64) -> Result<Option<Draft>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM drafts WHERE content_id = +?1
         AND (user_id = ?2 OR (user_id IS NULL AND EXISTS (SELECT 1 FROM sync_remote)))
         ORDER BY id DESC LIMIT 1"
    );
    Ok(tx
        .prepare_cached(&sql)?
        .query_row(params![content_id, user_id], draft_from_row)
        .optional()?)
}

/// A lead photo named by UUID as a row id; one no longer there is none.
fn attachment_id(tx: &Transaction<'_>, uuid: Option<&str>) -> Result<Option<i64>> {
    match uuid.map(str::trim).filter(|u| !u.is_empty()) {
        Some(uuid) => crate::content::attachment_named(tx, uuid),
        None => Ok(None),
    }
}

/// The media item that holds attachment `id`, by UUID, as the form names a lead photo.
fn media_of_attachment(tx: &Transaction<'_>, id: Option<i64>) -> Result<Option<String>> {
    let Some(id) = id else { return Ok(None) };
    Ok(tx
        .prepare_cached("SELECT c.uuid FROM attachments a JOIN content c ON c.id = a.content_id WHERE a.id = ?1")?
        .query_row([id], |row| row.get(0))
        .optional()?)
}

/// Row ids of the records `table` names by UUID; one no longer there is left out.
fn ids_of(tx: &Transaction<'_>, table: Table, uuids: &[String]) -> Result<Vec<i64>> {
    let mut ids = Vec::with_capacity(uuids.len());
    for uuid in uuids {
        if let Some(id) = table.try_id_of(tx, uuid)?
            && !ids.contains(&id)
        {
            ids.push(id);
        }
    }
    Ok(ids)
}

fn uuids_of(tx: &Transaction<'_>, table: &str, ids: &[i64]) -> Result<Vec<String>> {
    let sql = format!("SELECT uuid FROM {table} WHERE id = ?1");
    let mut uuids = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(uuid) = tx
            .prepare_cached(&sql)?
            .query_row([id], |row| row.get(0))
            .optional()?
        {
            uuids.push(uuid);
        }
    }
    Ok(uuids)
}

/// The draft as one side of the merge: the version it was typed on, with
/// the draft's body and whichever other fields it holds put over it.
fn draft_side(tx: &Transaction<'_>, draft: &Draft, base: &StorySide) -> Result<StorySide> {
    let mut side = base.clone();
    side.body.clone_from(&draft.body);
    side.body_raw.clone_from(&draft.body_raw);
    let Some(fields) = &draft.fields else {
        return Ok(side);
    };
    if let Some(title) = &fields.title {
        side.title = title.trim().to_owned();
    }
    if let Some(slug) = &fields.slug {
        side.slug.clone_from(slug);
    }
    if let Some(text) = &fields.abstract_text
        && *text != base.abstract_text
    {
        // The form edits the abstract as plain text.
        side.abstract_text.clone_from(text);
        side.abstract_raw = String::new();
    }
    if let Some(authors) = &fields.authors {
        side.authors = ids_of(tx, AUTHORS, authors)?;
    }
    if let Some(tags) = &fields.tags {
        side.tags = ids_of(tx, TAGS, tags)?;
    }
    if let Some(lead) = &fields.dominant_attachment {
        side.dominant_attachment_id = attachment_id(tx, lead.as_deref())?;
    }
    Ok(side)
}

/// The merged story back as the draft's fields: those the draft held.
fn merged_fields(
    tx: &Transaction<'_>,
    held: &DraftFields,
    merged: &StorySide,
) -> Result<DraftFields> {
    Ok(DraftFields {
        title: held.title.as_ref().map(|_| merged.title.clone()),
        slug: held.slug.as_ref().map(|_| merged.slug.clone()),
        abstract_text: held
            .abstract_text
            .as_ref()
            .map(|_| merged.abstract_text.clone()),
        authors: held
            .authors
            .as_ref()
            .map(|_| uuids_of(tx, "authors", &merged.authors))
            .transpose()?,
        tags: held
            .tags
            .as_ref()
            .map(|_| uuids_of(tx, "tags", &merged.tags))
            .transpose()?,
        urls: held.urls.clone(),
        dominant_attachment: held
            .dominant_attachment
            .as_ref()
            .map(|_| media_of_attachment(tx, merged.dominant_attachment_id))
            .transpose()?,
        published: held.published,
    })
}

impl Cms {
    /// `GET /v3/draft?content=SRN`: the caller's own last draft of the item,
    /// or none. Another person's draft is never answered as one's own.
    pub fn last_draft(&self, who: &Principal, content: Option<&str>) -> Result<Vec<Draft>> {
        who.require(Action::DraftList)?;
        let srn = content_srn(content)?;
        self.read(|tx| {
            let content_id = CONTENT.id_of(tx, &srn.uuid)?;
            Ok(last_draft_of(tx, content_id, who.user_id)?
                .into_iter()
                .collect())
        })
    }

    /// `GET /v3/draft/others?content=SRN` (a Copydesk extension): the last
    /// unsaved draft of each other person who typed in the item, with who
    /// they are, newest first.
    pub fn others_drafts(&self, who: &Principal, content: Option<&str>) -> Result<Vec<Draft>> {
        who.require(Action::DraftList)?;
        let srn = content_srn(content)?;
        self.read(|tx| {
            let content_id = CONTENT.id_of(tx, &srn.uuid)?;
            let sql = format!(
                "SELECT {COLUMNS} FROM drafts d WHERE content_id = +?1 AND user_id <> ?2 AND saved = 0
                 AND id = (SELECT max(e.id) FROM drafts e WHERE e.content_id = d.content_id AND e.user_id = d.user_id)
                 ORDER BY id DESC"
            );
            let drafts: Vec<Draft> = tx
                .prepare_cached(&sql)?
                .query_map(params![content_id, who.user_id], draft_from_row)?
                .collect::<std::result::Result<_, _>>()?;
            drafts
                .into_iter()
                .map(|mut draft| {
                    draft.user = self.user_by_id(tx, draft.user_id)?;
                    Ok(draft)
                })
                .collect()
        })
    }

    /// `GET /v3/draft/merged?content=SRN` (a Copydesk extension): the
    /// caller's last draft, merged onto the item's current version when that
    /// is newer than the draft's (the draft's own version is the base), as
    /// sync merges: the body and abstract paragraph by paragraph and word by
    /// word, the other fields one by one. No draft: 404; the draft's version
    /// gone from the history: 409, since there is nothing to merge against.
    pub fn merged_draft(&self, who: &Principal, content: Option<&str>) -> Result<MergedDraft> {
        who.require(Action::DraftList)?;
        let srn = content_srn(content)?;
        self.read(|tx| {
            let content_id = CONTENT.id_of(tx, &srn.uuid)?;
            let draft = last_draft_of(tx, content_id, who.user_id)?
                .ok_or_else(|| CoreError::not_found(format!("you have no draft of content {}", srn.uuid)))?;
            let version: i64 = tx
                .prepare_cached("SELECT version FROM content WHERE id = ?1")?
                .query_row([content_id], |row| row.get(0))?;
            if draft.version >= version {
                return Ok(MergedDraft {
                    version,
                    body: draft.body.clone(),
                    body_raw: draft.body_raw.clone(),
                    fields: draft.fields.clone(),
                    draft,
                    conflicts: Vec::new(),
                });
            }
            let base = story_merge::version_side(tx, content_id, draft.version)?.ok_or_else(|| CoreError::Conflict {
                message: format!(
                    "version {} that this draft was based on is no longer kept, so it cannot be merged",
                    draft.version
                ),
                field: None,
            })?;
            let mine = draft_side(tx, &draft, &base)?;
            let theirs = story_merge::current_side(tx, content_id)?;
            let (merged, conflicts) = story_merge::merge_keeping_theirs(&base, &mine, &theirs);
            let fields = draft
                .fields
                .as_ref()
                .map(|held| merged_fields(tx, held, &merged))
                .transpose()?;
            Ok(MergedDraft {
                version,
                body: merged.body,
                body_raw: merged.body_raw,
                fields,
                draft,
                conflicts,
            })
        })
    }

    /// `POST /v3/draft?content=SRN`: stores the caller's draft of the item:
    /// its body, the rest of the form when sent, and the version it was
    /// typed on (the current one unless sent).
    pub fn create_draft(
        &self,
        who: &Principal,
        content: Option<&str>,
        input: DraftInput,
    ) -> Result<Vec<Draft>> {
        who.require(Action::DraftCreate)?;
        let srn = content_srn(content)?;
        let raw = input
            .body_raw
            .as_ref()
            .ok_or_else(|| CoreError::required("content_raw"))?;
        if let Value::String(text) = raw {
            crate::text_size::check("content_raw", Some(text))?;
        }
        crate::text_size::check("content", input.body.as_deref())?;
        let raw = draftjs::validate_raw(raw)?;
        crate::text_size::check("content_raw", Some(&raw))?;
        let fields = input.fields.filter(|f| !f.is_empty());
        if let Some(fields) = &fields {
            fields.check()?;
        }
        let fields = fields
            .map(|f| serde_json::to_string(&f))
            .transpose()
            .map_err(|err| CoreError::invalid_field("fields", err.to_string()))?;
        crate::text_size::check("fields", fields.as_deref())?;
        self.write_beside(&[], |tx| {
            let content_id = CONTENT.id_of(tx, &srn.uuid)?;
            tx.claim(&crate::locks::item_claim(content_id))?;
            self.check_writable(tx, who, content_id)?;
            let current: i64 = tx
                .prepare_cached("SELECT version FROM content WHERE id = ?1")?
                .query_row([content_id], |row| row.get(0))?;
            let version = input.version.unwrap_or(current);
            if !(1..=current).contains(&version) {
                return Err(CoreError::invalid_field(
                    "version",
                    format!("the item has versions 1 to {current}; version {version} is none of them"),
                ));
            }
            tx.prepare_cached(
                "INSERT INTO drafts (uuid, content_id, content, content_raw, version, user_id, created_at, fields)
                 VALUES (?1, ?6, ?2, ?3, ?8, ?4, ?5, ?7)",
            )?
            .execute(params![
                new_uuid(),
                input.body.unwrap_or_default(),
                raw,
                who.user_id,
                clock::now(),
                content_id,
                fields,
                version
            ])?;
            tx.prepare_cached(
                "DELETE FROM drafts WHERE content_id = ?1 AND user_id = ?2 AND id NOT IN
                 (SELECT id FROM drafts WHERE content_id = +?1 AND user_id = ?2 ORDER BY id DESC LIMIT ?3)",
            )?
            .execute(params![content_id, who.user_id, KEPT_PER_PERSON])?;
            Ok(last_draft_of(tx, content_id, who.user_id)?.into_iter().collect())
        })
    }
}
