//! Checkpoints the WAL on a thread of its own, so that no write waits while
//! SQLite copies the WAL into the database file.
//!
//! By default SQLite checkpoints inside the commit that takes the WAL past
//! 1,000 pages: that write, and every write queued behind it, waits for the
//! copy and its two `fsync`s. Here the writer's WAL hook only asks, and a
//! connection of the checkpointer's own runs a `PASSIVE` checkpoint beside
//! the writes (it never blocks a reader or the writer).
//!
//! Under writes that never pause, a checkpoint beside them never catches up:
//! the writer adds frames while it copies, so the WAL is never wholly copied
//! and SQLite never starts it again from its beginning, and it grows without
//! end (half a gigabyte in eight seconds of creates at 16 connections),
//! every frame a new block of the file. So a commit that finds the WAL
//! past `CATCH_UP_PAGES` waits for a checkpoint begun after it, with no
//! write in between: that one copies what is left, and the next write
//! starts the WAL again from its beginning, over pages already in memory.

use std::os::raw::c_int;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use crate::error::{Result, StoreError};

/// WAL pages past which a commit asks for a checkpoint: SQLite's own default.
const CHECKPOINT_PAGES: c_int = 1000;

/// WAL pages past which a commit waits for the checkpointer to catch up:
/// 64 MB of WAL at 4 KB pages. Timed with creates at 16 connections
/// against 4,000 and 1,000 pages: 1,000 made a quarter fewer creates a
/// second (a commit waited far more often), 4,000 as many with a longer
/// 99th percentile.
#[cfg(not(test))]
const CATCH_UP_PAGES: c_int = 16 * CHECKPOINT_PAGES;
/// Smaller in tests, so that a few megabytes of writes show the bound.
#[cfg(test)]
const CATCH_UP_PAGES: c_int = 2 * CHECKPOINT_PAGES;

/// The longest a commit waits for that: past it (a stop's own checkpoint
/// holding the checkpointer, a disk too slow), the write goes on and the
/// next commit asks again.
const CATCH_UP_WAIT: Duration = Duration::from_secs(2);

/// The thread that checkpoints, and how the writer asks it to.
pub(super) struct Checkpointer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    asked: Mutex<Asked>,
    wake: Condvar,
    /// Woken when a checkpoint ends.
    ended: Condvar,
    /// The checkpointer's connection, held while it checkpoints; opened at
    /// the first checkpoint (the desktop app may never need one).
    conn: Mutex<Option<Connection>>,
    open: Box<dyn Fn() -> Result<Connection> + Send + Sync>,
    /// Whether the file may be written (not once found damaged).
    allowed: Box<dyn Fn() -> bool + Send + Sync>,
}

#[derive(Default)]
struct Asked {
    checkpoint: bool,
    stop: bool,
    /// Checkpoints begun so far, and the number of the last one ended.
    begun: u64,
    ended: u64,
}

impl Checkpointer {
    /// Starts the thread, which checkpoints on a connection that `open`
    /// makes (one that may write) while `allowed` says so, and has
    /// `writer`'s commits ask it for checkpoints instead of running them.
    pub(super) fn start(
        writer: &mut Connection,
        open: impl Fn() -> Result<Connection> + Send + Sync + 'static,
        allowed: impl Fn() -> bool + Send + Sync + 'static,
    ) -> Result<Self> {
        let shared = Arc::new(Shared {
            asked: Mutex::new(Asked::default()),
            wake: Condvar::new(),
            ended: Condvar::new(),
            conn: Mutex::new(None),
            open: Box::new(open),
            allowed: Box::new(allowed),
        });
        let thread = std::thread::Builder::new()
            .name("copydesk-checkpoint".into())
            .spawn({
                let shared = Arc::clone(&shared);
                move || checkpoint_when_asked(&shared)
            })
            .map_err(|err| StoreError::Internal(format!("starting the checkpointer: {err}")))?;
        let asker = Arc::clone(&shared);
        // Replaces SQLite's own checkpoint at commit (`wal_autocheckpoint`).
        writer.wal_hook(Some(move |_: &mut rusqlite::hooks::Wal, pages: c_int| {
            if pages >= CATCH_UP_PAGES {
                asker.wait_for_catch_up();
            } else if pages >= CHECKPOINT_PAGES {
                asker.ask(|asked| asked.checkpoint = true);
            }
            Ok(())
        }))?;
        Ok(Self {
            shared,
            thread: Some(thread),
        })
    }

    /// Holds off background checkpoints while the caller runs its own.
    pub(super) fn pause(&self) -> Result<MutexGuard<'_, Option<Connection>>> {
        super::lock(&self.shared.conn)
    }
}

impl Shared {
    fn ask(&self, what: impl FnOnce(&mut Asked)) {
        if let Ok(mut asked) = self.asked.lock() {
            what(&mut asked);
            self.wake.notify_one();
        }
    }

    /// Asks for a checkpoint and waits (at most `CATCH_UP_WAIT`) until one
    /// begun after now has ended. Called by the writer after a commit, so
    /// that no frame is added meanwhile.
    fn wait_for_catch_up(&self) {
        let Ok(mut asked) = self.asked.lock() else {
            return;
        };
        let wanted = asked.begun + 1;
        asked.checkpoint = true;
        self.wake.notify_one();
        let waited = self
            .ended
            .wait_timeout_while(asked, CATCH_UP_WAIT, |asked| {
                asked.ended < wanted && !asked.stop
            });
        if let Ok((_, timeout)) = waited
            && timeout.timed_out()
        {
            tracing::warn!(
                "the WAL's checkpoint did not catch up with the writes in time; the next commit waits again"
            );
        }
    }
}

fn checkpoint_when_asked(shared: &Shared) {
    loop {
        let number = {
            let Ok(asked) = shared.asked.lock() else {
                return;
            };
            let Ok(mut asked) = shared
                .wake
                .wait_while(asked, |asked| !asked.checkpoint && !asked.stop)
            else {
                return;
            };
            if asked.stop {
                shared.ended.notify_all();
                return;
            }
            asked.checkpoint = false;
            asked.begun += 1;
            asked.begun
        };
        checkpoint_once(shared);
        let Ok(mut asked) = shared.asked.lock() else {
            return;
        };
        asked.ended = number;
        shared.ended.notify_all();
    }
}

/// One `PASSIVE` checkpoint on the checkpointer's connection, unless the
/// file may not be written.
fn checkpoint_once(shared: &Shared) {
    let Ok(mut conn) = shared.conn.lock() else {
        return;
    };
    if !(shared.allowed)() {
        return;
    }
    if conn.is_none() {
        match (shared.open)() {
            Ok(opened) => *conn = Some(opened),
            Err(err) => {
                tracing::warn!(%err, "the checkpointer could not open the database; the next commit asks again");
                return;
            }
        }
    }
    if let Some(conn) = conn.as_ref()
        && let Err(err) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
    {
        tracing::warn!(%err, "a background checkpoint failed; the next commit asks again");
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.shared.ask(|asked| asked.stop = true);
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("the checkpointer thread panicked");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::super::{Store, database_path};

    /// One write of its own: a tag named `name`.
    fn write_tag(store: &Store, uuid: &str, name: &str) {
        store
            .write(|tx| {
                tx.execute(
                    "INSERT INTO tags (uuid, name, slug, created_at, modified_at)
                     VALUES (?1, ?2, ?1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
                    crate::params![uuid, name],
                )?;
                Ok::<_, crate::StoreError>(())
            })
            .expect("the write commits");
    }

    #[test]
    fn the_wal_is_copied_into_the_database_beside_the_writes() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = Store::open(dir.path()).expect("the store opens");
        let db = database_path(dir.path());
        let size = || std::fs::metadata(&db).expect("the database file").len();
        let before = size();
        // About 6 MB in 300 commits: some 1,500 pages of WAL, past the
        // 1,000 that ask for a checkpoint.
        let name = "x".repeat(20_000);
        for i in 0..300 {
            write_tag(&store, &format!("tag-{i}"), &name);
        }
        // Only a checkpoint moves pages from the WAL into the file.
        let waited = Instant::now();
        while size() < before + 4_000_000 {
            assert!(
                waited.elapsed() < Duration::from_secs(30),
                "the database file stayed at {} bytes: nothing was checkpointed",
                size()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(store.checkpoint().expect("a clean stop's checkpoint runs"));
    }

    /// Writes from several threads that never pause keep the writer busy
    /// without a break: the WAL stays near `CATCH_UP_PAGES`, where without
    /// the wait it grew by every page written.
    #[test]
    fn writes_that_never_pause_keep_the_wal_bounded() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = Store::open(dir.path()).expect("the store opens");
        let name = "x".repeat(20_000);
        // Some 4,000 writes of 20 KB: about 20,000 pages, ten times the bound.
        std::thread::scope(|scope| {
            for thread in 0..4 {
                let (store, name) = (&store, &name);
                scope.spawn(move || {
                    for i in 0..1_000 {
                        write_tag(store, &format!("tag-{thread}-{i}"), name);
                    }
                });
            }
        });
        let kept: i64 = store
            .read(|tx| {
                Ok::<_, crate::StoreError>(tx.query_row(
                    "SELECT count(*) FROM tags",
                    [],
                    |row| row.get(0),
                )?)
            })
            .expect("the tags are counted");
        assert_eq!(kept, 4_000);
        // The WAL file keeps its largest size: the most it ever held. A
        // group (at most 64 writes, some 350 pages) may pass the bound once.
        let mut wal_path = database_path(dir.path()).into_os_string();
        wal_path.push("-wal");
        let wal = std::fs::metadata(wal_path).expect("the WAL file").len();
        let most = (super::CATCH_UP_PAGES as u64 + 1_000) * 4_120;
        assert!(
            wal <= most,
            "the WAL grew to {wal} bytes, past the {most} its bound allows"
        );
        assert!(store.checkpoint().expect("a clean stop's checkpoint runs"));
    }
}
