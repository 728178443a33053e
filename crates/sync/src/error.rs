//! The one error type of sync, telling a passing failure (retry later) from a refusal (needs attention).

use thiserror::Error;

#[derive(Debug, Error)]
pub enum SyncError {
    /// The remote could not be reached, or the connection broke.
    #[error("the central server cannot be reached: {0}")]
    Unreachable(String),
    /// The remote answered with an error in the contract's shape.
    #[error("the central server answered {status} {code}: {message}")]
    Remote {
        status: u16,
        code: String,
        message: String,
        field: Option<String>,
    },
    /// The remote answered something that is not the `/v3` service's shape.
    #[error("the central server's answer was not understood: {0}")]
    Protocol(String),
    /// The key pair for the remote is missing or unreadable.
    #[error("the key for the central server: {0}")]
    Key(String),
}

impl SyncError {
    /// Whether trying again later may succeed: a network failure, a timeout,
    /// a server error or too many requests. A refusal (400, 401, 403, 404,
    /// 409, 413, 415) will not change by itself and needs a person.
    pub fn is_transient(&self) -> bool {
        match self {
            Self::Unreachable(_) => true,
            Self::Remote { status, .. } => *status >= 500 || *status == 408 || *status == 429,
            Self::Protocol(_) | Self::Key(_) => false,
        }
    }

    /// The contract's error code, when the remote sent one.
    pub fn code(&self) -> Option<&str> {
        match self {
            Self::Remote { code, .. } => Some(code),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SyncError;

    fn remote(status: u16) -> SyncError {
        SyncError::Remote {
            status,
            code: "x".into(),
            message: "x".into(),
            field: None,
        }
    }

    #[test]
    fn transient_or_not() {
        assert!(SyncError::Unreachable("down".into()).is_transient());
        assert!(remote(500).is_transient());
        assert!(remote(503).is_transient());
        assert!(remote(429).is_transient());
        for status in [400, 401, 403, 404, 409, 413, 415] {
            assert!(!remote(status).is_transient(), "{status}");
        }
        assert!(!SyncError::Protocol("?".into()).is_transient());
    }
}
