//! The one error type of the service logic; the HTTP layer maps it to the contract's JSON in one place.

use thiserror::Error;

/// What went wrong with a token, as the contract names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenProblem {
    Missing,
    Invalid,
    Expired,
    /// Its `nbf` lies in the future.
    NotYetValid,
}

#[derive(Debug, Clone, Error)]
pub enum CoreError {
    /// A request the service cannot accept; `field` names the input at fault.
    #[error("{message}")]
    Invalid {
        message: String,
        field: Option<String>,
    },
    /// An unknown record, SRN or reference.
    #[error("{message}")]
    NotFound {
        message: String,
        field: Option<String>,
    },
    /// A valid token whose user lacks the operation's access action.
    #[error("you need the access action \"{action}\" for this operation")]
    Forbidden { action: String },
    #[error("{}", token_message(*.0))]
    Token(TokenProblem),
    /// The record is exclusively locked by someone else.
    #[error("{0}")]
    Locked(String),
    /// A unique value is already taken.
    #[error("{message}")]
    Conflict {
        message: String,
        field: Option<String>,
    },
    /// A sign-in with a wrong name or password, or an unknown, expired or
    /// used link; the message says which in words.
    #[error("{0}")]
    SignInRefused(String),
    /// Too many failed sign-ins for a name or from an address: try again
    /// after `retry_after_secs`.
    #[error("{message}")]
    TooManyAttempts {
        message: String,
        retry_after_secs: u64,
    },
    /// A replica needs its central server for this (a lock) and cannot reach it.
    #[error("{0}")]
    Offline(String),
    /// An upload larger than the server accepts.
    #[error("{0}")]
    TooLarge(String),
    /// SQLite found the database damaged: nothing more is written to it
    /// until its operator has checked it (`copydesk-server check`).
    /// Holds what SQLite's check reported, when one ran.
    #[error("{DAMAGED_MESSAGE}")]
    Damaged(Vec<String>),
    /// The database cannot be reached or does not take writes now (a
    /// PostgreSQL server that went away, restarts, or is a standby):
    /// nothing of the request was written unless its commit was under way.
    /// The caller may try again in a moment; details go to the log.
    #[error("{UNAVAILABLE_MESSAGE}")]
    Unavailable(String),
    /// The server is still checking its database after a start (a large
    /// file is checked beside serving): reads are answered, writes are
    /// taken once the check passes. The caller may try again shortly.
    #[error("{CHECKING_MESSAGE}")]
    Checking,
    /// A failure that is not the caller's fault; details go to the log only.
    #[error("internal error: {0}")]
    Internal(String),
}

/// What a caller is told while the database is damaged.
pub const DAMAGED_MESSAGE: &str = "the server's database is damaged, so it takes no more changes; its operator must run `copydesk-server check` and restore a backup";

/// What a caller is told while the database is checked after a start.
pub const CHECKING_MESSAGE: &str = "the server is checking its database after a start (SQLite's quick_check), and takes changes once the check has passed; reads are answered meanwhile: try again in a moment";

/// What a caller is told while the database cannot be reached.
pub const UNAVAILABLE_MESSAGE: &str =
    "the server cannot reach its database just now; try again in a moment";

fn token_message(problem: TokenProblem) -> &'static str {
    match problem {
        TokenProblem::Missing => "no token: send Authorization: Bearer <token>",
        TokenProblem::Invalid => "the token is malformed, badly signed or names an unknown key",
        TokenProblem::Expired => "the token has expired: ask for a new one",
        TokenProblem::NotYetValid => "the token is not valid yet: its \"nbf\" lies in the future",
    }
}

impl CoreError {
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

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::NotFound {
            message: message.into(),
            field: None,
        }
    }

    pub fn not_found_field(field: &str, message: impl Into<String>) -> Self {
        Self::NotFound {
            message: message.into(),
            field: Some(field.to_owned()),
        }
    }

    pub fn required(field: &str) -> Self {
        Self::invalid_field(field, format!("the field \"{field}\" is required"))
    }
}

impl From<copydesk_store::StoreError> for CoreError {
    fn from(err: copydesk_store::StoreError) -> Self {
        use copydesk_store::StoreError;
        match err {
            StoreError::Invalid { message, field } => Self::Invalid { message, field },
            StoreError::NotFound(message) => Self::not_found(message),
            StoreError::Conflict { message, field } => Self::Conflict { message, field },
            StoreError::Damaged(problems) => Self::Damaged(problems),
            StoreError::Unavailable(details) => Self::Unavailable(details),
            StoreError::Checking => Self::Checking,
            StoreError::TooLarge(message) => Self::TooLarge(message),
            StoreError::Internal(details) => Self::Internal(details),
        }
    }
}

impl copydesk_store::Failure for CoreError {
    fn is_damage(&self) -> bool {
        matches!(self, Self::Damaged(_))
    }
}

impl From<copydesk_store::db::Error> for CoreError {
    fn from(err: copydesk_store::db::Error) -> Self {
        copydesk_store::StoreError::from(err).into()
    }
}

impl From<copydesk_wire::FieldError> for CoreError {
    fn from(err: copydesk_wire::FieldError) -> Self {
        Self::Invalid {
            message: err.message,
            field: Some(err.field),
        }
    }
}

impl From<std::io::Error> for CoreError {
    fn from(err: std::io::Error) -> Self {
        Self::Internal(format!("file system: {err}"))
    }
}

pub type Result<T, E = CoreError> = std::result::Result<T, E>;

impl From<copydesk_text::TextError> for CoreError {
    fn from(err: copydesk_text::TextError) -> Self {
        match err {
            copydesk_text::TextError::Invalid { field, message } => Self::Invalid {
                message,
                field: Some(field),
            },
            copydesk_text::TextError::Internal(message) => Self::Internal(message),
        }
    }
}
