//! Drafts: the editor's autosaved state of an item (HTML plus Draft.js raw content), kept apart from versions.

use crate::db::{OptionalExtension as _, Row, Transaction, params};
use serde_json::Value;

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::content::CONTENT;
use crate::draftjs;
use crate::error::{CoreError, Result};
use crate::records::new_uuid;
use crate::srn::Srn;

/// The last draft of an item carried onto its current version: what the
/// editor reopens when someone saved a version since the draft was made.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedDraft {
    pub draft: Draft,
    /// The item's version now, which the merged text is based on.
    pub version: i64,
    pub body: String,
    pub body_raw: String,
    /// Paragraphs the draft and the newer version changed in the same words:
    /// the newer version's wording is in `body`, the draft's is here.
    pub conflicts: Vec<crate::merge::BlockConflict>,
}

/// How many drafts of one item are kept; older autosaves are dropped.
const KEPT_PER_ITEM: i64 = 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    pub id: i64,
    pub uuid: String,
    pub content_id: i64,
    pub body: String,
    pub body_raw: String,
    pub version: i64,
    pub user_id: Option<i64>,
    pub created_at: String,
}

#[derive(Debug, Clone, Default)]
pub struct DraftInput {
    pub body: Option<String>,
    pub body_raw: Option<Value>,
}

fn draft_from_row(row: &Row<'_>) -> crate::db::Result<Draft> {
    Ok(Draft {
        id: row.get(0)?,
        uuid: row.get(1)?,
        content_id: row.get(2)?,
        body: row.get(3)?,
        body_raw: row.get(4)?,
        version: row.get(5)?,
        user_id: row.get(6)?,
        created_at: row.get(7)?,
    })
}

fn content_srn(raw: Option<&str>) -> Result<Srn> {
    let raw = raw
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| CoreError::required("content"))?;
    Srn::parse_typed("content", raw.trim(), "content")
}

fn last_draft(tx: &Transaction<'_>, content_id: i64) -> Result<Option<Draft>> {
    Ok(tx
        .prepare_cached(
            "SELECT id, uuid, content_id, content, content_raw, version, user_id, created_at FROM drafts
             WHERE content_id = +?1 ORDER BY id DESC LIMIT 1",
        )?
        .query_row([content_id], draft_from_row)
        .optional()?)
}

impl Cms {
    /// `GET /v3/draft?content=SRN`: the item's last draft, or none.
    pub fn last_draft(&self, who: &Principal, content: Option<&str>) -> Result<Vec<Draft>> {
        who.require("DRAFT list")?;
        let srn = content_srn(content)?;
        self.store.read(|tx| {
            let content_id = CONTENT.id_of(tx, &srn.uuid)?;
            Ok(last_draft(tx, content_id)?.into_iter().collect())
        })
    }

    /// `GET /v3/draft/merged?content=SRN` (a Copydesk extension): the item's
    /// last draft, merged paragraph by paragraph and word by word onto the
    /// item's current version when that is newer than the draft's (the
    /// draft's own version is the base). No draft: 404; the draft's version
    /// gone from the history: 409, since there is nothing to merge against.
    pub fn merged_draft(&self, who: &Principal, content: Option<&str>) -> Result<MergedDraft> {
        who.require("DRAFT list")?;
        let srn = content_srn(content)?;
        self.store.read(|tx| {
            let content_id = CONTENT.id_of(tx, &srn.uuid)?;
            let draft = last_draft(tx, content_id)?
                .ok_or_else(|| CoreError::not_found(format!("content {} has no draft", srn.uuid)))?;
            let (version, body, body_raw): (i64, String, String) = tx
                .prepare_cached("SELECT version, content, content_raw FROM content WHERE id = ?1")?
                .query_row([content_id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
            if draft.version >= version {
                return Ok(MergedDraft {
                    version,
                    body: draft.body.clone(),
                    body_raw: draft.body_raw.clone(),
                    draft,
                    conflicts: Vec::new(),
                });
            }
            let base: Option<(String, String)> = tx
                .prepare_cached(
                    "SELECT content, content_raw FROM versions WHERE content_id = ?1 AND version = ?2",
                )?
                .query_row(params![content_id, draft.version], |row| Ok((row.get(0)?, row.get(1)?)))
                .optional()?;
            let (base_body, base_raw) = base.ok_or_else(|| CoreError::Conflict {
                message: format!(
                    "version {} that this draft was based on is no longer kept, so it cannot be merged",
                    draft.version
                ),
                field: None,
            })?;
            let parse = crate::merge::parse_raw;
            let raws = (parse(&base_raw), parse(&draft.body_raw), parse(&body_raw));
            use crate::merge::StoredText;
            let merged = crate::merge::merge_stored(
                StoredText { html: &base_body, raw: raws.0.as_ref() },
                StoredText { html: &draft.body, raw: raws.1.as_ref() },
                StoredText { html: &body, raw: raws.2.as_ref() },
            )
            .ok_or_else(|| CoreError::Conflict {
                message: "this draft or the newer version holds what cannot be merged paragraph by paragraph (an image, a table, a nested list)".into(),
                field: None,
            })?;
            Ok(MergedDraft {
                version,
                body: merged.html,
                body_raw: merged.raw.map(|r| r.to_string()).unwrap_or_default(),
                draft,
                conflicts: merged.conflicts,
            })
        })
    }

    /// `POST /v3/draft?content=SRN`: stores a draft of the item's current version.
    pub fn create_draft(
        &self,
        who: &Principal,
        content: Option<&str>,
        input: DraftInput,
    ) -> Result<Vec<Draft>> {
        who.require("DRAFT create")?;
        let srn = content_srn(content)?;
        let raw = input
            .body_raw
            .as_ref()
            .ok_or_else(|| CoreError::required("content_raw"))?;
        let raw = draftjs::validate_raw(raw)?;
        self.write(|tx| {
            let content_id = CONTENT.id_of(tx, &srn.uuid)?;
            self.check_writable(tx, who, content_id)?;
            tx.prepare_cached(
                "INSERT INTO drafts (uuid, content_id, content, content_raw, version, user_id, created_at)
                 SELECT ?1, id, ?2, ?3, version, ?4, ?5 FROM content WHERE id = ?6",
            )?
            .execute(params![new_uuid(), input.body.unwrap_or_default(), raw, who.user_id, clock::now(), content_id])?;
            tx.prepare_cached(
                "DELETE FROM drafts WHERE content_id = ?1 AND id NOT IN
                 (SELECT id FROM drafts WHERE content_id = +?1 ORDER BY id DESC LIMIT ?2)",
            )?
            .execute(params![content_id, KEPT_PER_ITEM])?;
            Ok(last_draft(tx, content_id)?.into_iter().collect())
        })
    }
}
