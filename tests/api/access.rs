//! Tokens (403), access actions (401 naming the action) and token refresh.

use copydesk_tests::TestServer;
use reqwest::Method;
use serde_json::{Value, json};

#[test]
fn token_problems_are_403() {
    let server = TestServer::start();
    server
        .call(Method::GET, "/v3/author", None, None)
        .expect_error(403, "token_missing");
    server
        .call(Method::GET, "/v3/author", Some("not.a.token"), None)
        .expect_error(403, "token_invalid");
    server
        .call(Method::GET, "/v3/author", Some("garbage"), None)
        .expect_error(403, "token_invalid");
    // Signed with the wrong secret.
    let mut forged = server.admin.clone();
    forged.private_key = "0".repeat(64);
    server
        .call(Method::GET, "/v3/author", Some(&forged.token()), None)
        .expect_error(403, "token_invalid");
    // An unknown public key.
    let mut unknown = server.admin.clone();
    unknown.public_key = "f".repeat(32);
    server
        .call(Method::GET, "/v3/author", Some(&unknown.token()), None)
        .expect_error(403, "token_invalid");
    server
        .call(
            Method::GET,
            "/v3/author",
            Some(&server.admin.token_for(-30)),
            None,
        )
        .expect_error(403, "token_expired");
    // An unsigned token ("alg": "none") is refused.
    let unsigned = format!(
        "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{}.",
        base64::Engine::encode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            format!("{{\"pk\":\"{}\"}}", server.admin.public_key)
        )
    );
    server
        .call(Method::GET, "/v3/author", Some(&unsigned), None)
        .expect_error(403, "token_invalid");
    // A scheme other than Bearer or Basic is no credential at all.
    let reply = server.send(
        server
            .request(Method::GET, "/v3/author")
            .header("Authorization", format!("Digest {}", server.admin.token())),
    );
    reply.expect_error(403, "token_missing");
    // Basic carries a private key (as some clients of the hosted service
    // send it); a token there is no private key.
    let reply = server.send(
        server
            .request(Method::GET, "/v3/author")
            .header("Authorization", format!("Basic {}", server.admin.token())),
    );
    reply.expect_error(403, "token_invalid");
}

#[test]
fn a_token_without_exp_is_accepted() {
    let server = TestServer::start();
    #[derive(serde::Serialize)]
    struct Claims<'a> {
        pk: &'a str,
    }
    let token = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        &Claims {
            pk: &server.admin.public_key,
        },
        &jsonwebtoken::EncodingKey::from_secret(server.admin.private_key.as_bytes()),
    )
    .expect("signs");
    server
        .call(Method::GET, "/v3/author", Some(&token), None)
        .expect(200);
}

#[test]
fn refresh_gives_a_working_token() {
    let server = TestServer::start();
    let reader = server.key("rita", &["reader"], &[]);
    let reply = server
        .call(
            Method::GET,
            "/v3/token/refresh",
            Some(&reader.token()),
            None,
        )
        .expect(200);
    let token = reply.body["token"]
        .as_str()
        .expect("a token string")
        .to_owned();
    assert_eq!(reply.body.as_object().map(|o| o.len()), Some(1));
    server
        .call(Method::GET, "/v3/content", Some(&token), None)
        .expect(200);
    server
        .call(Method::GET, "/v3/token/refresh", None, None)
        .expect_error(403, "token_missing");
}

/// Every endpoint refuses a user without its access action, naming it.
#[test]
fn every_endpoint_checks_its_action() {
    let server = TestServer::start();
    let nobody = server.key("nobody", &[], &[]).token();
    let content = server
        .post("/v3/content", &json!({"title": "T", "type": "article"}))
        .expect(200)
        .body;
    let cu = content["uuid"].as_str().expect("uuid").to_owned();
    let csrn = content["srn"].as_str().expect("srn").to_owned();
    let vu = content["versions"][0]["uuid"]
        .as_str()
        .expect("uuid")
        .to_owned();
    let au = server
        .post("/v3/author", &json!({"name": "A"}))
        .expect(200)
        .body[0]["uuid"]
        .as_str()
        .expect("uuid")
        .to_owned();
    let tu = server
        .post("/v3/tag", &json!({"name": "T"}))
        .expect(200)
        .body[0]["uuid"]
        .as_str()
        .expect("uuid")
        .to_owned();
    let ku = server
        .post("/v3/container", &json!({"title": "C", "type": "manual"}))
        .expect(200)
        .body[0]["uuid"]
        .as_str()
        .expect("uuid")
        .to_owned();
    let uu = server.admin.user_uuid.clone();
    let draft = json!({"content": "<p>x</p>", "content_raw": {"blocks": [], "entityMap": {}}});
    let cases: Vec<(Method, String, Option<Value>, &str)> = vec![
        (Method::GET, "/v3/author".into(), None, "AUTHOR list"),
        (Method::GET, format!("/v3/author/{au}"), None, "AUTHOR get"),
        (
            Method::POST,
            "/v3/author".into(),
            Some(json!({"name": "B"})),
            "AUTHOR create",
        ),
        (
            Method::PUT,
            format!("/v3/author/{au}"),
            Some(json!({"name": "B"})),
            "AUTHOR update",
        ),
        (
            Method::DELETE,
            format!("/v3/author/{au}"),
            None,
            "AUTHOR delete",
        ),
        (Method::GET, "/v3/content".into(), None, "CONTENT list"),
        (
            Method::GET,
            format!("/v3/content/{cu}"),
            None,
            "CONTENT get",
        ),
        (
            Method::POST,
            "/v3/content".into(),
            Some(json!({"title": "x", "type": "page"})),
            "CONTENT create",
        ),
        (
            Method::PUT,
            format!("/v3/content/{cu}"),
            Some(json!({"title": "y"})),
            "CONTENT update",
        ),
        (
            Method::DELETE,
            format!("/v3/content/{cu}"),
            None,
            "CONTENT delete",
        ),
        (
            Method::GET,
            format!("/v3/version?content={csrn}"),
            None,
            "VERSION list",
        ),
        (
            Method::GET,
            format!("/v3/version/{vu}"),
            None,
            "VERSION get",
        ),
        (
            Method::PUT,
            format!("/v3/version/{vu}"),
            None,
            "VERSION restore",
        ),
        (
            Method::GET,
            format!("/v3/draft?content={csrn}"),
            None,
            "DRAFT list",
        ),
        (
            Method::POST,
            format!("/v3/draft?content={csrn}"),
            Some(draft),
            "DRAFT create",
        ),
        (
            Method::PUT,
            format!("/v3/attachment/{cu}"),
            Some(json!({"angle": "90"})),
            "ATTACHMENT update",
        ),
        (Method::GET, "/v3/container".into(), None, "CONTAINER list"),
        (
            Method::GET,
            format!("/v3/container/{ku}"),
            None,
            "CONTAINER get",
        ),
        (
            Method::POST,
            "/v3/container".into(),
            Some(json!({"title": "x", "type": "manual"})),
            "CONTAINER create",
        ),
        (
            Method::PUT,
            format!("/v3/container/{ku}"),
            Some(json!({"title": "y"})),
            "CONTAINER update",
        ),
        (
            Method::DELETE,
            format!("/v3/container/{ku}"),
            None,
            "CONTAINER delete",
        ),
        (Method::GET, "/v3/user".into(), None, "USER list"),
        (Method::GET, format!("/v3/user/{uu}"), None, "USER get"),
        (Method::GET, "/v3/tag".into(), None, "TAG list"),
        (Method::GET, format!("/v3/tag/{tu}"), None, "TAG get"),
        (
            Method::POST,
            "/v3/tag".into(),
            Some(json!({"name": "n"})),
            "TAG create",
        ),
        (
            Method::PUT,
            format!("/v3/tag/{tu}"),
            Some(json!({"name": "n"})),
            "TAG update",
        ),
        (Method::DELETE, format!("/v3/tag/{tu}"), None, "TAG delete"),
        (
            Method::GET,
            "/v3/search?type=content".into(),
            None,
            "CONTENT list",
        ),
        (
            Method::GET,
            "/v3/search?type=author".into(),
            None,
            "AUTHOR list",
        ),
        (Method::GET, "/v3/search?type=tag".into(), None, "TAG list"),
    ];
    for (method, path, body, action) in cases {
        let reply = server.call(method.clone(), &path, Some(&nobody), body.as_ref());
        let reply = reply.expect_error(401, "forbidden_action");
        assert!(
            reply.message().contains(action),
            "{method} {path}: the message should name {action}: {}",
            reply.message()
        );
    }
    // Nothing was changed by the refused writes.
    server.get(&format!("/v3/content/{cu}")).expect(200);
    server.get(&format!("/v3/author/{au}")).expect(200);
}

#[test]
fn a_refused_caller_learns_nothing_from_its_body() {
    let server = TestServer::start();
    let nobody = server.key("nobody", &[], &[]).token();
    let reply = server.send(
        server
            .request(Method::POST, "/v3/author")
            .bearer_auth(&nobody)
            .header("content-type", "application/json")
            .body("{broken"),
    );
    reply.expect_error(401, "forbidden_action");
    let reply = server.send(server.request(Method::POST, "/v3/author").body("{broken"));
    reply.expect_error(403, "token_missing");
}

#[test]
fn type_and_publish_actions() {
    let server = TestServer::start();
    let writer = server
        .key(
            "writer",
            &[],
            &[
                "CONTENT create",
                "CONTENT update",
                "CONTENT get",
                "CONTENT type_article",
            ],
        )
        .token();
    let reply = server.call(
        Method::POST,
        "/v3/content",
        Some(&writer),
        Some(&json!({"title": "P", "type": "post"})),
    );
    assert!(
        reply
            .expect_error(401, "forbidden_action")
            .message()
            .contains("CONTENT type_post")
    );
    let reply = server.call(
        Method::POST,
        "/v3/content",
        Some(&writer),
        Some(&json!({"title": "P", "type": "article", "published_at": "2026-01-01 00:00:00"})),
    );
    assert!(
        reply
            .expect_error(401, "forbidden_action")
            .message()
            .contains("CONTENT publish")
    );
    let item = server
        .call(
            Method::POST,
            "/v3/content",
            Some(&writer),
            Some(&json!({"title": "P", "type": "article", "published_at": null})),
        )
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid");
    // Editing text needs no publish action; setting the date does.
    server
        .call(
            Method::PUT,
            &format!("/v3/content/{uuid}"),
            Some(&writer),
            Some(&json!({"title": "Q"})),
        )
        .expect(200);
    let reply = server.call(
        Method::PUT,
        &format!("/v3/content/{uuid}"),
        Some(&writer),
        Some(&json!({"published_at": "2026-02-02 10:00:00"})),
    );
    reply.expect_error(401, "forbidden_action");
    // An editor may publish, change and unpublish.
    let published = server
        .put(
            &format!("/v3/content/{uuid}"),
            &json!({"published_at": "2026-02-02 10:00:00"}),
        )
        .expect(200)
        .body;
    assert_eq!(published["published_at"], "2026-02-02 10:00:00");
    // The writer can still edit text while the date stays as it is.
    server
        .call(
            Method::PUT,
            &format!("/v3/content/{uuid}"),
            Some(&writer),
            Some(&json!({"title": "R", "published_at": "2026-02-02 10:00:00"})),
        )
        .expect(200);
    let reply = server.call(
        Method::PUT,
        &format!("/v3/content/{uuid}"),
        Some(&writer),
        Some(&json!({"published_at": null})),
    );
    assert!(
        reply
            .expect_error(401, "forbidden_action")
            .message()
            .contains("CONTENT publish")
    );
    let unpublished = server
        .put(
            &format!("/v3/content/{uuid}"),
            &json!({"published_at": null}),
        )
        .expect(200)
        .body;
    assert!(unpublished["published_at"].is_null());
    let actions: Vec<&str> = unpublished["audit"]
        .as_array()
        .expect("audit")
        .iter()
        .filter_map(|a| a["action"].as_str())
        .collect();
    assert!(
        actions.contains(&"publish") && actions.contains(&"unpublish"),
        "{actions:?}"
    );
}

#[test]
fn key_create_refuses_unknown_roles() {
    let server = TestServer::start();
    assert!(copydesk_tests::create_key(server.dir.path(), "x", &["wizard"], &[]).is_err());
    assert!(copydesk_tests::create_key(server.dir.path(), "x", &[], &["NOSPACE"]).is_err());
    // The same name gets a second key for the same user.
    let first = server.key("sam", &["reader"], &[]);
    let second = server.key("sam", &[], &[]);
    assert_eq!(first.user_uuid, second.user_uuid);
    assert_ne!(first.public_key, second.public_key);
    server
        .call(Method::GET, "/v3/content", Some(&second.token()), None)
        .expect(200);
}

/// `key create --json` prints exactly one object; `token` signs with it.
#[test]
fn command_line_keys_and_tokens() {
    let server = TestServer::start();
    let output = copydesk_tests::server_command()
        .args([
            "key", "create", "--json", "--name", "cli", "--role", "reader", "--data",
        ])
        .arg(server.dir.path())
        .args(copydesk_tests::database_args(server.dir.path()))
        .output()
        .expect("key create runs");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    assert_eq!(text.trim().lines().count(), 1, "exactly one line: {text}");
    let key: Value = serde_json::from_str(text.trim()).expect("one JSON object");
    let keys: Vec<&String> = key.as_object().expect("an object").keys().collect();
    assert_eq!(keys.len(), 3);
    for name in ["user_uuid", "public_key", "private_key"] {
        assert!(key[name].is_string(), "{name} in {key}");
    }
    let key_file = server.dir.path().join("cli.json");
    std::fs::write(&key_file, &text).expect("writes");
    let output = copydesk_tests::server_command()
        .args(["token", "--key-file"])
        .arg(&key_file)
        .output()
        .expect("token runs");
    assert!(output.status.success());
    let token = String::from_utf8(output.stdout).expect("UTF-8");
    server
        .call(Method::GET, "/v3/content", Some(token.trim()), None)
        .expect(200);
    server
        .call(
            Method::POST,
            "/v3/content",
            Some(token.trim()),
            Some(&json!({"title": "x", "type": "article"})),
        )
        .expect_error(401, "forbidden_action");
}

/// The database and data directory are readable by their owner only.
#[cfg(unix)]
#[test]
fn data_is_private() {
    use std::os::unix::fs::PermissionsExt as _;
    let server = TestServer::start();
    let mode = |path: &std::path::Path| {
        std::fs::metadata(path)
            .expect("exists")
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(server.dir.path()), 0o700);
    assert_eq!(mode(&server.db_path()), 0o600);
    assert_eq!(mode(&server.dir.path().join("files")), 0o700);
    let wal = server.dir.path().join("copydesk.db-wal");
    assert_eq!(mode(&wal), 0o600, "the WAL is as private as the database");
}

#[test]
fn me_tells_who_the_caller_is_and_what_they_may_do() {
    let server = TestServer::start();
    let writer = server.key("june", &["journalist"], &["PRINTDOCUMENT get"]);
    let me = server
        .call(Method::GET, "/v3/me", Some(&writer.token()), None)
        .expect(200)
        .body;
    assert_eq!(me["user"]["name"], "june");
    assert_eq!(me["roles"], json!(["journalist"]));
    let actions: Vec<&str> = me["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(actions.contains(&"CONTENT update"));
    assert!(
        actions.contains(&"PRINTDOCUMENT get"),
        "a single action counts"
    );
    assert!(!actions.contains(&"CONTENT publish"));
    assert!(!actions.contains(&"PRINTDOCUMENT passThruLock"));
    let admin = server.get("/v3/me").expect(200).body;
    assert!(
        admin["actions"]
            .as_array()
            .expect("actions")
            .contains(&json!("PRINTDOCUMENT passThruLock"))
    );
    server
        .call(Method::GET, "/v3/me", None, None)
        .expect_error(403, "token_missing");
}
