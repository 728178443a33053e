//! What lifts one search hit above another of the same kind: whether it
//! holds the typed words as a phrase, and whether it holds the last word
//! whole rather than only as the start of a longer one, read from the hit's
//! own matches.
//!
//! A search is written for FTS5 as one group of phrases per typed word, in
//! the order typed: a word typed whole is a group of one phrase; a word
//! that may be half typed is a group whose first phrase is the word itself
//! and whose others are what it may be the start of (`"harb" OR "harb"*`).
//! Phrases after the groups (a tag or author filter, a `NOT`) are not the
//! words' and are left alone.

use std::collections::HashSet;
use std::ffi::c_int;

use rusqlite::ffi;

/// The name the function is called by in SQL, with the FTS5 table and the
/// number of phrases of each typed word's group:
/// `copydesk_tier(content_search, 1, 1, 2)` for three words, the last
/// perhaps half typed. It answers [`PHRASE`] and [`WHOLE`] added together.
pub const TIER: &str = "copydesk_tier";

/// The hit holds the typed words one after the other, in the order typed,
/// within one column (always so for one word).
pub const PHRASE: i64 = 2;
/// The hit holds the last typed word whole (always so when it was typed
/// whole).
pub const WHOLE: i64 = 1;

/// One match of a phrase in a hit: the phrase's index, its column and the
/// offset of its first token in that column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Match {
    pub phrase: usize,
    pub column: usize,
    pub offset: usize,
}

/// The tier of a hit with these `matches`, given each phrase's number of
/// tokens (`phrase_tokens`, indexed by phrase) and each typed word's number
/// of phrases (`groups`).
pub fn tier_of(matches: &[Match], phrase_tokens: &[usize], groups: &[usize]) -> i64 {
    let Some(last) = groups.len().checked_sub(1) else {
        return 0;
    };
    // Which group each of the words' phrases belongs to.
    let group_of: Vec<usize> = groups
        .iter()
        .enumerate()
        .flat_map(|(group, &size)| std::iter::repeat_n(group, size))
        .collect();
    let first_of_last = group_of.len() - groups[last];
    let whole = groups[last] <= 1 || matches.iter().any(|m| m.phrase == first_of_last);
    // Where each group's phrases start and end, as (group, column, start)
    // -> the offsets just past them.
    let mut ends: std::collections::HashMap<(usize, usize, usize), Vec<usize>> =
        std::collections::HashMap::new();
    for m in matches {
        if let Some(&group) = group_of.get(m.phrase) {
            let tokens = phrase_tokens.get(m.phrase).copied().unwrap_or(1);
            ends.entry((group, m.column, m.offset))
                .or_default()
                .push(m.offset + tokens);
        }
    }
    let phrase = groups.len() == 1 || {
        // Every place the chain of groups can have reached so far.
        let mut reached: HashSet<(usize, usize)> = ends
            .iter()
            .filter(|((group, _, _), _)| *group == 0)
            .flat_map(|((_, column, _), after)| after.iter().map(|&end| (*column, end)))
            .collect();
        for group in 1..groups.len() {
            reached = reached
                .iter()
                .filter_map(|&(column, at)| ends.get(&(group, column, at)).map(|e| (column, e)))
                .flat_map(|(column, after)| after.iter().map(move |&end| (column, end)))
                .collect();
            if reached.is_empty() {
                break;
            }
        }
        !reached.is_empty()
    };
    (if phrase { PHRASE } else { 0 }) + (if whole { WHOLE } else { 0 })
}

/// What FTS5 calls for [`TIER`]: reads the groups' sizes from the arguments
/// and the hit's matches from FTS5, and answers [`tier_of`].
pub(crate) unsafe extern "C" fn tier(
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
    let outcome = unsafe { hit_tier(&*api, fts, value_count, values) };
    // SAFETY: `ctx` is the live result context of this call.
    unsafe {
        match outcome {
            Ok(tier) => ffi::sqlite3_result_int64(ctx, tier),
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

/// The tier of the hit FTS5 is at, or the SQLite error code of the step
/// that failed. Refused when a group is empty or the groups name more
/// phrases than the query has.
///
/// # Safety
///
/// `api` and `fts` must be what FTS5 passed to an auxiliary function for
/// this call, and `values` must hold `value_count` live values.
unsafe fn hit_tier(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    value_count: c_int,
    values: *mut *mut ffi::sqlite3_value,
) -> Result<i64, c_int> {
    let (Some(phrase_count), Some(phrase_size), Some(inst_count), Some(inst)) =
        (api.xPhraseCount, api.xPhraseSize, api.xInstCount, api.xInst)
    else {
        return Err(ffi::SQLITE_MISUSE);
    };
    let given = usize::try_from(value_count).map_err(|_| ffi::SQLITE_MISUSE)?;
    let groups = (0..given)
        .map(|i| {
            // SAFETY: `i` is below `value_count`, so `values[i]` is live.
            let size = unsafe { ffi::sqlite3_value_int64(*values.add(i)) };
            usize::try_from(size)
                .ok()
                .filter(|&size| size > 0)
                .ok_or(ffi::SQLITE_MISUSE)
        })
        .collect::<Result<Vec<usize>, c_int>>()?;
    // SAFETY: FTS5's own call on the context it gave.
    let phrases = usize::try_from(unsafe { phrase_count(fts) }).unwrap_or(0);
    if groups.iter().sum::<usize>() > phrases {
        return Err(ffi::SQLITE_MISUSE);
    }
    let phrase_tokens = (0..phrases)
        .map(|i| {
            let i = c_int::try_from(i).map_err(|_| ffi::SQLITE_MISUSE)?;
            // SAFETY: `i` is below the phrase count FTS5 gave.
            usize::try_from(unsafe { phrase_size(fts, i) }).map_err(|_| ffi::SQLITE_MISUSE)
        })
        .collect::<Result<Vec<usize>, c_int>>()?;
    let mut count = 0 as c_int;
    // SAFETY: FTS5's own call on the context it gave, out-pointer to a local.
    crate::ok(unsafe { inst_count(fts, &mut count) })?;
    let mut matches = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    for i in 0..count {
        let (mut phrase, mut column, mut offset) = (0 as c_int, 0 as c_int, 0 as c_int);
        // SAFETY: `i` is below the count FTS5 gave; out-pointers to locals.
        crate::ok(unsafe { inst(fts, i, &mut phrase, &mut column, &mut offset) })?;
        if let (Ok(phrase), Ok(column), Ok(offset)) = (
            usize::try_from(phrase),
            usize::try_from(column),
            usize::try_from(offset),
        ) {
            matches.push(Match {
                phrase,
                column,
                offset,
            });
        }
    }
    Ok(tier_of(&matches, &phrase_tokens, &groups))
}
