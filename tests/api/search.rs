//! Full-text search over content (`/v3/search` and the content list's
//! `keywords`): words in the body, accents, prefixes, ranking, and edits and
//! deletes seen at once.

use serde_json::{Value, json};

use copydesk_tests::TestServer;

fn story(server: &TestServer, title: &str, body: &str) -> Value {
    server
        .post(
            "/v3/content",
            &json!({"title": title, "type": "article", "content": body}),
        )
        .expect(200)
        .body
}

fn titles(server: &TestServer, path: &str) -> Vec<String> {
    let reply = server.get(path).expect(200).body;
    reply["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| item["title"].as_str().expect("title").to_owned())
        .collect()
}

/// The UUID of the one story a word finds.
fn only_hit(server: &TestServer, word: &str) -> String {
    let reply = server
        .get(&format!("/v3/search?type=content&keywords={word}"))
        .expect(200)
        .body;
    assert_eq!(reply["total_items"], 1, "{word}: {reply}");
    reply["items"][0]["uuid"].as_str().expect("uuid").to_owned()
}

#[test]
fn words_accents_and_prefixes_are_found() {
    let server = TestServer::start();
    story(
        &server,
        "Council meets",
        "<p>The <b>harbour</b> plan is delayed again.</p>",
    );
    story(
        &server,
        "Café reopens",
        "<p>Crème brûlée is back on the menu.</p>",
    );
    story(
        &server,
        "Tuition rises",
        "<p>Students protest&nbsp;fees.</p>",
    );

    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=harbour"),
        ["Council meets"],
        "a word of the body, inside markup"
    );
    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=cafe%20creme"),
        ["Café reopens"],
        "accents typed without them"
    );
    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=CAFÉ"),
        ["Café reopens"],
        "any case, with the accent"
    );
    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=tuit"),
        ["Tuition rises"],
        "the last word as a prefix"
    );
    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=protest%20fe"),
        ["Tuition rises"],
        "&nbsp; separates words"
    );
    assert!(
        titles(&server, "/v3/search?type=content&keywords=harb%20plan").is_empty(),
        "only the last word is a prefix"
    );
    assert!(
        titles(
            &server,
            "/v3/search?type=content&keywords=%22harbour%20OR%20NEAR("
        )
        .is_empty(),
        "query syntax typed is taken as words"
    );
    assert_eq!(
        titles(&server, "/v3/content?keywords=brulee"),
        ["Café reopens"],
        "the content list's keywords use the same index"
    );
}

#[test]
fn a_title_match_ranks_above_a_body_match() {
    let server = TestServer::start();
    story(
        &server,
        "Weekend weather",
        "<p>Flooding expected near the river.</p>",
    );
    story(
        &server,
        "Flooding closes bridge",
        "<p>Traffic diverted.</p>",
    );
    story(&server, "Market report", "<p>Prices steady.</p>");
    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=flooding"),
        ["Flooding closes bridge", "Weekend weather"]
    );
    assert_eq!(
        titles(
            &server,
            "/v3/search?type=content&keywords=flooding&order=title&dir=desc"
        ),
        ["Weekend weather", "Flooding closes bridge"],
        "an order asked for is kept"
    );
}

#[test]
fn authors_and_tags_are_searched_and_filter() {
    let server = TestServer::start();
    let dana = server
        .post("/v3/author", &json!({"name": "Dana Okonkwo"}))
        .expect(200)
        .body[0]
        .clone();
    let courts = server
        .post("/v3/tag", &json!({"name": "Courts"}))
        .expect(200)
        .body[0]
        .clone();
    server
        .post(
            "/v3/content",
            &json!({"title": "Verdict today", "type": "article", "authors": [dana["uuid"]], "tags": [courts["uuid"]]}),
        )
        .expect(200);
    story(&server, "Verdict on pay", "<p>Unions react.</p>");
    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=okonkwo"),
        ["Verdict today"]
    );
    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=courts"),
        ["Verdict today"]
    );
    assert_eq!(
        titles(
            &server,
            "/v3/search?type=content&keywords=verdict&tag=courts"
        ),
        ["Verdict today"],
        "words and a tag together"
    );
    let mut both = titles(&server, "/v3/search?type=content&keywords=verdict");
    both.sort();
    assert_eq!(both, ["Verdict on pay", "Verdict today"]);

    server
        .put(
            &format!("/v3/author/{}", dana["uuid"].as_str().expect("uuid")),
            &json!({"name": "Dana Mwangi"}),
        )
        .expect(200);
    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=mwangi"),
        ["Verdict today"],
        "an author renamed is found by the new name"
    );
    assert!(titles(&server, "/v3/search?type=content&keywords=okonkwo").is_empty());

    // The tag and author filters follow a story's tags and authors at once,
    // ranked by relevance or in an order asked for.
    let dana_uuid = dana["uuid"].as_str().expect("uuid");
    for path in [
        format!("/v3/search?type=content&keywords=verdict&author={dana_uuid}"),
        format!("/v3/search?type=content&keywords=verdict&author={dana_uuid}&order=title&dir=asc"),
        "/v3/search?type=content&keywords=verdi&tag=courts&order=title".to_owned(),
    ] {
        assert_eq!(titles(&server, &path), ["Verdict today"], "{path}");
    }
    let on_pay = only_hit(&server, "pay");
    server
        .put(
            &format!("/v3/content/{on_pay}"),
            &json!({"tags": [courts["uuid"]], "authors": [dana["uuid"]]}),
        )
        .expect(200);
    let mut both = titles(
        &server,
        &format!("/v3/search?type=content&keywords=verdict&tag=courts&author={dana_uuid}"),
    );
    both.sort();
    assert_eq!(
        both,
        ["Verdict on pay", "Verdict today"],
        "a story tagged and credited later is found within the tag and by the author"
    );
    let today = only_hit(&server, "today");
    server
        .put(&format!("/v3/content/{today}"), &json!({"tags": []}))
        .expect(200);
    assert_eq!(
        titles(
            &server,
            "/v3/search?type=content&keywords=verdict&tag=courts"
        ),
        ["Verdict on pay"],
        "a tag taken off a story takes it out of the tag's search"
    );
    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=courts"),
        ["Verdict on pay"],
        "nor is it found by the tag's name"
    );
}

#[test]
fn an_edit_and_a_delete_are_seen_at_once() {
    let server = TestServer::start();
    let item = story(&server, "Old headline", "<p>First draft about zebras.</p>");
    let uuid = item["uuid"].as_str().expect("uuid");
    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=zebras"),
        ["Old headline"]
    );
    server
        .put(
            &format!("/v3/content/{uuid}"),
            &json!({"title": "New headline", "content": "<p>Now about giraffes.</p>"}),
        )
        .expect(200);
    assert!(titles(&server, "/v3/search?type=content&keywords=zebras").is_empty());
    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=giraffes"),
        ["New headline"]
    );
    server.delete(&format!("/v3/content/{uuid}")).expect(200);
    assert!(titles(&server, "/v3/search?type=content&keywords=giraffes").is_empty());
    assert!(titles(&server, "/v3/search?type=content&keywords=headline").is_empty());
}

#[test]
fn the_index_is_rebuilt_by_a_command() {
    let mut server = TestServer::start();
    story(
        &server,
        "Rebuilt story",
        "<p>Lighthouse keepers strike.</p>",
    );
    server.kill();
    let output = copydesk_tests::server_command()
        .args(["reindex-search", "--data"])
        .arg(server.dir.path())
        .args(copydesk_tests::database_args(server.dir.path()))
        .output()
        .expect("reindex-search runs");
    assert!(output.status.success(), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("indexed 1 stories"),
        "{output:?}"
    );
    server.restart();
    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=lighthouse"),
        ["Rebuilt story"]
    );
}

/// More hits than are ranked one by one (200): every hit is listed once,
/// the stories with every word in the title come first, and the body-only
/// hits follow newest first; for one word and for several alike.
#[test]
fn a_search_with_more_hits_than_are_ranked_lists_every_hit_once() {
    let server = TestServer::start();
    let mut in_title = Vec::new();
    let mut in_body = Vec::new();
    // The first 200 stories also hold "bay" and the first 201 "cove": a
    // search with exactly as many hits as are ranked one by one, and one
    // with a hit more.
    for n in 0..230 {
        let more = match n {
            0..200 => " By the bay cove.",
            200 => " By the cove.",
            _ => "",
        };
        if n % 10 == 3 {
            let made = story(
                &server,
                &format!("Quokka, a marsupial, sighted {n}"),
                &format!("<p>On the island, a marsupial.{more}</p>"),
            );
            in_title.push(made["uuid"].as_str().expect("uuid").to_owned());
        } else {
            let made = story(
                &server,
                &format!("Island report {n}"),
                &format!("<p>A quokka, the marsupial, was seen.{more}</p>"),
            );
            in_body.push(made["uuid"].as_str().expect("uuid").to_owned());
        }
    }
    story(&server, "Island note", "<p>A quokka, nothing more.</p>");
    for (keywords, total) in [
        ("bay", 200),
        ("cove", 201),
        ("bay%20quok", 200),
        ("cove%20quok", 201),
    ] {
        every_hit(&server, keywords, total);
    }
    for (keywords, total) in [("quokka", 231), ("marsupial%20quok", 230)] {
        let listed = every_hit(&server, keywords, total);
        let headline: std::collections::HashSet<&String> =
            listed[..in_title.len()].iter().collect();
        assert_eq!(
            headline,
            in_title.iter().collect(),
            "{keywords}: the title hits first"
        );
        let newest_body_first: Vec<&String> = in_body.iter().rev().collect();
        let body_listed: Vec<&String> = listed
            .iter()
            .filter(|uuid| in_body.contains(uuid))
            .collect();
        assert_eq!(
            body_listed, newest_body_first,
            "{keywords}: the body-only hits newest first"
        );
    }
}

/// Every hit of a search for `keywords`, read page by page (at most 300),
/// each page saying there are `total`, and no hit listed twice.
fn every_hit(server: &TestServer, keywords: &str, total: usize) -> Vec<String> {
    let mut listed: Vec<String> = Vec::new();
    for page in 1..=3 {
        let reply = server
            .get(&format!(
                "/v3/search?type=content&keywords={keywords}&per_page=100&page={page}"
            ))
            .expect(200)
            .body;
        assert_eq!(reply["total_items"], total, "{keywords}");
        listed.extend(
            reply["items"]
                .as_array()
                .expect("items")
                .iter()
                .map(|item| item["uuid"].as_str().expect("uuid").to_owned()),
        );
    }
    assert_eq!(listed.len(), total, "{keywords}: every hit listed");
    let unique: std::collections::HashSet<&String> = listed.iter().collect();
    assert_eq!(unique.len(), total, "{keywords}: no hit twice");
    listed
}

/// The UUIDs of a list's items, in order.
fn uuids(server: &TestServer, path: &str) -> Vec<String> {
    server.get(path).expect(200).body["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| item["uuid"].as_str().expect("uuid").to_owned())
        .collect()
}

/// One word in the headline of the oldest story and in the body of two
/// thousand newer ones: the headline match is first, by relevance,
/// in the search and in the content list; newest first when asked; and a
/// count past the hits counted one by one is an estimate, said to be one.
#[test]
fn the_headline_match_comes_first_among_thousands_of_body_matches() {
    let server = TestServer::start();
    let headline = story(&server, "Harbour reopens", "<p>Boats are back.</p>");
    let headline = headline["uuid"].as_str().expect("uuid").to_owned();
    let mut newest = String::new();
    for n in 0..2_000 {
        let made = story(
            &server,
            &format!("Council notes {n}"),
            "<p>The harbour fees rise again.</p>",
        );
        newest = made["uuid"].as_str().expect("uuid").to_owned();
    }
    for path in [
        "/v3/search?type=content&keywords=harbour&per_page=20",
        "/v3/search?type=content&keywords=harbour&per_page=20&order=relevance",
        "/v3/content?keywords=harbour&per_page=20&order=relevance",
        "/v3/content?keywords=harbour&per_page=20&order=relevance&type=article",
    ] {
        assert_eq!(uuids(&server, path)[0], headline, "{path}");
        let reply = server.get(path).expect(200).body;
        assert_eq!(reply["total_items_estimated"], true, "{path}: {reply}");
        let total = reply["total_items"].as_u64().expect("a count");
        assert!(
            (1_800..=2_200).contains(&total),
            "{path}: about 2,001, not {total}"
        );
    }
    for path in [
        "/v3/search?type=content&keywords=harbour&order=id",
        "/v3/content?keywords=harbour&order=id&dir=desc",
    ] {
        assert_eq!(uuids(&server, path)[0], newest, "{path}: newest first");
    }
    let oldest = uuids(
        &server,
        "/v3/search?type=content&keywords=harbour&order=id&dir=asc",
    );
    assert_eq!(oldest[0], headline, "oldest first");
    // The last page is read to its end: its count is exact and not marked.
    let reply = server
        .get("/v3/search?type=content&keywords=harbour&order=id&per_page=500&page=5")
        .expect(200)
        .body;
    assert_eq!(reply["total_items"], 2_001, "{reply}");
    assert!(reply.get("total_items_estimated").is_none(), "{reply}");
    // A list without words has no estimate either.
    let reply = server.get("/v3/content?per_page=1").expect(200).body;
    assert!(reply.get("total_items_estimated").is_none(), "{reply}");
}

/// The typed words as a phrase rank above them scattered, and the last word
/// whole above a longer word it starts; newer first among equals; on
/// either engine alike.
#[test]
fn a_phrase_and_a_whole_word_rank_above_scattered_words_and_a_start() {
    let server = TestServer::start();
    let uuid = |made: Value| made["uuid"].as_str().expect("uuid").to_owned();
    let phrase = uuid(story(
        &server,
        "Traffic report",
        "<p>The harbour bridge closed at noon.</p>",
    ));
    let scattered = uuid(story(
        &server,
        "Evening news",
        "<p>A bridge over the harbour closed.</p>",
    ));
    let started = uuid(story(
        &server,
        "Late edition",
        "<p>The harbour bridges closed.</p>",
    ));
    // Typed whole (a space after): the phrase first, then the newer of the rest.
    assert_eq!(
        uuids(
            &server,
            "/v3/search?type=content&keywords=harbour%20bridge%20"
        ),
        [phrase.clone(), scattered.clone()]
    );
    // The last word perhaps half typed: "bridges" is a start of it, in a
    // phrase; the whole word in a phrase first.
    assert_eq!(
        uuids(&server, "/v3/search?type=content&keywords=harbour%20bridge"),
        [phrase.clone(), started.clone(), scattered.clone()]
    );
    assert_eq!(
        uuids(
            &server,
            "/v3/search?type=content&keywords=harbour%20bridge&order=id"
        ),
        [started, scattered, phrase]
    );
}

/// `order` takes `relevance` and is still refused when it names nothing.
#[test]
fn relevance_is_an_order_and_an_unknown_one_is_refused() {
    let server = TestServer::start();
    story(&server, "Harbour", "<p>Boats.</p>");
    for path in [
        "/v3/content?order=relevance",
        "/v3/search?type=content&order=relevance",
    ] {
        server.get(path).expect(200);
    }
    let refused = server
        .get("/v3/content?keywords=harbour&order=score")
        .expect(400)
        .body;
    assert!(refused.to_string().contains("relevance"), "{refused}");
    // A character no stored text holds is refused, not run.
    let refused = server
        .get("/v3/search?type=content&keywords=harb%00our")
        .expect(400)
        .body;
    assert_eq!(refused["code"], "invalid_request", "{refused}");
    // A page past the last: empty, its count still the hits'.
    for path in [
        "/v3/search?type=content&keywords=harbour&order=id&page=2",
        "/v3/search?type=content&keywords=harbour&page=2",
        "/v3/search?type=content&keywords=harbour&order=id&per_page=500&page=1000000000000000000",
    ] {
        let reply = server.get(path).expect(200).body;
        assert_eq!(reply["items"].as_array().map(Vec::len), Some(0), "{path}");
        assert_eq!(reply["total_items"], 1, "{path}: {reply}");
    }
    // A last word of one character is taken whole: "war 2" is not "war 2024".
    story(&server, "War 2024", "<p>A review.</p>");
    story(&server, "War 2", "<p>A history.</p>");
    assert_eq!(
        titles(&server, "/v3/search?type=content&keywords=war%202"),
        ["War 2"]
    );
}

/// A new story's answer and search row are written with the commit on
/// PostgreSQL, its text as escaped literals: quotes, backslashes, dollar
/// signs and placeholders in it are kept exactly, and it is found at once.
#[test]
fn a_new_storys_text_is_kept_exactly_and_found_at_once() {
    let server = TestServer::start();
    let title = r#"O'Hara's \"lab\" \\ pays $1 and ?2 — $$ ''"#;
    let body = r"<p>Weird \ kettle E'\x41' $tag$ drop table; --</p>";
    let made = story(&server, title, body);
    assert_eq!(made["title"], title, "{made}");
    let uuid = made["uuid"].as_str().expect("uuid");
    let read = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    assert_eq!(read["title"], title);
    assert_eq!(read["content"], body);
    assert_eq!(read, made, "the answer kept at the create is the one read");
    assert_eq!(only_hit(&server, "kettle"), uuid);
    assert_eq!(only_hit(&server, "hara"), uuid);
}
