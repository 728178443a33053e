//! The tier and word-list functions against real SQLite FTS5 tables.

use super::*;
use proptest::prelude::*;
use std::collections::HashSet;

fn index(rows: &[(&str, &str)]) -> Connection {
    let conn = Connection::open_in_memory().expect("an in-memory database");
    register(&conn).expect("the function registers");
    conn.execute_batch(
        "CREATE VIRTUAL TABLE docs USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2', prefix = '3')",
    )
    .expect("the table");
    for (id, (title, body)) in rows.iter().enumerate() {
        conn.execute(
            "INSERT INTO docs (rowid, title, body) VALUES (?1, ?2, ?3)",
            rusqlite::params![id as i64 + 1, title, body],
        )
        .expect("a row");
    }
    conn
}

/// The tier of each hit of `query` (FTS5 syntax) with `groups`, by id.
fn tiers(conn: &Connection, query: &str, groups: &[usize]) -> Vec<(i64, i64)> {
    let sizes: Vec<String> = groups.iter().map(usize::to_string).collect();
    conn.prepare(&format!(
        "SELECT rowid, copydesk_tier(docs, {}) FROM docs WHERE docs MATCH ?1 ORDER BY rowid",
        sizes.join(", ")
    ))
    .expect("the query")
    .query_map([query], |row| Ok((row.get(0)?, row.get(1)?)))
    .expect("it runs")
    .collect::<rusqlite::Result<_>>()
    .expect("every row")
}

#[test]
fn a_phrase_and_a_whole_word_are_told_from_scattered_words_and_a_start() {
    let conn = index(&[
        ("harbour bridge closes", "traffic"),
        ("bridge over the harbour", "traffic"),
        ("harbours", "a bridge"),
        ("the harbour", "bridge works"),
        ("bridge harbourside", "traffic"),
    ]);
    use tier::{PHRASE, WHOLE};
    // Typed whole: one phrase a word.
    assert_eq!(
        tiers(&conn, "\"harbour\" \"bridge\"", &[1, 1]),
        [(1, PHRASE + WHOLE), (2, WHOLE), (4, WHOLE)]
    );
    // The last word perhaps half typed: the word itself, then its starts.
    assert_eq!(
        tiers(
            &conn,
            "\"bridge\" AND (\"harbour\" OR \"harbour\"*)",
            &[1, 2]
        ),
        [(1, WHOLE), (2, WHOLE), (3, 0), (4, WHOLE), (5, PHRASE)]
    );
    // Across two columns is not a phrase (4: "harbour" ends the title).
    assert_eq!(
        tiers(
            &conn,
            "\"harbour\" AND (\"bridge\" OR \"bridge\"*)",
            &[1, 2]
        ),
        [(1, PHRASE + WHOLE), (2, WHOLE), (4, WHOLE)]
    );
}

#[test]
fn a_word_of_several_tokens_chains_at_its_end_and_filters_are_left_alone() {
    let conn = index(&[
        ("covid 19 cases rise", "filter"),
        ("cases covid 19", "filter"),
    ]);
    use tier::{PHRASE, WHOLE};
    assert_eq!(
        tiers(&conn, "\"covid-19\" \"cases\" AND \"filter\"", &[1, 1]),
        [(1, PHRASE + WHOLE), (2, WHOLE)]
    );
}

#[test]
fn tier_is_refused_with_an_empty_group_or_more_phrases_than_the_query() {
    let conn = index(&[("harbour", "bridge")]);
    for groups in ["0", "1, 1", "-1"] {
        let refused = conn
            .prepare(&format!(
                "SELECT copydesk_tier(docs, {groups}) FROM docs WHERE docs MATCH 'harbour'"
            ))
            .and_then(|mut stmt| stmt.query_row([], |row| row.get::<_, i64>(0)));
        assert!(refused.is_err(), "{groups}: {refused:?}");
    }
}

proptest! {
    /// The phrase bit is what FTS5's own phrase query answers, and the
    /// whole bit what the whole word's query answers, for any stories and
    /// typed words over a small vocabulary.
    #[test]
    fn tier_agrees_with_fts5_phrase_and_word_queries(
        rows in proptest::collection::vec(
            ("[abc]( [abc]){0,5}", "[abc]{1,2}( [abc]{1,2}){0,8}"), 1..12),
        typed in proptest::collection::vec("[abc]", 1..4),
        half_typed in any::<bool>(),
    ) {
        let rows: Vec<(&str, &str)> = rows.iter().map(|(t, b)| (t.as_str(), b.as_str())).collect();
        let conn = index(&rows);
        let last = typed.len() - 1;
        let mut groups = vec![1; typed.len()];
        let mut parts: Vec<String> = typed.iter().map(|w| format!("\"{w}\"")).collect();
        if half_typed {
            groups[last] = 2;
            parts[last] = format!("(\"{0}\" OR \"{0}\"*)", typed[last]);
        }
        let hits = tiers(&conn, &parts.join(" AND "), &groups);
        let phrase_query = if half_typed {
            format!("\"{}\"*", typed.join(" "))
        } else {
            format!("\"{}\"", typed.join(" "))
        };
        let matching = |query: &str| -> HashSet<i64> {
            conn.prepare("SELECT rowid FROM docs WHERE docs MATCH ?1")
                .expect("the query")
                .query_map([query], |row| row.get(0))
                .expect("it runs")
                .collect::<rusqlite::Result<_>>()
                .expect("every row")
        };
        let phrased = matching(&phrase_query);
        let whole = matching(&format!("\"{}\"", typed[last]));
        for (id, tier) in hits {
            prop_assert_eq!(tier & tier::PHRASE != 0, phrased.contains(&id), "phrase of {}", id);
            prop_assert_eq!(tier & tier::WHOLE != 0, whole.contains(&id), "whole of {}", id);
        }
    }
}

/// The words of `text` as `copydesk_terms` gives them.
fn terms_of(conn: &Connection, text: &str, shortest: i64) -> Vec<String> {
    let json: String = conn
        .query_row(
            "SELECT copydesk_terms(?1, ?2)",
            rusqlite::params![text, shortest],
            |row| row.get(0),
        )
        .expect("the function answers");
    // The array holds plain quoted words; split it without a JSON parser.
    let inner = &json[1..json.len() - 1];
    if inner.is_empty() {
        return Vec::new();
    }
    inner
        .split("\",\"")
        .map(|w| w.trim_matches('"').to_owned())
        .collect()
}

#[test]
fn terms_are_the_tokenizers_words_folded_distinct_and_sorted() {
    let conn = index(&[]);
    assert_eq!(
        terms_of(&conn, "Café-Crème, CAFÉ crème! harbourside", 0),
        ["cafe", "creme", "harbourside"]
    );
    assert_eq!(terms_of(&conn, "Café harbourside", 6), ["harbourside"]);
    assert!(terms_of(&conn, "", 0).is_empty());
    let null: String = conn
        .query_row("SELECT copydesk_terms(NULL, 0)", [], |row| row.get(0))
        .expect("NULL is no words");
    assert_eq!(null, "[]");
}

proptest! {
    /// Whatever the text, its terms are exactly the words an FTS5 table with
    /// the index's tokenizer holds for it.
    #[test]
    fn terms_are_what_an_index_holds(text in "\\PC{0,80}") {
        let conn = index(&[(text.as_str(), "")]);
        conn.execute_batch("CREATE VIRTUAL TABLE docs_words USING fts5vocab(docs, row)")
            .expect("the vocabulary table");
        let held: Vec<String> = conn
            .prepare("SELECT term FROM docs_words ORDER BY term")
            .expect("the query")
            .query_map([], |row| row.get(0))
            .expect("it runs")
            .collect::<rusqlite::Result<_>>()
            .expect("every term");
        let json: String = conn
            .query_row("SELECT copydesk_terms(?1, 0)", [&text], |row| row.get(0))
            .expect("the function answers");
        let listed: Vec<String> = conn
            .prepare("SELECT value FROM json_each(?1)")
            .expect("the query")
            .query_map([&json], |row| row.get(0))
            .expect("it runs")
            .collect::<rusqlite::Result<_>>()
            .expect("every word");
        // fts5vocab orders by bytes, as a BTreeSet of strings does.
        prop_assert_eq!(listed, held);
    }
}
