//! Where one instance's data lives: the SQLite store (one writer, a pool of readers, numbered migrations applied at open) or a PostgreSQL database, behind one transaction API.
//!
//! The crate knows the engines and nothing of the service's rules: the use
//! cases above it run their work in [`Store::read`] and [`Store::write`],
//! with their own error type (any [`Failure`]).
//!
//! WAL lets readers run beside the writer, so a read never waits for a write.
//!
//! Queries that filter on `column = ?N` and sort write the parameter as `+?N`.
//! Without the unary plus SQLite (built with STAT4) marks the statement as
//! depending on that parameter's value, and every reuse from the statement
//! cache re-prepares it: a page of 50 content items then cost 4 ms instead of
//! well under one. The plus changes no result and keeps the index in use.
//! A `LIMIT` that is a parameter does the same, so a fixed one is written
//! into the statement's text.
//! Every mutation runs in one `IMMEDIATE` transaction on the writer (its own
//! savepoint in it, when writes queue and share one commit: `group.rs`); the
//! change log rows are added by triggers in that same transaction.
//!
//! A damaged database is never written to: the store runs SQLite's
//! `quick_check` when it opens and refuses a file that fails it (a server's
//! large file is checked beside serving, writes waiting for the check, and
//! a command's only for its schema and free pages: `start_check.rs`), and
//! once a query meets a damaged page while serving, every later write is
//! refused.
//! A clean close checkpoints the WAL into `copydesk.db`, so that file alone
//! holds everything.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::db::{PgConnection, Transaction};

pub use crate::error::{Failure, Result, StoreError};

pub mod causes;
mod checkpointer;
pub mod db;
pub mod error;
mod group;
mod import;
mod migrations;
pub mod orphaned_uploads;
mod pool;
mod postgres;
mod postgres_tls;
pub mod search_index;
mod search_tsvector;
mod start_check;
mod story_text;
pub mod uploads;

use checkpointer::Checkpointer;
use group::GroupWriter;
use pool::Pool;
use start_check::{StartChecker, WriteGate};

type CommitHook = Box<dyn FnOnce(&Transaction<'_>) -> Result<()>>;

/// Runs `step`, a step of the store's own, in work whose error is `E`.
fn within<T, E: From<StoreError>>(step: impl FnOnce() -> Result<T>) -> Result<T, E> {
    step().map_err(E::from)
}

thread_local! {
    /// A hook the next write transaction on this thread runs before it commits
    /// (see [`Store::with_commit_hook`]).
    static BEFORE_COMMIT: std::cell::RefCell<Option<CommitHook>> = const { std::cell::RefCell::new(None) };
}

pub use import::{ImportReport, import_sqlite};
pub use postgres::{CheckReport, full_check as full_check_postgres};
pub use start_check::StartCheck;

/// One instance's data directory: `copydesk.db` and the attachment files.
pub struct Store {
    engine: Engine,
    files_dir: PathBuf,
    /// Whether writes are taken: shut while a start check runs beside
    /// serving, and for good once the database was found damaged.
    writes: Arc<WriteGate>,
}

/// Where the data lives.
enum Engine {
    /// One file: one writer, and readers beside it (WAL).
    Sqlite {
        /// The check that runs beside serving, if one does.
        start_check: Box<StartChecker>,
        writer: GroupWriter,
        readers: Pool<Connection>,
        /// Checkpoints the WAL beside the writes.
        checkpointer: Checkpointer,
    },
    /// A PostgreSQL database, perhaps shared with other nodes (see `postgres.rs`).
    Postgres(Pool<PgConnection>),
}

/// How much memory the store may use to read. The default is SQLite's own
/// (a small page cache per connection, nothing mapped) and at most four
/// readers: right for the desktop app, whose idle memory counts.
#[derive(Debug, Clone, Copy)]
pub struct ReadMemory {
    /// How much of the database file is mapped into memory (0: none). A
    /// mapped page is shared by every connection and read without a copy
    /// or a system call, where an unmapped one is read into each
    /// connection's own cache.
    pub mapped_bytes: i64,
    /// Each connection's page cache, in KiB (0: SQLite's default).
    pub cache_kib: i64,
    /// The most read connections open at once. They are opened as reads
    /// overlap, not all at the start, so an app that never runs more than
    /// two reads at a time holds two (each holds its own copy of the
    /// schema, its statements and its page cache).
    pub readers: usize,
}

impl Default for ReadMemory {
    fn default() -> Self {
        Self {
            mapped_bytes: 0,
            cache_kib: 0,
            readers: 4,
        }
    }
}

impl ReadMemory {
    /// A central server's: the whole file mapped (up to 1 TiB: the bundled
    /// SQLite's cap of 2 GiB is raised by `scripts/sqlite-flags.sh`) and 16 MiB of page cache
    /// per connection, so that a search over an archive reads its pages
    /// without a `pread` each; eight readers.
    pub const SERVER: Self = Self {
        mapped_bytes: 1 << 40,
        cache_kib: 16 * 1024,
        readers: 8,
    };
}

#[cfg(test)]
impl Store {
    /// How many read connections are open now (SQLite only).
    pub(crate) fn readers_opened(&self) -> Option<usize> {
        match &self.engine {
            Engine::Sqlite { readers, .. } => Some(readers.opened()),
            Engine::Postgres(_) => None,
        }
    }
}

/// The database file in a data directory.
pub fn database_path(dir: &Path) -> PathBuf {
    dir.join("copydesk.db")
}

impl Store {
    /// Opens (or creates) the store in `dir`, applying any pending migration.
    pub fn open(dir: &Path) -> Result<Self> {
        Self::open_with(dir, ReadMemory::default())
    }

    /// [`Store::open`] with the memory its connections may read with.
    pub fn open_with(dir: &Path, memory: ReadMemory) -> Result<Self> {
        Self::open_checked(dir, memory, StartCheck::Before)
    }

    /// [`Store::open_with`], running SQLite's `quick_check` when `check` says.
    pub fn open_checked(dir: &Path, memory: ReadMemory, check: StartCheck) -> Result<Self> {
        Self::open_inner(dir, memory, check, Box::new(|_| ()))
    }

    /// A store checked beside serving whose check first runs `before_check`.
    #[cfg(test)]
    pub(crate) fn open_held(
        dir: &Path,
        memory: ReadMemory,
        before_check: start_check::BeforeCheck,
    ) -> Result<Self> {
        Self::open_inner(dir, memory, StartCheck::Beside, before_check)
    }

    fn open_inner(
        dir: &Path,
        memory: ReadMemory,
        check: StartCheck,
        before_check: start_check::BeforeCheck,
    ) -> Result<Self> {
        create_private_dir(dir)?;
        let files_dir = dir.join("files");
        create_private_dir(&files_dir)?;
        let db_path = database_path(dir);
        create_private_file(&db_path)?;
        let mut writer = open_connection(&db_path, false, memory)?;
        let size = fs::metadata(&db_path)?.len();
        let pending = migrations_pending(&writer)?;
        let beside = check.beside_for(size) && !pending;
        if !beside {
            let problems = if check.schema_only_for(size) && !pending {
                tracing::info!(
                    bytes = size,
                    "checked the database's schema and free pages only (a large file): \
                     `copydesk-server check` reads it whole"
                );
                schema_check(&writer)?
            } else {
                quick_check(&writer)?
            };
            if !problems.is_empty() {
                // Closing the only connection would copy the WAL into the file.
                keep_wal_on_close(&writer);
                return Err(StoreError::Damaged(problems));
            }
        }
        // Checked beside serving, nothing is pending: this only refuses a
        // file of a newer schema.
        migrate(&mut writer)?;
        if !beside {
            index_pending(&mut writer)?;
        }
        restrict_to_owner(&db_path)?;
        let writes = Arc::new(WriteGate::new(beside));
        let start_check = if beside {
            StartChecker::start(
                open_connection(&db_path, false, memory)?,
                Arc::clone(&writes),
                before_check,
            )?
        } else {
            StartChecker::none()
        };
        let checkpointer = Checkpointer::start(
            &mut writer,
            {
                let db_path = db_path.clone();
                move || open_connection(&db_path, false, ReadMemory::default())
            },
            {
                let writes = Arc::clone(&writes);
                move || !writes.is_damaged()
            },
        )?;
        let first_reader = open_connection(&db_path, true, memory)?;
        let readers = Pool::new(
            Some(first_reader),
            memory.readers,
            Box::new(move || open_connection(&db_path, true, memory)),
            |_| true,
        );
        Ok(Self {
            engine: Engine::Sqlite {
                start_check: Box::new(start_check),
                writer: GroupWriter::new(writer)?,
                readers,
                checkpointer,
            },
            files_dir,
            writes,
        })
    }

    /// Opens the store in the PostgreSQL database at `url` (a libpq URL or
    /// connection string), applying any pending migration, with up to
    /// `connections` connections; attachment files live in `dir`.
    pub fn open_postgres(url: &str, dir: &Path, connections: usize) -> Result<Self> {
        create_private_dir(dir)?;
        let files_dir = dir.join("files");
        create_private_dir(&files_dir)?;
        let pool = postgres::open(url, connections)?;
        let store = Self {
            engine: Engine::Postgres(pool),
            files_dir,
            writes: Arc::new(WriteGate::new(false)),
        };
        while store.write(crate::search_index::pending_batch)? > 0 {}
        Ok(store)
    }

    /// Which engine holds the data.
    pub fn is_postgres(&self) -> bool {
        matches!(self.engine, Engine::Postgres(_))
    }

    /// The SQL dialect of the engine that holds the data.
    pub fn dialect(&self) -> crate::db::Dialect {
        match self.engine {
            Engine::Sqlite { .. } => crate::db::Dialect::Sqlite,
            Engine::Postgres(_) => crate::db::Dialect::Postgres,
        }
    }

    /// Where attachment files live.
    pub fn files_dir(&self) -> &Path {
        &self.files_dir
    }

    /// Runs `work` in one write transaction; it commits only if `work` succeeds.
    pub fn write<T, E: Failure>(
        &self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        self.write_begun(postgres::begin_write, work)
    }

    /// Runs `work` in one write transaction as [`Store::write`] does, but
    /// beside other writes on PostgreSQL: it waits only for writes that
    /// share one of its `claims` (such as `print label <label>`: see
    /// `postgres.rs`) and for writes that run alone. `work` must touch only
    /// what its claims cover, besides adding new rows, and takes from the
    /// queues ([`Transaction::queued_here`]) only what it queued. SQLite's
    /// one writer runs it as any other write.
    pub fn write_beside<T, E: Failure>(
        &self,
        claims: &[&str],
        work: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        self.write_begun(|conn| postgres::begin_beside(conn, claims), work)
    }

    /// Runs `work`, a write that makes one new story and claims nothing,
    /// beside other writes as [`Store::write_beside`] does. `alone`: it
    /// makes that story and nothing else, of no authors, tags, URLs, file or
    /// lead photo, and declares it ([`Transaction::declare_made_alone`])
    /// before it renders it (the rendering finds the story by that
    /// declaration); then on PostgreSQL the queues' triggers leave it be,
    /// and it fails if it declared none or several.
    pub fn write_making_story<T, E: Failure>(
        &self,
        alone: bool,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        match alone {
            true => self.write_begun(postgres::begin_making_story, work),
            false => self.write_beside(&[], work),
        }
    }

    /// A write whose PostgreSQL transaction `begin` opens (and takes its locks).
    fn write_begun<T, E: Failure>(
        &self,
        begin: impl Fn(&mut PgConnection) -> crate::db::Result<crate::db::PgTransaction<'_>>,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        if let Some(refusal) = self.writes.refusal() {
            return Err(refusal.into());
        }
        let written = match &self.engine {
            Engine::Sqlite { writer, .. } => {
                writer.write(work, || BEFORE_COMMIT.with(|slot| slot.borrow_mut().take()))
            }
            Engine::Postgres(pool) => {
                postgres::in_transaction(pool, begin, |tx| commit_write(tx, work))
            }
        };
        self.note_damage(written)
    }

    /// Numbers the change log's rows that no older write can still join
    /// (PostgreSQL, whose writes commit out of order: `postgres.rs`), so
    /// that a read of the feed after it sees every change committed before
    /// it. Nothing to do on SQLite, which numbers rows in commit order.
    pub fn number_changes(&self) -> Result<()> {
        match &self.engine {
            // A store that takes no writes reads the feed as numbered.
            Engine::Postgres(pool) if self.writes.refusal().is_none() => {
                self.note_damage(postgres::number_changes(pool))
            }
            _ => Ok(()),
        }
    }

    /// Remembers a damaged database, so that no later write touches it.
    fn note_damage<T, E: Failure>(&self, result: Result<T, E>) -> Result<T, E> {
        if let Err(err) = &result
            && err.is_damage()
            && self.writes.shut_damaged()
        {
            tracing::error!(
                "the database is damaged: from now on every write is refused; run `copydesk-server check`"
            );
        }
        result
    }

    /// Runs `work` (one use case) so that the first write transaction it
    /// commits also runs `hook`, atomically with the write. Returns whether a
    /// write committed with the hook.
    pub fn with_commit_hook<T>(
        &self,
        hook: impl FnOnce(&Transaction<'_>) -> Result<()> + 'static,
        work: impl FnOnce() -> T,
    ) -> (T, bool) {
        let ran = std::rc::Rc::new(std::cell::Cell::new(false));
        let flag = std::rc::Rc::clone(&ran);
        let wrapped: CommitHook = Box::new(move |tx| {
            hook(tx)?;
            flag.set(true);
            Ok(())
        });
        BEFORE_COMMIT.with(|slot| *slot.borrow_mut() = Some(wrapped));
        let out = work();
        BEFORE_COMMIT.with(|slot| slot.borrow_mut().take());
        (out, ran.get())
    }

    /// Runs `work` on a reader inside one read transaction, so it sees one snapshot.
    pub fn read<T, E: Failure>(
        &self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let read = match &self.engine {
            Engine::Sqlite { readers, .. } => (|| {
                let mut conn = readers.take()?;
                let tx = within(|| {
                    Ok(Transaction::from_sqlite(
                        conn.conn_mut()
                            .transaction_with_behavior(TransactionBehavior::Deferred)?,
                    ))
                })?;
                let out = work(&tx)?;
                within(|| Ok(tx.finish()?))?;
                Ok(out)
            })(),
            Engine::Postgres(pool) => postgres::in_transaction(pool, PgConnection::read, |tx| {
                let out = work(&tx)?;
                within(|| Ok(tx.finish()?))?;
                Ok(out)
            }),
        };
        self.note_damage(read)
    }

    /// Runs `work`, a read of one statement, as cheaply as the engine
    /// allows: on PostgreSQL outside any transaction (the statement is its
    /// own snapshot: one round trip, not three), on SQLite as
    /// [`Store::read`]. For the check each request makes first (has any
    /// user, key or grant changed?).
    pub fn read_statement<T>(
        &self,
        work: impl Fn(&Transaction<'_>) -> crate::db::Result<T>,
    ) -> Result<T> {
        match &self.engine {
            Engine::Sqlite { .. } => self.read(|tx| Ok::<_, StoreError>(work(tx)?)),
            Engine::Postgres(pool) => self.note_damage(postgres::statement(pool, work)),
        }
    }

    /// Queues every item to have its kept answer rendered again.
    pub fn queue_every_render(&self) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO content_render_pending (content_id) SELECT id FROM content WHERE true
                 ON CONFLICT DO NOTHING",
                [],
            )?;
            Ok::<_, StoreError>(())
        })
    }

    /// Empties the search index and builds it again from the stored items, a
    /// batch per transaction; returns how many items it indexed.
    pub fn rebuild_search_index(&self) -> Result<usize> {
        if let Some(refusal) = self.writes.refusal() {
            return Err(refusal);
        }
        match &self.engine {
            Engine::Sqlite { writer, .. } => {
                // On the connection alone: a write would index everything
                // it queued before it commits, in one transaction.
                let mut conn = writer.connection()?;
                let tx = Transaction::from_sqlite(
                    conn.transaction_with_behavior(TransactionBehavior::Immediate)?,
                );
                let queued = crate::search_index::queue_all(&tx)?;
                tx.commit()?;
                index_pending(&mut conn)?;
                Ok(queued)
            }
            Engine::Postgres(pool) => {
                // Queued without the flush a write ends with, which would
                // index every item in this one transaction; then a batch
                // per transaction.
                let queued = self.note_damage(postgres::in_transaction(
                    pool,
                    postgres::begin_write,
                    |tx| {
                        let queued = crate::search_index::queue_all(&tx)?;
                        tx.commit()?;
                        Ok::<_, StoreError>(queued)
                    },
                ))?;
                while self.write(crate::search_index::pending_batch)? > 0 {}
                Ok(queued)
            }
        }
    }

    /// On PostgreSQL, `VACUUM (ANALYZE)` of the whole database, after a
    /// bulk load (an import): the planner gets every table's statistics,
    /// the search index's pending entries are merged into it, and every
    /// page is marked all-visible for index-only scans. Nothing on SQLite,
    /// whose plans this store chooses without statistics.
    pub fn vacuum_analyze(&self) -> Result<()> {
        match &self.engine {
            Engine::Sqlite { .. } => Ok(()),
            Engine::Postgres(pool) => {
                // Outside any transaction, which VACUUM may not run in.
                let mut conn = pool.take()?;
                Ok(conn
                    .conn_mut()
                    .statement()
                    .batch_execute("VACUUM (ANALYZE)")?)
            }
        }
    }

    /// Moves everything in the WAL into `copydesk.db` and empties the WAL
    /// (`wal_checkpoint(TRUNCATE)`): for a clean stop, after the last write.
    /// Says whether every frame made it (a reader still open can hold some back).
    /// PostgreSQL keeps its own log: nothing to do there. A start check
    /// still running is stopped first, and writes stay refused after it; a
    /// damaged database is not checkpointed (`StoreError::Damaged`).
    pub fn checkpoint(&self) -> Result<bool> {
        let Engine::Sqlite {
            writer,
            checkpointer,
            start_check,
            ..
        } = &self.engine
        else {
            return Ok(true);
        };
        // A check still reading would hold the WAL back.
        start_check.stop();
        if self.writes.is_damaged() {
            // Nothing is copied into a damaged file (see `Drop for Store`).
            return Err(StoreError::Damaged(Vec::new()));
        }
        let _no_background_checkpoint = checkpointer.pause()?;
        let conn = writer.connection()?;
        let (busy, _frames, _moved): (i64, i64, i64) =
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })?;
        Ok(busy == 0)
    }
}

impl Drop for Store {
    /// A damaged file keeps its WAL beside it as it is: the connections
    /// that may write close without checkpointing.
    fn drop(&mut self) {
        let Engine::Sqlite {
            writer,
            checkpointer,
            ..
        } = &self.engine
        else {
            return;
        };
        if !self.writes.is_damaged() {
            return;
        }
        if let Ok(conn) = writer.connection() {
            keep_wal_on_close(&conn);
        }
        if let Ok(background) = checkpointer.pause()
            && let Some(conn) = background.as_ref()
        {
            keep_wal_on_close(conn);
        }
    }
}

/// Has `conn`, a connection to a damaged file, close without checkpointing,
/// so that nothing of the WAL is copied into the file.
fn keep_wal_on_close(conn: &Connection) {
    if let Err(err) = conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true) {
        tracing::error!(%err, "a connection to the damaged database may checkpoint as it closes");
    }
}

/// Finishes a write on PostgreSQL: `work`, then the search index of what it
/// changed and the commit hook, then the commit. (SQLite's writes commit in
/// groups: `group.rs`.)
fn commit_write<T, E: From<StoreError>>(
    tx: Transaction<'_>,
    work: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
) -> Result<T, E> {
    let out = work(&tx)?;
    within(|| {
        crate::search_index::flush_pending(&tx)?;
        if let Some(hook) = BEFORE_COMMIT.with(|slot| slot.borrow_mut().take()) {
            hook(&tx)?;
        }
        Ok(tx.commit()?)
    })?;
    Ok(out)
}

/// Indexes for search the items still queued (every item, after the upgrade
/// that adds the index or a `search rebuild`), a batch per transaction so
/// that a large archive neither holds one huge transaction nor starts over
/// when stopped halfway.
fn index_pending(conn: &mut Connection) -> Result<()> {
    index_pending_while(conn, &|| true)
}

/// [`index_pending`], a batch at a time while `go_on` says so.
fn index_pending_while(conn: &mut Connection, go_on: &dyn Fn() -> bool) -> Result<()> {
    let mut indexed = 0usize;
    while go_on() {
        let tx = Transaction::from_sqlite(
            conn.transaction_with_behavior(TransactionBehavior::Immediate)?,
        );
        let done = crate::search_index::pending_batch(&tx)?;
        tx.commit()?;
        if done == 0 {
            break;
        }
        indexed += done;
        if indexed % 100_000 < done {
            tracing::info!("indexed {indexed} items for search");
        }
    }
    if indexed > 0 && go_on() {
        let tx = Transaction::from_sqlite(
            conn.transaction_with_behavior(TransactionBehavior::Immediate)?,
        );
        crate::search_index::optimize(&tx)?;
        tx.commit()?;
        tracing::info!("indexed {indexed} items for search");
    }
    Ok(())
}

/// Runs SQLite's `quick_check` on `conn`; the problems it found, none when sound.
fn quick_check(conn: &Connection) -> Result<Vec<String>> {
    check_with(conn, "PRAGMA quick_check")
}

/// `quick_check` of the schema's B-tree and the list of free pages only
/// (SQLite checks the free pages when the one table named is the schema's).
fn schema_check(conn: &Connection) -> Result<Vec<String>> {
    check_with(conn, "PRAGMA quick_check(sqlite_schema)")
}

fn check_with(conn: &Connection, pragma: &str) -> Result<Vec<String>> {
    let mut statement = conn.prepare(pragma)?;
    let answers = statement
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>();
    match answers {
        Ok(answers) if answers == ["ok"] => Ok(Vec::new()),
        Ok(answers) => Ok(answers),
        // A file too damaged for the check to run at all.
        Err(err) => match StoreError::from(err) {
            StoreError::Damaged(_) => Ok(vec!["SQLite could not read the database".to_owned()]),
            other => Err(other),
        },
    }
}

/// Opens the database of `dir` read-only, without migrating or changing it:
/// for checking and copying a store that may be damaged or live.
fn open_untouched(dir: &Path) -> Result<Connection> {
    let path = database_path(dir);
    if !path.is_file() {
        return Err(StoreError::NotFound(format!(
            "there is no database at {}",
            path.display()
        )));
    }
    let conn = Connection::open_with_flags(
        &path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    Ok(conn)
}

/// Removes the folders of uploads in `dir` cut off before their record was
/// written, last changed at least `min_age` ago (see `orphaned_uploads`),
/// reading the database without changing it; returns how many.
pub fn remove_orphaned_uploads(dir: &Path, min_age: std::time::Duration) -> Result<usize> {
    let conn = open_untouched(dir)?;
    let mut statement = conn.prepare("SELECT salt FROM attachments")?;
    let salts: std::collections::HashSet<String> = statement
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<std::result::Result<_, _>>()?;
    Ok(crate::orphaned_uploads::remove(
        &dir.join("files"),
        &salts,
        min_age,
    ))
}

/// SQLite's full `integrity_check` of the database in `dir` (every page,
/// every index entry), and its foreign keys: the problems found, none when
/// sound. Safe beside a running server: it only reads.
pub fn full_check(dir: &Path) -> Result<Vec<String>> {
    let conn = open_untouched(dir)?;
    let mut problems = check_with(&conn, "PRAGMA integrity_check")?;
    if problems.is_empty() {
        let broken_references: i64 =
            conn.query_row("SELECT COUNT(*) FROM pragma_foreign_key_check", [], |row| {
                row.get(0)
            })?;
        if broken_references > 0 {
            problems.push(format!(
                "{broken_references} rows point at records that do not exist (foreign_key_check)"
            ));
        }
    }
    Ok(problems)
}

/// Copies the database of `dir`, live or not, to a new file `to`: one
/// consistent snapshot (`VACUUM INTO`), compacted, owner-only, and checked
/// with `quick_check` once written. Returns the copy's size in bytes.
pub fn backup(dir: &Path, to: &Path) -> Result<u64> {
    let conn = open_untouched(dir)?;
    let target = to
        .to_str()
        .ok_or_else(|| StoreError::invalid(format!("{} is not a UTF-8 path", to.display())))?;
    // Made here, owner-only, and only if nothing is there yet: a backup
    // never overwrites or removes a file it did not make.
    if let Err(err) = create_new_private_file(to) {
        return Err(if err.kind() == std::io::ErrorKind::AlreadyExists {
            StoreError::Conflict {
                message: format!(
                    "{} exists already; a backup never overwrites a file",
                    to.display()
                ),
                field: None,
            }
        } else {
            err.into()
        });
    }
    let written = (|| {
        conn.execute("VACUUM INTO ?1", [target])?;
        let copy = Connection::open_with_flags(to, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let problems = quick_check(&copy)?;
        if !problems.is_empty() {
            return Err(StoreError::Damaged(problems));
        }
        Ok(fs::metadata(to)?.len())
    })();
    if written.is_err() {
        let _ = fs::remove_file(to);
    }
    written
}

#[cfg(unix)]
fn create_new_private_file(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map(drop)
}

#[cfg(not(unix))]
fn create_new_private_file(path: &Path) -> std::io::Result<()> {
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map(drop)
}

fn lock<T>(mutex: &std::sync::Mutex<T>) -> Result<std::sync::MutexGuard<'_, T>> {
    mutex
        .lock()
        .map_err(|_| StoreError::Internal("a storage connection was poisoned by a panic".into()))
}

fn open_connection(path: &Path, read_only: bool, memory: ReadMemory) -> Result<Connection> {
    let flags = if read_only {
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI
    } else {
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI
    };
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    copydesk_search_rank::register(&conn)?;
    if !read_only {
        conn.pragma_update(None, "journal_mode", "WAL")?;
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.set_prepared_statement_cache_capacity(128);
    if memory.mapped_bytes > 0 {
        let mapped: i64 =
            conn.pragma_update_and_check(None, "mmap_size", memory.mapped_bytes, |row| row.get(0))?;
        if mapped < memory.mapped_bytes {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                tracing::warn!(
                    "SQLite maps at most {mapped} bytes of the database, not the {} asked for: \
                     it was built without scripts/sqlite-flags.sh",
                    memory.mapped_bytes
                );
            });
        }
    }
    if memory.cache_kib > 0 {
        conn.pragma_update(None, "cache_size", -memory.cache_kib)?;
    }
    Ok(conn)
}

/// Whether `conn`'s database lacks a migration this program applies.
fn migrations_pending(conn: &Connection) -> Result<bool> {
    let current: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    Ok(usize::try_from(current).map_or(true, |current| current < migrations::SQLITE.len()))
}

fn migrate(conn: &mut Connection) -> Result<()> {
    let current: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    for (index, (name, sql)) in migrations::SQLITE.iter().enumerate() {
        let number = i64::try_from(index + 1)
            .map_err(|_| StoreError::Internal("too many migrations".into()))?;
        if number <= current {
            continue;
        }
        let tx = conn.transaction_with_behavior(TransactionBehavior::Exclusive)?;
        tx.execute_batch(sql)
            .map_err(|err| StoreError::Internal(format!("migration {name}: {err}")))?;
        tx.pragma_update(None, "user_version", number)?;
        tx.commit()?;
        tracing::info!(migration = name, "applied migration");
    }
    let newest = i64::try_from(migrations::SQLITE.len()).unwrap_or(i64::MAX);
    if current > newest {
        return Err(StoreError::Internal(format!(
            "the database has schema {current}, newer than this program knows ({newest})"
        )));
    }
    Ok(())
}

fn create_private_dir(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir)?;
    restrict_to_owner(dir)
}

/// Creates the database file as owner-only before SQLite opens it, so that
/// the WAL and shared-memory files SQLite makes beside it get the same mode.
#[cfg(unix)]
fn create_private_file(path: &Path) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    if !path.exists() {
        fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn create_private_file(_path: &Path) -> Result<()> {
    Ok(())
}

#[cfg(unix)]
fn restrict_to_owner(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = if path.is_dir() { 0o700 } else { 0o600 };
    fs::set_permissions(path, fs::Permissions::from_mode(mode))?;
    Ok(())
}

#[cfg(not(unix))]
fn restrict_to_owner(_path: &Path) -> Result<()> {
    Ok(())
}

/// A fixed set of read-only connections handed out one at a time.
#[cfg(test)]
mod tests;
