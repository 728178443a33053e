//! The search index's tests: words, prefixes and filters, and the queries
//! they make.

use super::*;
use proptest::prelude::*;

#[test]
fn search_words_are_bounded() {
    let at_most = vec!["word"; MAX_SEARCH_WORDS].join(" ");
    assert_eq!(
        search_words(&at_most).map(|w| w.len()).ok(),
        Some(MAX_SEARCH_WORDS)
    );
    assert!(search_words(&format!("{at_most} one")).is_err());
    assert!(search_words(&"é".repeat(MAX_SEARCH_WORD_CHARS)).is_ok());
    assert!(search_words(&"é".repeat(MAX_SEARCH_WORD_CHARS + 1)).is_err());
}

#[test]
fn html_becomes_words() {
    assert_eq!(
        html_text("<p>Tuition <b>rises</b> again</p><p>Dean&amp;co&nbsp;say</p>").trim(),
        "Tuition rises again  Dean&co say"
    );
    assert_eq!(html_text("pre<em>fix</em>"), "prefix");
    assert_eq!(
        html_text("caf&#233; &#x263A; &bogus; & alone"),
        "café ☺ &bogus; & alone"
    );
    assert_eq!(html_text("<p>cut <b"), " cut ");
}

#[test]
fn typed_words_become_a_quoted_query() {
    assert_eq!(match_expression(&[], true), None);
    assert_eq!(match_expression(&["-", "&"], true), None);
    assert_eq!(
        match_expression(&["tuition"], true).as_deref(),
        Some("\"tuition\"*")
    );
    assert_eq!(
        match_expression(&["NEAR(", "a\"b", "cafe"], true).as_deref(),
        Some("\"NEAR(\" \"a\"\"b\" \"cafe\"*")
    );
    assert_eq!(
        match_typed("tuition rises ")
            .ok()
            .flatten()
            .map(|t| t.words),
        Some("\"tuition\" \"rises\"".to_string()),
        "a word followed by a space is finished"
    );
    assert_eq!(
        match_typed("tuition ris").ok().flatten().map(|t| t.words),
        Some("\"tuition\" \"ris\"*".to_string())
    );
    let within_a_tag = match_typed("tuition")
        .ok()
        .flatten()
        .map(|t| t.with_tag(7).with_author(3));
    assert_eq!(
        within_a_tag.as_ref().map(SearchTerms::matching),
        Some("(\"tuition\"*) AND \"\u{E000}tag7\" AND \"\u{E000}author3\"".to_string())
    );
    assert_eq!(
        match_typed("\u{E000}tag7").ok().flatten().map(|t| t.words),
        Some("\" tag7\"*".to_string()),
        "the filter terms' mark is taken out of a typed word"
    );
}

/// A typed word, often one that looks like a filter term.
fn typed_word() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{1,12}",
        Just("\u{E000}tag7".to_string()),
        Just("\u{E000}".to_string()),
        Just("\u{E000}t".to_string()),
        Just("0tag7".to_string()),
        Just("tag7".to_string()),
        Just("author3".to_string()),
        Just("café".to_string()),
    ]
}

proptest! {
    /// Whatever is typed, with or without a tag, the expressions are
    /// ones SQLite accepts over the index's columns, and the typed words
    /// never match a filter term.
    #[test]
    fn any_typed_words_make_a_valid_query_that_misses_filter_terms(
        words in proptest::collection::vec(typed_word(), 0..6),
        tag in proptest::option::of(1i64..1_000),
    ) {
        let conn = rusqlite::Connection::open_in_memory().expect("an in-memory database");
        conn.execute_batch(
            "CREATE VIRTUAL TABLE s USING fts5(title, abstract, body, slug, authors, tags, filters,
                 tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');",
        ).expect("an index");
        let filters = format!("{} {}", fts5_filter_term(&tag_term(7)), fts5_filter_term(&author_term(3)));
        conn.execute(
            "INSERT INTO s (rowid, title, body, filters) VALUES (1, 'Tuition rises again at the café', ?1, ?2)",
            [without_filter_mark("tag7 author3 \u{E000}tag7").as_ref(), filters.as_str()],
        ).expect("a story");
        conn.execute("INSERT INTO s (rowid, filters) VALUES (2, ?1)", [&filters])
            .expect("a story with filter terms alone");
        let typed = words.join(" ");
        if let Some(terms) = match_typed(&typed).ok().flatten() {
            let only_words: Vec<i64> = conn
                .prepare("SELECT rowid FROM s WHERE s MATCH ?1")
                .and_then(|mut stmt| {
                    stmt.query_map([terms.matching()], |row| row.get(0))?.collect()
                })
                .map_err(|err| TestCaseError::fail(format!("{}: {err}", terms.matching())))?;
            prop_assert!(!only_words.contains(&2), "{} matched a filter term", terms.matching());
            let terms = match tag {
                Some(tag) => terms.with_tag(tag),
                None => terms,
            };
            let expression = terms.matching();
            let counted: rusqlite::Result<i64> =
                conn.query_row("SELECT COUNT(*) FROM s WHERE s MATCH ?1", [&expression], |row| row.get(0));
            prop_assert!(counted.is_ok(), "{expression}: {counted:?}");
        }
    }

    /// A tag's term finds the stories with that tag, whatever words
    /// their text holds.
    #[test]
    fn a_filter_term_finds_its_stories_alone(
        body in proptest::collection::vec(typed_word(), 0..8),
        tagged in any::<bool>(),
    ) {
        let conn = rusqlite::Connection::open_in_memory().expect("an in-memory database");
        conn.execute_batch(
            "CREATE VIRTUAL TABLE s USING fts5(title, abstract, body, slug, authors, tags, filters,
                 tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');",
        ).expect("an index");
        let filters = if tagged { fts5_filter_term(&tag_term(7)) } else { String::new() };
        conn.execute(
            "INSERT INTO s (rowid, body, filters) VALUES (1, ?1, ?2)",
            [without_filter_mark(&body.join(" ")).as_ref(), filters.as_str()],
        ).expect("a story");
        let terms = match_typed("tuition").ok().flatten().expect("a word").with_tag(7);
        let expression = terms.matching().replace("(\"tuition\"*) AND ", "");
        let found: i64 = conn
            .query_row("SELECT COUNT(*) FROM s WHERE s MATCH ?1", [&expression], |row| row.get(0))
            .map_err(|err| TestCaseError::fail(format!("{expression}: {err}")))?;
        prop_assert_eq!(found, i64::from(tagged));
    }
}
