//! `/v3/container`: the four type rules, the gallery placeholder, ordering and the type filter.

use copydesk_tests::TestServer;
use serde_json::{Value, json};

use crate::assert_shape;

fn uuid_of(value: &Value) -> String {
    value["uuid"].as_str().expect("uuid").to_owned()
}

#[test]
fn type_rules() {
    let server = TestServer::start();
    let c1 = uuid_of(
        &server
            .post("/v3/content", &json!({"title": "a", "type": "article"}))
            .expect(200)
            .body,
    );
    let t1 = uuid_of(
        &server
            .post("/v3/tag", &json!({"name": "t"}))
            .expect(200)
            .body[0],
    );
    for (kind, content_ok, tags_ok) in [
        ("automatic", false, true),
        ("manual", true, false),
        ("blog", false, true),
        ("gallery", true, true),
    ] {
        let with_content = server.post(
            "/v3/container",
            &json!({"title": kind, "type": kind, "content": [c1]}),
        );
        if content_ok {
            with_content.expect(200);
        } else {
            assert_eq!(
                with_content.expect_error(400, "invalid_request").body["field"],
                "content"
            );
        }
        let with_tags = server.post(
            "/v3/container",
            &json!({"title": kind, "type": kind, "tags": [t1]}),
        );
        if tags_ok {
            with_tags.expect(200);
        } else {
            assert_eq!(
                with_tags.expect_error(400, "invalid_request").body["field"],
                "tags"
            );
        }
    }
    // Changing the type re-checks the rules against what the container holds.
    let manual = server
        .post(
            "/v3/container",
            &json!({"title": "m", "type": "manual", "content": [c1]}),
        )
        .expect(200)
        .body[0]
        .clone();
    server
        .put(
            &format!("/v3/container/{}", uuid_of(&manual)),
            &json!({"type": "automatic"}),
        )
        .expect_error(400, "invalid_request");
    let switched = server
        .put(
            &format!("/v3/container/{}", uuid_of(&manual)),
            &json!({"type": "automatic", "content": [], "tags": [t1]}),
        )
        .expect(200)
        .body;
    assert_eq!(switched[0]["type"], "automatic");
    server
        .post("/v3/container", &json!({"title": "x", "type": "carousel"}))
        .expect_error(400, "invalid_request");
    server
        .post("/v3/container", &json!({"type": "manual"}))
        .expect_error(400, "invalid_request");
}

#[test]
fn manual_order_and_shape() {
    let server = TestServer::start();
    let ids: Vec<String> = ["one", "two", "three"]
        .iter()
        .map(|t| {
            uuid_of(
                &server
                    .post("/v3/content", &json!({"title": t, "type": "article"}))
                    .expect(200)
                    .body,
            )
        })
        .collect();
    let created = server
        .post("/v3/container", &json!({"title": "Front page", "type": "manual", "content": [ids[2], ids[0], ids[1]], "published_at": "2026-03-01 08:00:00"}))
        .expect(200)
        .body;
    let container = &created[0];
    assert_shape(
        container,
        &[
            ("id", "string"),
            ("uuid", "string"),
            ("title", "string"),
            ("slug", "string"),
            ("description", "string"),
            ("type", "string"),
            ("created_at", "string"),
            ("modified_at", "string"),
            ("sort_order", "string|null"),
            ("published_at", "string|null"),
            ("srn", "string"),
            ("lock", "bool"),
            ("content", "array"),
            ("tags", "array"),
        ],
    );
    assert!(container.get("version").is_none());
    let titles: Vec<&str> = container["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|c| c["title"].as_str())
        .collect();
    assert_eq!(titles, ["three", "one", "two"]);
    assert_shape(
        &container["content"][0],
        &[
            ("attachment", "object|null"),
            ("urls", "array"),
            ("lock", "bool"),
            ("container_id", "string"),
            ("assignment_id", "string|null"),
        ],
    );
    assert_eq!(container["content"][0]["container_id"], container["id"]);
    let uuid = uuid_of(container);
    let reordered = server
        .put(
            &format!("/v3/container/{uuid}"),
            &json!({"content": [ids[1], ids[2]]}),
        )
        .expect(200)
        .body;
    let titles: Vec<&str> = reordered[0]["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|c| c["title"].as_str())
        .collect();
    assert_eq!(titles, ["two", "three"]);
    assert_eq!(
        server
            .get(&format!("/v3/container/{uuid}"))
            .expect(200)
            .body,
        reordered
    );
    server
        .put(
            &format!("/v3/container/{uuid}"),
            &json!({"content": ["00000000-0000-4000-8000-000000000000"]}),
        )
        .expect_error(404, "not_found");
}

#[test]
fn gallery_makes_its_placeholder() {
    let server = TestServer::start();
    let gallery = server
        .post(
            "/v3/container",
            &json!({"title": "Flood pictures", "type": "gallery"}),
        )
        .expect(200)
        .body[0]
        .clone();
    let content = gallery["content"].as_array().expect("content");
    assert_eq!(content.len(), 1);
    assert_eq!(content[0]["type"], "media");
    assert_eq!(content[0]["title"], "Flood pictures");
    let placeholder = server
        .get(&format!(
            "/v3/content/{}",
            content[0]["uuid"].as_str().expect("uuid")
        ))
        .expect(200)
        .body;
    assert_eq!(placeholder["type"], "media");
    // The placeholder does not count as picked content when the type changes.
    server
        .put(
            &format!("/v3/container/{}", uuid_of(&gallery)),
            &json!({"type": "automatic"}),
        )
        .expect(200);
}

#[test]
fn list_by_type_and_delete_several() {
    let server = TestServer::start();
    let mut uuids = Vec::new();
    for kind in ["manual", "blog", "blog", "automatic"] {
        uuids.push(uuid_of(
            &server
                .post("/v3/container", &json!({"title": kind, "type": kind}))
                .expect(200)
                .body[0],
        ));
    }
    assert_eq!(
        server.get("/v3/container").expect(200).body["total_items"],
        4
    );
    assert_eq!(
        server.get("/v3/container?type[]=blog").expect(200).body["total_items"],
        2
    );
    assert_eq!(
        server
            .get("/v3/container?type[]=blog&type[]=manual")
            .expect(200)
            .body["total_items"],
        3
    );
    assert_eq!(
        server.get("/v3/container?type=automatic").expect(200).body["total_items"],
        1
    );
    server
        .get("/v3/container?type[]=carousel")
        .expect_error(400, "invalid_request");
    server
        .delete(&format!(
            "/v3/container/{},00000000-0000-4000-8000-000000000000",
            uuids[0]
        ))
        .expect_error(404, "not_found");
    assert_eq!(
        server.get("/v3/container").expect(200).body["total_items"],
        4
    );
    let reply = server
        .delete(&format!("/v3/container/{},{}", uuids[0], uuids[1]))
        .expect(200);
    assert_eq!(reply.body, json!({"message": "ok"}));
    assert_eq!(
        server.get("/v3/container").expect(200).body["total_items"],
        2
    );
}

#[test]
fn the_list_finds_containers_by_words_and_by_a_story_they_hold() {
    let server = TestServer::start();
    let story = server
        .post(
            "/v3/content",
            &json!({"title": "Harbour strike", "type": "article"}),
        )
        .expect(200)
        .body;
    let story = story.get(0).unwrap_or(&story)["uuid"]
        .as_str()
        .expect("uuid")
        .to_owned();
    server
        .post(
            "/v3/container",
            &json!({"title": "Front page", "type": "manual", "content": [story]}),
        )
        .expect(200);
    server
        .post(
            "/v3/container",
            &json!({"title": "Sports front", "type": "manual"}),
        )
        .expect(200);
    server
        .post(
            "/v3/container",
            &json!({"title": "Weather", "type": "manual"}),
        )
        .expect(200);
    let titles = |query: &str| -> Vec<String> {
        let mut titles: Vec<String> = server
            .get(&format!("/v3/container?{query}"))
            .expect(200)
            .body["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|c| c["title"].as_str().unwrap_or("").to_owned())
            .collect();
        titles.sort();
        titles
    };
    assert_eq!(titles("keywords=front"), ["Front page", "Sports front"]);
    assert_eq!(titles(&format!("content={story}")), ["Front page"]);
    assert_eq!(
        titles("keywords=front&type[]=automatic"),
        Vec::<String>::new()
    );
    server
        .get("/v3/container?content=00000000-0000-4000-8000-000000000000")
        .expect_error(404, "not_found");
}
