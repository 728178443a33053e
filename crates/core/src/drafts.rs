//! Drafts: the editor's autosaved state of an item (HTML plus Draft.js raw content), kept apart from versions.

use rusqlite::{OptionalExtension as _, Row, Transaction, params};
use serde_json::Value;

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::content::CONTENT;
use crate::draftjs;
use crate::error::{CoreError, Result};
use crate::records::new_uuid;
use crate::srn::Srn;

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

fn draft_from_row(row: &Row<'_>) -> rusqlite::Result<Draft> {
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
        self.store.write(|tx| {
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
