//! `/v3/author`: shapes, paging, updates and the all-or-nothing delete.

use copydesk_tests::TestServer;
use serde_json::json;

use crate::assert_shape;

const AUTHOR_SHAPE: &[(&str, &str)] = &[
    ("id", "string"),
    ("uuid", "string"),
    ("slug", "string"),
    ("name", "string"),
    ("email", "string"),
    ("tagline", "string"),
    ("description", "string"),
    ("status", "string"),
    ("created_at", "string"),
    ("modified_at", "string"),
    ("srn", "string"),
];

#[test]
fn create_get_update_delete() {
    let server = TestServer::start();
    let created = server
        .post(
            "/v3/author",
            &json!({"name": "Jane Doe", "email": "jane@example.org", "tagline": "Courts", "status": 1}),
        )
        .expect(200)
        .body;
    assert!(created.is_array() && created.as_array().map(Vec::len) == Some(1));
    let author = &created[0];
    assert_shape(author, AUTHOR_SHAPE);
    assert_eq!(author["slug"], "jane-doe");
    assert_eq!(author["status"], "1");
    let uuid = author["uuid"].as_str().expect("uuid");
    assert_eq!(author["srn"], format!("srn:copydesk:cms/author:{uuid}"));
    assert!(author.get("version").is_none(), "authors show no version");

    let got = server.get(&format!("/v3/author/{uuid}")).expect(200).body;
    assert_eq!(&got[0], author);

    let updated = server
        .put(
            &format!("/v3/author/{uuid}"),
            &json!({"tagline": "Politics", "status": "0"}),
        )
        .expect(200)
        .body;
    assert_eq!(updated[0]["tagline"], "Politics");
    assert_eq!(updated[0]["status"], "0");
    assert_eq!(updated[0]["name"], "Jane Doe", "fields not sent stay");

    let deleted = server
        .delete(&format!("/v3/author/{uuid}"))
        .expect(200)
        .body;
    assert_eq!(deleted, serde_json::json!({"message": "ok"}));
    server
        .get(&format!("/v3/author/{uuid}"))
        .expect_error(404, "not_found");
}

#[test]
fn bad_author_input() {
    let server = TestServer::start();
    let reply = server
        .post("/v3/author", &json!({"email": "x@y.z"}))
        .expect_error(400, "invalid_request");
    assert_eq!(reply.body["field"], "name");
    let reply = server
        .post("/v3/author", &json!({"name": "A", "email": "nope"}))
        .expect_error(400, "invalid_request");
    assert_eq!(reply.body["field"], "email");
    let reply = server
        .post("/v3/author", &json!({"name": "A", "status": "active"}))
        .expect_error(400, "invalid_request");
    assert_eq!(reply.body["field"], "status");
    let reply = server
        .post("/v3/author", &json!({"name": 5}))
        .expect_error(400, "invalid_request");
    assert_eq!(reply.body["field"], "name");
    server
        .post("/v3/author", &json!([1, 2]))
        .expect_error(400, "invalid_request");
    server
        .put(
            "/v3/author/00000000-0000-4000-8000-000000000000",
            &json!({"name": "A"}),
        )
        .expect_error(404, "not_found");
    server
        .get("/v3/author/not-a-uuid")
        .expect_error(404, "not_found");
}

#[test]
fn delete_several_is_all_or_nothing() {
    let server = TestServer::start();
    let uuids: Vec<String> = (0..3)
        .map(|i| {
            server
                .post("/v3/author", &json!({"name": format!("Author {i}")}))
                .expect(200)
                .body[0]["uuid"]
                .as_str()
                .expect("uuid")
                .to_owned()
        })
        .collect();
    let missing = "00000000-0000-4000-8000-000000000000";
    server
        .delete(&format!("/v3/author/{},{},{missing}", uuids[0], uuids[1]))
        .expect_error(404, "not_found");
    assert_eq!(server.get("/v3/author").expect(200).body["total_items"], 3);
    server
        .delete(&format!("/v3/author/{},{}", uuids[0], uuids[1]))
        .expect(200);
    let list = server.get("/v3/author").expect(200).body;
    assert_eq!(list["total_items"], 1);
    assert_eq!(list["items"][0]["uuid"], uuids[2].as_str());
}

#[test]
fn paging_envelope() {
    let server = TestServer::start();
    for i in 0..7 {
        server
            .post("/v3/author", &json!({"name": format!("N{i}")}))
            .expect(200);
    }
    let page = server
        .get("/v3/author?per_page=3&page=2&order=name&dir=asc")
        .expect(200)
        .body;
    for key in [
        "first",
        "before",
        "current",
        "last",
        "next",
        "total_pages",
        "total_items",
        "limit",
    ] {
        assert!(page[key].is_u64(), "{key} is an integer: {page}");
    }
    assert_eq!(
        (
            page["first"].as_u64(),
            page["before"].as_u64(),
            page["current"].as_u64(),
            page["next"].as_u64()
        ),
        (Some(1), Some(1), Some(2), Some(3))
    );
    assert_eq!(
        (
            page["last"].as_u64(),
            page["total_pages"].as_u64(),
            page["total_items"].as_u64()
        ),
        (Some(3), Some(3), Some(7))
    );
    assert_eq!(page["limit"], 3);
    let names: Vec<&str> = page["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    assert_eq!(names, ["N3", "N4", "N5"]);
    let last = server
        .get("/v3/author?per_page=3&page=3&order=name&dir=asc")
        .expect(200)
        .body;
    assert_eq!(last["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(last["next"], 3);
    let desc = server.get("/v3/author?order=name").expect(200).body;
    assert_eq!(
        desc["items"][0]["name"], "N6",
        "the default direction is desc"
    );
    let capped = server.get("/v3/author?per_page=100000").expect(200).body;
    assert_eq!(capped["limit"], 500);
    for bad in [
        "page=0",
        "page=x",
        "per_page=-1",
        "order=secret",
        "order=version",
        "dir=up",
    ] {
        server
            .get(&format!("/v3/author?{bad}"))
            .expect_error(400, "invalid_request");
    }
}
