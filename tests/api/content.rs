//! `/v3/content`: shapes, links, versions on update, filters and delete.

use copydesk_tests::TestServer;
use serde_json::{Value, json};

use crate::assert_shape;

pub const CONTENT_SHAPE: &[(&str, &str)] = &[
    ("id", "string"),
    ("uuid", "string"),
    ("title", "string"),
    ("slug", "string"),
    ("type", "string"),
    ("version", "string"),
    ("weight", "string"),
    ("abstract", "string"),
    ("abstract_raw", "string"),
    ("content", "string"),
    ("content_raw", "string"),
    ("created_at", "string"),
    ("modified_at", "string"),
    ("published_at", "string|null"),
    ("state", "string"),
    ("url_id", "string|null"),
    ("user_id", "string|null"),
    ("assignment_id", "string|null"),
    ("title_url", "string"),
    ("workflow_id", "string"),
    ("dominant_attachment_id", "string|null"),
    ("has_attachment", "string"),
    ("srn", "string"),
    ("ssts_path", "string"),
    ("export", "object"),
    ("authors", "array"),
    ("tags", "array"),
    ("urls", "array"),
    ("lock", "bool"),
    ("versions", "array"),
    ("audit", "array"),
];

fn create(server: &TestServer, body: Value) -> Value {
    server.post("/v3/content", &body).expect(200).body
}

#[test]
fn create_with_links_and_read_back() {
    let server = TestServer::start();
    let author = server
        .post("/v3/author", &json!({"name": "Ann"}))
        .expect(200)
        .body[0]
        .clone();
    let tag = server
        .post("/v3/tag", &json!({"name": "Weather"}))
        .expect(200)
        .body[0]
        .clone();
    let item = create(
        &server,
        json!({
            "title": "Storm hits the coast", "type": "article", "abstract": "Winds", "content": "<p>Body</p>",
            "weight": "3", "state": 1,
            "authors": [author["uuid"]], "tags": [tag["uuid"]], "urls": ["news/storm", "/news/storm"],
        }),
    );
    assert_shape(&item, CONTENT_SHAPE);
    assert_eq!(item["slug"], "storm-hits-the-coast");
    assert_eq!(item["version"], "1");
    assert_eq!(item["weight"], "3");
    assert_eq!(item["state"], "1");
    assert_eq!(item["lock"], false);
    assert_eq!(item["export"], json!({}));
    assert_eq!(item["has_attachment"], "0");
    assert_eq!(item["authors"][0]["uuid"], author["uuid"]);
    assert_eq!(item["tags"][0]["name"], "Weather");
    assert_eq!(
        item["urls"].as_array().map(Vec::len),
        Some(1),
        "repeated URLs collapse"
    );
    assert_eq!(item["urls"][0]["url"], "/news/storm");
    assert_eq!(item["url_id"], item["urls"][0]["id"]);
    assert_eq!(item["versions"][0]["version"], "1");
    assert_eq!(item["audit"][0]["action"], "create");
    assert_eq!(item["user_id"], "1");
    let uuid = item["uuid"].as_str().expect("uuid");
    let got = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    assert!(got.is_object(), "content GET is an object");
    assert_eq!(got, item);
}

#[test]
fn update_makes_versions_only_on_change() {
    let server = TestServer::start();
    let item = create(&server, json!({"title": "One", "type": "page"}));
    let uuid = item["uuid"].as_str().expect("uuid");
    let same = server
        .put(&format!("/v3/content/{uuid}"), &json!({"title": "One"}))
        .expect(200)
        .body;
    assert_eq!(same["version"], "1", "no change, no version");
    let two = server
        .put(
            &format!("/v3/content/{uuid}"),
            &json!({"title": "Two", "content": "<p>2</p>"}),
        )
        .expect(200)
        .body;
    assert_eq!(two["version"], "2");
    assert_eq!(two["slug"], "one", "the slug stays unless sent");
    assert_eq!(two["versions"].as_array().map(Vec::len), Some(2));
    let tag = server
        .post("/v3/tag", &json!({"name": "t"}))
        .expect(200)
        .body[0]["uuid"]
        .clone();
    let three = server
        .put(&format!("/v3/content/{uuid}"), &json!({"tags": [tag]}))
        .expect(200)
        .body;
    assert_eq!(three["version"], "3", "a link change is a change");
    let four = server
        .put(&format!("/v3/content/{uuid}"), &json!({"tags": []}))
        .expect(200)
        .body;
    assert_eq!(four["tags"], json!([]));
}

#[test]
fn bad_content_input() {
    let server = TestServer::start();
    for (body, field) in [
        (json!({"type": "article"}), "title"),
        (json!({"title": "  ", "type": "article"}), "title"),
        (json!({"title": "T"}), "type"),
        (json!({"title": "T", "type": "video"}), "type"),
        (
            json!({"title": "T", "type": "article", "published_at": "soon"}),
            "published_at",
        ),
        (
            json!({"title": "T", "type": "article", "urls": ["a b"]}),
            "urls",
        ),
        (
            json!({"title": "T", "type": "article", "weight": "heavy"}),
            "weight",
        ),
        (
            json!({"title": "T", "type": "article", "authors": "x"}),
            "authors",
        ),
        (
            json!({"title": "T", "type": "article", "attachment": {"name": "a.png", "file": "@@@"}}),
            "file",
        ),
    ] {
        let reply = server
            .post("/v3/content", &body)
            .expect_error(400, "invalid_request");
        assert_eq!(reply.body["field"], field, "{body}");
    }
    let reply = server
        .post(
            "/v3/content",
            &json!({"title": "T", "type": "article", "authors": ["00000000-0000-4000-8000-000000000000"]}),
        )
        .expect_error(404, "not_found");
    assert_eq!(reply.body["field"], "authors");
    assert_eq!(
        server.get("/v3/content").expect(200).body["total_items"],
        0,
        "nothing half-made"
    );
    server
        .get("/v3/content/00000000-0000-4000-8000-000000000000")
        .expect_error(404, "not_found");
    server
        .delete("/v3/content/00000000-0000-4000-8000-000000000000")
        .expect_error(404, "not_found");
}

#[test]
fn list_filters_and_order() {
    let server = TestServer::start();
    create(&server, json!({"title": "A", "type": "article"}));
    let b = create(&server, json!({"title": "B", "type": "post"}));
    create(
        &server,
        json!({"title": "M", "type": "media", "attachment": {"name": "p.png", "file": crate::png_base64(4, 2)}}),
    );
    server
        .put(
            &format!("/v3/content/{}", b["uuid"].as_str().expect("uuid")),
            &json!({"title": "B2"}),
        )
        .expect(200);
    let all = server.get("/v3/content").expect(200).body;
    assert_eq!(all["total_items"], 3);
    assert_eq!(all["limit"], 50);
    assert_eq!(
        all["items"][0]["title"], "B2",
        "default order is version, descending"
    );
    let with = server.get("/v3/content?has_attachment=1").expect(200).body;
    assert_eq!(with["total_items"], 1);
    assert_eq!(with["items"][0]["title"], "M");
    assert_eq!(
        server.get("/v3/content?has_attachment=0").expect(200).body["total_items"],
        2
    );
    assert_eq!(
        server.get("/v3/content?type=post").expect(200).body["total_items"],
        1
    );
    let by_title = server
        .get("/v3/content?order=title&dir=asc")
        .expect(200)
        .body;
    assert_eq!(by_title["items"][0]["title"], "A");
    server
        .get("/v3/content?has_attachment=2")
        .expect_error(400, "invalid_request");
    server
        .get("/v3/content?type=video")
        .expect_error(400, "invalid_request");
    server
        .get("/v3/content?order=password")
        .expect_error(400, "invalid_request");
}

#[test]
fn delete_removes_item_and_files() {
    let server = TestServer::start();
    let item = create(
        &server,
        json!({"title": "Pic", "type": "media", "attachment": {"name": "pic.png", "file": crate::png_base64(3, 3)}}),
    );
    let uuid = item["uuid"].as_str().expect("uuid");
    let original = item["attachment"]["original_url"]
        .as_str()
        .expect("url")
        .to_owned();
    server
        .send(server.request(reqwest::Method::GET, &original))
        .expect(200);
    let reply = server.delete(&format!("/v3/content/{uuid}")).expect(200);
    assert_eq!(reply.body, json!({"message": "Ok"}));
    server
        .get(&format!("/v3/content/{uuid}"))
        .expect_error(404, "not_found");
    server
        .send(server.request(reqwest::Method::GET, &original))
        .expect_error(404, "not_found");
    let salt = item["attachment"]["salt"].as_str().expect("salt");
    assert!(
        !server.dir.path().join("files").join(salt).exists(),
        "the files are gone"
    );
}

#[test]
fn posts_pick_blog_containers() {
    let server = TestServer::start();
    let blog = server
        .post("/v3/container", &json!({"title": "Live", "type": "blog"}))
        .expect(200)
        .body[0]
        .clone();
    let manual = server
        .post(
            "/v3/container",
            &json!({"title": "Front", "type": "manual"}),
        )
        .expect(200)
        .body[0]
        .clone();
    let post = create(
        &server,
        json!({"title": "Update 1", "type": "post", "container": blog["uuid"]}),
    );
    assert_eq!(post["container_id"], blog["id"]);
    let reply = server
        .post(
            "/v3/content",
            &json!({"title": "x", "type": "post", "container": manual["uuid"]}),
        )
        .expect_error(400, "invalid_request");
    assert_eq!(reply.body["field"], "container");
    server
        .post(
            "/v3/content",
            &json!({"title": "x", "type": "article", "container": blog["uuid"]}),
        )
        .expect_error(400, "invalid_request");
    let blogs = server.get("/v3/container?type[]=blog").expect(200).body;
    assert_eq!(blogs["total_items"], 1);
}

#[test]
fn the_list_filters_by_author_tag_and_day_of_change() {
    let server = TestServer::start();
    let author = server
        .post("/v3/author", &json!({"name": "Cleo Courts"}))
        .expect(200)
        .body[0]["uuid"]
        .as_str()
        .expect("uuid")
        .to_owned();
    let tag = server
        .post("/v3/tag", &json!({"name": "Harbour"}))
        .expect(200)
        .body[0]["uuid"]
        .as_str()
        .expect("uuid")
        .to_owned();
    create(
        &server,
        json!({"title": "Strike at the port", "type": "article", "authors": [author], "tags": [tag]}),
    );
    create(
        &server,
        json!({"title": "Court rules", "type": "article", "authors": [author]}),
    );
    create(&server, json!({"title": "Weather", "type": "article"}));
    let titles = |query: &str| -> Vec<String> {
        let mut titles: Vec<String> = server.get(&format!("/v3/content?{query}")).expect(200).body
            ["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|item| item["title"].as_str().unwrap_or("").to_owned())
            .collect();
        titles.sort();
        titles
    };
    assert_eq!(
        titles(&format!("author={author}")),
        ["Court rules", "Strike at the port"]
    );
    assert_eq!(
        titles("author=cleo%20courts"),
        ["Court rules", "Strike at the port"]
    );
    assert_eq!(
        titles("tag=harbour&author=cleo-courts"),
        ["Strike at the port"]
    );
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert_eq!(
        titles(&format!("changed_from={today}&changed_to={today}")).len(),
        3
    );
    assert!(titles("changed_to=2000-01-01").is_empty());
    // A moment with its offset, as the browser sends a local day's bounds:
    // an hour ago in New York's offset is before every change, after none.
    let hour_ago = (chrono::Utc::now() - chrono::TimeDelta::hours(1))
        .with_timezone(&chrono::FixedOffset::west_opt(5 * 3600).expect("an offset"))
        .to_rfc3339();
    assert_eq!(titles(&format!("changed_from={hour_ago}")).len(), 3);
    assert!(titles(&format!("changed_to={hour_ago}")).is_empty());
    // Paris's offset, its `+` sent as it is (a query string reads it as a space).
    let paris_hour_ago = (chrono::Utc::now() - chrono::TimeDelta::hours(1))
        .with_timezone(&chrono::FixedOffset::east_opt(3600).expect("an offset"))
        .format("%Y-%m-%dT%H:%M:%S%:z")
        .to_string();
    assert!(paris_hour_ago.contains('+'));
    assert_eq!(titles(&format!("changed_from={paris_hour_ago}")).len(), 3);
    assert!(titles(&format!("changed_to={paris_hour_ago}")).is_empty());
    assert!(titles("changed_from=2999-01-01").is_empty());
    let refused = server
        .get("/v3/content?changed_from=yesterday")
        .expect_error(400, "invalid_request");
    assert_eq!(refused.body["field"], "changed_from");
    server
        .get("/v3/content?tag=no-such-tag")
        .expect_error(404, "not_found");
}

/// `render-answers` renders every story's kept answer again (after an
/// upgrade), and what the server then serves is what it assembles (the
/// suites' check compares the two on every read).
#[test]
fn kept_answers_are_rendered_again_by_a_command() {
    let mut server = TestServer::start();
    let uuids: Vec<String> = (0..3)
        .map(|i| {
            server
                .post(
                    "/v3/content",
                    &json!({"title": format!("Kept {i}"), "type": "article", "content": "<p>Words.</p>"}),
                )
                .expect(200)
                .body["uuid"]
                .as_str()
                .expect("a UUID")
                .to_owned()
        })
        .collect();
    server.kill();
    let db = rusqlite::Connection::open(server.db_path()).expect("the database");
    let kept = |db: &rusqlite::Connection| -> i64 {
        db.query_row("SELECT count(*) FROM content_rendered", [], |row| {
            row.get(0)
        })
        .expect("a count")
    };
    assert_eq!(kept(&db), 3, "each create kept its answer");
    db.execute("DELETE FROM content_rendered", [])
        .expect("dropped");
    let output = copydesk_tests::server_command()
        .args(["render-answers", "--data"])
        .arg(server.dir.path())
        .args(copydesk_tests::database_args(server.dir.path()))
        .output()
        .expect("render-answers runs");
    assert!(output.status.success(), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("rendered the answers of 3 stories"),
        "{output:?}"
    );
    assert_eq!(kept(&db), 3);
    drop(db);
    server.restart();
    for (i, uuid) in uuids.iter().enumerate() {
        let item = server.get(&format!("/v3/content/{uuid}")).expect(200);
        assert_eq!(item.body["title"], format!("Kept {i}"));
    }
}
