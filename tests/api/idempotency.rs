//! `Idempotency-Key`: a repeated write gets the first answer and applies nothing twice.

use std::sync::{Arc, Barrier};

use copydesk_tests::{Reply, TestServer};
use reqwest::Method;
use serde_json::{Value, json};

fn keyed(
    server: &TestServer,
    method: Method,
    path: &str,
    key: &str,
    body: Option<&Value>,
) -> Reply {
    let mut request = server
        .request(method, path)
        .bearer_auth(server.admin_token())
        .header("Idempotency-Key", key);
    if let Some(body) = body {
        request = request.json(body);
    }
    server.send(request)
}

#[test]
fn a_repeated_create_returns_the_first_answer() {
    let server = TestServer::start();
    let body = json!({"title": "Once only", "type": "article"});
    let first = keyed(
        &server,
        Method::POST,
        "/v3/content",
        "create-1",
        Some(&body),
    )
    .expect(200);
    let again = keyed(
        &server,
        Method::POST,
        "/v3/content",
        "create-1",
        Some(&body),
    )
    .expect(200);
    assert_eq!(first.body, again.body, "the same answer, byte for byte");
    assert_eq!(
        server.get("/v3/content").expect(200).body["total_items"],
        1,
        "applied once"
    );
    // Another key is another request.
    keyed(
        &server,
        Method::POST,
        "/v3/content",
        "create-2",
        Some(&body),
    )
    .expect(200);
    assert_eq!(server.get("/v3/content").expect(200).body["total_items"], 2);
    // The same key with another body is refused and applies nothing.
    let reply = keyed(
        &server,
        Method::POST,
        "/v3/content",
        "create-1",
        Some(&json!({"title": "Other", "type": "article"})),
    );
    assert_eq!(
        reply.expect_error(400, "invalid_request").body["field"],
        "Idempotency-Key"
    );
    assert_eq!(server.get("/v3/content").expect(200).body["total_items"], 2);
}

#[test]
fn updates_and_deletes_apply_once() {
    let server = TestServer::start();
    let item = server
        .post("/v3/content", &json!({"title": "v1", "type": "article"}))
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid");
    let path = format!("/v3/content/{uuid}");
    let change = json!({"content": "<p>edited</p>"});
    let first = keyed(&server, Method::PUT, &path, "edit-1", Some(&change)).expect(200);
    assert_eq!(first.body["version"], "2");
    // Someone else edits meanwhile; the repeat must not undo it nor add a version.
    server
        .put(&path, &json!({"title": "v3 by someone else"}))
        .expect(200);
    let again = keyed(&server, Method::PUT, &path, "edit-1", Some(&change)).expect(200);
    assert_eq!(again.body["version"], "2", "the kept answer");
    let now = server.get(&path).expect(200).body;
    assert_eq!(now["version"], "3");
    assert_eq!(now["title"], "v3 by someone else");

    let deleted = keyed(&server, Method::DELETE, &path, "delete-1", None).expect(200);
    let repeated = keyed(&server, Method::DELETE, &path, "delete-1", None).expect(200);
    assert_eq!(
        deleted.body, repeated.body,
        "a repeated delete answers as the first did, not 404"
    );
    server.get(&path).expect_error(404, "not_found");
}

#[test]
fn refused_requests_keep_no_key() {
    let server = TestServer::start();
    keyed(
        &server,
        Method::POST,
        "/v3/content",
        "fix-me",
        Some(&json!({"type": "article"})),
    )
    .expect_error(400, "invalid_request");
    keyed(
        &server,
        Method::POST,
        "/v3/content",
        "fix-me",
        Some(&json!({"type": "article"})),
    )
    .expect_error(400, "invalid_request");
    assert_eq!(server.get("/v3/content").expect(200).body["total_items"], 0);
    keyed(
        &server,
        Method::POST,
        "/v3/author",
        "bad key",
        Some(&json!({"name": "x"})),
    )
    .expect_error(400, "invalid_request");
    let other = server.key("other", &["editor"], &[]);
    // Keys belong to their user: another user's same key is a new request.
    keyed(
        &server,
        Method::POST,
        "/v3/tag",
        "shared",
        Some(&json!({"name": "a"})),
    )
    .expect(200);
    let reply = server.send(
        server
            .request(Method::POST, "/v3/tag")
            .bearer_auth(other.token())
            .header("Idempotency-Key", "shared")
            .json(&json!({"name": "a"})),
    );
    reply.expect(200);
    assert_eq!(server.get("/v3/tag").expect(200).body["total_items"], 2);
}

#[test]
fn racing_repeats_apply_once() {
    let server = TestServer::start();
    let body = json!({"title": "Raced", "type": "article"});
    let barrier = Arc::new(Barrier::new(6));
    let replies: Vec<Reply> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..6)
            .map(|_| {
                let barrier = Arc::clone(&barrier);
                let (server, body) = (&server, &body);
                scope.spawn(move || {
                    barrier.wait();
                    keyed(server, Method::POST, "/v3/content", "race", Some(body))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a racer"))
            .collect()
    });
    let created: Vec<&Reply> = replies
        .iter()
        .filter(|r| r.status.as_u16() == 200)
        .collect();
    assert!(!created.is_empty());
    for reply in &replies {
        assert!(
            reply.status.as_u16() == 200 || reply.code() == "conflict",
            "a racing repeat is the first answer or a conflict: {} {}",
            reply.status,
            reply.body
        );
    }
    let uuid = &created[0].body["uuid"];
    assert!(
        created.iter().all(|r| &r.body["uuid"] == uuid),
        "every answer names the one record"
    );
    assert_eq!(
        server.get("/v3/content").expect(200).body["total_items"],
        1,
        "applied once"
    );
}
