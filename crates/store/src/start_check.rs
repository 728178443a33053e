//! Checks a large database at a server's start beside serving it, so that an archive answers reads at once and takes writes only once SQLite's `quick_check` has passed.
//!
//! `quick_check` reads every page: about 0.4 s a GB when the operating
//! system has the file cached, 15 s a GB straight after a boot. Run before
//! serving, it held a server on an archive of a million stories (14 GB) for
//! one to two minutes at every start. Here the check runs on a connection
//! of its own while the server answers reads; every write is refused with
//! [`StoreError::Checking`] until it passes, and for good with
//! [`StoreError::Damaged`] when it fails, as when a query meets a damaged
//! page while serving. A clean stop interrupts a check under way.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use crate::error::{Result, StoreError};

/// When the store runs SQLite's `quick_check` on the file it opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StartCheck {
    /// Before it opens: a damaged file is refused (`StoreError::Damaged`)
    /// and nothing is written to it. The desktop app and every command.
    #[default]
    Before,
    /// Beside serving: reads are served at once, writes wait for the check
    /// (see the module's text). A file with a migration to apply is
    /// checked before, as with `Before`: nothing migrates a damaged file.
    Beside,
    /// `Beside` for a file larger than `bytes`, `Before` for a smaller one.
    BesideAbove { bytes: u64 },
    /// A command that writes a row or two (`key create`, `user password`):
    /// `Before` for a file of up to `bytes`; for a larger one, before it
    /// opens, only the schema's B-tree and the structure of the list of
    /// free pages (its pages, and page numbers within the file: a disk's
    /// garbage there would hand out pages at random). Not checked: whether
    /// a free page is also a table's, which only the whole check can tell.
    /// A damaged page the command reads is met as it reads it, and refused.
    /// Reading a whole archive (90 to 110 s for 14 GB) to add a key is
    /// `check`'s work, and a server's at its start.
    SchemaAbove { bytes: u64 },
}

impl StartCheck {
    /// A server's default: before serving up to 1 GiB (a second at most
    /// when cached), beside serving above.
    pub const SERVER: Self = Self::BesideAbove { bytes: 1 << 30 };

    /// A command's default: the whole file before it opens up to 1 GiB,
    /// the schema and the free pages above.
    pub const COMMAND: Self = Self::SchemaAbove { bytes: 1 << 30 };

    /// Whether a database of `size` bytes is checked beside serving.
    pub(super) fn beside_for(self, size: u64) -> bool {
        match self {
            Self::Before | Self::SchemaAbove { .. } => false,
            Self::Beside => true,
            Self::BesideAbove { bytes } => size > bytes,
        }
    }

    /// Whether a database of `size` bytes is checked only for its schema
    /// and free pages before it opens.
    pub(super) fn schema_only_for(self, size: u64) -> bool {
        matches!(self, Self::SchemaAbove { bytes } if size > bytes)
    }
}

const OPEN: u8 = 0;
const CHECKING: u8 = 1;
const DAMAGED: u8 = 2;

/// Whether the store takes writes: open, waiting for the start check, or
/// shut for good because the database is damaged.
#[derive(Debug)]
pub(super) struct WriteGate(AtomicU8);

impl WriteGate {
    pub(super) fn new(checking: bool) -> Self {
        Self(AtomicU8::new(if checking { CHECKING } else { OPEN }))
    }

    /// Why a write is refused now, if it is.
    pub(super) fn refusal(&self) -> Option<StoreError> {
        match self.0.load(Ordering::Acquire) {
            OPEN => None,
            CHECKING => Some(StoreError::Checking),
            _ => Some(StoreError::Damaged(Vec::new())),
        }
    }

    /// Shuts writes for good; whether this call shut them.
    pub(super) fn shut_damaged(&self) -> bool {
        self.0.swap(DAMAGED, Ordering::AcqRel) != DAMAGED
    }

    /// Whether writes wait for the start check still.
    fn is_checking(&self) -> bool {
        self.0.load(Ordering::Acquire) == CHECKING
    }

    /// Whether the database was found damaged.
    pub(super) fn is_damaged(&self) -> bool {
        self.0.load(Ordering::Acquire) == DAMAGED
    }

    /// Opens writes after a check that passed, unless damage was met meanwhile.
    fn open_checked(&self) -> bool {
        self.0
            .compare_exchange(CHECKING, OPEN, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

/// Run on the checking thread before the check, with the flag a stop sets:
/// nothing in a server; a test holds the check with it.
pub(super) type BeforeCheck = Box<dyn FnOnce(&AtomicBool) + Send>;

/// How long the checking thread waits before it runs again a check that
/// could not finish (an I/O error, memory).
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(10);

/// The thread that checks the database beside serving, if one was started.
pub(super) struct StartChecker {
    running: Mutex<Option<Running>>,
}

struct Running {
    thread: JoinHandle<()>,
    stopping: Arc<AtomicBool>,
}

impl StartChecker {
    /// No check beside serving (it ran before, or the engine is not SQLite).
    pub(super) fn none() -> Self {
        Self {
            running: Mutex::new(None),
        }
    }

    /// Checks on `conn` (a connection that may write) on a thread of its
    /// own, then indexes what waits for the search index and opens `gate`;
    /// or shuts it when the database is damaged.
    pub(super) fn start(
        mut conn: Connection,
        gate: Arc<WriteGate>,
        before_check: BeforeCheck,
    ) -> Result<Self> {
        let stopping = Arc::new(AtomicBool::new(false));
        stop_when_set(&mut conn, Arc::clone(&stopping))?;
        let thread = std::thread::Builder::new()
            .name("copydesk-start-check".into())
            .spawn({
                let stopping = Arc::clone(&stopping);
                move || {
                    before_check(&stopping);
                    let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        check_then_open(&mut conn, &gate, &stopping);
                    }));
                    if checked.is_err() {
                        tracing::error!(
                            "the start check panicked: writes stay refused; start the server again, \
                             or run `copydesk-server check`"
                        );
                    }
                }
            })
            .map_err(|err| StoreError::Internal(format!("starting the start check: {err}")))?;
        tracing::info!(
            "checking the database (SQLite's quick_check) beside serving: reads are answered now, writes once it passes"
        );
        Ok(Self {
            running: Mutex::new(Some(Running { thread, stopping })),
        })
    }

    /// Stops a check under way (a clean stop) and waits for its thread.
    pub(super) fn stop(&self) {
        let running = match self.running.lock() {
            Ok(mut running) => running.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(running) = running {
            running.stopping.store(true, Ordering::Release);
            if running.thread.join().is_err() {
                tracing::error!("the start check's thread panicked");
            }
        }
    }
}

impl Drop for StartChecker {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Ends whatever `conn` runs once `stopping` is set: polled all through a
/// statement (SQLite's integrity check calls it as it goes), so a stop is
/// never missed between two statements as an `interrupt` would be.
fn stop_when_set(conn: &mut Connection, stopping: Arc<AtomicBool>) -> Result<()> {
    conn.progress_handler(1_000, Some(move || stopping.load(Ordering::Acquire)))?;
    Ok(())
}

/// Waits `RETRY_AFTER_FAILURE`, or less if `go_on` turns false.
fn wait_to_retry(go_on: &dyn Fn() -> bool) {
    let waited = Instant::now();
    while waited.elapsed() < RETRY_AFTER_FAILURE && go_on() {
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn check_then_open(conn: &mut Connection, gate: &WriteGate, stopping: &AtomicBool) {
    let began = Instant::now();
    let go_on = || !stopping.load(Ordering::Acquire) && gate.is_checking();
    let problems = loop {
        if !go_on() {
            return;
        }
        match super::quick_check(conn) {
            Ok(problems) => break problems,
            Err(_) if !go_on() => {
                tracing::info!("the start check was stopped before it ended; writes stay refused");
                return;
            }
            Err(err) => {
                tracing::warn!(
                    %err,
                    "the start check could not finish; writes stay refused, and it runs again in {} s",
                    RETRY_AFTER_FAILURE.as_secs()
                );
                wait_to_retry(&go_on);
            }
        }
    };
    if let Some(first) = problems.first() {
        gate.shut_damaged();
        super::keep_wal_on_close(conn);
        tracing::error!(
            problems = problems.len(),
            first = first.as_str(),
            "the database is damaged (SQLite's quick_check at start): every write is refused; \
             run `copydesk-server check` for the full report, then restore the newest backup"
        );
        return;
    }
    // Indexed before writes open: the first write would otherwise index
    // the whole queue in its one transaction.
    loop {
        match super::index_pending_while(conn, &go_on) {
            Ok(()) => break,
            Err(StoreError::Damaged(_)) => {
                gate.shut_damaged();
                tracing::error!(
                    "the database is damaged (met while indexing for search at start): every write is refused; \
                     run `copydesk-server check`"
                );
                return;
            }
            Err(_) if !go_on() => break,
            Err(err) => {
                tracing::warn!(
                    %err,
                    "items waiting for the search index could not be indexed; writes stay refused, and it runs again in {} s",
                    RETRY_AFTER_FAILURE.as_secs()
                );
                wait_to_retry(&go_on);
            }
        }
    }
    if !go_on() {
        tracing::info!("the start check was stopped before it ended; writes stay refused");
        return;
    }
    if !stopping.load(Ordering::Acquire) && gate.open_checked() {
        tracing::info!(
            seconds = began.elapsed().as_secs_f64(),
            "the database passed SQLite's quick_check: writes are open"
        );
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;
    use crate::{ReadMemory, Store, database_path};

    #[test]
    fn a_passed_check_opens_writes_unless_damage_was_met_meanwhile() {
        let gate = WriteGate::new(true);
        assert!(matches!(gate.refusal(), Some(StoreError::Checking)));
        assert!(gate.open_checked());
        assert!(gate.refusal().is_none());

        let gate = WriteGate::new(true);
        assert!(gate.shut_damaged(), "the first damage shuts writes");
        assert!(!gate.shut_damaged(), "and is said once");
        assert!(
            !gate.open_checked(),
            "a check that passed opens nothing after damage"
        );
        assert!(matches!(gate.refusal(), Some(StoreError::Damaged(_))));
    }

    /// A store in `dir` with `tags` tags in it, closed cleanly.
    fn store_with_tags(dir: &std::path::Path, tags: usize) {
        let store = Store::open(dir).expect("the store opens");
        store
            .write(|tx| {
                for i in 0..tags {
                    tx.execute(
                        "INSERT INTO tags (uuid, name, slug, created_at, modified_at)
                         VALUES (?1, ?2, ?1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
                        crate::params![format!("tag-{i}"), "x".repeat(3_000)],
                    )?;
                }
                Ok::<_, crate::StoreError>(())
            })
            .expect("the tags are written");
        assert!(store.checkpoint().expect("the checkpoint runs"));
    }

    /// Overwrites pages in the middle of `dir`'s database, as a failing disk would.
    fn damage(dir: &std::path::Path) {
        let db = database_path(dir);
        let length = std::fs::metadata(&db).expect("the file").len();
        let middle = length / 2 / 4096 * 4096;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(&db)
            .expect("opens");
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(middle)).expect("seeks");
        std::io::Write::write_all(&mut file, &vec![0xA5; 8 * 4096]).expect("overwrites");
    }

    /// A check held until the sender is used or dropped, or the store
    /// stops; a receiver told when the check starts waiting; and a flag
    /// set when a stop ended the wait.
    fn held() -> (
        BeforeCheck,
        mpsc::Sender<()>,
        mpsc::Receiver<()>,
        Arc<AtomicBool>,
    ) {
        let (release, released) = mpsc::channel::<()>();
        let (waiting, started) = mpsc::channel::<()>();
        let stopped = Arc::new(AtomicBool::new(false));
        let saw_stop = Arc::clone(&stopped);
        let before: BeforeCheck = Box::new(move |stopping: &AtomicBool| {
            let _ = waiting.send(());
            while !stopping.load(Ordering::Acquire) {
                match released.recv_timeout(Duration::from_millis(10)) {
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
            }
            saw_stop.store(true, Ordering::Release);
        });
        (before, release, started, stopped)
    }

    fn tag_count(store: &Store) -> Result<i64> {
        store.read(|tx| {
            Ok(
                tx.query_row("SELECT count(*) FROM tags", crate::params![], |row| {
                    row.get(0)
                })?,
            )
        })
    }

    /// Adds a tag: what the write answered, and whether its work ran (a
    /// write the store refuses runs none of it).
    fn add_tag(store: &Store, uuid: &str) -> (Result<()>, bool) {
        let mut ran = false;
        let written = store.write(|tx| {
            ran = true;
            tx.execute(
                "INSERT INTO tags (uuid, name, slug, created_at, modified_at)
                 VALUES (?1, ?1, ?1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
                crate::params![uuid],
            )?;
            Ok(())
        });
        (written, ran)
    }

    /// Tries to write until the start check has ended: what the first write
    /// not refused for the check answered, and whether its work ran.
    fn write_once_checked(store: &Store) -> (Result<()>, bool) {
        let waited = Instant::now();
        loop {
            match add_tag(store, "after-the-check") {
                (Err(StoreError::Checking), ran) => {
                    assert!(!ran, "a write refused for the check runs nothing");
                    assert!(
                        waited.elapsed() < Duration::from_secs(60),
                        "the start check never ended"
                    );
                    std::thread::sleep(Duration::from_millis(10));
                }
                other => return other,
            }
        }
    }

    /// The page number of the first page of `dir`'s list of free pages
    /// (0: none), as the file's header says.
    fn first_free_list_page(dir: &std::path::Path) -> u64 {
        let header = std::fs::read(database_path(dir)).expect("the file");
        u64::from(u32::from_be_bytes(
            header[32..36].try_into().expect("four bytes"),
        ))
    }

    #[test]
    fn a_command_on_a_large_file_checks_its_schema_and_free_pages_only() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        store_with_tags(dir.path(), 2_000);
        damage(dir.path());
        let whole = Store::open_checked(dir.path(), ReadMemory::default(), StartCheck::Before);
        assert!(
            matches!(&whole, Err(StoreError::Damaged(problems)) if !problems.is_empty()),
            "the whole check finds the damaged pages"
        );
        drop(whole);
        // A command on a file counted large: the damaged pages are the
        // tags' own, so it opens, and meets them when it reads them.
        let command = StartCheck::SchemaAbove { bytes: 0 };
        let store = Store::open_checked(dir.path(), ReadMemory::default(), command)
            .expect("the schema and the free pages are sound");
        let every_name = store.read(|tx| {
            Ok(tx.query_row(
                "SELECT sum(length(name)) FROM tags",
                crate::params![],
                |row| row.get::<_, i64>(0),
            )?)
        });
        assert!(
            matches!(every_name, Err(StoreError::Damaged(_))),
            "{every_name:?}"
        );
        let (written, ran) = add_tag(&store, "after-the-damage-was-met");
        assert!(
            matches!(written, Err(StoreError::Damaged(_))),
            "{written:?}"
        );
        assert!(!ran, "nothing is written once damage was met");
        drop(store);
        // Counted small, the same command checks it whole.
        let small = StartCheck::SchemaAbove { bytes: u64::MAX };
        assert!(matches!(
            Store::open_checked(dir.path(), ReadMemory::default(), small),
            Err(StoreError::Damaged(_))
        ));
    }

    #[test]
    fn a_command_refuses_a_large_file_whose_free_pages_are_damaged() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        store_with_tags(dir.path(), 2_000);
        {
            let store = Store::open(dir.path()).expect("opens");
            store
                .write(|tx| {
                    tx.execute("DELETE FROM tags", crate::params![])?;
                    Ok::<_, crate::StoreError>(())
                })
                .expect("the tags go");
            assert!(store.checkpoint().expect("the checkpoint runs"));
        }
        let trunk = first_free_list_page(dir.path());
        assert!(trunk > 0, "the deleted tags' pages are free");
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(database_path(dir.path()))
            .expect("opens");
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start((trunk - 1) * 4096))
            .expect("seeks");
        std::io::Write::write_all(&mut file, &[0xA5; 4096]).expect("overwrites");
        drop(file);
        let command = StartCheck::SchemaAbove { bytes: 0 };
        let opened = Store::open_checked(dir.path(), ReadMemory::default(), command);
        assert!(
            matches!(&opened, Err(StoreError::Damaged(problems)) if problems.iter().any(|p| p.contains("Freelist"))),
            "a damaged list of free pages is refused: {:?}",
            opened.err()
        );
    }

    #[test]
    fn a_sound_store_checked_beside_serving_reads_at_once_and_writes_once_checked() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        store_with_tags(dir.path(), 2_000);
        let (before, release, started, _) = held();
        let store =
            Store::open_held(dir.path(), ReadMemory::default(), before).expect("the store opens");
        started.recv().expect("the check starts");
        assert_eq!(
            tag_count(&store).expect("a read is answered during the check"),
            2_000
        );
        let (written, ran) = add_tag(&store, "during-the-check");
        assert!(matches!(written, Err(StoreError::Checking)), "{written:?}");
        assert!(!ran, "nothing of a write refused for the check runs");
        release.send(()).expect("the check goes on");
        let (written, ran) = write_once_checked(&store);
        written.expect("the write is taken once the check has passed");
        assert!(ran);
        assert_eq!(tag_count(&store).expect("reads"), 2_001);
        assert!(store.checkpoint().expect("a clean stop's checkpoint runs"));
    }

    #[test]
    fn a_damaged_store_checked_beside_serving_takes_no_write_and_is_not_checkpointed() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        store_with_tags(dir.path(), 2_000);
        damage(dir.path());
        assert!(
            matches!(Store::open(dir.path()), Err(StoreError::Damaged(problems)) if !problems.is_empty()),
            "checked before opening, the file is refused"
        );
        let (before, release, started, _) = held();
        let store = Store::open_held(dir.path(), ReadMemory::default(), before)
            .expect("checked beside serving, the store opens");
        started.recv().expect("the check starts");
        assert!(matches!(
            add_tag(&store, "early"),
            (Err(StoreError::Checking), false)
        ));
        drop(release);
        let (written, ran) = write_once_checked(&store);
        assert!(
            matches!(written, Err(StoreError::Damaged(_))),
            "{written:?}"
        );
        assert!(!ran, "refused by the store, not by a damaged page");
        assert!(
            matches!(store.checkpoint(), Err(StoreError::Damaged(_))),
            "nothing is copied into a damaged file at a stop"
        );
    }

    #[test]
    fn a_stop_ends_a_check_under_way_and_opens_no_write() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        store_with_tags(dir.path(), 2_000);
        let (before, _release, started, stopped) = held();
        let store =
            Store::open_held(dir.path(), ReadMemory::default(), before).expect("the store opens");
        started.recv().expect("the check starts");
        let stopping = Instant::now();
        assert!(store.checkpoint().expect("the stop's checkpoint runs"));
        assert!(
            stopping.elapsed() < Duration::from_secs(5),
            "the stop waited for the check"
        );
        assert!(
            stopped.load(Ordering::Acquire),
            "the stop ended the check before the checkpoint"
        );
        assert!(
            matches!(
                add_tag(&store, "after-the-stop"),
                (Err(StoreError::Checking), false)
            ),
            "a check stopped before it passed opens nothing"
        );
        drop(store);
        let store = Store::open(dir.path()).expect("the store opens again, checked before");
        assert_eq!(tag_count(&store).expect("reads"), 2_000);
    }

    #[test]
    fn a_stop_ends_the_check_itself_and_is_not_taken_for_damage() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        store_with_tags(dir.path(), 2_000);
        let db = database_path(dir.path());
        let stopping = Arc::new(AtomicBool::new(false));
        let mut conn = crate::open_connection(&db, false, ReadMemory::default()).expect("opens");
        stop_when_set(&mut conn, Arc::clone(&stopping)).expect("the stop is polled");
        assert!(
            crate::quick_check(&conn).expect("checks").is_empty(),
            "not stopped, the check runs"
        );
        stopping.store(true, Ordering::Release);
        assert!(
            matches!(crate::quick_check(&conn), Err(StoreError::Internal(_))),
            "stopped, the check ends with an error, not with problems found"
        );
    }

    #[test]
    fn a_server_checks_a_large_file_beside_serving_and_a_small_one_before() {
        assert!(!StartCheck::SERVER.beside_for(1 << 30));
        assert!(StartCheck::SERVER.beside_for((1 << 30) + 1));
        assert!(!StartCheck::Before.beside_for(u64::MAX));
        assert!(StartCheck::Beside.beside_for(0));
    }
}
