//! Copydesk's `/v3` service as a library: the rules and use cases on a SQLite store, knowing neither HTTP nor Tauri.
//!
//! Every use case takes the [`access::Principal`] that asks, checks its access
//! action first, then works in one transaction of the [`store::Store`].

pub mod access;
pub mod assignments;
pub mod attachments;
pub mod authors;
pub mod changes;
pub mod comments;
pub mod containers;
pub mod content;
mod content_embeds;
pub mod content_rendered;
pub mod drafts;
pub mod error;
pub mod exports;
pub mod idempotency;
pub mod locks;
pub mod model;
pub mod planning;
pub mod presence;
mod principal_cache;
pub mod print_documents;
pub mod records;
pub mod replica;
pub mod search;
pub mod sign_in;
pub mod skipped;
pub mod story_merge;
pub mod synced;
pub mod tags;
pub mod text_notes;
pub mod text_size;
pub mod users;
pub mod versions;

use std::path::Path;

/// The engines the use cases run their transactions on (the store crate).
pub use copydesk_store as store;
use copydesk_store::search_index;
pub use copydesk_store::{db, params};
/// The contract's vocabulary (the wire crate) and the slugs of titles (the text crate).
pub use copydesk_text::slug;
pub use copydesk_wire::{clock, paging, record_type, srn};

pub use error::{CoreError, Result, TokenProblem};

use access::Principal;
use store::Store;

/// The default namespace of the SRNs an instance writes.
pub const DEFAULT_NAMESPACE: &str = "copydesk";

// The slots the service holds beside its store, each set once or kept
// while it runs, declared here with the service itself.

/// On a replica, the central server's locks, as it takes and releases them
/// (see [`Cms::forward_locks`]): a lock that is not real on the server is no
/// lock.
pub trait RemoteLocks: Send + Sync {
    /// Takes the server's lock on the content item with `remote_uuid`; returns the server's lock UUID.
    /// Unreachable: `CoreError::Offline`; held by someone else there: `CoreError::Locked`.
    fn lock_content(&self, remote_uuid: &str) -> Result<String>;
    /// Releases the server's lock `remote_lock_uuid`.
    fn unlock(&self, remote_lock_uuid: &str) -> Result<()>;
    /// Marks the server's print document `remote_uuid` as out (for `on_behalf_of`, a user UUID there).
    fn lock_print_document(&self, remote_uuid: &str, on_behalf_of: Option<&str>) -> Result<()>;
    /// Removes the server's lock on the print document `remote_uuid`.
    fn unlock_print_document(&self, remote_uuid: &str) -> Result<()>;
}

/// How far a running sync round has come.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncProgress {
    pub pulled: usize,
    pub pushed: usize,
}

/// Turns an item into the text a client reads.
pub type Renderer = std::sync::Arc<dyn Fn(model::content::ContentItem) -> String + Send + Sync>;

/// The renderer the HTTP layer gave, and how stored answers are checked.
pub(crate) struct Rendering {
    pub(crate) renderer: Renderer,
    /// The renderer's name and version, and the namespace rendered under.
    pub(crate) format: String,
    pub(crate) check: bool,
}

/// One running instance of the service: its store and its settings.
pub struct Cms {
    store: Store,
    namespace: String,
    /// On a replica: the central server's locks, which local locks stand for.
    remote_locks: std::sync::OnceLock<std::sync::Arc<dyn RemoteLocks>>,
    /// While a sync round runs in this process: what it pulled and pushed so far.
    sync_progress: std::sync::Mutex<Option<SyncProgress>>,
    /// Whether this replica is listening to the central server's change stream now.
    listening: std::sync::atomic::AtomicBool,
    /// Credentials verified lately (see `principal_cache`).
    principals: principal_cache::PrincipalCache,
    /// How content answers are rendered and kept (see `content_rendered`).
    rendering: std::sync::OnceLock<Rendering>,
    /// Who is in which story now (see `presence`).
    presence: presence::PresenceBoard,
}

impl Cms {
    /// Opens the instance whose data lives in `dir` (created on first use).
    pub fn open(dir: &Path, namespace: &str) -> Result<Self> {
        Self::open_with(dir, namespace, store::ReadMemory::default())
    }

    /// [`Cms::open`] with the memory the store may read with (see
    /// [`store::ReadMemory`]).
    pub fn open_with(dir: &Path, namespace: &str, memory: store::ReadMemory) -> Result<Self> {
        Self::open_checked(dir, namespace, memory, store::StartCheck::Before)
    }

    /// [`Cms::open_with`], running SQLite's `quick_check` when `check` says
    /// (a server's large archive: beside serving).
    pub fn open_checked(
        dir: &Path,
        namespace: &str,
        memory: store::ReadMemory,
        check: store::StartCheck,
    ) -> Result<Self> {
        Ok(Self::on(
            Store::open_checked(dir, memory, check)?,
            namespace,
        ))
    }

    /// A central server whose data lives in the PostgreSQL database at
    /// `url`, with up to `connections` connections; attachment files in `dir`.
    pub fn open_postgres(
        url: &str,
        dir: &Path,
        namespace: &str,
        connections: usize,
    ) -> Result<Self> {
        Ok(Self::on(
            Store::open_postgres(url, dir, connections)?,
            namespace,
        ))
    }

    fn on(store: Store, namespace: &str) -> Self {
        Self {
            store,
            namespace: namespace.to_owned(),
            remote_locks: std::sync::OnceLock::new(),
            sync_progress: std::sync::Mutex::new(None),
            listening: std::sync::atomic::AtomicBool::new(false),
            principals: principal_cache::PrincipalCache::default(),
            rendering: std::sync::OnceLock::new(),
            presence: presence::PresenceBoard::default(),
        }
    }

    /// Makes this replica take and release locks on its central server first.
    pub fn forward_locks(&self, remote: std::sync::Arc<dyn RemoteLocks>) {
        let _ = self.remote_locks.set(remote);
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Runs `work` in one read transaction: one snapshot.
    pub(crate) fn read<T>(
        &self,
        work: impl FnOnce(&db::Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        self.store.read(work)
    }

    /// The one write path: runs `work` in one write transaction, then
    /// renders the items it queued (see `content_rendered`), in the same
    /// transaction, so that every item is served from its kept answer once
    /// the write is acknowledged.
    pub(crate) fn write<T>(
        &self,
        work: impl FnOnce(&db::Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        self.store.write(|tx| {
            let out = work(tx)?;
            self.render_pending(tx, None)?;
            Ok(out)
        })
    }

    /// [`Cms::write`] beside other writes on PostgreSQL (the store's
    /// `write_beside`): for a write whose reads and changes are covered by
    /// its claims (here or `tx.claim`) or new, as a story made, a draft.
    pub(crate) fn write_beside<T>(
        &self,
        claims: &[&str],
        work: impl FnOnce(&db::Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        self.store.write_beside(claims, |tx| {
            let out = work(tx)?;
            self.render_pending(tx, None)?;
            Ok(out)
        })
    }

    /// [`Cms::write_beside`] for a write that makes one story (`work`, which
    /// says what it made it with; `alone`, see the store's
    /// `write_making_story`): its answer is rendered reading only the parts
    /// a story just made can hold, and `finish` gets it, reads what it
    /// needs and writes nothing more.
    pub(crate) fn write_making_story<T>(
        &self,
        alone: bool,
        work: impl FnOnce(&db::Transaction<'_>) -> Result<model::content::MadeNow>,
        finish: impl FnOnce(&db::Transaction<'_>, i64, model::content::Rendered) -> Result<T>,
    ) -> Result<T> {
        // A new story: nothing another write holds.
        self.store.write_making_story(alone, |tx| {
            let made = work(tx)?;
            let id = made.id;
            let rendered = self.render_pending(tx, Some(made))?.unwrap_or_default();
            finish(tx, id, rendered)
        })
    }

    /// [`Cms::write`] for a write that queues many items at once (a batch
    /// of creates): every item it queued is rendered before it commits, not
    /// one batch of them.
    pub(crate) fn write_rendering_all<T>(
        &self,
        work: impl FnOnce(&db::Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        self.store.write(|tx| {
            let out = work(tx)?;
            while self.render_pending(tx, None)?.is_some() {}
            Ok(out)
        })
    }

    /// Leaves `copydesk.db` holding everything, with an empty WAL: the last
    /// step of a clean stop. Says whether every change made it in.
    pub fn checkpoint(&self) -> Result<bool> {
        Ok(self.store.checkpoint()?)
    }

    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// Verifies a request's credential (`None` when the request had none).
    pub fn authenticate(
        &self,
        credential: Option<&access::Credential>,
    ) -> Result<std::sync::Arc<Principal>> {
        let credential = credential.ok_or(CoreError::Token(TokenProblem::Missing))?;
        // The token's own clock, as its signature check reads it.
        let now = chrono::Utc::now().timestamp();
        // A credential verified lately costs one statement, outside a
        // transaction; the others are verified in one read.
        let epoch = self.store.read_statement(principal_cache::current_epoch)?;
        if let Some(known) = self.principals.lookup(credential, epoch, now) {
            return Ok(known);
        }
        self.read(|tx| {
            self.principals.principal(tx, credential, now, || {
                access::authenticate_credential(tx, credential)
            })
        })
    }

    /// Verifies a request's credential and runs `work` as its principal in
    /// the same read transaction (one snapshot, one trip to the pool): for
    /// the reads a client makes most.
    pub fn read_as<T>(
        &self,
        credential: Option<&access::Credential>,
        work: impl FnOnce(&crate::db::Transaction<'_>, &Principal) -> Result<T>,
    ) -> Result<(T, std::sync::Arc<Principal>)> {
        let credential = credential.ok_or(CoreError::Token(TokenProblem::Missing))?;
        let now = chrono::Utc::now().timestamp();
        self.read(|tx| {
            let who = self.principals.principal(tx, credential, now, || {
                access::authenticate_credential(tx, credential)
            })?;
            Ok((work(tx, &who)?, who))
        })
    }

    /// Empties the search index and builds it again (`search rebuild`);
    /// returns how many items it indexed.
    pub fn rebuild_search_index(&self) -> Result<usize> {
        Ok(self.store.rebuild_search_index()?)
    }

    /// Creates a key pair (and its user when new), as `key create` does.
    pub fn create_key(
        &self,
        name: &str,
        roles: &[String],
        actions: &[String],
    ) -> Result<access::NewKeyPair> {
        self.write(|tx| access::create_key(tx, name, roles, actions))
    }

    /// Marks a key's content answers as one-element arrays, or not (`key set`).
    pub fn set_key_content_as_array(&self, public_key: &str, on: bool) -> Result<()> {
        self.write(|tx| access::set_content_as_array(tx, public_key, on))
    }

    pub(crate) fn srn(&self, record_type: record_type::RecordType, uuid: &str) -> String {
        srn::Srn::new(&self.namespace, record_type, uuid).to_string()
    }
}
