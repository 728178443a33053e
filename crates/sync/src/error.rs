//! The one error type of sync, telling a passing failure (retry later) from a refusal (needs
//! attention), and the central server's refusal from a failure of this copy's own store.

use copydesk_core::CoreError;
use copydesk_core::access::Action;
use copydesk_core::replica::Unreached;
use copydesk_wire::ErrorCode;
use thiserror::Error;

/// An error code as the central server sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteCode {
    /// One of the contract's codes.
    Known(ErrorCode),
    /// A code this build does not know (a newer server's, or another
    /// service's), kept as it was sent.
    Unknown(String),
}

impl RemoteCode {
    /// The code as the remote wrote it.
    pub fn from_wire(text: &str) -> Self {
        ErrorCode::from_wire(text).map_or_else(|| Self::Unknown(text.to_owned()), Self::Known)
    }

    /// The code's text, as it travels.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Known(code) => code.as_str(),
            Self::Unknown(text) => text,
        }
    }
}

impl std::fmt::Display for RemoteCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Error)]
pub enum SyncError {
    /// The remote could not be reached, or the connection broke.
    #[error("the central server cannot be reached: {0}")]
    Unreachable(String),
    /// The remote's TLS certificate is not one this copy trusts (the
    /// newsroom's authority is not installed here, or a network in between
    /// intercepts HTTPS): nothing was sent.
    #[error("the central server's certificate is not trusted here: {0}")]
    Untrusted(String),
    /// The remote answered with an error status; `code` is the contract's
    /// code when the answer carried one (a body not in the contract's shape
    /// carries none, except that a 5xx is taken as `internal`).
    #[error("the central server answered {status}{}: {message}", code_suffix(code.as_ref()))]
    Remote {
        status: u16,
        code: Option<RemoteCode>,
        message: String,
        field: Option<String>,
    },
    /// The remote answered something that is not the `/v3` service's shape.
    #[error("the central server's answer was not understood: {0}")]
    Protocol(String),
    /// The key pair for the remote is missing or unreadable.
    #[error("the key for the central server: {0}")]
    Key(String),
    /// This copy's own store failed (its SQLite database, or the files
    /// beside it): the central server refused nothing.
    #[error("the local store failed: {0}")]
    Local(#[source] CoreError),
}

fn code_suffix(code: Option<&RemoteCode>) -> String {
    code.map(|code| format!(" {code}")).unwrap_or_default()
}

impl From<CoreError> for SyncError {
    fn from(err: CoreError) -> Self {
        Self::Local(err)
    }
}

impl SyncError {
    /// Whether trying again later may succeed: a network failure, a timeout,
    /// a server error or too many requests. A refusal (400, 401, 403, 404,
    /// 409, 413, 415) will not change by itself and needs a person.
    ///
    /// A failure of the local store may pass when it is one of the moment:
    /// a database busy or locked past its wait, a full disk, a failed task
    /// (all `CoreError::Internal`), or a lock held here. A damaged database
    /// never passes by itself (its operator must check it and restore a
    /// backup), and neither does a record the local rules refuse.
    pub fn is_transient(&self) -> bool {
        match self {
            // Tried again each round too: on another network (away from a
            // hotel's that intercepts HTTPS) it may pass; the status says
            // a person should look.
            Self::Unreachable(_) | Self::Untrusted(_) => true,
            Self::Remote { status, .. } => *status >= 500 || *status == 408 || *status == 429,
            Self::Protocol(_) | Self::Key(_) => false,
            Self::Local(err) => matches!(
                err,
                CoreError::Internal(_)
                    | CoreError::Unavailable(_)
                    | CoreError::Checking
                    | CoreError::Locked(_)
                    | CoreError::Offline(_)
            ),
        }
    }

    /// The contract's error code, when the remote sent one this build knows.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            Self::Remote {
                code: Some(RemoteCode::Known(code)),
                ..
            } => Some(*code),
            _ => None,
        }
    }

    /// The code as the remote sent it, known or not.
    pub fn raw_code(&self) -> Option<&str> {
        match self {
            Self::Remote {
                code: Some(code), ..
            } => Some(code.as_str()),
            _ => None,
        }
    }

    /// Whether the round did not reach the remote at all.
    pub fn is_unreached(&self) -> bool {
        matches!(self, Self::Unreachable(_) | Self::Untrusted(_))
    }

    /// Why the round did not reach the remote, as the sync state keeps it;
    /// `None` when it did.
    pub fn unreached(&self) -> Option<Unreached> {
        match self {
            Self::Unreachable(reason) | Self::Untrusted(reason) => Some(Unreached {
                reason: Some(reason.clone()),
                certificate_untrusted: matches!(self, Self::Untrusted(_)),
            }),
            _ => None,
        }
    }

    /// Whether this copy's own store failed (rather than the remote or the network).
    pub fn is_local(&self) -> bool {
        matches!(self, Self::Local(_))
    }

    /// The access action the key lacks, when the remote refused for that
    /// (401, `forbidden_action`: the contract names the action in the
    /// message). A key the remote does not know is a 403, never this.
    pub fn missing_action(&self) -> Option<String> {
        match self {
            Self::Remote {
                status: 401,
                message,
                ..
            } => Some(action_named_in(message)),
            _ => None,
        }
    }
}

/// The access action a refusal's message names: one this build knows (the
/// longest, as `CONTENT type_article` holds `CONTENT`), else the first
/// quoted words, else the message itself.
fn action_named_in(message: &str) -> String {
    if let Some(known) = Action::ALL
        .iter()
        .map(|action| action.as_str())
        .filter(|action| message.contains(*action))
        .max_by_key(|action| action.len())
    {
        return known.to_owned();
    }
    let mut quoted = message.split('"');
    match (quoted.next(), quoted.next()) {
        (Some(_), Some(inside)) if !inside.trim().is_empty() => inside.trim().to_owned(),
        _ => message.trim().chars().take(120).collect(),
    }
}

#[cfg(test)]
mod tests {
    use copydesk_core::CoreError;
    use copydesk_core::access::Action;
    use copydesk_wire::ErrorCode;

    use super::{RemoteCode, SyncError};

    fn remote(status: u16) -> SyncError {
        SyncError::Remote {
            status,
            code: Some(RemoteCode::from_wire("x")),
            message: "x".into(),
            field: None,
        }
    }

    #[test]
    fn transient_or_not() {
        assert!(SyncError::Unreachable("down".into()).is_transient());
        assert!(SyncError::Untrusted("a hotel's Wi-Fi".into()).is_transient());
        assert!(SyncError::Untrusted("x".into()).is_unreached());
        assert!(!remote(503).is_unreached());
        assert!(remote(500).is_transient());
        assert!(remote(503).is_transient());
        assert!(remote(429).is_transient());
        for status in [400, 401, 403, 404, 409, 413, 415] {
            assert!(!remote(status).is_transient(), "{status}");
        }
        assert!(!SyncError::Protocol("?".into()).is_transient());
    }

    #[test]
    fn a_local_store_failure_is_not_the_servers_refusal() {
        let busy = SyncError::from(CoreError::Internal("storage: database is locked".into()));
        assert!(busy.is_local());
        assert!(busy.is_transient(), "a busy database may pass");
        assert_eq!(busy.code(), None);
        assert_eq!(busy.raw_code(), None);
        let said = busy.to_string();
        assert!(said.starts_with("the local store failed: "), "{said}");
        assert!(!said.contains("central server"), "{said}");

        let damaged = SyncError::from(CoreError::Damaged(Vec::new()));
        assert!(damaged.is_local());
        assert!(
            !damaged.is_transient(),
            "a damaged database needs its operator"
        );
        assert!(damaged.to_string().starts_with("the local store failed: "));

        let refused_here = SyncError::from(CoreError::invalid("no title"));
        assert!(!refused_here.is_transient());
        assert!(!remote(404).is_local());
    }

    #[test]
    fn a_missing_action_is_read_from_the_refusal() {
        let refused = |status: u16, message: &str| SyncError::Remote {
            status,
            code: Some(RemoteCode::from_wire("forbidden_action")),
            message: message.into(),
            field: None,
        };
        assert_eq!(
            refused(
                401,
                "you need the access action \"PRINTDOCUMENT create\" for this operation"
            )
            .missing_action()
            .as_deref(),
            Some(Action::PrintDocumentCreate.as_str())
        );
        assert_eq!(
            refused(401, "missing CONTENT type_article")
                .missing_action()
                .as_deref(),
            Some(Action::ContentTypeArticle.as_str())
        );
        assert_eq!(
            refused(401, "needs \"GALLERY view\" here")
                .missing_action()
                .as_deref(),
            Some("GALLERY view"),
            "an action this build does not know is kept as named"
        );
        assert_eq!(
            refused(401, "Forbidden").missing_action().as_deref(),
            Some("Forbidden")
        );
        assert_eq!(refused(403, "token_invalid").missing_action(), None);
        assert_eq!(SyncError::Unreachable("x".into()).missing_action(), None);
    }

    #[test]
    fn codes_known_and_unknown() {
        let known = SyncError::Remote {
            status: 404,
            code: Some(RemoteCode::from_wire("not_found")),
            message: "no such item".into(),
            field: None,
        };
        assert_eq!(known.code(), Some(ErrorCode::NotFound));
        assert_eq!(known.raw_code(), Some("not_found"));
        assert_eq!(
            known.to_string(),
            "the central server answered 404 not_found: no such item"
        );

        let newer = SyncError::Remote {
            status: 409,
            code: Some(RemoteCode::from_wire("embargoed")),
            message: "not before noon".into(),
            field: None,
        };
        assert_eq!(newer.code(), None);
        assert_eq!(newer.raw_code(), Some("embargoed"));
        assert!(newer.to_string().contains("409 embargoed"));

        let bare = SyncError::Remote {
            status: 404,
            code: None,
            message: "Not Found".into(),
            field: None,
        };
        assert_eq!(bare.raw_code(), None);
        assert_eq!(
            bare.to_string(),
            "the central server answered 404: Not Found"
        );
    }
}
