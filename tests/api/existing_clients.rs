//! Requests shaped as existing clients of the hosted `/v3` service send them (a PHP plugin, scripts): doubled and trailing slashes, HTTP Basic with the private key, names in search, `status=published`.

use base64::Engine as _;
use copydesk_tests::TestServer;
use reqwest::Method;
use serde_json::json;

fn basic(private_key: &str) -> String {
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{private_key}:"))
    )
}

/// HTTP Basic as the WordPress plugin writes it, the colon after the base64:
/// `"Basic " . base64_encode($private_key) . ":"`.
fn plugin_basic(private_key: &str) -> String {
    format!(
        "Basic {}:",
        base64::engine::general_purpose::STANDARD.encode(private_key)
    )
}

#[test]
fn paths_with_doubled_and_trailing_slashes_reach_their_operation() {
    let server = TestServer::start();
    let item = server
        .post(
            "/v3/content",
            &json!({"title": "Slashes", "type": "article"}),
        )
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid");
    let got = server.get(&format!("/v3/content/{uuid}/")).expect(200).body;
    assert_eq!(got["uuid"], uuid);
    server.get("/v3/workflow//?per_page=150").expect(200);
    let list = server.get("/v3//content/?per_page=5").expect(200).body;
    assert_eq!(list["limit"], 5, "the query string survives: {list}");
    server.get("/v3/nothing/").expect_error(404, "not_found");
}

#[test]
fn http_basic_with_the_private_key_proves_the_key_pair() {
    let server = TestServer::start();
    let reporter = server.key("Basic Reporter", &["journalist"], &[]);
    let me = server.send(
        server
            .request(Method::GET, "/v3/me")
            .header("Authorization", basic(&reporter.private_key)),
    );
    let me = me.expect(200).body;
    assert_eq!(me["user"]["uuid"], reporter.user_uuid.as_str(), "{me}");
    // A write, as the plugin makes it.
    server
        .send(
            server
                .request(Method::POST, "/v3/content")
                .header("Authorization", basic(&reporter.private_key))
                .json(&json!({"title": "Filed by the plugin", "type": "article"})),
        )
        .expect(200);
    // As the WordPress plugin writes it.
    let me = server.send(
        server
            .request(Method::GET, "/v3/me")
            .header("Authorization", plugin_basic(&reporter.private_key)),
    );
    assert_eq!(
        me.expect(200).body["user"]["uuid"],
        reporter.user_uuid.as_str()
    );
    // A wrong or unknown key, or a malformed header (a NUL before the key
    // too): the same 403 as a bad token.
    for header in [
        basic("not-a-key"),
        basic(&reporter.public_key),
        "Basic !!!".to_owned(),
        plugin_basic("not-a-key"),
        plugin_basic(&reporter.public_key),
        basic(&format!("\0{}", reporter.private_key)),
        plugin_basic(&format!("\0{}", reporter.private_key)),
        "Basic :".to_owned(),
    ] {
        server
            .send(
                server
                    .request(Method::GET, "/v3/me")
                    .header("Authorization", header),
            )
            .expect_error(403, "token_invalid");
    }
}

#[test]
fn search_takes_tags_and_authors_by_name_and_keywords_that_are_slugs() {
    let server = TestServer::start();
    let tag = server
        .post("/v3/tag", &json!({"name": "Campus News"}))
        .expect(200)
        .body[0]
        .clone();
    let author = server
        .post("/v3/author", &json!({"name": "Sam Editor"}))
        .expect(200)
        .body[0]
        .clone();
    server
        .post(
            "/v3/content",
            &json!({"title": "Tuition rises again", "type": "article",
                    "tags": [tag["uuid"]], "authors": [author["uuid"]]}),
        )
        .expect(200);
    server
        .post(
            "/v3/content",
            &json!({"title": "Other news", "type": "article"}),
        )
        .expect(200);
    let titles = |path: &str| -> Vec<String> {
        server.get(path).expect(200).body["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|item| item["title"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    for path in [
        "/v3/search?type=content&tag=Campus%20News",
        "/v3/search?type=content&tag=campus%20news",
        "/v3/search?type=content&tag=campus-news",
        "/v3/search?type=content&author=Sam%20Editor",
        "/v3/search?type=content&author=sam-editor",
        "/v3/search?type=content&keywords=tuition-rises-again",
    ] {
        assert_eq!(titles(path), ["Tuition rises again"], "{path}");
    }
    let missing = server
        .get("/v3/search?type=content&tag=Sports")
        .expect_error(404, "not_found");
    assert_eq!(missing.body["field"], "tag");
}

#[test]
fn the_content_list_filters_by_status_and_takes_what_clients_send() {
    let server = TestServer::start();
    server
        .post(
            "/v3/content",
            &json!({"title": "Out", "type": "article", "published_at": "2026-01-05 08:00:00"}),
        )
        .expect(200);
    server
        .post(
            "/v3/content",
            &json!({"title": "Not yet", "type": "article"}),
        )
        .expect(200);
    server
        .post(
            "/v3/content",
            &json!({"title": "Tomorrow", "type": "article", "published_at": "2099-01-01 08:00:00"}),
        )
        .expect(200);
    let listed = |query: &str| -> Vec<(String, serde_json::Value)> {
        server.get(&format!("/v3/content?{query}")).expect(200).body["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|item| {
                (
                    item["title"].as_str().unwrap_or("").to_owned(),
                    item["published_at"].clone(),
                )
            })
            .collect()
    };
    // What an analytics script sends, reading published_at of every item.
    let published =
        listed("per_page=50&page=1&order=published_at&dir=desc&status=published&grid=1");
    assert_eq!(published.len(), 1, "{published:?}");
    assert_eq!(published[0].0, "Out");
    assert!(published[0].1.is_string());
    let drafts = listed("status=draft");
    assert_eq!(drafts.len(), 1);
    assert_eq!(drafts[0].0, "Not yet");
    assert_eq!(listed("status=scheduled")[0].0, "Tomorrow");
    assert_eq!(listed("keywords=tomorrow&workflow=0").len(), 1);
    let refused = server
        .get("/v3/content?status=whenever")
        .expect_error(400, "invalid_request");
    assert_eq!(refused.body["field"], "status");
}

#[test]
fn workflow_sections_say_whether_they_are_for_print_or_the_web() {
    let server = TestServer::start();
    server
        .post(
            "/v3/workflow-section",
            &json!({"name": "Front page", "is_print": true, "is_web": false}),
        )
        .expect(200);
    server
        .post(
            "/v3/workflow-section",
            &json!({"name": "Homepage", "is_print": "0", "is_web": "1"}),
        )
        .expect(200);
    let both = server
        .post("/v3/workflow-section", &json!({"name": "Sport"}))
        .expect(200)
        .body[0]
        .clone();
    // Written as the workflow's flags are, and as the plugin compares them.
    assert_eq!(
        (both["is_print"].clone(), both["is_web"].clone()),
        (json!("1"), json!("1"))
    );
    // As the print plugin reads them: a trailing slash, its own Basic
    // header, print sections only.
    let sections = server
        .send(
            server
                .request(Method::GET, "/v3/workflow-section/?per_page=150")
                .header("Authorization", plugin_basic(&server.admin.private_key)),
        )
        .expect(200)
        .body;
    let mut print: Vec<&str> = sections["items"]
        .as_array()
        .expect("items")
        .iter()
        // `'1' === $section->is_print`, as the plugin keeps its sections.
        .filter(|s| s["is_print"].as_str() == Some("1"))
        .filter_map(|s| s["name"].as_str())
        .collect();
    print.sort_unstable();
    assert_eq!(print, ["Front page", "Sport"]);
}

/// `key create --json` with extra flags, as an operator runs it for such a client.
fn key_with(server: &TestServer, name: &str, extra: &[&str]) -> copydesk_tests::KeyPair {
    let output = copydesk_tests::server_command()
        .args([
            "key", "create", "--json", "--role", "editor", "--name", name, "--data",
        ])
        .arg(server.dir.path())
        .args(copydesk_tests::database_args(server.dir.path()))
        .args(extra)
        .output()
        .expect("key create runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

#[test]
fn a_key_marked_content_as_array_reads_single_items_as_one_element_arrays() {
    let server = TestServer::start();
    let app = key_with(&server, "News app backend", &["--content-as-array"]);
    let token = app.token();
    // What a Ruby client does: create, then read element 0 of the answer.
    let created = server
        .call(
            Method::POST,
            "/v3/content",
            Some(&token),
            Some(&json!({"title": "Dam holds", "type": "article"})),
        )
        .expect(200)
        .body;
    let first = created.as_array().map(|a| a[0].clone()).expect("an array");
    let uuid = first["uuid"].as_str().expect("uuid").to_owned();
    let read = server
        .call(
            Method::GET,
            &format!("/v3/content/{uuid}"),
            Some(&token),
            None,
        )
        .expect(200)
        .body;
    assert_eq!(read.as_array().map(Vec::len), Some(1), "{read}");
    assert_eq!(read[0]["title"], "Dam holds");
    let updated = server
        .call(
            Method::PUT,
            &format!("/v3/content/{uuid}"),
            Some(&token),
            Some(&json!({"title": "Dam still holds"})),
        )
        .expect(200)
        .body;
    assert_eq!(updated[0]["title"], "Dam still holds");
    // With Basic auth too (the credential, not the scheme, decides).
    let by_basic = server
        .send(
            server
                .request(Method::GET, &format!("/v3/content/{uuid}"))
                .header("Authorization", basic(&app.private_key)),
        )
        .expect(200)
        .body;
    assert!(by_basic.is_array());
    // Every other key: an object, as the specification has it.
    let plain = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    assert!(plain.is_object(), "{plain}");
    // The operator turns it off for the key: objects again.
    let set = copydesk_tests::server_command()
        .args([
            "key",
            "set",
            "--content-as-array",
            "false",
            "--public-key",
            &app.public_key,
            "--data",
        ])
        .arg(server.dir.path())
        .args(copydesk_tests::database_args(server.dir.path()))
        .output()
        .expect("key set runs");
    assert!(
        set.status.success(),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    let now = server
        .call(
            Method::GET,
            &format!("/v3/content/{uuid}"),
            Some(&token),
            None,
        )
        .expect(200)
        .body;
    assert!(now.is_object(), "{now}");
    let unknown = copydesk_tests::server_command()
        .args([
            "key",
            "set",
            "--content-as-array",
            "true",
            "--public-key",
            "nobody",
            "--data",
        ])
        .arg(server.dir.path())
        .args(copydesk_tests::database_args(server.dir.path()))
        .output()
        .expect("key set runs");
    assert!(!unknown.status.success(), "an unknown key is refused");
}

#[test]
fn a_story_names_its_lead_photo_as_an_embedded_media_item() {
    let server = TestServer::start();
    let photographer = server
        .post("/v3/author", &json!({"name": "Pat Lens"}))
        .expect(200)
        .body[0]
        .clone();
    let photo = server
        .post(
            "/v3/content",
            &json!({"title": "Dam at dawn", "type": "media", "content": "<p>The dam at dawn.</p>",
                    "authors": [photographer["uuid"]],
                    "attachment": {"name": "dam.png", "file": crate::png_base64(40, 30)}}),
        )
        .expect(200)
        .body;
    let photo_uuid = photo["uuid"].as_str().expect("uuid");
    // A WordPress plugin sets the lead photo by the media item's UUID.
    let story = server
        .post(
            "/v3/content",
            &json!({"title": "Dam holds", "type": "article", "dominantAttachment": photo_uuid}),
        )
        .expect(200)
        .body;
    assert_eq!(story["dominant_attachment_id"], photo["attachment"]["id"]);
    // A news app backend reads it as the hosted service's clients do.
    let read = server
        .get(&format!(
            "/v3/content/{}",
            story["uuid"].as_str().expect("uuid")
        ))
        .expect(200)
        .body;
    let lead = &read["dominantAttachment"];
    assert_eq!(lead["uuid"], photo_uuid);
    assert_eq!(lead["content"], "<p>The dam at dawn.</p>", "the caption");
    assert_eq!(lead["authors"][0]["name"], "Pat Lens");
    assert_eq!(lead["attachment"]["width"], "40");
    assert_eq!(lead["attachment"]["height"], "30");
    let public_url = lead["attachment"]["public_url"].as_str().expect("a url");
    server
        .send(server.request(Method::GET, public_url))
        .expect(200);
    // Then fetches the media item by that UUID.
    server.get(&format!("/v3/content/{photo_uuid}")).expect(200);
    // By the attachment's own UUID still, cleared with null, unknown: 404 naming the field.
    let by_attachment = server
        .put(
            &format!("/v3/content/{}", story["uuid"].as_str().expect("uuid")),
            &json!({"dominantAttachment": photo["attachment"]["uuid"]}),
        )
        .expect(200)
        .body;
    assert_eq!(by_attachment["dominantAttachment"]["uuid"], photo_uuid);
    let cleared = server
        .put(
            &format!("/v3/content/{}", story["uuid"].as_str().expect("uuid")),
            &json!({"dominantAttachment": null}),
        )
        .expect(200)
        .body;
    assert!(cleared["dominantAttachment"].is_null());
    let missing = server
        .put(
            &format!("/v3/content/{}", story["uuid"].as_str().expect("uuid")),
            &json!({"dominantAttachment": "5d1c8c1e-0000-4000-8000-000000000000"}),
        )
        .expect_error(404, "not_found");
    assert_eq!(missing.body["field"], "dominantAttachment");
    // A story without one says null.
    let bare = server
        .post(
            "/v3/content",
            &json!({"title": "No photo", "type": "article"}),
        )
        .expect(200)
        .body;
    assert!(bare["dominantAttachment"].is_null());
}
