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

/// A new story on `server`: its UUID.
fn new_story(server: &TestServer, title: &str) -> String {
    let made = server
        .post("/v3/content", &json!({"title": title, "type": "article"}))
        .expect(200)
        .body;
    made["uuid"]
        .as_str()
        .or(made[0]["uuid"].as_str())
        .expect("uuid")
        .to_owned()
}

/// The replica lists no one under its own sync key's name (the laptop's
/// presence, echoed back by the central server, is not shown twice).
fn assert_no_echo(replica: &TestServer) {
    let listed = present(replica);
    assert!(
        !listed.iter().any(|(_, name, _)| name == "Laptop"),
        "the laptop's own presence comes back: {listed:?}"
    );
}

/// Everyone the server lists in a story now: (story, name, block).
fn present(server: &TestServer) -> Vec<(String, String, Option<String>)> {
    server.get("/v3/presence").expect(200).body["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|p| {
            (
                p["content"].as_str().unwrap_or("").to_owned(),
                p["name"].as_str().unwrap_or("").to_owned(),
                p["block"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

#[test]
fn presence_crosses_between_a_replica_that_syncs_itself_and_the_central_server() {
    let central = TestServer::start();
    let key = central.key("Laptop", &["editor"], &[]);
    let desk = central.key("Dana Desk", &["editor"], &[]);
    let (replica, _keys) = super::serving_replica(&central.base, &key);
    let story = new_story(&central, "Harbour");
    super::eventually("the story reaching the replica", || {
        titles(&replica).contains(&"Harbour".to_owned())
    });
    super::eventually("the replica saying it is live", || {
        replica.get("/v3/sync/status").expect(200).body["live"] == true
    });
    let local = replica.get("/v3/content?per_page=10").expect(200).body["items"][0]["uuid"]
        .as_str()
        .expect("uuid")
        .to_owned();
    let desk_says = |method: reqwest::Method, body: Option<Value>| {
        central
            .call(
                method,
                &format!("/v3/presence/{story}"),
                Some(&desk.token()),
                body.as_ref(),
            )
            .expect(200);
    };

    // The desk is in the story: the replica lists her in its own copy of it.
    desk_says(
        reqwest::Method::PUT,
        Some(json!({"block": "b0001", "editing": true})),
    );
    let dana_at = |block: &str| {
        (
            local.clone(),
            "Dana Desk".to_owned(),
            Some(block.to_owned()),
        )
    };
    super::eventually("the desk's presence relayed to the replica", || {
        present(&replica).contains(&dana_at("b0001"))
    });

    // The laptop's writer is in it too: the central server lists the
    // laptop's user, and the replica does not list its echo.
    replica
        .put(
            &format!("/v3/presence/{local}"),
            &json!({"block": "b0002", "editing": true}),
        )
        .expect(200);
    let laptop_at = |block: &str| (story.clone(), "Laptop".to_owned(), Some(block.to_owned()));
    super::eventually(
        "the laptop's presence forwarded to the central server",
        || present(&central).contains(&laptop_at("b0002")),
    );
    assert_no_echo(&replica);

    // Both move: each side follows the other.
    desk_says(
        reqwest::Method::PUT,
        Some(json!({"block": "b0003", "editing": true})),
    );
    replica
        .put(
            &format!("/v3/presence/{local}"),
            &json!({"block": "b0004", "editing": true}),
        )
        .expect(200);
    super::eventually("the desk's move relayed", || {
        present(&replica).contains(&dana_at("b0003"))
    });
    super::eventually("the laptop's move forwarded", || {
        present(&central).contains(&laptop_at("b0004"))
    });
    // The stream is in order: had the laptop's own presence come back, it would have by now.
    assert_no_echo(&replica);

    // A story written on the laptop and pushed: each side names it by its own UUID.
    let on_laptop = new_story(&replica, "Written on the laptop");
    let mut on_server = String::new();
    super::eventually("the laptop's story reaching the central server", || {
        let items = central.get("/v3/content?per_page=10").expect(200).body["items"].clone();
        let found = items
            .as_array()
            .into_iter()
            .flatten()
            .find(|item| item["title"] == "Written on the laptop");
        if let Some(item) = found {
            on_server = item["uuid"].as_str().unwrap_or("").to_owned();
        }
        found.is_some()
    });
    replica
        .put(
            &format!("/v3/presence/{on_laptop}"),
            &json!({"block": "b0005", "editing": false}),
        )
        .expect(200);
    central
        .call(
            reqwest::Method::PUT,
            &format!("/v3/presence/{on_server}"),
            Some(&desk.token()),
            Some(&json!({"block": "b0006", "editing": true})),
        )
        .expect(200);
    super::eventually("the laptop's presence in its own story forwarded", || {
        present(&central).contains(&(
            on_server.clone(),
            "Laptop".to_owned(),
            Some("b0005".to_owned()),
        ))
    });
    super::eventually("the desk's presence in the laptop's story relayed", || {
        present(&replica).contains(&(
            on_laptop.clone(),
            "Dana Desk".to_owned(),
            Some("b0006".to_owned()),
        ))
    });
    central
        .call(
            reqwest::Method::DELETE,
            &format!("/v3/presence/{on_server}"),
            Some(&desk.token()),
            None,
        )
        .expect(200);
    replica
        .delete(&format!("/v3/presence/{on_laptop}"))
        .expect(200);

    // Both leave: each is gone from the other side.
    desk_says(reqwest::Method::DELETE, None);
    replica.delete(&format!("/v3/presence/{local}")).expect(200);
    super::eventually("the desk's departure relayed", || {
        !present(&replica)
            .iter()
            .any(|(_, name, _)| name == "Dana Desk")
    });
    super::eventually("the laptop's departure forwarded", || {
        !present(&central)
            .iter()
            .any(|(_, name, _)| name == "Laptop")
    });
}
