//! Sync with a remote `/v3` service: a typed client of the remote (this step), and the sync engine built on it (next).

pub mod engine;
pub mod error;
pub mod key;
pub mod listen;
mod local;
pub mod locks;
pub mod plan;
mod presence;
pub mod remote;
pub mod remote_records;

pub use copydesk_wire::ErrorCode;
pub use engine::{Progress, Quiet, Summary, keep_synced, sync_once, sync_with_progress};
pub use error::{RemoteCode, SyncError};
pub use key::RemoteKey;
pub use listen::Listener;
pub use locks::ForwardedLocks;
pub use remote::{Capabilities, Remote};
