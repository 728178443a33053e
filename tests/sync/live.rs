//! A watching replica listens to the central server's change stream: the desk's change reaches the replica, and the replica's own stream, at once rather than at the next round.

use std::time::{Duration, Instant};

use copydesk_tests::TestServer;
use copydesk_tests::event_stream::EventStream;
use serde_json::{Value, json};

use super::sync_in_background;

/// Far longer than the stream takes; far shorter than the rounds' interval.
const WAIT: Duration = Duration::from_secs(10);

fn titles(server: &TestServer) -> Vec<String> {
    server.get("/v3/content?per_page=100").expect(200).body["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| item["title"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn the_desks_change_reaches_a_watching_replicas_stream_without_waiting_for_a_round() {
    let central = TestServer::start();
    let replica = TestServer::start_replica();
    let key = central.key("laptop", &["editor"], &[]);
    // Rounds ten minutes apart: only the stream can bring a change sooner.
    let mut sync = sync_in_background(
        &replica,
        &central.base,
        &key,
        &["--watch", "--every", "600"],
    );
    central
        .post("/v3/content", &json!({"title": "First", "type": "article"}))
        .expect(200);
    let started = Instant::now();
    while !titles(&replica).contains(&"First".to_owned()) {
        assert!(started.elapsed() < WAIT, "the first story arrives");
        std::thread::sleep(Duration::from_millis(50));
    }
    let stream = EventStream::open(
        &replica.url("/v3/changes/stream"),
        &replica.admin.token(),
        None,
    );
    let written = Instant::now();
    central
        .post(
            "/v3/content",
            &json!({"title": "Harbour reopens", "type": "article"}),
        )
        .expect(200);
    let mut arrived = None;
    while arrived.is_none() {
        let event = stream
            .next_change_within(WAIT.saturating_sub(written.elapsed()))
            .expect("the desk's story reaches the replica's stream");
        let change: Value = serde_json::from_str(&event.data).expect("JSON");
        if change["record_type"] == "content" {
            let uuid = change["uuid"].as_str().expect("uuid");
            let story = replica.get(&format!("/v3/content/{uuid}")).expect(200).body;
            if story["title"] == "Harbour reopens" {
                arrived = Some(written.elapsed());
            }
        }
    }
    eprintln!("the desk's story reached the replica's stream in {arrived:?}");
    let _ = sync.kill();
    let _ = sync.wait();
}
