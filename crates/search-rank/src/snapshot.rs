//! A read connection's snapshot handed to a second one, so that one read
//! split over two connections (and two cores) still sees one state of the
//! database.
//!
//! SQLite shares a snapshot only through its C interface
//! (`sqlite3_snapshot_get`, `sqlite3_snapshot_open`), which rusqlite does not
//! wrap, and only when built with `SQLITE_ENABLE_SNAPSHOT`: the project's
//! scripts pass it in `LIBSQLITE3_FLAGS` (`scripts/sqlite-flags.sh`), and
//! `build.rs` sees the same variable. Built without it, a snapshot is never
//! given, and a search runs in one pass. A search splits its first pass over
//! the index this way (the core's `Store::read_beside`).

#[cfg(sqlite_snapshot)]
use std::ptr;

use rusqlite::{Connection, ffi};

#[cfg(sqlite_snapshot)]
/// The state of the database a read transaction reads (WAL mode only).
pub struct Snapshot(ptr::NonNull<ffi::sqlite3_snapshot>);

#[cfg(sqlite_snapshot)]
// SAFETY: a snapshot is a copy of the WAL header SQLite took for it; it
// points into no connection, so it may be opened and freed on any thread.
unsafe impl Send for Snapshot {}

#[cfg(sqlite_snapshot)]
impl Snapshot {
    /// The snapshot `conn` reads now. `conn` must be in a read transaction
    /// that has read from the database.
    pub fn of(conn: &Connection) -> rusqlite::Result<Self> {
        let mut snapshot: *mut ffi::sqlite3_snapshot = ptr::null_mut();
        // SAFETY: the handle is the open connection `conn` borrows for the
        // call, the schema name a NUL-terminated static string, and
        // `snapshot` a local SQLite writes only when it succeeds.
        let rc = unsafe {
            ffi::sqlite3_snapshot_get(conn.handle(), c"main".as_ptr(), &raw mut snapshot)
        };
        if rc != ffi::SQLITE_OK {
            return Err(failure(rc, "taking a read's snapshot"));
        }
        ptr::NonNull::new(snapshot)
            .map(Self)
            .ok_or_else(|| failure(ffi::SQLITE_ERROR, "taking a read's snapshot"))
    }

    /// Makes `conn`, in a transaction that has read nothing yet, read this
    /// snapshot. It fails when the snapshot is gone (no connection reads it
    /// any more and the WAL has been started over).
    pub fn open_on(&self, conn: &Connection) -> rusqlite::Result<()> {
        // SAFETY: the handle is the open connection `conn` borrows for the
        // call; the snapshot is live (freed only on drop).
        let rc =
            unsafe { ffi::sqlite3_snapshot_open(conn.handle(), c"main".as_ptr(), self.0.as_ptr()) };
        if rc == ffi::SQLITE_OK {
            Ok(())
        } else {
            Err(failure(rc, "reading a shared snapshot"))
        }
    }
}

#[cfg(sqlite_snapshot)]
impl Drop for Snapshot {
    fn drop(&mut self) {
        // SAFETY: the snapshot came from `sqlite3_snapshot_get` and is freed
        // once, here.
        unsafe { ffi::sqlite3_snapshot_free(self.0.as_ptr()) }
    }
}

fn failure(rc: std::ffi::c_int, doing: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some(doing.to_owned()))
}

/// Stands for a snapshot in a build whose SQLite cannot share one.
#[cfg(not(sqlite_snapshot))]
pub struct Snapshot(());

#[cfg(not(sqlite_snapshot))]
impl Snapshot {
    /// Always refused: this SQLite was built without its snapshot interface.
    pub fn of(_conn: &Connection) -> rusqlite::Result<Self> {
        Err(failure(
            ffi::SQLITE_ERROR,
            "this SQLite was built without SQLITE_ENABLE_SNAPSHOT (scripts/sqlite-flags.sh)",
        ))
    }

    /// Never reached: no snapshot is ever given.
    pub fn open_on(&self, _conn: &Connection) -> rusqlite::Result<()> {
        Err(failure(ffi::SQLITE_ERROR, "no snapshot to open"))
    }
}
