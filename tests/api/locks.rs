//! `/v3/lock-request`: exclusive locks, what they block, who may release them, and a race for one.

use std::sync::{Arc, Barrier};

use copydesk_tests::TestServer;
use reqwest::Method;
use serde_json::{Value, json};

use crate::assert_shape;

fn item(server: &TestServer) -> Value {
    server
        .post(
            "/v3/content",
            &json!({"title": "Locked story", "type": "article"}),
        )
        .expect(200)
        .body
}

#[test]
fn a_lock_blocks_everyone_else() {
    let server = TestServer::start();
    let anna = server.key("anna", &["journalist"], &[]).token();
    let bert = server.key("bert", &["journalist"], &[]).token();
    let story = item(&server);
    let uuid = story["uuid"].as_str().expect("uuid");
    let srn = story["srn"].as_str().expect("srn");

    let lock = server
        .call(
            Method::POST,
            "/v3/lock-request",
            Some(&anna),
            Some(&json!({"srn": srn})),
        )
        .expect(200)
        .body;
    assert_eq!(lock.as_array().map(Vec::len), Some(1));
    assert_shape(
        &lock[0],
        &[
            ("id", "string"),
            ("uuid", "string"),
            ("srn", "string"),
            ("user_id", "string"),
            ("state", "string"),
            ("created_at", "string"),
            ("modified_at", "string"),
            ("user", "object"),
        ],
    );
    assert_eq!(lock[0]["state"], "accepted");
    assert_eq!(lock[0]["srn"], srn);
    assert_eq!(lock[0]["user"]["name"], "anna");
    let lock_uuid = lock[0]["uuid"].as_str().expect("uuid").to_owned();
    let got = server
        .get(&format!("/v3/lock-request/{lock_uuid}"))
        .expect(200)
        .body;
    assert_eq!(got, lock);
    let story = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    assert_eq!(story["lock"], true);

    // Every write by another user is refused; nothing changes.
    let draft = json!({"content": "<p>x</p>", "content_raw": {"blocks": [], "entityMap": {}}});
    let version = story["versions"][0]["uuid"].as_str().expect("uuid");
    for (method, path, body) in [
        (
            Method::PUT,
            format!("/v3/content/{uuid}"),
            Some(json!({"title": "Bert's title"})),
        ),
        (Method::DELETE, format!("/v3/content/{uuid}"), None),
        (
            Method::POST,
            format!("/v3/draft?content={srn}"),
            Some(draft.clone()),
        ),
        (
            Method::PUT,
            format!("/v3/attachment/{uuid}"),
            Some(json!({"name": "a.png", "file": crate::png_base64(2, 2)})),
        ),
        (Method::PUT, format!("/v3/version/{version}"), None),
    ] {
        let reply = server.call(method.clone(), &path, Some(&bert), body.as_ref());
        let reply = reply.expect_error(409, "locked");
        assert!(
            reply.message().contains("anna"),
            "{method} {path}: the message names the holder"
        );
    }
    // A second request by another user is refused; the holder gets the same lock back.
    server
        .call(
            Method::POST,
            "/v3/lock-request",
            Some(&bert),
            Some(&json!({"srn": srn})),
        )
        .expect_error(409, "locked");
    let again = server
        .call(
            Method::POST,
            "/v3/lock-request",
            Some(&anna),
            Some(&json!({"srn": srn})),
        )
        .expect(200)
        .body;
    assert_eq!(again[0]["uuid"], lock_uuid.as_str());
    // The holder writes freely.
    server
        .call(
            Method::PUT,
            &format!("/v3/content/{uuid}"),
            Some(&anna),
            Some(&json!({"title": "Anna's title"})),
        )
        .expect(200);
    server
        .call(
            Method::POST,
            &format!("/v3/draft?content={srn}"),
            Some(&anna),
            Some(&draft),
        )
        .expect(200);
    let story = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    assert_eq!(story["title"], "Anna's title");

    // Only the holder (or an admin) releases it.
    server
        .call(
            Method::DELETE,
            &format!("/v3/lock-request/{lock_uuid}"),
            Some(&bert),
            None,
        )
        .expect_error(409, "locked");
    server
        .call(
            Method::DELETE,
            &format!("/v3/lock-request/{lock_uuid}"),
            Some(&anna),
            None,
        )
        .expect(200);
    server
        .get(&format!("/v3/lock-request/{lock_uuid}"))
        .expect_error(404, "not_found");
    assert_eq!(
        server.get(&format!("/v3/content/{uuid}")).expect(200).body["lock"],
        false
    );
    server
        .call(
            Method::PUT,
            &format!("/v3/content/{uuid}"),
            Some(&bert),
            Some(&json!({"title": "Bert's title"})),
        )
        .expect(200);
    let actions: Vec<String> = server.get(&format!("/v3/content/{uuid}")).expect(200).body["audit"]
        .as_array()
        .expect("audit")
        .iter()
        .map(|a| {
            format!(
                "{} by {}",
                a["action"].as_str().unwrap_or(""),
                a["user_name"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert!(
        actions.contains(&"lock by anna".to_owned())
            && actions.contains(&"unlock by anna".to_owned()),
        "{actions:?}"
    );
}

#[test]
fn an_admin_forces_a_lock_open_and_it_is_recorded() {
    let server = TestServer::start();
    let anna = server.key("anna", &["journalist"], &[]).token();
    let story = item(&server);
    let lock = server
        .call(
            Method::POST,
            "/v3/lock-request",
            Some(&anna),
            Some(&json!({"srn": story["srn"]})),
        )
        .expect(200)
        .body;
    server
        .delete(&format!(
            "/v3/lock-request/{}",
            lock[0]["uuid"].as_str().expect("uuid")
        ))
        .expect(200);
    let story = server
        .get(&format!(
            "/v3/content/{}",
            story["uuid"].as_str().expect("uuid")
        ))
        .expect(200)
        .body;
    let forced = story["audit"]
        .as_array()
        .expect("audit")
        .iter()
        .find(|a| a["action"] == "force unlock");
    let forced = forced.expect("the forced unlock is in the audit");
    assert_eq!(forced["user_name"], "admin");
    assert!(forced["detail"].as_str().unwrap_or("").contains("anna"));
}

#[test]
fn two_users_race_for_one_lock() {
    let server = TestServer::start();
    let story = item(&server);
    let uuid = story["uuid"].as_str().expect("uuid").to_owned();
    let srn = story["srn"].as_str().expect("srn").to_owned();
    let tokens: Vec<String> = ["anna", "bert"]
        .iter()
        .map(|n| server.key(n, &["journalist"], &[]).token())
        .collect();
    for round in 0..10 {
        let barrier = Arc::new(Barrier::new(2));
        let results: Vec<(String, u16)> = std::thread::scope(|scope| {
            let handles: Vec<_> = tokens
                .iter()
                .map(|token| {
                    let barrier = Arc::clone(&barrier);
                    let (srn, server) = (&srn, &server);
                    scope.spawn(move || {
                        barrier.wait();
                        let reply = server.call(
                            Method::POST,
                            "/v3/lock-request",
                            Some(token),
                            Some(&json!({"srn": srn})),
                        );
                        (token.clone(), reply.status.as_u16())
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a racer"))
                .collect()
        });
        let winners: Vec<&(String, u16)> = results.iter().filter(|(_, s)| *s == 200).collect();
        let losers: Vec<&(String, u16)> = results.iter().filter(|(_, s)| *s == 409).collect();
        assert_eq!(
            (winners.len(), losers.len()),
            (1, 1),
            "round {round}: {results:?}"
        );
        let (winner, loser) = (&winners[0].0, &losers[0].0);
        server
            .call(
                Method::PUT,
                &format!("/v3/content/{uuid}"),
                Some(loser),
                Some(&json!({"title": format!("loser {round}")})),
            )
            .expect_error(409, "locked");
        server
            .call(
                Method::PUT,
                &format!("/v3/content/{uuid}"),
                Some(winner),
                Some(&json!({"title": format!("winner {round}")})),
            )
            .expect(200);
        let lock = server
            .call(
                Method::POST,
                "/v3/lock-request",
                Some(winner),
                Some(&json!({"srn": srn})),
            )
            .expect(200)
            .body;
        server
            .call(
                Method::DELETE,
                &format!(
                    "/v3/lock-request/{}",
                    lock[0]["uuid"].as_str().expect("uuid")
                ),
                Some(winner),
                None,
            )
            .expect(200);
    }
    let story = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    assert_eq!(story["title"], "winner 9");
}

#[test]
fn containers_lock_too() {
    let server = TestServer::start();
    let anna = server.key("anna", &["editor"], &[]).token();
    let bert = server.key("bert", &["editor"], &[]).token();
    let container = server
        .post(
            "/v3/container",
            &json!({"title": "Front", "type": "manual"}),
        )
        .expect(200)
        .body[0]
        .clone();
    let uuid = container["uuid"].as_str().expect("uuid");
    server
        .call(
            Method::POST,
            "/v3/lock-request",
            Some(&anna),
            Some(&json!({"srn": container["srn"]})),
        )
        .expect(200);
    assert_eq!(
        server
            .get(&format!("/v3/container/{uuid}"))
            .expect(200)
            .body[0]["lock"],
        true
    );
    server
        .call(
            Method::PUT,
            &format!("/v3/container/{uuid}"),
            Some(&bert),
            Some(&json!({"title": "B"})),
        )
        .expect_error(409, "locked");
    server
        .call(
            Method::DELETE,
            &format!("/v3/container/{uuid}"),
            Some(&bert),
            None,
        )
        .expect_error(409, "locked");
    server
        .call(
            Method::PUT,
            &format!("/v3/container/{uuid}"),
            Some(&anna),
            Some(&json!({"title": "A"})),
        )
        .expect(200);
}

#[test]
fn bad_lock_requests() {
    let server = TestServer::start();
    let reply = server
        .post("/v3/lock-request", &json!({}))
        .expect_error(400, "invalid_request");
    assert_eq!(reply.body["field"], "srn");
    server
        .post("/v3/lock-request", &json!({"srn": "nope"}))
        .expect_error(400, "invalid_request");
    server
        .post("/v3/lock-request", &json!({"srn": 7}))
        .expect_error(400, "invalid_request");
    let author = server
        .post("/v3/author", &json!({"name": "A"}))
        .expect(200)
        .body[0]["srn"]
        .clone();
    server
        .post("/v3/lock-request", &json!({"srn": author}))
        .expect_error(400, "invalid_request");
    server
        .post(
            "/v3/lock-request",
            &json!({"srn": "srn:copydesk:cms/content:00000000-0000-4000-8000-000000000000"}),
        )
        .expect_error(404, "not_found");
    server
        .get("/v3/lock-request/00000000-0000-4000-8000-000000000000")
        .expect_error(404, "not_found");
    server
        .delete("/v3/lock-request/00000000-0000-4000-8000-000000000000")
        .expect_error(404, "not_found");
    let nobody = server.key("nobody", &[], &[]).token();
    for (method, path, action) in [
        (Method::POST, "/v3/lock-request", "LOCKREQUEST create"),
        (
            Method::GET,
            "/v3/lock-request/00000000-0000-4000-8000-000000000000",
            "LOCKREQUEST get",
        ),
        (
            Method::DELETE,
            "/v3/lock-request/00000000-0000-4000-8000-000000000000",
            "LOCKREQUEST delete",
        ),
    ] {
        let reply = server.call(method, path, Some(&nobody), Some(&json!({"srn": "x"})));
        assert!(
            reply
                .expect_error(401, "forbidden_action")
                .message()
                .contains(action)
        );
    }
}

#[test]
fn an_item_tells_who_holds_its_lock() {
    let server = TestServer::start();
    let june = server.key("june", &["journalist"], &[]);
    let item = server
        .post("/v3/content", &json!({"title": "Held", "type": "article"}))
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid");
    assert_eq!(item["lock_request"], Value::Null);
    server
        .call(
            Method::POST,
            "/v3/lock-request",
            Some(&june.token()),
            Some(&json!({"srn": item["srn"]})),
        )
        .expect(200);
    let held = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    assert_eq!(held["lock"], true);
    assert_eq!(held["lock_request"]["user"]["name"], "june");
    assert_eq!(held["lock_request"]["srn"], item["srn"]);
}
