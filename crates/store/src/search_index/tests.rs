//! The search index's tests: words, prefixes, filters and ranking over real stores.

use super::*;
use proptest::prelude::*;

#[test]
fn hits_are_ranked_by_the_function_the_store_registers() {
    assert!(RANK.starts_with(&format!("{}(", copydesk_search_rank::FUNCTION)));
}

proptest! {
    #[test]
    fn a_large_search_puts_its_ranked_hits_first_and_loses_none(
        hits in proptest::collection::btree_set(1i64..5_000, 0..300),
        in_headline in proptest::collection::vec(any::<bool>(), 300),
        scores in proptest::collection::vec(proptest::option::of(-20.0f64..0.0), 300),
    ) {
        let newest_first: Vec<i64> = hits.iter().rev().copied().collect();
        // Some hits are headline hits; some of those are ranked.
        let headline: Vec<i64> = newest_first
            .iter()
            .zip(&in_headline)
            .filter(|(_, yes)| **yes)
            .map(|(id, _)| *id)
            .collect();
        let ranked: Vec<(i64, f64)> = headline
            .iter()
            .zip(&scores)
            .filter_map(|(id, score)| score.map(|s| (*id, s)))
            .collect();
        let order = headline_first(ranked.clone(), &headline, &newest_first);
        // Every hit once.
        let mut sorted = order.clone();
        sorted.sort_unstable();
        let mut all: Vec<i64> = hits.iter().copied().collect();
        all.sort_unstable();
        prop_assert_eq!(sorted, all);
        // The ranked ones first, best first, the newest among equals.
        let (head, tail) = order.split_at(ranked.len());
        for pair in head.windows(2) {
            let score = |id: i64| ranked.iter().find(|(r, _)| *r == id).map(|(_, s)| *s);
            let (a, b) = (score(pair[0]), score(pair[1]));
            prop_assert!(a < b || (a == b && pair[0] > pair[1]));
        }
        // Then the other headline hits, newest first, then the rest,
        // newest first.
        let other_headline = headline.len() - ranked.len();
        let (middle, rest) = tail.split_at(other_headline);
        prop_assert!(middle.iter().all(|id| headline.contains(id)));
        prop_assert!(middle.windows(2).all(|pair| pair[0] > pair[1]));
        prop_assert!(rest.iter().all(|id| !headline.contains(id)));
        prop_assert!(rest.windows(2).all(|pair| pair[0] > pair[1]));
    }
}

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
        within_a_tag.as_ref().map(SearchTerms::headline),
        Some("{title abstract slug authors tags} : (\"tuition\"*) AND \"\u{E000}tag7\" AND \"\u{E000}author3\"".to_string())
    );
    assert_eq!(
        match_typed("\u{E000}tag7").ok().flatten().map(|t| t.words),
        Some("\" tag7\"*".to_string()),
        "the filter terms' mark is taken out of a typed word"
    );
}

/// The words the stories of [`one_pass_orders_hits_as_the_passes_do`]
/// are made of: few, so that two of them have hundreds of hits, and
/// often hundreds of headline hits.
const STORY_WORDS: [&str; 4] = ["harbour", "harbours", "plan", "council"];

/// A story of the index: its words by column (title, abstract, body,
/// slug, authors, tags), its tag (1 or 2, or none: 0) and its author
/// (likewise).
type IndexedStory = ([Vec<usize>; 6], u8, u8);

/// Indexes `stories` as the store does, the first with id 1.
fn index_stories(tx: &Transaction<'_>, stories: &[IndexedStory]) {
    let words = |picked: &[usize]| {
        picked
            .iter()
            .map(|&w| STORY_WORDS[w])
            .collect::<Vec<_>>()
            .join(" ")
    };
    for (id, (columns, tag_of, author_of)) in stories.iter().enumerate() {
        let mut filters = Vec::new();
        if *tag_of > 0 {
            filters.push(fts5_filter_term(&tag_term(i64::from(*tag_of))));
        }
        if *author_of > 0 {
            filters.push(fts5_filter_term(&author_term(i64::from(*author_of))));
        }
        tx.execute(
            "INSERT INTO content_search (rowid, title, abstract, body, slug, authors, tags, filters)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                id as i64 + 1,
                words(&columns[0]),
                words(&columns[1]),
                words(&columns[2]),
                words(&columns[3]),
                words(&columns[4]),
                words(&columns[5]),
                filters.join(" "),
            ],
        )
        .expect("a story");
    }
}

/// The search `typed` makes, within the tag and by the author given.
fn search_terms(
    typed: &str,
    tag: Option<i64>,
    author: Option<i64>,
) -> std::result::Result<SearchTerms, TestCaseError> {
    let mut terms = match_typed(typed)
        .ok()
        .flatten()
        .ok_or_else(|| TestCaseError::fail(format!("{typed:?} makes no search")))?;
    if let Some(tag) = tag {
        terms = terms.with_tag(tag);
    }
    if let Some(author) = author {
        terms = terms.with_author(author);
    }
    Ok(terms)
}

/// Indexes `stories` in a store and checks that the first pass of
/// `typed`, split in two at `newer_from` over two readers, finds the
/// very hits, scores and order that one pass over every story finds.
fn split_as_one_pass(
    stories: &[IndexedStory],
    typed: &str,
    tag: Option<i64>,
    newer_from: i64,
) -> std::result::Result<(), TestCaseError> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = &crate::Store::open(dir.path()).expect("the store opens");
    store
        .write(|tx| {
            index_stories(tx, stories);
            Ok::<_, crate::StoreError>(())
        })
        .expect("the stories are indexed");
    let terms = search_terms(typed, tag, None)?;
    let split = Split { store, newer_from };
    let most = PLACED_AT_MOST + 1;
    let (whole, halves, side_by_side) = store
        .read(|tx| {
            // The halves as `hits_placed_whole` asks for them, to see
            // that they do run side by side here, not in one pass.
            let side_by_side = split
                .store
                .read_beside(
                    tx,
                    |tx| hits_placed(tx, &terms, most, i64::MIN..=newer_from - 1),
                    |tx| hits_placed(tx, &terms, most, newer_from..=i64::MAX),
                )?
                .is_some();
            Ok::<_, crate::StoreError>((
                hits_placed_whole(tx, &terms, most, None)?,
                hits_placed_whole(tx, &terms, most, Some(&split))?,
                side_by_side,
            ))
        })
        .expect("the passes run");
    prop_assert!(
        side_by_side,
        "the newer half ran on a second reader (SQLite needs SQLITE_ENABLE_SNAPSHOT: scripts/sqlite-flags.sh)"
    );
    prop_assert_eq!(whole, halves);
    Ok(())
}

/// Indexes `stories` as the store does and checks that `typed`, within
/// the tag and by the author given, is put in the same order by
/// [`ranked_page`] as by [`ranked_in_passes`].
fn one_pass_as_the_passes(
    stories: &[IndexedStory],
    typed: &str,
    tag: Option<i64>,
    author: Option<i64>,
) -> std::result::Result<(), TestCaseError> {
    let mut conn = rusqlite::Connection::open_in_memory().expect("an in-memory database");
    copydesk_search_rank::register(&conn).expect("the ranking functions");
    conn.execute_batch(
        "CREATE VIRTUAL TABLE content_search USING fts5(
             title, abstract, body, slug, authors, tags, filters,
             content = '', contentless_delete = 1,
             tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5');",
    )
    .expect("the index");
    let terms = search_terms(typed, tag, author)?;
    let tx = Transaction::from_sqlite(conn.transaction().expect("a transaction"));
    index_stories(&tx, stories);
    let (total, page) = ranked_page(&tx, None, &terms, 0, usize::MAX).expect("one pass");
    let (passes_total, passes_order) = ranked_in_passes(&tx, &terms).expect("the passes");
    prop_assert_eq!(usize::try_from(total).ok(), Some(passes_total));
    prop_assert_eq!(page, passes_order);
    Ok(())
}

fn story_columns() -> impl Strategy<Value = [Vec<usize>; 6]> {
    let words = |most: usize| proptest::collection::vec(0usize..4, 0..most);
    (words(4), words(2), words(6), words(2), words(2), words(2))
        .prop_map(|(a, b, c, d, e, f)| [a, b, c, d, e, f])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A several-word or filtered search ordered from its first pass
    /// alone lists the very hits, in the very order, that the passes
    /// over the index list, whether it has fewer hits than are ranked
    /// one by one or more, and more headline hits than are ranked or
    /// fewer; with a tag, an author, both, and a typed word FTS5 drops
    /// (a sign that is no letter to it).
    #[test]
    fn one_pass_orders_hits_as_the_passes_do(
        stories in proptest::collection::vec((story_columns(), 0u8..3, 0u8..3), 150..500),
        first in 0usize..4,
        second in 0usize..4,
        half_typed in any::<bool>(),
        dropped in any::<bool>(),
        tag in proptest::option::of(1i64..3),
        author in proptest::option::of(1i64..3),
    ) {
        let second: String = if half_typed {
            STORY_WORDS[second].chars().take(4).collect()
        } else {
            format!("{} ", STORY_WORDS[second])
        };
        let dropped = if dropped { "\u{0903} " } else { "" };
        let typed = format!("{dropped}{} {second}", STORY_WORDS[first]);
        one_pass_as_the_passes(&stories, &typed, tag, author)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A first pass split in two halves of ids, the newer half on a
    /// second reader, places the very hits with the very scores, in
    /// the index's order, that one pass over every story places,
    /// wherever the split falls (before the first story, within, after
    /// the last).
    #[test]
    fn a_split_first_pass_places_what_one_pass_places(
        stories in proptest::collection::vec((story_columns(), 0u8..3, 0u8..3), 1..300),
        newer_from in 0i64..320,
        first in 0usize..4,
        second in 0usize..4,
        tag in proptest::option::of(1i64..3),
    ) {
        let typed = format!("{} {}", STORY_WORDS[first], &STORY_WORDS[second][..3]);
        split_as_one_pass(&stories, &typed, tag, newer_from)?;
    }
}

/// More headline hits than are ranked one by one: the newest 200 come
/// ranked, the older ones newest first, as the passes list them.
#[test]
fn one_pass_orders_many_headline_hits_as_the_passes_do() {
    let stories: Vec<IndexedStory> = (0..450)
        .map(|n| {
            let mut columns: [Vec<usize>; 6] = Default::default();
            // Both words in a headline field, in one of five ways, so
            // that the scores differ; every tenth story only in the body.
            let headline = n % 10 != 0;
            let field = [0, 1, 3, 4, 5][n % 5];
            if headline {
                columns[field] = vec![0, 2];
                columns[0].extend(std::iter::repeat_n(3, n % 3));
            } else {
                columns[2] = vec![0, 2, 3];
            }
            (columns, (n % 3) as u8, 0)
        })
        .collect();
    for (typed, tag) in [("harbour plan", None), ("harbour pla", Some(1))] {
        one_pass_as_the_passes(&stories, typed, tag, None).expect("the same order");
    }
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
            for expression in [terms.matching(), terms.headline()] {
                let counted: rusqlite::Result<i64> =
                    conn.query_row("SELECT COUNT(*) FROM s WHERE s MATCH ?1", [&expression], |row| row.get(0));
                prop_assert!(counted.is_ok(), "{expression}: {counted:?}");
            }
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
