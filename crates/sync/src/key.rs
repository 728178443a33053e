//! The remote user's key pair: from the file `key create --json` writes, or from the environment.

use std::path::Path;

use serde::Deserialize;

use crate::error::SyncError;

pub const PUBLIC_KEY_VAR: &str = "COPYDESK_REMOTE_PUBLIC_KEY";
pub const PRIVATE_KEY_VAR: &str = "COPYDESK_REMOTE_PRIVATE_KEY";

/// The key pair a replica signs its tokens for the remote with.
#[derive(Clone, Deserialize)]
pub struct RemoteKey {
    pub public_key: String,
    pub private_key: String,
}

impl std::fmt::Debug for RemoteKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The private key never reaches a log.
        f.debug_struct("RemoteKey")
            .field("public_key", &self.public_key)
            .finish_non_exhaustive()
    }
}

impl RemoteKey {
    /// Reads the JSON object `key create --json` prints.
    pub fn from_file(path: &Path) -> Result<Self, SyncError> {
        let text = std::fs::read_to_string(path)
            .map_err(|err| SyncError::Key(format!("cannot read {}: {err}", path.display())))?;
        let key: Self = serde_json::from_str(&text).map_err(|err| {
            SyncError::Key(format!("{} is not a key pair: {err}", path.display()))
        })?;
        key.checked()
    }

    /// Reads `COPYDESK_REMOTE_PUBLIC_KEY` and `COPYDESK_REMOTE_PRIVATE_KEY`.
    pub fn from_env() -> Result<Self, SyncError> {
        let var = |name: &str| {
            std::env::var(name).map_err(|_| SyncError::Key(format!("{name} is not set")))
        };
        Self {
            public_key: var(PUBLIC_KEY_VAR)?,
            private_key: var(PRIVATE_KEY_VAR)?,
        }
        .checked()
    }

    fn checked(self) -> Result<Self, SyncError> {
        if self.public_key.trim().is_empty() || self.private_key.trim().is_empty() {
            return Err(SyncError::Key("the key pair is empty".into()));
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::RemoteKey;

    #[test]
    fn the_private_key_stays_out_of_debug_output() {
        let key = RemoteKey {
            public_key: "pub".into(),
            private_key: "very-secret".into(),
        };
        assert!(!format!("{key:?}").contains("very-secret"));
    }
}
