//! A content item's print side as the use cases read and return it.

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
