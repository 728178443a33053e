//! Group commit on the SQLite writer: writes that queue behind one another
//! share one transaction and one commit, and each is acknowledged only once
//! that commit is done.
//!
//! Every commit costs the writer the same whatever it holds: the WAL's
//! pages written at commit, and the search index's new segment (FTS5 writes
//! one per commit, then merges them). Under load, writes wait for the
//! writer anyway; a write that finds others waiting leaves its transaction
//! open for them instead of committing, and the last of the queue (or the
//! `MOST_IN_GROUP`th) indexes what the group changed and commits it.
//!
//! Each write runs in its own savepoint: one that fails is rolled back alone
//! and answers its error at once, and the rest of its group still commits.
//! If the group's commit fails (a full disk), every write in it gets that
//! error and nothing of the group is kept, exactly as if each had failed on
//! its own. A write alone (no one waiting) commits at once, as before.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use rusqlite::{Connection, TransactionBehavior};

use super::CommitHook;
use crate::db::Transaction;
use crate::error::{Failure, Result, StoreError};

/// The most writes one group holds: it bounds how long the first of a group
/// waits for its commit (at about a millisecond a create, some 60 ms).
const MOST_IN_GROUP: usize = 64;

/// The one connection that writes, shared by groups of writes.
pub(super) struct GroupWriter {
    writer: Mutex<Writer>,
    /// Writes waiting for the writer: while any waits, the one running
    /// leaves its group open for them.
    waiting: AtomicUsize,
    /// Groups committed so far.
    committed: AtomicUsize,
}

struct Writer {
    conn: Connection,
    /// The group whose transaction is open.
    open: Option<Group>,
}

struct Group {
    /// Writes done in it (each released its savepoint).
    members: usize,
    /// Set when the group ends: whether it committed.
    outcome: Arc<Outcome>,
}

/// Whether a group committed, waited for without the writer: a write whose
/// group has ended answers at once, whatever holds the writer next.
#[derive(Default)]
struct Outcome {
    ended: Mutex<Option<Result<()>>>,
    woken: Condvar,
}

impl Outcome {
    fn set(&self, result: Result<()>) {
        *self.ended.lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
        self.woken.notify_all();
    }

    fn wait(&self) -> Result<()> {
        let ended = self.ended.lock().unwrap_or_else(PoisonError::into_inner);
        let ended = self
            .woken
            .wait_while(ended, |ended| ended.is_none())
            .unwrap_or_else(PoisonError::into_inner);
        ended
            .clone()
            .unwrap_or_else(|| Err(StoreError::Internal("a write's group never ended".into())))
    }
}

impl GroupWriter {
    pub(super) fn new(conn: Connection) -> Result<Self> {
        // A write's savepoint copies each page it changes into a
        // sub-journal, which SQLite otherwise moves to a temporary file past
        // 64 KiB: a write and a system call for every page of every write.
        // The writer's writes are small, so their sub-journals stay small.
        conn.pragma_update(None, "temp_store", "MEMORY")?;
        Ok(Self {
            writer: Mutex::new(Writer { conn, open: None }),
            waiting: AtomicUsize::new(0),
            committed: AtomicUsize::new(0),
        })
    }

    /// Runs `work`, then the commit hook `take_hook` gives: in a new group's
    /// transaction if none is open, else in a savepoint of the open one;
    /// returns once its group has committed.
    pub(super) fn write<T, E: Failure>(
        &self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
        take_hook: impl FnOnce() -> Option<CommitHook>,
    ) -> Result<T, E> {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let locked = super::lock(&self.writer);
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        let mut writer = locked.map_err(E::from)?;
        if writer.open.is_some() && writer.conn.is_autocommit() {
            // SQLite rolled the group's transaction back on an error (a full
            // disk, say): nothing of it is kept, and its writes must hear so
            // before a new transaction begins.
            self.end_group(&mut writer);
        }
        let outcome = match &writer.open {
            Some(group) => Arc::clone(&group.outcome),
            None => Arc::new(Outcome::default()),
        };
        let joining = writer.open.is_some();
        let done = catch_unwind(AssertUnwindSafe(|| {
            if joining {
                writer.run_in_savepoint(work, take_hook)
            } else {
                writer.run_first(work, take_hook)
            }
        }));
        let done = match done {
            Ok(done) => done,
            Err(panic) => {
                // What it wrote was rolled back as the panic unwound; the
                // rest of its group is whole and must not wait forever.
                self.end_group(&mut writer);
                drop(writer);
                resume_unwind(panic);
            }
        };
        if done.is_ok() {
            match &mut writer.open {
                Some(group) => group.members += 1,
                None => {
                    writer.open = Some(Group {
                        members: 1,
                        outcome: Arc::clone(&outcome),
                    })
                }
            }
        }
        let others_waiting = self.waiting.load(Ordering::SeqCst) > 0;
        let group_full = writer
            .open
            .as_ref()
            .is_some_and(|group| group.members >= MOST_IN_GROUP);
        if !others_waiting || group_full {
            self.end_group(&mut writer);
        }
        drop(writer);
        let out = done?;
        outcome.wait().map_err(E::from)?;
        Ok(out)
    }

    /// How many groups have committed since the store opened.
    #[cfg(test)]
    pub(super) fn groups_committed(&self) -> usize {
        self.committed.load(Ordering::SeqCst)
    }

    /// The connection alone, with no group open (one committed first): for
    /// work that needs the whole connection, such as a checkpoint.
    pub(super) fn connection(&self) -> Result<impl std::ops::DerefMut<Target = Connection> + '_> {
        let mut writer = super::lock(&self.writer)?;
        self.end_group(&mut writer);
        Ok(ConnectionOnly(writer))
    }

    /// Indexes what the open group changed for search and commits it (or
    /// rolls it back if either fails), then wakes its writes.
    fn end_group(&self, writer: &mut Writer) {
        let Some(group) = writer.open.take() else {
            return;
        };
        let committed = catch_unwind(AssertUnwindSafe(|| commit_group(&mut writer.conn)))
            .unwrap_or_else(|_| {
                Err(StoreError::Internal(
                    "indexing a group of writes for search panicked".into(),
                ))
            });
        if committed.is_ok() {
            self.committed.fetch_add(1, Ordering::SeqCst);
        }
        if committed.is_err()
            && !writer.conn.is_autocommit()
            && let Err(err) = writer.conn.execute_batch("ROLLBACK")
        {
            tracing::error!(%err, "a failed group of writes could not be rolled back");
        }
        group.outcome.set(committed);
    }
}

impl Writer {
    /// The first write of a group opens its transaction: alone in it, it
    /// needs no savepoint (its failure rolls back the whole transaction),
    /// and a transaction that succeeds is left open for the group.
    fn run_first<T, E: Failure>(
        &mut self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
        take_hook: impl FnOnce() -> Option<CommitHook>,
    ) -> Result<T, E> {
        let tx = Transaction::opening_group(
            self.conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(|err| E::from(err.into()))?,
        );
        run_and_keep(tx, work, take_hook)
    }

    /// A later write of a group runs in its own savepoint, so that its
    /// failure rolls back only what it wrote.
    fn run_in_savepoint<T, E: Failure>(
        &mut self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
        take_hook: impl FnOnce() -> Option<CommitHook>,
    ) -> Result<T, E> {
        run_and_keep(
            Transaction::from_savepoint(self.conn.savepoint().map_err(|err| E::from(err.into()))?),
            work,
            take_hook,
        )
    }
}

/// `work`, then the commit hook (taken only once `work` succeeded, as a
/// write of its own would), then what is written is kept in the group.
fn run_and_keep<T, E: Failure>(
    tx: Transaction<'_>,
    work: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    take_hook: impl FnOnce() -> Option<CommitHook>,
) -> Result<T, E> {
    let out = work(&tx)?;
    if let Some(hook) = take_hook() {
        hook(&tx)?;
    }
    tx.commit().map_err(|err| E::from(err.into()))?;
    Ok(out)
}

/// The search index of every item the group changed, then the commit.
fn commit_group(conn: &mut Connection) -> Result<()> {
    if conn.is_autocommit() {
        return Err(StoreError::Internal(
            "the database rolled back a group of writes after an error".into(),
        ));
    }
    // One savepoint after the group's own: FTS5 writes the whole group's
    // index entries as one segment.
    let tx = Transaction::from_savepoint(conn.savepoint()?);
    crate::search_index::flush_pending(&tx)?;
    tx.commit()?;
    conn.execute_batch("COMMIT")?;
    Ok(())
}

/// The writer's connection held with no group open.
struct ConnectionOnly<'w>(MutexGuard<'w, Writer>);

impl std::ops::Deref for ConnectionOnly<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.0.conn
    }
}

impl std::ops::DerefMut for ConnectionOnly<'_> {
    fn deref_mut(&mut self) -> &mut Connection {
        &mut self.0.conn
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::super::{Engine, Store};
    use crate::error::{Result, StoreError};

    fn add_tag(tx: &crate::db::Transaction<'_>, name: &str) -> Result<()> {
        tx.execute(
            "INSERT INTO tags (uuid, name, slug, created_at, modified_at)
             VALUES (?1, ?1, ?1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
            crate::params![name],
        )?;
        Ok(())
    }

    fn tags(store: &Store) -> Vec<String> {
        store
            .read(|tx| {
                Ok::<_, crate::StoreError>(
                    tx.prepare("SELECT name FROM tags ORDER BY name")?
                        .query_map([], |row| row.get(0))?
                        .collect::<crate::db::Result<Vec<String>>>()?,
                )
            })
            .expect("the tags read")
    }

    fn groups_committed(store: &Store) -> usize {
        match &store.engine {
            Engine::Sqlite { writer, .. } => writer.groups_committed(),
            Engine::Postgres(_) => unreachable!("the tests run on SQLite"),
        }
    }

    /// Runs `queued` (numbered 0..n) as writes queued behind one that holds
    /// the writer for a while, so that they form groups; their outcomes.
    fn queue_behind_a_slow_write<T: Send>(
        store: &Store,
        n: usize,
        queued: impl Fn(usize) -> T + Sync,
    ) -> Vec<std::thread::Result<T>> {
        let (started, holding) = mpsc::channel();
        std::thread::scope(|s| {
            let slow = s.spawn(|| {
                store.write(|tx| {
                    add_tag(tx, "slow")?;
                    started.send(()).expect("the test waits");
                    std::thread::sleep(Duration::from_millis(300));
                    Ok::<_, crate::StoreError>(())
                })
            });
            holding.recv().expect("the slow write started");
            let queued = &queued;
            let outcomes: Vec<_> = (0..n)
                .map(|i| s.spawn(move || queued(i)))
                .collect::<Vec<_>>()
                .into_iter()
                .map(|handle| handle.join())
                .collect();
            slow.join()
                .expect("the slow write does not panic")
                .expect("the slow write commits");
            outcomes
        })
    }

    #[test]
    fn queued_writes_share_commits_and_a_failed_one_is_rolled_back_alone() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = Store::open(dir.path()).expect("the store opens");
        let before = groups_committed(&store);
        let outcomes = queue_behind_a_slow_write(&store, 24, |i| {
            let name = format!("t{i:02}");
            let written = store.write(|tx| {
                add_tag(tx, &name)?;
                if i % 5 == 0 {
                    return Err(StoreError::invalid("refused on purpose"));
                }
                Ok(())
            });
            // Acknowledged only once committed: a reader sees it at once.
            let seen = tags(&store).contains(&name);
            (written.is_ok(), seen)
        });
        for (i, outcome) in outcomes.into_iter().enumerate() {
            let (written, seen) = outcome.expect("no write panics");
            assert_eq!(written, i % 5 != 0, "write {i}");
            assert_eq!(seen, written, "write {i} is seen exactly when acknowledged");
        }
        let mut expected: Vec<String> = (0..24)
            .filter(|i| i % 5 != 0)
            .map(|i| format!("t{i:02}"))
            .collect();
        expected.insert(0, "slow".into());
        assert_eq!(tags(&store), expected);
        let groups = groups_committed(&store) - before;
        assert!(
            groups < expected.len(),
            "{} writes committed in {groups} groups: they were not grouped",
            expected.len()
        );
    }

    #[test]
    fn a_write_that_panics_leaves_its_group_and_the_writer_whole() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = Store::open(dir.path()).expect("the store opens");
        let outcomes = queue_behind_a_slow_write(&store, 6, |i| {
            store.write(|tx| {
                add_tag(tx, &format!("t{i}"))?;
                assert_ne!(i, 3, "write 3 panics on purpose");
                Ok::<_, crate::StoreError>(())
            })
        });
        for (i, outcome) in outcomes.into_iter().enumerate() {
            match outcome {
                Ok(written) => {
                    assert_ne!(i, 3);
                    written.expect("the write commits");
                }
                Err(_) => assert_eq!(i, 3, "only write 3 panics"),
            }
        }
        store
            .write(|tx| add_tag(tx, "after"))
            .expect("the writer still writes");
        assert_eq!(
            tags(&store),
            ["after", "slow", "t0", "t1", "t2", "t4", "t5"]
        );
    }

    #[test]
    fn a_commit_hook_goes_with_the_first_write_that_succeeds() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = Store::open(dir.path()).expect("the store opens");
        let ((), ran) = store.with_commit_hook(
            |tx| add_tag(tx, "hooked"),
            || {
                let refused = store.write(|tx| {
                    add_tag(tx, "refused")?;
                    Err::<(), _>(StoreError::invalid("refused on purpose"))
                });
                assert!(refused.is_err());
                store
                    .write(|tx| add_tag(tx, "written"))
                    .expect("the write commits");
            },
        );
        assert!(ran, "the hook ran with the write that committed");
        assert_eq!(tags(&store), ["hooked", "written"]);
    }
}
