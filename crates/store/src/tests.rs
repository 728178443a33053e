//! The store's tests: connections, writes in groups, the checkpointer and the start check, on real files.

use super::*;
use std::sync::Barrier;
use std::sync::atomic::Ordering;

#[test]
fn readers_are_opened_as_reads_overlap_up_to_the_limit() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = Store::open_with(
        dir.path(),
        ReadMemory {
            readers: 3,
            ..ReadMemory::default()
        },
    )
    .expect("the store opens");
    let opened = || store.readers_opened();
    assert_eq!(opened(), Some(1), "one reader is opened with the store");

    // Two reads at a time need two readers, not more.
    for _ in 0..4 {
        let both = Barrier::new(2);
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    store
                        .read(|tx| {
                            both.wait();
                            Ok::<_, crate::StoreError>(
                                tx.query_row("SELECT 1", [], |row| row.get::<_, i64>(0))?,
                            )
                        })
                        .expect("the read runs")
                });
            }
        });
    }
    assert_eq!(opened(), Some(2));

    // Three that must overlap and five more: never more than the limit
    // open, and every read served.
    let three = Barrier::new(3);
    let served = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for i in 0..8 {
            let (three, served) = (&three, &served);
            let store = &store;
            s.spawn(move || {
                store
                    .read(|tx| {
                        if i < 3 {
                            three.wait();
                        }
                        Ok::<_, crate::StoreError>(tx.query_row(
                            "SELECT count(*) FROM content",
                            [],
                            |row| row.get::<_, i64>(0),
                        )?)
                    })
                    .expect("the read runs");
                served.fetch_add(1, Ordering::SeqCst);
            });
        }
    });
    assert_eq!(served.into_inner(), 8);
    assert_eq!(opened(), Some(3));
}

#[test]
fn a_server_maps_as_much_of_the_file_as_it_asks_for() {
    // The bundled SQLite quietly caps the map at its build's largest
    // (2 GiB unless `scripts/sqlite-flags.sh` raises it), which left most of
    // a million-story archive read with `pread`.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = Store::open_with(dir.path(), ReadMemory::SERVER).expect("the store opens");
    let mapped = store
        .read(|tx| {
            Ok::<_, crate::StoreError>(
                tx.query_row("PRAGMA mmap_size", [], |row| row.get::<_, i64>(0))?,
            )
        })
        .expect("the read runs");
    assert_eq!(
        mapped,
        ReadMemory::SERVER.mapped_bytes,
        "SQLite built without LIBSQLITE3_FLAGS from scripts/sqlite-flags.sh"
    );
}

#[test]
fn discarded_connections_are_closed_and_opened_anew_within_the_limit() {
    let made = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&made);
    let pool: Pool<usize> = Pool::new(
        None,
        2,
        Box::new(move || Ok(counter.fetch_add(1, Ordering::SeqCst))),
        |_| true,
    );
    let (first, second) = (pool.take().expect("one"), pool.take().expect("two"));
    assert_eq!(pool.opened(), 2);
    // One leads nowhere and is closed; the other goes back idle.
    first.discard();
    drop(second);
    assert_eq!(pool.opened(), 1);
    // Every idle one goes too: the next use opens a new connection.
    pool.discard_idle();
    assert_eq!(pool.opened(), 0);
    let mut fresh = pool.take().expect("a new one");
    assert_eq!(*fresh.conn_mut(), 2, "a third connection was opened");
    assert_eq!(pool.opened(), 1);
}
