//! An attachment as the use cases read and return it, and an upload as a client sends it.

use serde_json::Value;

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
