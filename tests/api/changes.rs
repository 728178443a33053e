//! `/v3/changes`: the change feed, with deletes, one entry per record, and cursors that skip nothing.

use std::collections::BTreeSet;

use copydesk_tests::TestServer;
use reqwest::Method;
use serde_json::{Value, json};

use crate::assert_shape;

fn feed(server: &TestServer, query: &str) -> Value {
    server.get(&format!("/v3/changes?{query}")).expect(200).body
}

#[test]
fn the_feed_holds_every_record_once_at_its_latest_change() {
    let server = TestServer::start();
    let author = server
        .post("/v3/author", &json!({"name": "Gone soon"}))
        .expect(200)
        .body[0]
        .clone();
    let item = server
        .post("/v3/content", &json!({"title": "One", "type": "article"}))
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid");
    server
        .put(&format!("/v3/content/{uuid}"), &json!({"title": "Two"}))
        .expect(200);
    server
        .delete(&format!(
            "/v3/author/{}",
            author["uuid"].as_str().expect("uuid")
        ))
        .expect(200);

    let page = feed(&server, "since=0");
    assert_shape(
        &page,
        &[
            ("items", "array"),
            ("since", "string"),
            ("last", "string"),
            ("more", "bool"),
        ],
    );
    let items = page["items"].as_array().expect("items");
    assert_shape(
        &items[0],
        &[
            ("seq", "string"),
            ("record_type", "string"),
            ("uuid", "string"),
            ("operation", "string"),
            ("changed_at", "string"),
        ],
    );
    let find = |kind: &str, uuid: &str| {
        items
            .iter()
            .find(|c| c["record_type"] == kind && c["uuid"] == uuid)
            .cloned()
    };
    assert_eq!(
        find("content", uuid).expect("the item")["operation"],
        "update"
    );
    assert_eq!(
        find("author", author["uuid"].as_str().expect("uuid")).expect("the author")["operation"],
        "delete"
    );
    assert_eq!(
        items
            .iter()
            .filter(|c| c["record_type"] == "version")
            .count(),
        2
    );
    let keys: BTreeSet<(String, String)> = items
        .iter()
        .map(|c| {
            (
                c["record_type"].as_str().unwrap_or("").to_owned(),
                c["uuid"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert_eq!(keys.len(), items.len(), "each record once");
    let seqs: Vec<u64> = items
        .iter()
        .map(|c| c["seq"].as_str().expect("seq").parse().expect("number"))
        .collect();
    assert!(
        seqs.windows(2).all(|w| w[0] < w[1]),
        "oldest first: {seqs:?}"
    );
    assert_eq!(page["last"], items.last().expect("one")["seq"]);
    assert_eq!(page["more"], false);

    let after = feed(
        &server,
        &format!("since={}", page["last"].as_str().expect("last")),
    );
    assert_eq!(after["items"], json!([]));
    assert_eq!(after["last"], page["last"]);
}

#[test]
fn paging_through_the_feed_misses_nothing() {
    let server = TestServer::start();
    for i in 0..7 {
        server
            .post("/v3/tag", &json!({"name": format!("t{i}")}))
            .expect(200);
    }
    let all = feed(&server, "");
    let expected: Vec<Value> = all["items"].as_array().expect("items").clone();
    let mut seen = Vec::new();
    let mut cursor = "0".to_owned();
    loop {
        let page = feed(&server, &format!("since={cursor}&limit=3"));
        let items = page["items"].as_array().expect("items");
        assert!(items.len() <= 3);
        seen.extend(items.iter().cloned());
        cursor = page["last"].as_str().expect("last").to_owned();
        if page["more"] == false {
            break;
        }
    }
    assert_eq!(seen, expected);
    // A change made after a page shows up on the next one.
    server.post("/v3/tag", &json!({"name": "late"})).expect(200);
    let next = feed(&server, &format!("since={cursor}"));
    assert_eq!(next["items"].as_array().map(Vec::len), Some(1));
}

#[test]
fn bad_cursors_and_access() {
    let server = TestServer::start();
    for bad in ["since=-1", "since=x", "limit=5000", "limit=-3"] {
        server
            .get(&format!("/v3/changes?{bad}"))
            .expect_error(400, "invalid_request");
    }
    let nobody = server.key("nobody", &[], &[]).token();
    let reply = server.call(Method::GET, "/v3/changes", Some(&nobody), None);
    assert!(
        reply
            .expect_error(401, "forbidden_action")
            .message()
            .contains("CHANGES list")
    );
    let reader = server.key("rita", &["reader"], &[]).token();
    server
        .call(Method::GET, "/v3/changes", Some(&reader), None)
        .expect(200);
}
