//! The ranking function against a real SQLite FTS5 table, and the score's
//! arithmetic on its own.

use super::*;
use proptest::prelude::*;

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

fn ranked(conn: &Connection, query: &str, rank: &str) -> Vec<(i64, f64)> {
    conn.prepare(&format!(
        "SELECT rowid, {rank} FROM docs WHERE docs MATCH ?1 ORDER BY 2, rowid"
    ))
    .expect("the query")
    .query_map([query], |row| Ok((row.get(0)?, row.get(1)?)))
    .expect("it runs")
    .collect::<rusqlite::Result<_>>()
    .expect("every row")
}

#[test]
fn a_title_match_ranks_above_a_body_match() {
    // The body match is the shorter story, so only the title's weight can
    // put the title match first.
    let conn = index(&[
        ("council meets", "harbour plan"),
        ("harbour plan", "the council meets on monday and tuesday"),
        ("weather", "rain all week"),
    ]);
    let hits = ranked(&conn, "harbour", "copydesk_rank(docs, 10.0, 1.0)");
    let ids: Vec<i64> = hits.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [2, 1]);
    assert!(hits[0].1 < hits[1].1, "{hits:?}");
}

#[test]
fn several_words_and_a_half_typed_one_are_ranked() {
    let conn = index(&[
        ("harbour plan approved", "the council approved it"),
        ("plan", "the harbour council approves"),
        ("harbour", "no plan"),
    ]);
    let hits = ranked(
        &conn,
        "harbour plan appro*",
        "copydesk_rank(docs, 10.0, 1.0)",
    );
    let ids: Vec<i64> = hits.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [1, 2], "every word in the title first: {hits:?}");
    assert!(
        hits.iter()
            .all(|(_, score)| score.is_finite() && *score < 0.0)
    );
}

#[test]
fn columns_without_a_weight_count_once() {
    let conn = index(&[("harbour", "x"), ("y", "harbour")]);
    let unweighted = ranked(&conn, "harbour", "copydesk_rank(docs)");
    let weighted_one = ranked(&conn, "harbour", "copydesk_rank(docs, 1.0, 1.0)");
    assert_eq!(unweighted.len(), 2);
    assert!(unweighted[0].1 < 0.0, "{unweighted:?}");
    assert_eq!(unweighted, weighted_one);
    let title_only = ranked(&conn, "harbour", "copydesk_rank(docs, 3.0)");
    assert_eq!(title_only[0].0, 1, "{title_only:?}");
    assert_eq!(title_only[1], unweighted[1], "the body still weighs 1");
}

/// The score of a several-word hit, worked out by hand from BM25 with every
/// word's weight 1: each word counted at its columns' weights, set against
/// the story's length over the average.
#[test]
fn a_several_word_hit_scores_as_bm25_without_word_weights() {
    let conn = index(&[
        ("harbour plan", "harbour"),
        ("rain", "all week long and more"),
    ]);
    let hits = ranked(&conn, "harbour plan", "copydesk_rank(docs, 10.0, 1.0)");
    assert_eq!(hits.len(), 1);
    let (length, average) = (3.0, (3.0 + 6.0) / 2.0);
    let norm = 1.2 * (0.25 + 0.75 * length / average);
    let worth = |count: f64| count * 2.2 / (count + norm);
    let expected = -(worth(10.0 + 1.0) + worth(10.0));
    assert!((hits[0].1 - expected).abs() < 1e-12, "{hits:?} {expected}");
}

#[test]
fn it_is_refused_outside_a_full_text_query() {
    let conn = index(&[("harbour", "x")]);
    let outside = conn.query_row("SELECT copydesk_rank(1)", [], |row| row.get::<_, f64>(0));
    assert!(outside.is_err());
}

proptest! {
    #[test]
    fn a_word_counts_for_more_each_time_it_is_repeated_but_never_past_a_bound(
        counts in proptest::collection::vec(0.0_f64..50.0, 1..6),
        more in 0.1_f64..10.0,
        which in 0_usize..6,
        length in 1.0_f64..5_000.0,
        average in 1.0_f64..5_000.0,
    ) {
        let which = which % counts.len();
        let before = score(&counts, length, average);
        let mut repeated = counts.clone();
        repeated[which] += more;
        let after = score(&repeated, length, average);
        prop_assert!(after < before);
        prop_assert!(-after <= (K1 + 1.0) * counts.len() as f64);
    }

    #[test]
    fn a_longer_story_with_the_same_matches_ranks_lower(
        counts in proptest::collection::vec(0.5_f64..50.0, 1..6),
        length in 1.0_f64..5_000.0,
        longer in 1.0_f64..5_000.0,
        average in 1.0_f64..5_000.0,
    ) {
        prop_assert!(score(&counts, length + longer, average) > score(&counts, length, average));
    }

    /// For one word, leaving out the word's weight changes nothing:
    /// `bm25()` multiplies every hit's worth by the same number.
    #[test]
    fn one_word_orders_hits_as_bm25_does(
        rows in proptest::collection::vec(
            (
                proptest::collection::vec(0_usize..5, 0..6),
                proptest::collection::vec(0_usize..5, 0..40),
            ),
            1..30,
        ),
        word in 0_usize..5,
        title_weight in 0.5_f64..20.0,
    ) {
        const WORDS: [&str; 5] = ["harbour", "council", "plan", "rain", "école"];
        let text = |words: &Vec<usize>| words.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" ");
        let texts: Vec<(String, String)> = rows.iter().map(|(t, b)| (text(t), text(b))).collect();
        let borrowed: Vec<(&str, &str)> = texts.iter().map(|(t, b)| (t.as_str(), b.as_str())).collect();
        let conn = index(&borrowed);
        let query = format!("\"{}\"", WORDS[word]);
        let ours: std::collections::HashMap<i64, f64> =
            ranked(&conn, &query, &format!("copydesk_rank(docs, {title_weight}, 1.0)")).into_iter().collect();
        let theirs: std::collections::HashMap<i64, f64> =
            ranked(&conn, &query, &format!("bm25(docs, {title_weight}, 1.0)")).into_iter().collect();
        prop_assert_eq!(ours.len(), theirs.len());
        // bm25() is ours times the word's weight, the same for every hit.
        let ratios: Vec<f64> = ours.iter().map(|(id, score)| theirs[id] / score).collect();
        for ratio in &ratios {
            prop_assert!((ratio - ratios[0]).abs() <= 1e-9 * ratios[0].abs(), "{ratios:?}");
        }
        for (a, ours_a) in &ours {
            for (b, ours_b) in &ours {
                if ours_a - ours_b > 1e-9 * ours_a.abs().max(1.0) {
                    prop_assert!(theirs[a] >= theirs[b], "{a} {b}: ours {ours_a} {ours_b}, bm25 {} {}", theirs[a], theirs[b]);
                }
            }
        }
    }
}

#[test]
fn in_columns_tells_a_headline_hit_from_a_body_hit() {
    let conn = index(&[
        ("harbour plan", "council meets"),
        ("council meets", "harbour plan"),
        ("harbour", "plan"),
    ]);
    let in_title: Vec<(i64, i64)> = conn
        .prepare("SELECT rowid, copydesk_in_columns(docs, 1, 0) FROM docs WHERE docs MATCH ?1 ORDER BY rowid")
        .expect("the query")
        .query_map(["harbour pla*"], |row| Ok((row.get(0)?, row.get(1)?)))
        .expect("it runs")
        .collect::<rusqlite::Result<_>>()
        .expect("every row");
    assert_eq!(in_title, [(1, 1), (2, 0), (3, 0)]);
}

#[test]
fn in_columns_is_refused_without_its_two_arguments_or_with_a_negative_count() {
    let conn = index(&[("harbour", "plan")]);
    for arguments in ["1", "1, 0, 0", "1, -1"] {
        let asked: rusqlite::Result<i64> = conn.query_row(
            &format!(
                "SELECT copydesk_in_columns(docs, {arguments}) FROM docs WHERE docs MATCH 'harbour'"
            ),
            [],
            |row| row.get(0),
        );
        assert!(asked.is_err(), "{arguments}: {asked:?}");
    }
    let asked: rusqlite::Result<i64> = conn.query_row(
        "SELECT copydesk_in_columns(docs, 1, 0) FROM docs WHERE docs MATCH 'harbour'",
        [],
        |row| row.get(0),
    );
    assert_eq!(asked.ok(), Some(1));
}

proptest! {
    /// The pure check answers as a plain search of every phrase would.
    #[test]
    fn every_phrase_in_columns_is_each_phrase_found_in_the_mask(
        matches in proptest::collection::vec((0usize..5, 0usize..70), 0..20),
        phrases in 0usize..5,
        mask in any::<u64>(),
    ) {
        let expected = (0..phrases).all(|phrase| {
            matches
                .iter()
                .any(|&(p, column)| p == phrase && column < 64 && mask & (1 << column) != 0)
        });
        prop_assert_eq!(every_phrase_in_columns(matches, phrases, mask), expected);
    }

    /// Over a real index, the hits for which the function answers 1 are
    /// exactly those a column filter on the same words finds, with a
    /// further phrase (a term of a column of its own, `f`, as a tag's term
    /// is) left out of the check.
    #[test]
    fn in_columns_agrees_with_a_column_filter(
        rows in proptest::collection::vec(
            (
                proptest::collection::vec(0usize..6, 0..5),
                proptest::collection::vec(0usize..6, 0..5),
                proptest::collection::vec(0usize..6, 0..5),
                proptest::collection::vec(0usize..3, 0..3),
            ),
            1..12,
        ),
        words in proptest::collection::vec(0usize..7, 1..4),
        last_is_prefix in any::<bool>(),
        extra in proptest::option::of(0usize..3),
        mask in 1u64..8,
    ) {
        const WORDS: [&str; 7] = ["harbour", "harbours", "plan", "planning", "council", "café", "-"];
        let conn = Connection::open_in_memory().expect("an in-memory database");
        register(&conn).expect("the functions register");
        conn.execute_batch(
            "CREATE VIRTUAL TABLE docs USING fts5(a, b, c, f, tokenize = 'unicode61 remove_diacritics 2', prefix = '3')",
        )
        .expect("the table");
        let text = |picked: &[usize]| picked.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" ");
        let terms = |picked: &[usize]| picked.iter().map(|&t| format!("tag{t}")).collect::<Vec<_>>().join(" ");
        for (id, (a, b, c, f)) in rows.iter().enumerate() {
            conn.execute(
                "INSERT INTO docs (rowid, a, b, c, f) VALUES (?1, ?2, ?3, ?4, ?5)",
                rusqlite::params![id as i64 + 1, text(a), text(b), text(c), terms(f)],
            )
            .expect("a row");
        }
        let last = words.len() - 1;
        let typed: Vec<String> = words
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                let word: String = if i == last && last_is_prefix {
                    WORDS[w].chars().take(3).collect()
                } else {
                    WORDS[w].to_owned()
                };
                format!("\"{word}\"{}", if i == last && last_is_prefix { "*" } else { "" })
            })
            .collect();
        let typed = typed.join(" ");
        let rest = extra.map(|t| format!(" AND \"tag{t}\"")).unwrap_or_default();
        let columns: Vec<&str> = ["a", "b", "c"]
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, c)| *c)
            .collect();
        let ids = |sql: &str, query: &str| -> Vec<i64> {
            conn.prepare(sql)
                .expect("the query")
                .query_map([query], |row| row.get(0))
                .expect("it runs")
                .collect::<rusqlite::Result<_>>()
                .expect("every row")
        };
        let by_function = ids(
            &format!(
                "SELECT rowid FROM docs WHERE docs MATCH ?1 AND copydesk_in_columns(docs, {mask}, {}) ORDER BY rowid",
                usize::from(extra.is_some())
            ),
            &format!("({typed}){rest}"),
        );
        let by_filter = ids(
            "SELECT rowid FROM docs WHERE docs MATCH ?1 ORDER BY rowid",
            &format!("{{{}}} : ({typed}){rest}", columns.join(" ")),
        );
        prop_assert_eq!(&by_function, &by_filter);
        // And such a hit scores under the column filter as it scores
        // without it when the other columns weigh nothing: the filter hides
        // the matches in other columns and nothing else.
        let weights: Vec<&str> = (0..3)
            .map(|i| if mask & (1 << i) != 0 { ["10.0", "4.0", "1.0"][i] } else { "0.0" })
            .collect();
        let scores = |query: &str, weights: &str| -> Vec<(i64, f64)> {
            conn.prepare(&format!(
                "SELECT rowid, copydesk_rank(docs, {weights}) FROM docs WHERE docs MATCH ?1 ORDER BY rowid"
            ))
            .expect("the query")
            .query_map([query], |row| Ok((row.get(0)?, row.get(1)?)))
            .expect("it runs")
            .collect::<rusqlite::Result<_>>()
            .expect("every row")
        };
        let filtered = scores(&format!("{{{}}} : ({typed}){rest}", columns.join(" ")), "10.0, 4.0, 1.0, 0.0");
        let unfiltered: Vec<(i64, f64)> = scores(&format!("({typed}){rest}"), &format!("{}, 0.0", weights.join(", ")))
            .into_iter()
            .filter(|(id, _)| by_function.contains(id))
            .collect();
        prop_assert_eq!(filtered, unfiltered);
    }
}
