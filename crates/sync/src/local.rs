//! The local store's work run off the async runtime, shared by the sync rounds and the presence relay.

use std::sync::Arc;

use copydesk_core::{Cms, CoreError};

use crate::error::SyncError;

/// Runs blocking store work off the async runtime. Its failures are the
/// local store's ([`SyncError::Local`]), never the central server's.
pub(crate) async fn blocking<T: Send + 'static>(
    cms: &Arc<Cms>,
    work: impl FnOnce(&Cms) -> copydesk_core::Result<T> + Send + 'static,
) -> Result<T, SyncError> {
    let cms = Arc::clone(cms);
    tokio::task::spawn_blocking(move || work(&cms))
        .await
        .map_err(|err| CoreError::Internal(format!("a sync task failed: {err}")))?
        .map_err(SyncError::Local)
}
