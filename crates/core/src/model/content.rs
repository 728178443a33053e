//! A content item as the use cases read and return it: its stored fields,
//! what it embeds, and the table it lives in.

use crate::access::Principal;
use crate::authors::Author;
use crate::clock;
use crate::db::{Transaction, params};
use crate::error::Result;
use crate::model::attachment::Attachment;
use crate::model::export::Export;
use crate::model::lock::LockRequest;
use crate::records::{Table, new_uuid};
use crate::tags::Tag;

pub(crate) const CONTENT: Table = Table {
    name: "content",
    noun: "content item",
};

pub const CONTENT_TYPES: &[&str] = &["article", "post", "media", "page"];

pub(crate) const COLUMNS: &str = "content.id, content.uuid, content.title, content.slug, content.type, content.version, content.weight, content.abstract, content.abstract_raw, content.content, content.content_raw, content.created_at, content.modified_at, content.published_at, content.state, content.user_id, content.assignment_id, content.workflow_id, content.dominant_attachment_id, content.container_id, content.has_attachment, content.ssts_path";

/// The stored fields of a content item.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContentRecord {
    pub id: i64,
    pub uuid: String,
    pub title: String,
    pub slug: String,
    pub content_type: String,
    pub version: i64,
    pub weight: i64,
    pub abstract_text: String,
    pub abstract_raw: String,
    pub body: String,
    pub body_raw: String,
    pub created_at: String,
    pub modified_at: String,
    pub published_at: Option<String>,
    pub state: i64,
    pub user_id: Option<i64>,
    pub assignment_id: Option<i64>,
    pub workflow_id: i64,
    pub dominant_attachment_id: Option<i64>,
    pub container_id: Option<i64>,
    pub has_attachment: bool,
    pub ssts_path: String,
    pub srn: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentUrl {
    pub id: i64,
    pub uuid: String,
    pub path: String,
    pub content_id: i64,
    pub created_at: String,
}

/// A version as the item lists it: which, when and by whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionSummary {
    pub id: i64,
    pub uuid: String,
    pub version: i64,
    pub user_id: Option<i64>,
    pub created_at: String,
    pub srn: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    pub id: i64,
    pub uuid: String,
    pub action: String,
    pub detail: String,
    pub user_id: Option<i64>,
    pub user_name: Option<String>,
    pub created_at: String,
}

impl AuditEntry {
    /// An entry from its columns: id, uuid, action, detail, user_id, user's name, created_at.
    pub(crate) fn from_row(row: &crate::db::Row<'_>) -> crate::db::Result<Self> {
        Ok(Self {
            id: row.get(0)?,
            uuid: row.get(1)?,
            action: row.get(2)?,
            detail: row.get(3)?,
            user_id: row.get(4)?,
            user_name: row.get(5)?,
            created_at: row.get(6)?,
        })
    }
}

/// A content item with everything it embeds.
#[derive(Debug, Clone, Default)]
pub struct ContentItem {
    pub record: ContentRecord,
    pub authors: Vec<Author>,
    pub tags: Vec<Tag>,
    pub urls: Vec<ContentUrl>,
    pub versions: Vec<VersionSummary>,
    pub audit: Vec<AuditEntry>,
    pub attachment: Option<Attachment>,
    pub lock: bool,
    /// The exclusive lock on the item, when someone holds it: who, since when.
    pub lock_request: Option<LockRequest>,
    /// The print side, once the item has one.
    pub export: Option<Export>,
    /// The media item whose attachment is the dominant one (the lead photo).
    pub lead_photo: Option<LeadPhoto>,
}

/// One content item's answer, ready to send (see `content_rendered`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedContent(pub String);

/// The answers a write rendered, by item id.
pub(crate) type Rendered = std::collections::HashMap<i64, String>;

/// A story the write that renders it made, and the parts it was made with:
/// it can hold no others yet (no lock, no export, nothing not sent), and
/// they are not read for it.
#[derive(Debug)]
pub(crate) struct MadeNow {
    pub id: i64,
    pub authors: bool,
    pub tags: bool,
    pub urls: bool,
    pub attachment: bool,
    /// The whole story as its inserts returned it, when it embeds nothing
    /// else (no links, URLs, file or lead photo): rendered without a read.
    pub whole: Option<Box<ContentItem>>,
}

/// The media item a story leads with, as clients of the hosted service read
/// it (`dominantAttachment`): its file, its caption (its body) and its authors.
#[derive(Debug, Clone, PartialEq)]
pub struct LeadPhoto {
    pub uuid: String,
    pub srn: String,
    pub title: String,
    pub caption: String,
    pub authors: Vec<Author>,
    pub attachment: Attachment,
}

/// Records who did what to an item, in the transaction that did it; the entry as answers list it.
pub(crate) fn audit(
    tx: &Transaction<'_>,
    content_id: i64,
    who: &Principal,
    action: &str,
    detail: &str,
) -> Result<AuditEntry> {
    Ok(tx
        .prepare_cached(
            "INSERT INTO audit (uuid, content_id, user_id, action, detail, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             RETURNING id, uuid, action, detail, user_id, (SELECT name FROM users WHERE users.id = audit.user_id), created_at",
        )?
        .query_row(
            params![new_uuid(), content_id, who.user_id, action, detail, clock::now()],
            AuditEntry::from_row,
        )?)
}
