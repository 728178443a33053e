//! The words of a text exactly as the search index makes them, for the
//! index's list of its own long words.
//!
//! A word still being typed is searched as the start of longer ones. FTS5
//! answers a start of two to five characters from a prefix index of its own,
//! but a longer start by merging the whole lists of every word it begins,
//! hundreds of thousands of entries for a common word over a million
//! stories, before it returns a first hit. A search that first looks up the
//! few words a long start can be, and asks for them by name, walks their
//! lists only as far as one page needs. That look-up needs the index's words
//! as FTS5 itself splits and folds them: [`TERMS`] asks FTS5's own
//! `unicode61` tokenizer, with the options the index is made with, so the
//! list can never miss a word the index holds.

use std::collections::BTreeSet;
use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use rusqlite::{Connection, ffi};

/// The SQL function: `copydesk_terms(text, shortest)`, a JSON array of the
/// distinct words of `text` of at least `shortest` characters, as the
/// search index's tokenizer (`unicode61 remove_diacritics 2`) makes them,
/// sorted.
pub const TERMS: &str = "copydesk_terms";

/// The tokenizer and its options, as every search index table declares
/// them (`tokenize = 'unicode61 remove_diacritics 2'`).
const TOKENIZER: &std::ffi::CStr = c"unicode61";
const TOKENIZER_OPTIONS: [&std::ffi::CStr; 2] = [c"remove_diacritics", c"2"];

/// Registers [`TERMS`] on `conn`, reaching FTS5's tokenizer through `api`.
pub(crate) fn register(conn: &Connection, api: *mut ffi::fts5_api) -> rusqlite::Result<()> {
    // SAFETY: the handle is the open connection `conn` borrows; the name is
    // a static NUL-terminated string; `api` is the connection's FTS5
    // interface, which lives as long as the connection and so as long as
    // the function, whose user data it is (nothing to free).
    let rc = unsafe {
        ffi::sqlite3_create_function_v2(
            conn.handle(),
            c"copydesk_terms".as_ptr(),
            2,
            ffi::SQLITE_UTF8 | ffi::SQLITE_DETERMINISTIC | ffi::SQLITE_INNOCUOUS,
            api.cast::<c_void>(),
            Some(terms),
            None,
            None,
            None,
        )
    };
    crate::check(rc, "registering the search index's word list function")
}

/// The words `text` as JSON, for [`TERMS`].
fn json_array(words: &BTreeSet<String>) -> String {
    let mut out = String::from("[");
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        for c in word.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
                c => out.push(c),
            }
        }
        out.push('"');
    }
    out.push(']');
    out
}

/// What SQLite calls for [`TERMS`].
unsafe extern "C" fn terms(
    ctx: *mut ffi::sqlite3_context,
    value_count: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: SQLite calls this with the live context of the call, whose
    // user data is the FTS5 interface `register` gave, and `value_count`
    // (2, as registered) live argument values.
    let outcome = unsafe {
        let api = ffi::sqlite3_user_data(ctx).cast::<ffi::fts5_api>();
        if value_count == 2 && !api.is_null() {
            let text = ffi::sqlite3_value_text(*values);
            let length = ffi::sqlite3_value_bytes(*values);
            let shortest = ffi::sqlite3_value_int64(*values.add(1));
            words_of(api, text.cast::<c_char>(), length, shortest)
        } else {
            Err(ffi::SQLITE_MISUSE)
        }
    };
    // SAFETY: `ctx` is the live context of this call; SQLite copies the text
    // (SQLITE_TRANSIENT) before this returns.
    unsafe {
        match outcome {
            Ok(words) => {
                let json = json_array(&words);
                match c_int::try_from(json.len()) {
                    Ok(length) => ffi::sqlite3_result_text(
                        ctx,
                        json.as_ptr().cast::<c_char>(),
                        length,
                        ffi::SQLITE_TRANSIENT(),
                    ),
                    Err(_) => ffi::sqlite3_result_error_toobig(ctx),
                }
            }
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

/// The distinct words of the `length` bytes at `text` (UTF-8, or null for
/// SQL NULL) with at least `shortest` characters.
///
/// # Safety
///
/// `api` must be a live FTS5 interface and `text` null or `length` readable
/// bytes.
unsafe fn words_of(
    api: *mut ffi::fts5_api,
    text: *const c_char,
    length: c_int,
    shortest: i64,
) -> Result<BTreeSet<String>, c_int> {
    let mut found = Found {
        words: BTreeSet::new(),
        shortest: usize::try_from(shortest).unwrap_or(0),
    };
    if text.is_null() || length <= 0 {
        return Ok(found.words);
    }
    let mut user_data: *mut c_void = ptr::null_mut();
    // SAFETY: zeroed is a valid "no functions" value of this table of
    // optional function pointers, which FTS5 fills.
    let mut tokenizer: ffi::fts5_tokenizer = unsafe { std::mem::zeroed() };
    // SAFETY: `api` is live; the name is static; the out-pointers are locals.
    let rc = unsafe {
        match (*api).xFindTokenizer {
            Some(find) => find(api, TOKENIZER.as_ptr(), &mut user_data, &mut tokenizer),
            None => ffi::SQLITE_MISUSE,
        }
    };
    crate::ok(rc)?;
    let (Some(create), Some(delete), Some(tokenize)) =
        (tokenizer.xCreate, tokenizer.xDelete, tokenizer.xTokenize)
    else {
        return Err(ffi::SQLITE_MISUSE);
    };
    let mut options: [*const c_char; 2] = TOKENIZER_OPTIONS.map(|o| o.as_ptr());
    let mut instance: *mut ffi::Fts5Tokenizer = ptr::null_mut();
    // SAFETY: FTS5's own constructor with the user data it gave, two static
    // option strings, and an out-pointer to a local.
    crate::ok(unsafe { create(user_data, options.as_mut_ptr(), 2, &mut instance) })?;
    // SAFETY: `instance` was made just above and is deleted just below;
    // `found` outlives the call that hands it to `keep`; `text` holds
    // `length` bytes.
    let rc = unsafe {
        let rc = tokenize(
            instance,
            (&raw mut found).cast::<c_void>(),
            ffi::FTS5_TOKENIZE_DOCUMENT,
            text,
            length,
            Some(keep),
        );
        delete(instance);
        rc
    };
    crate::ok(rc)?;
    Ok(found.words)
}

/// The words a tokenizer call keeps.
struct Found {
    words: BTreeSet<String>,
    shortest: usize,
}

/// What the tokenizer calls for each word: keeps it when long enough.
unsafe extern "C" fn keep(
    context: *mut c_void,
    _flags: c_int,
    token: *const c_char,
    length: c_int,
    _start: c_int,
    _end: c_int,
) -> c_int {
    let Ok(length) = usize::try_from(length) else {
        return ffi::SQLITE_OK;
    };
    if token.is_null() {
        return ffi::SQLITE_OK;
    }
    // SAFETY: `context` is the `Found` that `words_of` passed, alive for the
    // tokenizer call; `token` holds `length` bytes for this callback.
    let (found, bytes) = unsafe {
        (
            &mut *context.cast::<Found>(),
            std::slice::from_raw_parts(token.cast::<u8>(), length),
        )
    };
    let word = String::from_utf8_lossy(bytes);
    if word.chars().count() >= found.shortest && !found.words.contains(word.as_ref()) {
        found.words.insert(word.into_owned());
    }
    ffi::SQLITE_OK
}
