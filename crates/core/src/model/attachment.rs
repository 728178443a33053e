//! An attachment as the use cases read and return it, and an upload as a client sends it.

use serde_json::Value;

use crate::db::Row;
use crate::record_type::RecordType;
use crate::srn::Srn;

/// The columns [`from_row`] reads, from `attachments a`.
pub(crate) const COLUMNS: &str = "a.id, a.uuid, a.content_id, a.base_name, a.salt, a.extension, a.preview_extension, a.type, a.width, a.height, a.angle, a.metadata, a.created_at, a.modified_at, a.size_bytes, a.sha256";

#[derive(Debug, Clone, PartialEq)]
pub struct Attachment {
    pub id: i64,
    pub uuid: String,
    pub content_id: i64,
    pub base_name: String,
    pub salt: String,
    pub extension: String,
    pub preview_extension: String,
    pub kind: String,
    pub width: u32,
    pub height: u32,
    pub angle: u32,
    pub metadata: Option<Value>,
    pub created_at: String,
    pub modified_at: String,
    pub size_bytes: i64,
    pub sha256: String,
    pub srn: String,
    pub public_url: String,
    pub original_url: String,
}

/// A file a client sent: its name and base64 body, not yet decoded.
#[derive(Debug, Clone)]
pub struct Upload {
    pub name: String,
    pub file_base64: String,
}

/// An attachment read with [`COLUMNS`], its SRN in `namespace`.
pub(crate) fn from_row(row: &Row<'_>, namespace: &str) -> crate::db::Result<Attachment> {
    let uuid: String = row.get(1)?;
    let salt: String = row.get(4)?;
    let extension: String = row.get(5)?;
    let preview_extension: String = row.get(6)?;
    let metadata: Option<String> = row.get(11)?;
    Ok(Attachment {
        id: row.get(0)?,
        srn: Srn::new(namespace, RecordType::Attachment, &uuid).to_string(),
        public_url: format!("/files/{salt}/public.{preview_extension}"),
        original_url: format!("/files/{salt}/original.{extension}"),
        uuid,
        content_id: row.get(2)?,
        base_name: row.get(3)?,
        salt,
        extension,
        preview_extension,
        kind: row.get(7)?,
        width: row.get(8)?,
        height: row.get(9)?,
        angle: row.get(10)?,
        metadata: metadata.and_then(|m| serde_json::from_str(&m).ok()),
        created_at: row.get(12)?,
        modified_at: row.get(13)?,
        size_bytes: row.get(14)?,
        sha256: row.get(15)?,
    })
}
