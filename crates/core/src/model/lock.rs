//! An exclusive lock as the use cases read and return it, and what can be locked.

use crate::users::User;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockRequest {
    pub id: i64,
    pub uuid: String,
    /// The SRN of the locked item.
    pub srn: String,
    pub user_id: i64,
    pub state: String,
    pub created_at: String,
    pub modified_at: String,
    pub user: Option<User>,
}

/// What a lock may be taken on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lockable {
    Content(i64),
    Container(i64),
}
