//! What SQLite's FTS5 tells of one search hit, and the words of a text as
//! the search index makes them: the two things Copydesk's search needs from
//! SQLite that rusqlite does not wrap.
//!
//! [`tier::TIER`] is an FTS5 function that tells from a hit alone whether it
//! holds the typed words as a phrase and the last word whole, so that a
//! search can order its newest hits by how well they match without reading
//! any story (see the store's `search_index::relevance`).
//!
//! [`terms::TERMS`] is an SQL function that splits and folds a text with
//! FTS5's own tokenizer, so that the index's list of its long words holds
//! exactly the words the index holds.
//!
//! FTS5 takes functions, and hands out its tokenizer, only through the C
//! interface, so this is the one crate of the workspace with `unsafe`
//! code; what the functions compute is the safe [`tier::tier_of`].

use std::ffi::{c_int, c_void};
use std::ptr;

use rusqlite::{Connection, ffi};

pub mod terms;
pub mod tier;

/// Registers [`tier::TIER`] on `conn`, for the FTS5 tables of its
/// databases, and [`terms::TERMS`].
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let api = fts5_api(conn)?;
    // SAFETY: `api` is the connection's live FTS5 interface (checked not
    // null); the name is a NUL-terminated static string FTS5 copies; the
    // function pointer is an `extern "C"` function of the signature FTS5
    // calls, and it keeps no user data, so no destructor is needed.
    let rc = unsafe {
        match (*api).xCreateFunction {
            Some(create) => create(
                api,
                c"copydesk_tier".as_ptr(),
                ptr::null_mut(),
                Some(tier::tier),
                None,
            ),
            None => ffi::SQLITE_MISUSE,
        }
    };
    check(rc, "registering the search's tier function")?;
    terms::register(conn, api)
}

/// The FTS5 interface of `conn`, got as SQLite documents: by binding a
/// pointer to `SELECT fts5(?1)`.
fn fts5_api(conn: &Connection) -> rusqlite::Result<*mut ffi::fts5_api> {
    let mut api: *mut ffi::fts5_api = ptr::null_mut();
    let mut stmt: *mut ffi::sqlite3_stmt = ptr::null_mut();
    // SAFETY: the handle is the open connection `conn` borrows for this
    // whole call; the statement is finalized before returning on every path
    // (when preparing fails SQLite leaves it null and there is none),
    // and `api` outlives the step that writes to it through the bound
    // pointer, whose type name is the one FTS5 checks for.
    unsafe {
        let db = conn.handle();
        let rc = ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &mut stmt,
            ptr::null_mut(),
        );
        check(rc, "preparing the FTS5 interface query")?;
        let mut rc = ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&raw mut api).cast::<c_void>(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        if rc == ffi::SQLITE_OK {
            rc = ffi::sqlite3_step(stmt);
        }
        ffi::sqlite3_finalize(stmt);
        if rc != ffi::SQLITE_ROW && rc != ffi::SQLITE_DONE {
            check(rc, "asking for the FTS5 interface")?;
        }
    }
    if api.is_null() {
        return Err(failure(ffi::SQLITE_ERROR, "this SQLite has no FTS5"));
    }
    Ok(api)
}

fn check(rc: c_int, doing: &str) -> rusqlite::Result<()> {
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(failure(rc, doing))
    }
}

fn failure(rc: c_int, doing: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some(doing.to_owned()))
}

fn ok(rc: c_int) -> Result<(), c_int> {
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rc)
    }
}

#[cfg(test)]
mod tests;
