//! Checkpoints the WAL on a thread of its own, so that no write waits while
//! SQLite copies the WAL into the database file.
//!
//! By default SQLite checkpoints inside the commit that takes the WAL past
//! 1,000 pages: that write, and every write queued behind it, waits for the
//! copy and its two `fsync`s. Here the writer's WAL hook only asks, and a
//! connection of the checkpointer's own runs a `PASSIVE` checkpoint beside
//! the writes (it never blocks a reader or the writer). The WAL grows past
//! 1,000 pages only while a checkpoint is under way.

use std::os::raw::c_int;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use rusqlite::Connection;

use crate::error::{CoreError, Result};

/// WAL pages past which a commit asks for a checkpoint: SQLite's own default.
const CHECKPOINT_PAGES: c_int = 1000;

/// The thread that checkpoints, and how the writer asks it to.
pub(super) struct Checkpointer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    asked: Mutex<Asked>,
    wake: Condvar,
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
            .map_err(|err| CoreError::Internal(format!("starting the checkpointer: {err}")))?;
        let asker = Arc::clone(&shared);
        // Replaces SQLite's own checkpoint at commit (`wal_autocheckpoint`).
        writer.wal_hook(Some(move |_: &mut rusqlite::hooks::Wal, pages: c_int| {
            if pages >= CHECKPOINT_PAGES {
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
}

fn checkpoint_when_asked(shared: &Shared) {
    loop {
        {
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
                return;
            }
            asked.checkpoint = false;
        }
        let Ok(mut conn) = shared.conn.lock() else {
            return;
        };
        if !(shared.allowed)() {
            continue;
        }
        if conn.is_none() {
            match (shared.open)() {
                Ok(opened) => *conn = Some(opened),
                Err(err) => {
                    tracing::warn!(%err, "the checkpointer could not open the database; the next commit asks again");
                    continue;
                }
            }
        }
        if let Some(conn) = conn.as_ref()
            && let Err(err) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
        {
            tracing::warn!(%err, "a background checkpoint failed; the next commit asks again");
        }
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
            store
                .write(|tx| {
                    tx.execute(
                        "INSERT INTO tags (uuid, name, slug, created_at, modified_at)
                         VALUES (?1, ?2, ?1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
                        crate::params![format!("tag-{i}"), name],
                    )?;
                    Ok(())
                })
                .expect("the write commits");
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
}
