//! The relevance of a search hit, computed from the hit alone, as an SQLite
//! FTS5 ranking function.
//!
//! SQLite's `bm25()` weighs each searched word by how few stories hold it,
//! and learns that by reading the word's whole list of stories once per
//! search: in an archive of a million stories a common word or a half-typed
//! start stands for 10,000 to 190,000 of them, so ranking a few dozen hits
//! cost three times as much as finding them. Every hit of a Copydesk search
//! holds every word typed, so that weight only tilts one word against
//! another; [`FUNCTION`] leaves it out and keeps the rest of BM25 (the
//! weight of the column a word is found in, the diminishing worth of a word
//! repeated, and the length of the story). For a one-word search it orders
//! hits exactly as `bm25()` does.
//!
//! [`IN_COLUMNS`] tells from a hit alone whether it holds its words in given
//! columns (a headline hit), so that a search can order its hits from one
//! pass over the index instead of running again with a column filter.
//!
//! [`snapshot::Snapshot`] hands a read's snapshot to a second connection, so
//! that a search can split its pass over the index over two cores and still
//! see one state of the database.
//!
//! FTS5 takes ranking functions, and SQLite shares snapshots, only through
//! the C interface, which rusqlite does not wrap, so this is the one crate
//! of the workspace with `unsafe` code; the scoring and the column check
//! themselves are the safe [`score`] and [`every_phrase_in_columns`].

use std::ffi::{c_int, c_void};
use std::ptr;

use rusqlite::{Connection, ffi};

pub mod snapshot;

/// The name the function is called by in SQL, with the FTS5 table and one
/// weight per column: `copydesk_rank(content_search, 10.0, 4.0, ...)`.
/// Lower is better, as with `bm25()`.
pub const FUNCTION: &str = "copydesk_rank";

/// BM25's `k1`: how fast a repeated word stops adding to a story's worth
/// (SQLite's `bm25()` uses the same).
const K1: f64 = 1.2;
/// BM25's `b`: how much a long story's words count for less.
const B: f64 = 0.75;

/// A hit's score, lower for a better match as `bm25()` gives it:
/// `weighted_counts` holds, for each word of the search, how often the hit
/// holds it, each occurrence counted at its column's weight; `length` is the
/// hit's number of words and `average_length` that of every story. A
/// negative count (from a negative column weight) counts as none, where
/// `bm25()` would take it as given and could divide by zero.
pub fn score(weighted_counts: &[f64], length: f64, average_length: f64) -> f64 {
    let average_length = if average_length > 0.0 {
        average_length
    } else {
        1.0
    };
    let length_norm = K1 * (1.0 - B + B * length.max(0.0) / average_length);
    let worth: f64 = weighted_counts
        .iter()
        .map(|&count| {
            let count = count.max(0.0);
            count * (K1 + 1.0) / (count + length_norm)
        })
        .sum();
    -worth
}

/// The name of the function that tells whether a hit holds the query's
/// phrases in given columns, called in SQL as
/// `copydesk_in_columns(content_search, mask, skipped)`: 1 when each of the
/// query's phrases but the last `skipped` matches in at least one column
/// whose bit is set in `mask` (bit 0 for the first column), else 0. It
/// answers for a hit what a column filter (`{title abstract} : (...)`) on
/// those phrases would, without running the query again. The phrases are
/// counted from the end because FTS5 drops a phrase with no word in it
/// (typed punctuation) from the query, and the filter terms a search ends
/// with are never dropped.
pub const IN_COLUMNS: &str = "copydesk_in_columns";

/// Registers [`FUNCTION`] and [`IN_COLUMNS`] on `conn`, for the FTS5 tables
/// of its databases.
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let api = fts5_api(conn)?;
    type Function = unsafe extern "C" fn(
        *const ffi::Fts5ExtensionApi,
        *mut ffi::Fts5Context,
        *mut ffi::sqlite3_context,
        c_int,
        *mut *mut ffi::sqlite3_value,
    );
    let functions: [(&std::ffi::CStr, Function); 2] = [
        (c"copydesk_rank", rank),
        (c"copydesk_in_columns", in_columns),
    ];
    for (name, function) in functions {
        // SAFETY: `api` is the connection's live FTS5 interface (checked not
        // null); `name` is a NUL-terminated static string FTS5 copies; the
        // function pointer is an `extern "C"` function of the signature FTS5
        // calls, and it keeps no user data, so no destructor is needed.
        let rc = unsafe {
            match (*api).xCreateFunction {
                Some(create) => create(api, name.as_ptr(), ptr::null_mut(), Some(function), None),
                None => ffi::SQLITE_MISUSE,
            }
        };
        check(rc, "registering the search ranking functions")?;
    }
    Ok(())
}

/// Whether each of the first `phrases` phrases has a match in a column of
/// `mask` (bit 0 for column 0), given a hit's matches as (phrase, column)
/// pairs. Columns past 63 are never in the mask.
pub fn every_phrase_in_columns(
    matches: impl IntoIterator<Item = (usize, usize)>,
    phrases: usize,
    mask: u64,
) -> bool {
    let mut found = vec![false; phrases];
    let mut missing = phrases;
    for (phrase, column) in matches {
        let in_mask = column < 64 && mask & (1 << column) != 0;
        if let Some(seen) = found.get_mut(phrase).filter(|seen| in_mask && !**seen) {
            *seen = true;
            missing -= 1;
            if missing == 0 {
                break;
            }
        }
    }
    missing == 0
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

/// What FTS5 calls for each hit: reads the column weights from the
/// arguments (a column past them weighs 1, as with `bm25()`) and the hit's
/// matches, row length and the table's average row length from FTS5, and
/// answers [`score`].
unsafe extern "C" fn rank(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    value_count: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 calls this with its extension interface and the hit's
    // context, both live for the call, and `values` holding `value_count`
    // argument values; the interface's layout is the one bindgen read from
    // the very SQLite this crate links (rusqlite's bundled build), and only
    // its version 1 members are used.
    let outcome = unsafe { hit_score(&*api, fts, value_count, values) };
    // SAFETY: `ctx` is the live result context of this call.
    unsafe {
        match outcome {
            Ok(score) => ffi::sqlite3_result_double(ctx, score),
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

/// What FTS5 calls for [`IN_COLUMNS`]: reads the mask and the number of
/// phrases skipped from the arguments and the hit's matches from FTS5, and
/// answers [`every_phrase_in_columns`] as 1 or 0.
unsafe extern "C" fn in_columns(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    value_count: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: as in `rank`: FTS5's live interface and hit context, and
    // `value_count` live argument values.
    let outcome = unsafe { hit_in_columns(&*api, fts, value_count, values) };
    // SAFETY: `ctx` is the live result context of this call.
    unsafe {
        match outcome {
            Ok(answer) => ffi::sqlite3_result_int(ctx, c_int::from(answer)),
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

/// Whether the hit FTS5 is at holds each of its phrases but the last ones
/// skipped in the columns asked for, or the SQLite error code of the step
/// that failed.
///
/// # Safety
///
/// As for [`hit_score`].
unsafe fn hit_in_columns(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    value_count: c_int,
    values: *mut *mut ffi::sqlite3_value,
) -> Result<bool, c_int> {
    let (Some(phrase_count), Some(inst_count), Some(inst)) =
        (api.xPhraseCount, api.xInstCount, api.xInst)
    else {
        return Err(ffi::SQLITE_MISUSE);
    };
    if value_count != 2 {
        return Err(ffi::SQLITE_MISUSE);
    }
    // SAFETY: `values` holds two live values (checked above).
    let (mask, skipped) = unsafe {
        (
            ffi::sqlite3_value_int64(*values),
            ffi::sqlite3_value_int64(*values.add(1)),
        )
    };
    let mask = u64::from_ne_bytes(mask.to_ne_bytes());
    let skipped = usize::try_from(skipped).map_err(|_| ffi::SQLITE_MISUSE)?;
    // SAFETY: FTS5's own call on the context it gave.
    let phrases = usize::try_from(unsafe { phrase_count(fts) })
        .unwrap_or(0)
        .saturating_sub(skipped);
    let mut matches = 0 as c_int;
    // SAFETY: FTS5's own call on the context it gave, out-pointer to a local.
    ok(unsafe { inst_count(fts, &mut matches) })?;
    let mut failed = None;
    let found = (0..matches)
        .map_while(|i| {
            let (mut phrase, mut column, mut offset) = (0 as c_int, 0 as c_int, 0 as c_int);
            // SAFETY: `i` is below the count FTS5 gave; out-pointers to locals.
            match ok(unsafe { inst(fts, i, &mut phrase, &mut column, &mut offset) }) {
                Ok(()) => Some(
                    usize::try_from(phrase)
                        .ok()
                        .zip(usize::try_from(column).ok()),
                ),
                Err(rc) => {
                    failed = Some(rc);
                    None
                }
            }
        })
        .flatten();
    let answer = every_phrase_in_columns(found, phrases, mask);
    match failed {
        Some(rc) => Err(rc),
        None => Ok(answer),
    }
}

/// The score of the hit FTS5 is at, or the SQLite error code of the step
/// that failed.
///
/// # Safety
///
/// `api` and `fts` must be what FTS5 passed to a ranking function for this
/// call, and `values` must hold `value_count` live values.
unsafe fn hit_score(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    value_count: c_int,
    values: *mut *mut ffi::sqlite3_value,
) -> Result<f64, c_int> {
    let (
        Some(row_count),
        Some(total_size),
        Some(column_size),
        Some(phrase_count),
        Some(inst_count),
        Some(inst),
    ) = (
        api.xRowCount,
        api.xColumnTotalSize,
        api.xColumnSize,
        api.xPhraseCount,
        api.xInstCount,
        api.xInst,
    )
    else {
        return Err(ffi::SQLITE_MISUSE);
    };
    let given = usize::try_from(value_count).unwrap_or(0);
    let weight_of = |column: c_int| match usize::try_from(column) {
        // SAFETY: `column` is below `value_count`, so `values[column]` is a
        // live value.
        Ok(column) if column < given => unsafe { ffi::sqlite3_value_double(*values.add(column)) },
        _ => 1.0,
    };
    let (mut rows, mut total, mut length, mut matches) = (0_i64, 0_i64, 0 as c_int, 0 as c_int);
    // SAFETY: each call is FTS5's own, on the context it gave, with
    // out-pointers to locals.
    unsafe {
        ok(row_count(fts, &mut rows))?;
        ok(total_size(fts, -1, &mut total))?;
        ok(column_size(fts, -1, &mut length))?;
        ok(inst_count(fts, &mut matches))?;
    }
    // SAFETY: as above.
    let phrases = usize::try_from(unsafe { phrase_count(fts) }).unwrap_or(0);
    let mut weighted_counts = vec![0.0_f64; phrases];
    for i in 0..matches {
        let (mut phrase, mut column, mut offset) = (0 as c_int, 0 as c_int, 0 as c_int);
        // SAFETY: `i` is below the count FTS5 gave; out-pointers to locals.
        ok(unsafe { inst(fts, i, &mut phrase, &mut column, &mut offset) })?;
        let weight = weight_of(column);
        if let Some(count) = usize::try_from(phrase)
            .ok()
            .and_then(|phrase| weighted_counts.get_mut(phrase))
        {
            *count += weight;
        }
    }
    let average = if rows > 0 {
        total as f64 / rows as f64
    } else {
        1.0
    };
    Ok(score(&weighted_counts, f64::from(length), average))
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
