//! `/v3/changes/stream`: each change as an event as it is written, resumed after the last event seen across a restart, only records the caller may read, refusals in the contract's shape.

use std::time::{Duration, Instant};

use copydesk_tests::TestServer;
use copydesk_tests::event_stream::{EventStream, SseEvent};
use reqwest::Method;
use serde_json::{Value, json};

/// Long enough for a loaded machine; the benchmark measures the real delay.
const WAIT: Duration = Duration::from_secs(5);

fn story(server: &TestServer, title: &str) -> String {
    server
        .post("/v3/content", &json!({"title": title, "type": "article"}))
        .expect(200)
        .body["uuid"]
        .as_str()
        .expect("uuid")
        .to_owned()
}

fn data(event: &SseEvent) -> Value {
    serde_json::from_str(&event.data).expect("an event's data is JSON")
}

/// The changes on the stream until the one of `uuid`, inclusive.
fn changes_until(stream: &EventStream, uuid: &str) -> Vec<SseEvent> {
    let mut seen = Vec::new();
    loop {
        let event = stream
            .next_change_within(WAIT)
            .unwrap_or_else(|| panic!("the change of {uuid} arrives; saw {seen:?}"));
        let done = data(&event)["uuid"] == uuid;
        seen.push(event);
        if done {
            return seen;
        }
    }
}

#[test]
fn a_write_arrives_as_an_event_shaped_like_the_feed() {
    let server = TestServer::start();
    let stream = EventStream::open(
        &server.url("/v3/changes/stream"),
        &server.admin.token(),
        None,
    );
    let written = Instant::now();
    let uuid = story(&server, "Harbour reopens");
    let event = stream.next_change_within(WAIT).expect("the change arrives");
    let delay = written.elapsed();
    let change = data(&event);
    assert_eq!(change["record_type"], "content");
    assert_eq!(change["uuid"], uuid.as_str());
    assert_eq!(change["operation"], "create");
    assert_eq!(event.id.as_deref(), change["seq"].as_str());
    // The same entry the feed gives.
    let feed = server
        .get(&format!(
            "/v3/changes?since={}",
            change["seq"]
                .as_str()
                .expect("seq")
                .parse::<i64>()
                .expect("a number")
                - 1
        ))
        .expect(200)
        .body;
    assert_eq!(feed["items"][0], change, "{feed}");
    eprintln!("a write reached the stream in {delay:?}");
}

#[test]
fn a_stream_opened_after_every_other_closed_still_hears_each_write() {
    // The server stops reading the change log while no stream is open, and
    // starts again for the next one. The only stream ends for real when its
    // key is revoked (the server checks the token at its next read).
    let server = TestServer::start();
    let reader = server.key("Reader", &["journalist"], &[]);
    let first = EventStream::open(&server.url("/v3/changes/stream"), &reader.token(), None);
    let one = story(&server, "One");
    let heard_first = changes_until(&first, &one);
    assert_eq!(
        data(heard_first.last().expect("an event"))["uuid"],
        one.as_str()
    );
    server.revoke(&reader);
    story(&server, "Read by nobody");
    assert!(first.ended_within(WAIT), "the revoked key's stream ends");
    // Nobody listens now; a story is written, then a stream opens.
    std::thread::sleep(Duration::from_secs(1));
    let two = story(&server, "Two written while nobody listened");
    let later = EventStream::open(
        &server.url("/v3/changes/stream"),
        &server.admin.token(),
        None,
    );
    let three = story(&server, "Three");
    let heard: Vec<String> = changes_until(&later, &three)
        .iter()
        .map(|event| data(event)["uuid"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(heard.contains(&three), "{heard:?}");
    assert!(
        !heard.contains(&two),
        "a stream without an id starts from now: {heard:?}"
    );
}

#[test]
fn last_event_id_resumes_across_a_restart_with_nothing_skipped_or_repeated() {
    let mut server = TestServer::start();
    let first = story(&server, "One");
    let stream = EventStream::open(
        &server.url("/v3/changes/stream"),
        &server.admin.token(),
        Some("0"),
    );
    let seen = changes_until(&stream, &first);
    let last = seen.last().and_then(|e| e.id.clone()).expect("an event id");
    // Stopped as an operator stops it, with the stream open: the stop does
    // not wait on the stream, which ends.
    assert!(
        server.terminate(Duration::from_secs(10)),
        "a clean stop with a stream open"
    );
    server.restart();
    let second = story(&server, "Two");
    let third = story(&server, "Three");
    let resumed = EventStream::open(
        &server.url("/v3/changes/stream"),
        &server.admin.token(),
        Some(&last),
    );
    // Exactly the feed after the last event seen: nothing skipped, nothing repeated.
    let feed = server
        .get(&format!("/v3/changes?since={last}"))
        .expect(200)
        .body;
    let fed: Vec<Value> = feed["items"].as_array().expect("items").clone();
    let streamed: Vec<Value> = (0..fed.len())
        .map(|_| data(&resumed.next_change_within(WAIT).expect("a change")))
        .collect();
    assert_eq!(streamed, fed);
    assert!(
        resumed
            .next_change_within(Duration::from_millis(500))
            .is_none(),
        "nothing more"
    );
    let stories: Vec<&str> = streamed
        .iter()
        .filter(|c| c["record_type"] == "content")
        .map(|c| c["uuid"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(stories, [second.as_str(), third.as_str()]);
}

#[test]
fn a_key_gets_no_event_for_a_record_it_may_not_read() {
    let server = TestServer::start();
    let reader = server
        .key("Only stories", &[], &["CHANGES list", "CONTENT get"])
        .token();
    let stream = EventStream::open(&server.url("/v3/changes/stream"), &reader, None);
    server
        .post(
            "/v3/print-document",
            &json!({"label": "Page 2", "tracking_label": "2026-11-28/p02.indd"}),
        )
        .expect(200);
    server
        .post("/v3/author", &json!({"name": "Ana Desk"}))
        .expect(200);
    let uuid = story(&server, "Harbour");
    let seen = changes_until(&stream, &uuid);
    let types: Vec<String> = seen
        .iter()
        .map(|e| data(e)["record_type"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(types, ["content"], "{seen:?}");
}

#[test]
fn a_stream_is_refused_in_the_contracts_shape() {
    let server = TestServer::start();
    let outsider = server.key("No feed", &[], &["CONTENT get"]).token();
    let refused = server.call(Method::GET, "/v3/changes/stream", Some(&outsider), None);
    assert!(
        refused
            .expect_error(401, "forbidden_action")
            .message()
            .contains("CHANGES list")
    );
    server
        .call(Method::GET, "/v3/changes/stream", None, None)
        .expect_error(403, "token_missing");
    let bad = server.send(
        server
            .request(Method::GET, "/v3/changes/stream")
            .bearer_auth(server.admin.token())
            .header("Last-Event-ID", "yesterday"),
    );
    bad.expect_error(400, "invalid_request");
    // One key keeps at most 16 open.
    let token = server.admin.token();
    let open: Vec<EventStream> = (0..16)
        .map(|_| EventStream::open(&server.url("/v3/changes/stream"), &token, None))
        .collect();
    let busy = server.call(Method::GET, "/v3/changes/stream", Some(&token), None);
    assert!(busy.retry_after.is_some(), "Retry-After is set");
    busy.expect_error(429, "too_many_requests");
    drop(open);
}
