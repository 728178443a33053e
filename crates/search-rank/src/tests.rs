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
