//! A replica's locks go through the central server: a lock that is not real there is no lock.

use std::sync::Arc;

use copydesk_core::CoreError;
use copydesk_core::locks::RemoteLocks;
use copydesk_wire as wire;
use reqwest::Method;
use serde_json::json;
use tokio::runtime::Handle;

use crate::error::SyncError;
use crate::remote::Remote;

/// Takes and releases locks on the central server, from the replica's blocking threads.
pub struct ForwardedLocks {
    remote: Arc<Remote>,
    runtime: Handle,
}

impl ForwardedLocks {
    /// Must be made inside the async runtime the calls will run on.
    pub fn new(remote: Arc<Remote>) -> Self {
        Self {
            remote,
            runtime: Handle::current(),
        }
    }
}

fn refusal(err: SyncError) -> CoreError {
    match err {
        SyncError::Remote { status: 409, message, .. } => CoreError::Locked(format!("on the central server: {message}")),
        SyncError::Remote { status: 404, message, .. } => CoreError::not_found(format!("on the central server: {message}")),
        SyncError::Untrusted(_) => CoreError::Offline(
            "this computer does not trust the central server's certificate, and a lock needs the server; \
             ask whoever runs it"
                .into(),
        ),
        SyncError::Unreachable(_) => CoreError::Offline(
            "the central server cannot be reached, and a lock needs it; try again when you are online".into(),
        ),
        other => CoreError::Offline(format!("the central server did not take the lock: {other}")),
    }
}

impl RemoteLocks for ForwardedLocks {
    fn lock_content(&self, remote_uuid: &str) -> copydesk_core::Result<String> {
        let body = json!({"srn": format!("srn:copydesk:cms/content:{remote_uuid}")});
        let taken: Vec<wire::LockRequest> = self
            .runtime
            .block_on(
                self.remote
                    .request(Method::POST, "/v3/lock-request", Some(&body), None),
            )
            .map_err(refusal)?;
        taken
            .into_iter()
            .next()
            .map(|lock| lock.uuid)
            .ok_or_else(|| CoreError::Offline("the central server answered no lock".into()))
    }

    fn lock_print_document(
        &self,
        remote_uuid: &str,
        on_behalf_of: Option<&str>,
    ) -> copydesk_core::Result<()> {
        let body = match on_behalf_of {
            Some(user) => json!({ "on_behalf_of": user }),
            None => json!({}),
        };
        let _: wire::PrintDocument = self
            .runtime
            .block_on(self.remote.request(
                Method::POST,
                &format!("/v3/print-document/{remote_uuid}/lock"),
                Some(&body),
                None,
            ))
            .map_err(refusal)?;
        Ok(())
    }

    fn unlock_print_document(&self, remote_uuid: &str) -> copydesk_core::Result<()> {
        let released: Result<wire::PrintDocument, SyncError> =
            self.runtime.block_on(self.remote.request::<(), _>(
                Method::DELETE,
                &format!("/v3/print-document/{remote_uuid}/lock"),
                None,
                None,
            ));
        match released {
            Ok(_) | Err(SyncError::Remote { status: 404, .. }) => Ok(()),
            Err(err) => Err(refusal(err)),
        }
    }

    fn unlock(&self, remote_lock_uuid: &str) -> copydesk_core::Result<()> {
        let released: Result<wire::Message, SyncError> =
            self.runtime.block_on(self.remote.request::<(), _>(
                Method::DELETE,
                &format!("/v3/lock-request/{remote_lock_uuid}"),
                None,
                None,
            ));
        match released {
            Ok(_) | Err(SyncError::Remote { status: 404, .. }) => Ok(()),
            Err(err) => Err(refusal(err)),
        }
    }
}
