//! A content item's print side as the use cases read and return it.

use crate::db::Row;
use crate::users::User;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    pub id: i64,
    pub uuid: String,
    pub content_id: i64,
    pub workflow_id: i64,
    pub assignee_id: i64,
    pub issue_id: i64,
    pub workflow_section_id: i64,
    pub body: String,
    pub version: i64,
    pub user_id: Option<i64>,
    pub locked_by: Option<i64>,
    pub locked_at: Option<String>,
    pub created_at: String,
    pub modified_at: String,
    pub user: Option<User>,
    pub lock_user: Option<User>,
}

/// The columns [`export_from_row`] reads.
pub(crate) const COLUMNS: &str = "id, uuid, content_id, workflow_id, assignee_id, issue_id, workflow_section_id, content, version, user_id, locked_by, locked_at, created_at, modified_at";

pub(crate) fn export_from_row(row: &Row<'_>) -> crate::db::Result<Export> {
    Ok(Export {
        id: row.get(0)?,
        uuid: row.get(1)?,
        content_id: row.get(2)?,
        workflow_id: row.get(3)?,
        assignee_id: row.get(4)?,
        issue_id: row.get(5)?,
        workflow_section_id: row.get(6)?,
        body: row.get(7)?,
        version: row.get(8)?,
        user_id: row.get(9)?,
        locked_by: row.get(10)?,
        locked_at: row.get(11)?,
        created_at: row.get(12)?,
        modified_at: row.get(13)?,
        user: None,
        lock_user: None,
    })
}
