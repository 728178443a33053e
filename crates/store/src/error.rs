//! The store's one error type: what the engines, the search index and the upload files beside them can report, each kind one the service's own error maps one to one.

use thiserror::Error;

#[derive(Debug, Clone, Error)]
pub enum StoreError {
    /// Input the store cannot take (search words past their bounds, text
    /// with a NUL for PostgreSQL, a path that is not UTF-8); `field` names
    /// the input at fault.
    #[error("{message}")]
    Invalid {
        message: String,
        field: Option<String>,
    },
    /// No database where one was asked for.
    #[error("{0}")]
    NotFound(String),
    /// A value taken already, or a file a backup would overwrite.
    #[error("{message}")]
    Conflict {
        message: String,
        field: Option<String>,
    },
    /// The database is damaged: nothing more is written to it until its
    /// operator has checked it. Holds what SQLite's check reported, when one
    /// ran.
    #[error("the database is damaged")]
    Damaged(Vec<String>),
    /// The database cannot be reached or takes no writes now (a PostgreSQL
    /// server that went away, restarts, or is a standby).
    #[error("the database cannot be reached: {0}")]
    Unavailable(String),
    /// The database is being checked after a start; writes wait for it.
    #[error("the database is being checked after a start")]
    Checking,
    /// A file larger than the server accepts: an upload past its limit, or
    /// an image whose pixels would take more memory than it may decode in.
    #[error("{0}")]
    TooLarge(String),
    /// A failure that is not the caller's fault.
    #[error("{0}")]
    Internal(String),
}

impl StoreError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid {
            message: message.into(),
            field: None,
        }
    }

    pub fn invalid_field(field: &str, message: impl Into<String>) -> Self {
        Self::Invalid {
            message: message.into(),
            field: Some(field.to_owned()),
        }
    }
}

/// What the error of a transaction's work must offer the store: to be made
/// from the store's own errors, and to say whether it means the database is
/// damaged (after which the store takes no more writes).
pub trait Failure: From<StoreError> {
    fn is_damage(&self) -> bool;
}

impl Failure for StoreError {
    fn is_damage(&self) -> bool {
        matches!(self, Self::Damaged(_))
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(err: rusqlite::Error) -> Self {
        let damaged = matches!(
            err.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
        );
        if damaged {
            tracing::error!(%err, "SQLite reports the database damaged");
            return Self::Damaged(Vec::new());
        }
        Self::Internal(format!("storage: {err}"))
    }
}

impl From<crate::db::Error> for StoreError {
    fn from(err: crate::db::Error) -> Self {
        if let crate::db::Error::NulInText = err {
            return Self::invalid(err.to_string());
        }
        if err.is_damage() {
            tracing::error!(%err, "the database reports itself damaged");
            return Self::Damaged(Vec::new());
        }
        if err.is_unavailable() {
            tracing::warn!(%err, "the database cannot be reached");
            return Self::Unavailable(err.to_string());
        }
        Self::Internal(format!("storage: {err}"))
    }
}

impl From<std::io::Error> for StoreError {
    fn from(err: std::io::Error) -> Self {
        Self::Internal(format!("file system: {err}"))
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
