//! The content use cases' tests: create, update, list plans and the kept answers, on a real SQLite file.

use super::*;
use crate::access::{Credential, Principal};
use crate::paging::ListQuery;
use crate::search::{SearchHit, SearchQuery};

thread_local! {
    /// The plans the content list chose on this thread: true for a walk
    /// of the order's index.
    pub(super) static PLANS_CHOSEN: std::cell::RefCell<Vec<bool>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

// Search's ranking tiers are tested here, where stories are made: the
// search module sits below this one.
fn story(title: &str, body: &str) -> ContentInput {
    ContentInput {
        title: Some(title.to_owned()),
        content_type: Some("article".to_owned()),
        body: Some(format!("<p>{body}</p>")),
        ..ContentInput::default()
    }
}

/// The titles of one page of a search by relevance, and the hits.
fn titles(cms: &Cms, who: &Principal, words: &str, page: u64) -> (Vec<String>, u64) {
    let (titles, total, _) = titles_counted(cms, who, words, page);
    (titles, total)
}

/// [`titles`], and whether the count is an estimate.
fn titles_counted(cms: &Cms, who: &Principal, words: &str, page: u64) -> (Vec<String>, u64, bool) {
    let found = cms
        .search(
            who,
            &SearchQuery {
                record_type: Some("content".into()),
                keywords: Some(words.into()),
                ..SearchQuery::default()
            },
            &ListQuery {
                page: Some(page.to_string()),
                per_page: Some("5".into()),
                ..ListQuery::default()
            },
        )
        .expect("the search runs");
    let (total, estimated) = (found.total_items, found.total_estimated);
    let titles = found
        .items
        .into_iter()
        .map(|hit| match hit {
            SearchHit::Content(rendered) => rendered.0,
            other => panic!("a story, not {other:?}"),
        })
        .collect();
    (titles, total, estimated)
}

/// An admin signed in on `cms`.
fn admin(cms: &Cms) -> std::sync::Arc<Principal> {
    let key = cms
        .create_key("ed", &["admin".to_owned()], &[])
        .expect("a key");
    cms.authenticate(Some(&Credential::PrivateKey(key.private_key)))
        .expect("signed in")
}

/// Every filter of the list reads the same pages whichever way SQLite is
/// asked to read them: the walk of the order's index for a common
/// filter, the filter's own index for a rare one or a deep page.
#[test]
fn a_filtered_list_reads_the_same_rows_walked_in_order_or_found_by_index() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let cms = Cms::open(dir.path(), "test").expect("opens");
    let who = admin(&cms);
    let author = |name: &str| {
        cms.create_author(
            &who,
            crate::authors::AuthorInput {
                name: Some(name.to_owned()),
                ..Default::default()
            },
        )
        .expect("an author")
        .uuid
    };
    let (prolific, rare) = (author("Pat Prolific"), author("Rae Rare"));
    // 200 stories: 175 articles by Pat, 25 pages; Rae wrote two of them.
    let stories = (0..200)
        .map(|i| {
            let mut authors = Vec::new();
            if i % 8 != 3 {
                authors.push(prolific.clone());
            }
            if i == 5 || i == 27 {
                authors.push(rare.clone());
            }
            ContentInput {
                content_type: Some(if i % 8 == 3 { "page" } else { "article" }.to_owned()),
                authors: Some(authors),
                ..story(&format!("Story {i}"), "text")
            }
        })
        .collect();
    cms.create_contents(&who, stories).expect("made");
    let every_page = |order: &str, dir: &str, filter: &ContentFilter| -> (Vec<String>, u64) {
        let mut uuids = Vec::new();
        let mut total = 0;
        for page in 1.. {
            let listed = cms
                .list_content(
                    &who,
                    &ListQuery {
                        page: Some(page.to_string()),
                        per_page: Some("5".to_owned()),
                        order: Some(order.to_owned()),
                        dir: Some(dir.to_owned()),
                    },
                    filter,
                )
                .expect("a page");
            total = listed.total_items;
            if listed.items.is_empty() {
                break;
            }
            uuids.extend(listed.items.into_iter().map(|item| item.record.uuid));
        }
        (uuids, total)
    };
    PLANS_CHOSEN.with(|chosen| chosen.borrow_mut().clear());
    for (order, dir) in [
        ("modified_at", "desc"),
        ("version", "asc"),
        ("title", "asc"),
    ] {
        let (all, _) = every_page(order, dir, &ContentFilter::default());
        assert_eq!(all.len(), 200);
        let item_of = |uuid: &str| cms.get_content(&who, uuid).expect("the item");
        for (filter, keeps) in [
            (
                ContentFilter {
                    content_type: Some("article".to_owned()),
                    ..Default::default()
                },
                &(|item: &ContentItem| item.record.content_type == "article")
                    as &dyn Fn(&ContentItem) -> bool,
            ),
            (
                ContentFilter {
                    content_type: Some("page".to_owned()),
                    ..Default::default()
                },
                &|item: &ContentItem| item.record.content_type == "page",
            ),
            (
                ContentFilter {
                    author: Some(prolific.clone()),
                    ..Default::default()
                },
                &|item: &ContentItem| item.authors.iter().any(|a| a.uuid == prolific),
            ),
            (
                // Days too: the walk then meets only the days' rows.
                ContentFilter {
                    author: Some(prolific.clone()),
                    changed_from: Some(clock::days_ago(1)[..10].to_owned()),
                    changed_to: Some(clock::now()[..10].to_owned()),
                    ..Default::default()
                },
                &|item: &ContentItem| item.authors.iter().any(|a| a.uuid == prolific),
            ),
            (
                ContentFilter {
                    author: Some(rare.clone()),
                    content_type: Some("article".to_owned()),
                    ..Default::default()
                },
                &|item: &ContentItem| {
                    item.authors.iter().any(|a| a.uuid == rare)
                        && item.record.content_type == "article"
                },
            ),
        ] {
            let expected: Vec<String> = all
                .iter()
                .filter(|uuid| keeps(&item_of(uuid)))
                .cloned()
                .collect();
            let (listed, total) = every_page(order, dir, &filter);
            assert_eq!(listed, expected, "{order} {dir} {filter:?}");
            assert_eq!(total, expected.len() as u64, "{order} {dir} {filter:?}");
        }
    }
    let chosen = PLANS_CHOSEN.with(|chosen| chosen.take());
    assert!(
        chosen.contains(&true) && chosen.contains(&false),
        "both plans were read: {chosen:?}"
    );
}

#[test]
fn many_hits_put_headline_matches_first_then_the_newest() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let cms = Cms::open(dir.path(), "test").expect("opens");
    cms.render_content_with(
        "title",
        std::sync::Arc::new(|item| item.record.title),
        false,
    );
    let who = admin(&cms);
    // The oldest stories carry the words in their headlines; then 250
    // ferry stories, the oldest 50 with "ferry" in their standfirst
    // too; then 1,100 with the words only in their bodies, 300 of them
    // with "quay" too and 50 with "closes".
    cms.create_contents(
        &who,
        vec![
            story("Harbour closes", "a story"),
            story("Storm over the harbour", "another story"),
            story("Quay rebuilt", "a third story"),
        ],
    )
    .expect("made");
    let ferries = (0..250)
        .map(|i| ContentInput {
            abstract_text: (i < 50).then(|| "The ferry, again".to_owned()),
            ..story(&format!("Ferry {i}"), "timetable")
        })
        .collect();
    cms.create_contents(&who, ferries).expect("made");
    let bodies = (0..1_100)
        .map(|i| {
            let body = match i {
                1_050.. => "the harbour closes and the quay",
                800.. => "the harbour and the quay",
                _ => "the harbour",
            };
            story(&format!("Body {i}"), body)
        })
        .collect();
    cms.create_contents(&who, bodies).expect("made");

    // More hits than are counted one by one (1,102): the headline hits
    // first, then the rest newest first, every hit on some page; the count
    // an estimate: the 2 headline hits and the body hits' density (1,000
    // among the newest 1,000 stories) over the 1,353 stories.
    let (first, total, estimated) = titles_counted(&cms, &who, "harbour ", 1);
    assert!(estimated);
    assert_eq!(total, 1_355);
    assert_eq!(first[..2], ["Storm over the harbour", "Harbour closes"]);
    assert_eq!(first[2..], ["Body 1099", "Body 1098", "Body 1097"]);
    let (second, _) = titles(&cms, &who, "harbour ", 2);
    assert_eq!(
        second,
        [
            "Body 1096",
            "Body 1095",
            "Body 1094",
            "Body 1093",
            "Body 1092"
        ]
    );
    let (last, _) = titles(&cms, &who, "harbour ", 221);
    assert_eq!(last, ["Body 1", "Body 0"]);
    let (quay, total) = titles(&cms, &who, "quay ", 1);
    assert_eq!(total, 301);
    assert_eq!(quay[..2], ["Quay rebuilt", "Body 1099"], "{quay:?}");

    // Many headline hits, all alike (the word whole, one word): newest
    // first, those with the word in their standfirst too among them.
    let (ferry, total) = titles(&cms, &who, "ferry ", 1);
    assert_eq!(total, 250);
    assert_eq!(ferry[0], "Ferry 249");
    let (older, _) = titles(&cms, &who, "ferry ", 41);
    assert_eq!(
        older,
        ["Ferry 49", "Ferry 48", "Ferry 47", "Ferry 46", "Ferry 45"]
    );

    // Fewer (51): the headline match first though it is the oldest.
    let (closes, total) = titles(&cms, &who, "closes ", 1);
    assert_eq!(total, 51);
    assert_eq!(closes[..2], ["Harbour closes", "Body 1099"], "{closes:?}");

    // A few, of several words, a half-typed word a prefix; a few of one
    // word.
    let (few, total) = titles(&cms, &who, "harbour clo", 1);
    assert_eq!(total, 51);
    assert_eq!(few[0], "Harbour closes");
    let (one, total) = titles(&cms, &who, "storm", 1);
    assert_eq!((one, total), (vec!["Storm over the harbour".to_owned()], 1));
}

#[test]
fn url_paths() {
    assert_eq!(
        parse_url_paths(&["news/a".into(), "/news/a".into(), "/b".into()]).ok(),
        Some(vec!["/news/a".to_owned(), "/b".to_owned()])
    );
    assert!(parse_url_paths(&["has space".into()]).is_err());
    assert!(parse_url_paths(&["".into()]).is_err());
}

#[test]
fn content_types() {
    assert!(parse_content_type("article").is_ok());
    assert!(parse_content_type("video").is_err());
}
