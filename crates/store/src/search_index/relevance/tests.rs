//! The relevance order and the count over real stores, against the order
//! worked out by hand from the stories' words.

use super::*;
use crate::db::params;
use crate::search_index::match_typed;
use proptest::prelude::*;

/// The words the stories are made of: few, so that searches have many hits,
/// and three that a typed `harbou` or `harbour` is the start of.
const WORDS: [&str; 6] = [
    "harbour",
    "harbours",
    "harbourside",
    "plan",
    "council",
    "bridge",
];

/// A story: its words in the title, standfirst, body and slug, and its type.
#[derive(Debug, Clone)]
struct Story {
    title: Vec<usize>,
    standfirst: Vec<usize>,
    body: Vec<usize>,
    slug: Vec<usize>,
    post: bool,
}

fn text(words: &[usize], join: &str) -> String {
    words
        .iter()
        .map(|&w| WORDS[w])
        .collect::<Vec<_>>()
        .join(join)
}

/// A store holding `stories`, the first with id 1, indexed as every write is.
fn store_of(stories: &[Story]) -> (tempfile::TempDir, crate::Store) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = crate::Store::open(dir.path()).expect("the store opens");
    store
        .write(|tx| {
            for (i, story) in stories.iter().enumerate() {
                let id = i as i64 + 1;
                tx.execute(
                    "INSERT INTO content (id, uuid, title, slug, type, version, abstract, content, created_at, modified_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7, '2026-01-01 00:00:00', '2026-01-01 00:00:00')",
                    params![
                        id,
                        format!("00000000-0000-4000-8000-{id:012}"),
                        text(&story.title, " "),
                        text(&story.slug, "-"),
                        if story.post { "post" } else { "article" },
                        format!("<p>{}</p>", text(&story.standfirst, " ")),
                        format!("<p>{}</p>", text(&story.body, " ")),
                    ],
                )?;
            }
            Ok::<_, crate::StoreError>(())
        })
        .expect("the stories are stored and indexed");
    (dir, store)
}

/// Whether `token` is typed word `typed` (the last one perhaps a start).
fn matches(token: &str, typed: &str, as_start: bool) -> bool {
    if as_start {
        token.starts_with(typed)
    } else {
        token == typed
    }
}

/// A story's tier in one of its parts, worked out from its fields' words:
/// the typed words one after the other within a field, and the last one
/// whole somewhere.
fn tier_in(fields: &[&[usize]], typed: &[&str], last_is_prefix: bool) -> i64 {
    let last = typed.len() - 1;
    let phrase = typed.len() == 1
        || fields.iter().any(|field| {
            field.windows(typed.len()).any(|run| {
                run.iter()
                    .zip(typed)
                    .enumerate()
                    .all(|(i, (&w, t))| matches(WORDS[w], t, i == last && last_is_prefix))
            })
        });
    let whole = !last_is_prefix
        || fields
            .iter()
            .any(|field| field.iter().any(|&w| WORDS[w] == typed[last]));
    i64::from(phrase) * tier::PHRASE + i64::from(whole) * tier::WHOLE
}

/// Every typed word in one of `fields`.
fn holds(fields: &[&[usize]], typed: &[&str], last_is_prefix: bool) -> bool {
    let last = typed.len() - 1;
    typed.iter().enumerate().all(|(i, t)| {
        fields.iter().any(|field| {
            field
                .iter()
                .any(|&w| matches(WORDS[w], t, i == last && last_is_prefix))
        })
    })
}

use copydesk_search_rank::tier;

/// The hits of `typed` in relevance order with `window` and a headline
/// part within the newest `span` stories, worked out by hand.
fn expected(
    stories: &[Story],
    typed: &[&str],
    last_is_prefix: bool,
    window: usize,
    span: usize,
) -> Vec<i64> {
    let mut headline = Vec::new();
    let mut body = Vec::new();
    for (i, story) in stories.iter().enumerate().rev() {
        let id = i as i64 + 1;
        let heads: [&[usize]; 3] = [&story.title, &story.standfirst, &story.slug];
        let all: [&[usize]; 4] = [&story.title, &story.standfirst, &story.body, &story.slug];
        let within_span = stories.len() - i <= span;
        if within_span && holds(&heads, typed, last_is_prefix) {
            headline.push((id, tier_in(&heads, typed, last_is_prefix)));
        } else if holds(&all, typed, last_is_prefix) {
            body.push((id, tier_in(&all, typed, last_is_prefix)));
        }
    }
    let ordered = |mut part: Vec<(i64, i64)>| -> Vec<i64> {
        let rest = part.split_off(part.len().min(window));
        part.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
        part.into_iter().chain(rest).map(|(id, _)| id).collect()
    };
    let mut order = ordered(headline);
    order.extend(ordered(body));
    order
}

fn story() -> impl Strategy<Value = Story> {
    let words = |most| proptest::collection::vec(0..WORDS.len(), 0..most);
    (words(4), words(3), words(12), words(3), any::<bool>()).prop_map(
        |(title, standfirst, body, slug, post)| Story {
            title,
            standfirst,
            body,
            slug,
            post,
        },
    )
}

fn typed() -> impl Strategy<Value = (Vec<&'static str>, bool)> {
    (
        proptest::collection::vec(
            prop_oneof![
                Just("harbour"),
                Just("harbours"),
                Just("plan"),
                Just("council"),
                Just("bridge"),
            ],
            1..4,
        ),
        prop_oneof![
            Just(None),
            Just(Some("harbou")),
            Just(Some("harb")),
            Just(Some("bri"))
        ],
        any::<bool>(),
    )
        .prop_map(|(mut words, start, last_is_prefix)| {
            if let Some(start) = start {
                words.push(start);
            }
            (words, last_is_prefix || start.is_some())
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Pages of any size, read one after the other, give the hits in the
    /// order worked out by hand, each hit once, and count them exactly.
    #[test]
    fn pages_follow_the_relevance_order(
        stories in proptest::collection::vec(story(), 0..40),
        (typed, last_is_prefix) in typed(),
        window in 1usize..8,
        per_page in 1usize..9,
        dropped in any::<bool>(),
        posts_only in any::<bool>(),
        chunk in 1usize..6,
        walked_at_most in 0usize..12,
        headline_span in prop_oneof![Just(HEADLINE_SPAN), 1usize..40],
    ) {
        let (_dir, store) = store_of(&stories);
        // A sign FTS5 finds no word in (a vowel sign alone) is left out.
        let dropped = if dropped { "\u{0903} " } else { "" };
        let keywords = format!(
            "{dropped}{}{}",
            typed.join(" "),
            if last_is_prefix { "" } else { " " }
        );
        let terms = match_typed(&keywords).expect("words").expect("a search");
        // Posts only, when asked: a condition on the story's row, checked
        // chunk by chunk, or on the posts themselves once the walk has
        // stepped through `walked_at_most` hits.
        let held: Vec<Story> = stories
            .iter()
            .map(|story| if posts_only && !story.post {
                Story { title: Vec::new(), standfirst: Vec::new(), body: Vec::new(), slug: Vec::new(), post: false }
            } else {
                story.clone()
            })
            .collect();
        let want = expected(&held, &typed, last_is_prefix, window, headline_span);
        let post = "post".to_owned();
        let args: [&dyn ToSql; 1] = [&post];
        let also = Also { sql: "+content.type = ?1", indexed: "content.type = ?1", args: &args };
        let also = posts_only.then_some(&also);
        let bounds = Bounds { window, counted_at_most: 1_000, chunk, walked_at_most, headline_span };
        let mut got = Vec::new();
        for n in 0..=want.len() / per_page {
            let ranked = store
                .read(|tx| page_within(tx, &terms, Order::Relevance, also, n * per_page, per_page, bounds))
                .expect("the page");
            prop_assert_eq!(ranked.total, want.len() as u64, "page {}: {:?}, want {:?}", n, ranked.ids, want);
            prop_assert!(!ranked.estimated);
            got.extend(ranked.ids);
        }
        prop_assert_eq!(got, want);
    }

    /// Newest and oldest first are the hits by id, a condition on the
    /// story's row narrowing them.
    #[test]
    fn newest_and_oldest_first_are_the_hits_by_id(
        stories in proptest::collection::vec(story(), 0..40),
        (typed, last_is_prefix) in typed(),
        posts_only in any::<bool>(),
        per_page in 1usize..9,
    ) {
        let (_dir, store) = store_of(&stories);
        let keywords = format!("{}{}", typed.join(" "), if last_is_prefix { "" } else { " " });
        let terms = match_typed(&keywords).expect("words").expect("a search");
        let mut want: Vec<i64> = expected(&stories, &typed, last_is_prefix, 0, HEADLINE_SPAN)
            .into_iter()
            .filter(|id| !posts_only || stories[*id as usize - 1].post)
            .collect();
        want.sort_unstable_by(|a, b| b.cmp(a));
        let post = "post".to_owned();
        let args: [&dyn ToSql; 1] = [&post];
        let also = Also { sql: "+content.type = ?1", indexed: "content.type = ?1", args: &args };
        let also = posts_only.then_some(&also);
        for (order, want) in [
            (Order::NewestFirst, want.clone()),
            (Order::OldestFirst, want.iter().rev().copied().collect()),
        ] {
            let mut got = Vec::new();
            for n in 0..=want.len() / per_page {
                let ranked = store
                    .read(|tx| page_within(tx, &terms, order, also, n * per_page, per_page, BOUNDS))
                    .expect("the page");
                prop_assert_eq!(ranked.total, want.len() as u64);
                got.extend(ranked.ids);
            }
            prop_assert_eq!(got, want);
        }
    }
}

/// Every story a hit: with fewer counted one by one than there are hits,
/// the count is an estimate from the newest hits' density, here exact.
#[test]
fn a_count_past_the_counted_ones_is_estimated_from_the_newest_hits() {
    let plan = Story {
        title: vec![3],
        standfirst: Vec::new(),
        body: vec![4],
        slug: Vec::new(),
        post: false,
    };
    let (_dir, store) = store_of(&vec![plan; 60]);
    let terms = match_typed("plan ").expect("words").expect("a search");
    let bounds = Bounds {
        window: 5,
        counted_at_most: 10,
        ..BOUNDS
    };
    let ranked = store
        .read(|tx| page_within(tx, &terms, Order::Relevance, None, 0, 20, bounds))
        .expect("the page");
    assert_eq!(ranked.ids, (41..=60).rev().collect::<Vec<i64>>());
    assert_eq!((ranked.total, ranked.estimated), (60, true));
    // The word in every body and no headline: the body's window, as long
    // as the hits counted one by one, gives the estimate itself.
    let terms = match_typed("council ").expect("words").expect("a search");
    let body_bounds = Bounds {
        window: 10,
        counted_at_most: 10,
        ..bounds
    };
    let ranked = store
        .read(|tx| page_within(tx, &terms, Order::Relevance, None, 0, 20, body_bounds))
        .expect("the page");
    assert_eq!(ranked.ids, (41..=60).rev().collect::<Vec<i64>>());
    assert_eq!((ranked.total, ranked.estimated), (60, true));
    // The last page reaches the end: exact.
    let ranked = store
        .read(|tx| page_within(tx, &terms, Order::NewestFirst, None, 50, 20, bounds))
        .expect("the page");
    assert_eq!((ranked.total, ranked.estimated), (60, false));
}

/// A half-typed long word is asked for as the index's words it starts,
/// and a word typed whole comes before a longer one it starts.
#[test]
fn a_long_start_is_looked_up_in_the_index_words() {
    let story = |title: usize| Story {
        title: vec![title],
        standfirst: Vec::new(),
        body: Vec::new(),
        slug: Vec::new(),
        post: false,
    };
    let (_dir, store) = store_of(&[story(0), story(1), story(2), story(3)]);
    let listed: Vec<String> = store
        .read(|tx| {
            let mut stmt = tx.prepare("SELECT word FROM content_search_words ORDER BY word")?;
            let words = stmt
                .query_map([], |row| row.get(0))?
                .collect::<crate::db::Result<_>>()?;
            Ok::<_, crate::StoreError>(words)
        })
        .expect("the words");
    assert_eq!(listed, ["harbour", "harbours", "harbourside"]);
    let terms = match_typed("harbour").expect("words").expect("a search");
    let words = store.read(|tx| Words::of(tx, &terms)).expect("the words");
    assert_eq!(
        words.groups,
        [(
            "(\"harbour\" OR \"harbours\" OR \"harbourside\")".to_owned(),
            3
        )]
    );
    let ranked = store
        .read(|tx| page_within(tx, &terms, Order::Relevance, None, 0, 10, BOUNDS))
        .expect("the page");
    assert_eq!(ranked.ids, [1, 3, 2]);
}
