//! The extensions the contract names: `/v3/user`, `/v3/tag`, `/v3/search`.

use copydesk_tests::TestServer;
use serde_json::json;

use crate::assert_shape;

#[test]
fn users() {
    let server = TestServer::start();
    server.key("rita", &["reader"], &[]);
    let list = server.get("/v3/user?order=name&dir=asc").expect(200).body;
    assert_eq!(list["total_items"], 2);
    let admin = &list["items"][0];
    assert_shape(
        admin,
        &[
            ("id", "string"),
            ("uuid", "string"),
            ("name", "string"),
            ("slug", "string"),
            ("email", "string"),
            ("is_vendor", "string"),
            ("srn", "string"),
        ],
    );
    assert_eq!(admin["is_vendor"], "0");
    let one = server
        .get(&format!("/v3/user/{}", server.admin.user_uuid))
        .expect(200)
        .body;
    assert_eq!(one[0]["name"], "admin");
    server
        .get("/v3/user/00000000-0000-4000-8000-000000000000")
        .expect_error(404, "not_found");
}

#[test]
fn tags() {
    let server = TestServer::start();
    let tag = server
        .post("/v3/tag", &json!({"name": "Local News"}))
        .expect(200)
        .body[0]
        .clone();
    assert_eq!(tag["slug"], "local-news");
    let uuid = tag["uuid"].as_str().expect("uuid");
    let renamed = server
        .put(&format!("/v3/tag/{uuid}"), &json!({"name": "Regional"}))
        .expect(200)
        .body;
    assert_eq!(renamed[0]["name"], "Regional");
    assert_eq!(renamed[0]["slug"], "local-news");
    assert_eq!(
        server.get(&format!("/v3/tag/{uuid}")).expect(200).body,
        renamed
    );
    server
        .post("/v3/tag", &json!({"slug": "x"}))
        .expect_error(400, "invalid_request");
    server.delete(&format!("/v3/tag/{uuid}")).expect(200);
    server
        .get(&format!("/v3/tag/{uuid}"))
        .expect_error(404, "not_found");
}

#[test]
fn search() {
    let server = TestServer::start();
    let ann = server
        .post("/v3/author", &json!({"name": "Ann Reporter"}))
        .expect(200)
        .body[0]
        .clone();
    let storm = server
        .post("/v3/tag", &json!({"name": "Storm"}))
        .expect(200)
        .body[0]
        .clone();
    server
        .post("/v3/content", &json!({"title": "Storm hits coast", "type": "article", "tags": [storm["uuid"]], "authors": [ann["uuid"]]}))
        .expect(200);
    server.post("/v3/content", &json!({"title": "Calm weekend", "type": "article", "content": "<p>no storm at all, 100% calm</p>"})).expect(200);
    server
        .post(
            "/v3/content",
            &json!({"title": "Budget vote", "type": "article"}),
        )
        .expect(200);

    let hits = server
        .get("/v3/search?type=content&keywords=storm")
        .expect(200)
        .body;
    assert_eq!(hits["total_items"], 2);
    let hits = server
        .get("/v3/search?type=content&keyword=storm%20coast")
        .expect(200)
        .body;
    assert_eq!(hits["total_items"], 1, "every keyword must match");
    assert_eq!(hits["items"][0]["title"], "Storm hits coast");
    let hits = server
        .get(&format!(
            "/v3/search?type=content&tag={}",
            storm["uuid"].as_str().expect("uuid")
        ))
        .expect(200)
        .body;
    assert_eq!(hits["total_items"], 1);
    let hits = server
        .get("/v3/search?type=content&tag=storm")
        .expect(200)
        .body;
    assert_eq!(hits["total_items"], 1, "a tag slug works too");
    let hits = server
        .get(&format!(
            "/v3/search?type=content&author={}",
            ann["uuid"].as_str().expect("uuid")
        ))
        .expect(200)
        .body;
    assert_eq!(hits["total_items"], 1);
    let hits = server
        .get("/v3/search?type=content&keywords=100%25")
        .expect(200)
        .body;
    assert_eq!(hits["total_items"], 1, "% is matched literally");
    let authors = server
        .get("/v3/search?type=author&keywords=ann")
        .expect(200)
        .body;
    assert_eq!(authors["items"][0]["name"], "Ann Reporter");
    let tags = server
        .get("/v3/search?type=tag&keywords=sto")
        .expect(200)
        .body;
    assert_eq!(tags["items"][0]["name"], "Storm");
    assert_eq!(
        server
            .get("/v3/search?keywords=x")
            .expect_error(400, "invalid_request")
            .body["field"],
        "type"
    );
    server
        .get("/v3/search?type=planet")
        .expect_error(400, "invalid_request");
}
