//! `/v3/presence`: who is in which story and where, as events on the change stream; it moves with the block, expires, is never logged, and reaches only those who may read the story.

use std::time::Duration;

use copydesk_tests::TestServer;
use copydesk_tests::event_stream::{EventStream, SseEvent};
use reqwest::Method;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);

/// The next `presence` event within `wait` (others skipped).
fn next_presence(stream: &EventStream, wait: Duration) -> Option<Value> {
    let deadline = std::time::Instant::now() + wait;
    loop {
        let left = deadline.checked_duration_since(std::time::Instant::now())?;
        let event: SseEvent = stream.next_within(left)?;
        if event.event == "presence" {
            assert!(event.id.is_none(), "presence events carry no id");
            return Some(serde_json::from_str(&event.data).expect("JSON"));
        }
    }
}

/// A new story's UUID.
fn story(server: &TestServer) -> String {
    server
        .post(
            "/v3/content",
            &json!({"title": "Harbour", "type": "article"}),
        )
        .expect(200)
        .body["uuid"]
        .as_str()
        .expect("uuid")
        .to_owned()
}

fn announce(server: &TestServer, token: &str, story: &str, body: &Value) -> Value {
    server
        .call(
            Method::PUT,
            &format!("/v3/presence/{story}"),
            Some(token),
            Some(body),
        )
        .expect(200)
        .body
}

#[test]
fn presence_appears_moves_with_the_block_and_expires() {
    let server = TestServer::start_with(&["--presence-expiry", "4"]);
    let story = story(&server);
    let ana = server.key("Ana Writer", &["journalist"], &[]).token();
    let bo = server.key("Bo Desk", &["editor"], &[]).token();
    let stream = EventStream::open(&server.url("/v3/changes/stream"), &bo, None);
    let head = server.get("/v3/changes?since=0").expect(200).body["last"].clone();

    // Ana opens the story, her cursor in block "a1b2c", editing.
    let others = announce(
        &server,
        &ana,
        &story,
        &json!({"block": "a1b2c", "editing": true}),
    );
    assert_eq!(others["items"], json!([]), "nobody else is there yet");
    let arrived = next_presence(&stream, WAIT).expect("Ana's arrival");
    assert_eq!(arrived["content"], story.as_str());
    assert_eq!(arrived["name"], "Ana Writer");
    assert_eq!(arrived["block"], "a1b2c");
    assert_eq!(arrived["editing"], true);
    assert_eq!(arrived["here"], true);

    // Bo is told Ana is there when he says he is.
    let others = announce(&server, &bo, &story, &json!({"block": null}));
    assert_eq!(others["items"][0]["name"], "Ana Writer");
    assert_eq!(
        next_presence(&stream, WAIT).expect("Bo's own arrival")["name"],
        "Bo Desk"
    );

    // Ana moves to another paragraph; saying the same again is no event.
    announce(
        &server,
        &ana,
        &story,
        &json!({"block": "d3e4f", "editing": true}),
    );
    announce(
        &server,
        &ana,
        &story,
        &json!({"block": "d3e4f", "editing": true}),
    );
    let moved = next_presence(&stream, WAIT).expect("Ana's move");
    assert_eq!(
        (moved["name"].clone(), moved["block"].clone()),
        (json!("Ana Writer"), json!("d3e4f"))
    );

    // Listed while here.
    let listed = server.get("/v3/presence").expect(200).body;
    let names: Vec<&str> = listed["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|p| p["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(names, ["Ana Writer", "Bo Desk"]);

    // Bo leaves; Ana says nothing more and her time runs out.
    server
        .call(
            Method::DELETE,
            &format!("/v3/presence/{story}"),
            Some(&bo),
            None,
        )
        .expect(200);
    let left = next_presence(&stream, WAIT).expect("Bo's departure");
    assert_eq!(
        (left["name"].clone(), left["here"].clone()),
        (json!("Bo Desk"), json!(false))
    );
    let gone = next_presence(&stream, WAIT).expect("Ana's time runs out");
    assert_eq!(
        (gone["name"].clone(), gone["here"].clone()),
        (json!("Ana Writer"), json!(false))
    );
    assert_eq!(
        server.get("/v3/presence").expect(200).body["items"],
        json!([])
    );

    // None of it is in the change log.
    let after = server
        .get(&format!(
            "/v3/changes?since={}",
            head.as_str().expect("last")
        ))
        .expect(200)
        .body;
    assert_eq!(after["items"], json!([]), "{after}");
}

#[test]
fn presence_reaches_only_those_who_may_read_the_story_and_bad_input_is_refused() {
    let server = TestServer::start();
    let story = story(&server);
    let blind = server.key("Feed only", &[], &["CHANGES list"]).token();
    let stream = EventStream::open(&server.url("/v3/changes/stream"), &blind, None);
    announce(
        &server,
        &server.admin.token(),
        &story,
        &json!({"block": "a1b2c"}),
    );
    assert!(
        next_presence(&stream, Duration::from_millis(800)).is_none(),
        "no presence for a key that may not read stories"
    );
    let refused = server.call(
        Method::PUT,
        &format!("/v3/presence/{story}"),
        Some(&blind),
        Some(&json!({})),
    );
    assert!(
        refused
            .expect_error(401, "forbidden_action")
            .message()
            .contains("CONTENT get")
    );
    server
        .put(
            "/v3/presence/00000000-0000-4000-8000-000000000000",
            &json!({}),
        )
        .expect_error(404, "not_found");
    let long = "k".repeat(65);
    server
        .put(&format!("/v3/presence/{story}"), &json!({"block": long}))
        .expect_error(400, "invalid_request");
}
