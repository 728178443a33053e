//! Bad requests get the contract's errors: 400, 404, 413, 415, never a 500 or a hang.

use copydesk_tests::TestServer;
use reqwest::Method;
use serde_json::json;

#[test]
fn body_over_the_limit_is_413() {
    let server = TestServer::start_with(&["--max-body", "2048"]);
    let big = json!({"title": "x".repeat(4096), "type": "article"});
    server
        .post("/v3/content", &big)
        .expect_error(413, "too_large");
    server
        .post("/v3/content", &json!({"title": "small", "type": "article"}))
        .expect(200);
}

#[test]
fn non_json_bodies_are_415() {
    let server = TestServer::start();
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ] {
        let reply = server.send(
            server
                .request(Method::POST, "/v3/author")
                .bearer_auth(server.admin_token())
                .header("content-type", content_type)
                .body("name=x"),
        );
        reply.expect_error(415, "unsupported_media_type");
    }
    let reply = server.send(
        server
            .request(Method::POST, "/v3/author")
            .bearer_auth(server.admin_token())
            .body("{\"name\":\"x\"}"),
    );
    reply.expect_error(415, "unsupported_media_type");
    let reply = server.send(
        server
            .request(Method::POST, "/v3/author")
            .bearer_auth(server.admin_token()),
    );
    reply.expect_error(400, "invalid_request");
    // JSON with a charset is JSON.
    let reply = server.send(
        server
            .request(Method::POST, "/v3/author")
            .bearer_auth(server.admin_token())
            .header("content-type", "application/json; charset=utf-8")
            .body("{\"name\":\"x\"}"),
    );
    reply.expect(200);
}

#[test]
fn malformed_json_is_400() {
    let server = TestServer::start();
    for body in [
        "{",
        "{\"name\": }",
        "[]",
        "\"x\"",
        "{\"name\":\"a\"} trailing",
        "null",
    ] {
        let reply = server.send(
            server
                .request(Method::POST, "/v3/author")
                .bearer_auth(server.admin_token())
                .header("content-type", "application/json")
                .body(body),
        );
        reply.expect_error(400, "invalid_request");
    }
}

#[test]
fn unknown_paths_and_methods_are_404() {
    let server = TestServer::start();
    server.get("/v3/nothing").expect_error(404, "not_found");
    server.get("/nowhere").expect_error(404, "not_found");
    server
        .get("/assets/missing.js")
        .expect_error(404, "not_found");
    server
        .call(
            Method::PATCH,
            "/v3/author",
            Some(server.admin_token()),
            None,
        )
        .expect_error(404, "not_found");
    server
        .get("/files/00/original.png")
        .expect_error(404, "not_found");
    server
        .get("/files/0123456789abcdef0123456789abcdef/original.png")
        .expect_error(404, "not_found");
    server
        .get("/files/0123456789abcdef0123456789abcdef/..%2F..%2Fcopydesk.db")
        .expect_error(404, "not_found");
}

/// Many odd inputs on every writing endpoint: all answered, none with a 5xx.
#[test]
fn odd_inputs_never_give_500() {
    let server = TestServer::start();
    let item = server
        .post("/v3/content", &json!({"title": "x", "type": "article"}))
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid").to_owned();
    let paths = [
        (Method::POST, "/v3/author".to_owned()),
        (Method::POST, "/v3/content".to_owned()),
        (Method::PUT, format!("/v3/content/{uuid}")),
        (Method::POST, "/v3/container".to_owned()),
        (Method::PUT, format!("/v3/attachment/{uuid}")),
        (
            Method::POST,
            format!("/v3/draft?content={}", item["srn"].as_str().expect("srn")),
        ),
        (Method::POST, "/v3/tag".to_owned()),
    ];
    let values = [
        json!(null),
        json!(true),
        json!(-1),
        json!(1e300),
        json!("\u{0}"),
        json!("💥".repeat(1000)),
        json!([]),
        json!({}),
        json!([null]),
        json!({"a": {"b": [1, {"c": null}]}}),
        json!("2026-13-45 99:99:99"),
        json!("srn:x:y/z:w"),
        json!(i64::MAX),
        json!("../../etc/passwd"),
    ];
    let fields = [
        "title",
        "type",
        "name",
        "slug",
        "published_at",
        "authors",
        "tags",
        "urls",
        "content",
        "content_raw",
        "attachment",
        "angle",
        "metadata",
        "file",
        "weight",
        "state",
        "status",
        "dominantAttachment",
        "container",
        "email",
    ];
    for (method, path) in &paths {
        for field in fields {
            for value in &values {
                let mut body = json!({"title": "t", "type": "article", "name": "n"});
                body[field] = value.clone();
                let reply = server.call(
                    method.clone(),
                    path,
                    Some(server.admin_token()),
                    Some(&body),
                );
                assert!(
                    reply.status.as_u16() < 500,
                    "{method} {path} with {field}={value} gave {}: {}",
                    reply.status,
                    reply.body
                );
                if !reply.status.is_success() {
                    assert!(
                        reply.body["code"].is_string(),
                        "errors carry a code: {}",
                        reply.body
                    );
                }
            }
        }
    }
}

#[test]
fn the_ui_is_served_at_the_root_under_a_strict_policy() {
    let server = TestServer::start();
    let response = reqwest::blocking::get(server.url("/")).expect("an answer");
    let built = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ui/dist/index.html")
        .exists();
    if built {
        assert_eq!(response.status(), 200);
        let policy = response
            .headers()
            .get("content-security-policy")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        assert!(policy.contains("script-src 'self'"), "{policy}");
        assert!(
            response
                .text()
                .expect("the page")
                .contains("<div id=\"app\">")
        );
    } else {
        // A server built without the UI says how to build it.
        assert_eq!(response.status(), 404);
        assert!(
            response
                .text()
                .expect("a message")
                .contains("npm run build")
        );
    }
}

#[test]
fn timestamps_beyond_four_digit_years_are_refused_with_the_field_named() {
    let server = TestServer::start();
    // `+10000` would sort before `2026` where times compare as text, and
    // list a story due in ten thousand years as published.
    for far in [
        "+10000-01-01 00:00:00",
        "+10000-01-01T00:00:00Z",
        "-0001-06-01 00:00:00",
    ] {
        let refused = server
            .post(
                "/v3/content",
                &json!({"title": "Far", "type": "article", "published_at": far}),
            )
            .expect_error(400, "invalid_request");
        assert_eq!(refused.body["field"], "published_at", "{far}");
        assert!(
            refused.message().contains("0000 to 9999"),
            "{}",
            refused.body
        );
    }
    let listed = server.get("/v3/content?status=published").expect(200).body;
    assert_eq!(listed["items"], json!([]), "nothing was stored");
    let last = server
        .post(
            "/v3/content",
            &json!({"title": "Last", "type": "article", "published_at": "9999-12-31 23:59:59"}),
        )
        .expect(200)
        .body;
    assert_eq!(last["published_at"], "9999-12-31 23:59:59");
}
