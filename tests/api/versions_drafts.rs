//! `/v3/version` (list, get, restore, with the authors and tags each version
//! had) and `/v3/draft` (last draft, create with Draft.js raw content).

use copydesk_tests::TestServer;
use serde_json::json;

use crate::assert_shape;

#[test]
fn versions_list_get_and_restore() {
    let server = TestServer::start();
    let item = server
        .post(
            "/v3/content",
            &json!({"title": "First", "type": "article", "content": "<p>one</p>"}),
        )
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid");
    let srn = item["srn"].as_str().expect("srn");
    server
        .put(
            &format!("/v3/content/{uuid}"),
            &json!({"title": "Second", "content": "<p>two</p>"}),
        )
        .expect(200);

    let list = server
        .get(&format!("/v3/version?content={srn}&order=version&dir=asc"))
        .expect(200)
        .body;
    assert_eq!(list["total_items"], 2);
    let v1 = &list["items"][0];
    assert_shape(
        v1,
        &[
            ("id", "string"),
            ("uuid", "string"),
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
            ("content_id", "string"),
            ("user_id", "string|null"),
            ("title_url", "string"),
            ("workflow_id", "string"),
            ("title", "string"),
            ("dominant_attachment_id", "string|null"),
            ("srn", "string"),
            ("user", "object"),
            ("authors", "array"),
            ("tags", "array"),
        ],
    );
    assert_eq!(v1["version"], "1");
    assert_eq!(v1["title"], "First");
    assert_eq!(v1["content_id"], item["id"]);
    assert_eq!(v1["user"]["uuid"], server.admin.user_uuid.as_str());
    assert!(
        v1["user"].get("avatar").is_none(),
        "avatar only on comments"
    );
    let v1_uuid = v1["uuid"].as_str().expect("uuid");

    let single = server
        .get(&format!("/v3/version/{v1_uuid}"))
        .expect(200)
        .body;
    assert_eq!(single.as_array().map(Vec::len), Some(1));
    assert_eq!(&single[0], v1);

    let restored = server.send(
        server
            .request(reqwest::Method::PUT, &format!("/v3/version/{v1_uuid}"))
            .bearer_auth(server.admin_token()),
    );
    let restored = restored.expect(200).body;
    assert_eq!(restored["version"], "3", "a restore is a new version");
    assert_eq!(restored["title"], "First");
    assert_eq!(restored["content"], "<p>one</p>");
    let list = server
        .get(&format!("/v3/version?content={srn}"))
        .expect(200)
        .body;
    assert_eq!(list["total_items"], 3, "history is kept");
    assert!(
        restored["audit"]
            .as_array()
            .expect("audit")
            .iter()
            .any(|a| a["action"] == "restore")
    );
}

/// The UUIDs of a record's embedded `field` (`authors`, `tags`), in order.
fn uuids(record: &serde_json::Value, field: &str) -> Vec<String> {
    record[field]
        .as_array()
        .unwrap_or_else(|| panic!("{field} is an array in {record}"))
        .iter()
        .map(|linked| linked["uuid"].as_str().expect("uuid").to_owned())
        .collect()
}

#[test]
fn versions_keep_the_authors_and_tags_they_were_saved_with_and_restore_them() {
    let server = TestServer::start();
    let made = |path: &str, name: &str| -> String {
        server.post(path, &json!({"name": name})).expect(200).body[0]["uuid"]
            .as_str()
            .expect("uuid")
            .to_owned()
    };
    let ann = made("/v3/author", "Ann Byline");
    let bob = made("/v3/author", "Bob Byline");
    let port = made("/v3/tag", "Port");
    let strike = made("/v3/tag", "Strike");
    let item = server
        .post(
            "/v3/content",
            &json!({"title": "Harbour", "type": "article", "authors": [ann, bob], "tags": [port]}),
        )
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid");
    let srn = item["srn"].as_str().expect("srn");
    // Version 2: Bob leaves the byline, Strike is added.
    server
        .put(
            &format!("/v3/content/{uuid}"),
            &json!({"authors": [ann], "tags": [port, strike]}),
        )
        .expect(200);
    // Version 3: only the text changes; the links stay as they were.
    server
        .put(
            &format!("/v3/content/{uuid}"),
            &json!({"content": "<p>Dockers walk out.</p>"}),
        )
        .expect(200);

    let list = server
        .get(&format!("/v3/version?content={srn}&order=version&dir=asc"))
        .expect(200)
        .body;
    let versions = list["items"].as_array().expect("items");
    assert_eq!(versions.len(), 3);
    assert_eq!(uuids(&versions[0], "authors"), [ann.as_str(), bob.as_str()]);
    assert_eq!(uuids(&versions[0], "tags"), [port.as_str()]);
    assert_eq!(uuids(&versions[1], "authors"), [ann.as_str()]);
    assert_eq!(
        uuids(&versions[1], "tags"),
        [port.as_str(), strike.as_str()]
    );
    assert_eq!(uuids(&versions[2], "authors"), [ann.as_str()]);
    assert_eq!(
        uuids(&versions[2], "tags"),
        [port.as_str(), strike.as_str()]
    );
    // Embedded as the content item embeds them.
    assert_eq!(versions[0]["authors"], item["authors"]);
    assert_eq!(versions[0]["tags"], item["tags"]);

    let v1_uuid = versions[0]["uuid"].as_str().expect("uuid");
    let single = server
        .get(&format!("/v3/version/{v1_uuid}"))
        .expect(200)
        .body;
    assert_eq!(
        &single[0], &versions[0],
        "the single GET shows the same links"
    );

    let restored = server
        .send(
            server
                .request(reqwest::Method::PUT, &format!("/v3/version/{v1_uuid}"))
                .bearer_auth(server.admin_token()),
        )
        .expect(200)
        .body;
    assert_eq!(restored["version"], "4");
    assert_eq!(uuids(&restored, "authors"), [ann.as_str(), bob.as_str()]);
    assert_eq!(uuids(&restored, "tags"), [port.as_str()]);
    assert_eq!(restored["content"], "", "version 1 had no body");
    let item_now = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    assert_eq!(uuids(&item_now, "authors"), [ann.as_str(), bob.as_str()]);
    assert_eq!(uuids(&item_now, "tags"), [port.as_str()]);
    let list = server
        .get(&format!("/v3/version?content={srn}&order=version&dir=desc"))
        .expect(200)
        .body;
    let newest = &list["items"][0];
    assert_eq!(newest["version"], "4");
    assert_eq!(uuids(newest, "authors"), [ann.as_str(), bob.as_str()]);
    assert_eq!(uuids(newest, "tags"), [port.as_str()]);
    // The versions before the restore are as they were: history is kept.
    assert_eq!(
        uuids(&list["items"][1], "tags"),
        [port.as_str(), strike.as_str()]
    );

    // A tag deleted since leaves the versions that carried it, as it leaves the item.
    server.delete(&format!("/v3/tag/{strike}")).expect(200);
    let v2 = &list["items"][2];
    let v2 = server
        .get(&format!(
            "/v3/version/{}",
            v2["uuid"].as_str().expect("uuid")
        ))
        .expect(200)
        .body;
    assert_eq!(uuids(&v2[0], "tags"), [port.as_str()]);
}

#[test]
fn version_list_needs_a_content_srn() {
    let server = TestServer::start();
    let reply = server
        .get("/v3/version")
        .expect_error(400, "invalid_request");
    assert_eq!(reply.body["field"], "content");
    server
        .get("/v3/version?content=nonsense")
        .expect_error(400, "invalid_request");
    let author = server
        .post("/v3/author", &json!({"name": "A"}))
        .expect(200)
        .body[0]["srn"]
        .clone();
    server
        .get(&format!(
            "/v3/version?content={}",
            author.as_str().expect("srn")
        ))
        .expect_error(400, "invalid_request");
    server
        .get("/v3/version?content=srn:copydesk:cms/content:00000000-0000-4000-8000-000000000000")
        .expect_error(404, "not_found");
    server
        .get("/v3/version/00000000-0000-4000-8000-000000000000")
        .expect_error(404, "not_found");
}

#[test]
fn drafts_keep_the_last_one() {
    let server = TestServer::start();
    let item = server
        .post("/v3/content", &json!({"title": "D", "type": "article"}))
        .expect(200)
        .body;
    let srn = item["srn"].as_str().expect("srn");
    assert_eq!(
        server
            .get(&format!("/v3/draft?content={srn}"))
            .expect(200)
            .body,
        json!([])
    );
    let raw = json!({
        "blocks": [{"key": "a1", "text": "Héllo 😀 world", "type": "unstyled", "depth": 0,
                     "inlineStyleRanges": [{"offset": 6, "length": 1, "style": "BOLD"}],
                     "entityRanges": [{"offset": 8, "length": 5, "key": 0}], "data": {}}],
        "entityMap": {"0": {"type": "LINK", "mutability": "MUTABLE", "data": {"url": "https://example.org"}}}
    });
    let first = server
        .post(
            &format!("/v3/draft?content={srn}"),
            &json!({"content": "<p>1</p>", "content_raw": raw.to_string()}),
        )
        .expect(200)
        .body;
    assert_shape(
        &first[0],
        &[
            ("content", "string"),
            ("content_raw", "string"),
            ("version", "string"),
            ("created_at", "string"),
            ("user_id", "string|null"),
        ],
    );
    assert_eq!(first[0]["version"], "1");
    // content_raw may also come as the structure itself, with entityMap as an array.
    let mut as_array = raw.clone();
    as_array["entityMap"] =
        json!([{"type": "LINK", "mutability": "MUTABLE", "data": {"url": "https://example.org"}}]);
    server
        .post(
            &format!("/v3/draft?content={srn}"),
            &json!({"content": "<p>2</p>", "content_raw": as_array}),
        )
        .expect(200);
    let last = server
        .get(&format!("/v3/draft?content={srn}"))
        .expect(200)
        .body;
    assert_eq!(last.as_array().map(Vec::len), Some(1));
    assert_eq!(last[0]["content"], "<p>2</p>");
    let stored: serde_json::Value =
        serde_json::from_str(last[0]["content_raw"].as_str().expect("string")).expect("JSON");
    assert_eq!(stored["blocks"][0]["text"], "Héllo 😀 world");
}

#[test]
fn drafts_refuse_what_is_not_draftjs() {
    let server = TestServer::start();
    let item = server
        .post("/v3/content", &json!({"title": "D", "type": "article"}))
        .expect(200)
        .body;
    let srn = item["srn"].as_str().expect("srn");
    for raw in [
        json!("<p>html</p>"),
        json!({"blocks": "x", "entityMap": {}}),
        json!({"blocks": []}),
        json!({"blocks": [{"key": "a", "text": "ab", "type": "unstyled", "inlineStyleRanges": [{"offset": 1, "length": 5, "style": "BOLD"}], "entityRanges": []}], "entityMap": {}}),
        // Two links over the same characters: a character carries one entity.
        json!({"blocks": [{"key": "a", "text": "the council", "type": "unstyled", "inlineStyleRanges": [],
               "entityRanges": [{"offset": 0, "length": 7, "key": 0}, {"offset": 4, "length": 7, "key": 1}]}],
               "entityMap": {"0": {"type": "LINK", "mutability": "MUTABLE", "data": {"url": "/a"}},
                             "1": {"type": "LINK", "mutability": "MUTABLE", "data": {"url": "/b"}}}}).to_string().into(),
    ] {
        let reply = server
            .post(
                &format!("/v3/draft?content={srn}"),
                &json!({"content": "", "content_raw": raw}),
            )
            .expect_error(400, "invalid_request");
        assert_eq!(reply.body["field"], "content_raw");
    }
    let reply = server
        .post(
            &format!("/v3/draft?content={srn}"),
            &json!({"content": "x"}),
        )
        .expect_error(400, "invalid_request");
    assert_eq!(reply.body["field"], "content_raw");
    server
        .post(
            "/v3/draft",
            &json!({"content": "", "content_raw": {"blocks": [], "entityMap": {}}}),
        )
        .expect_error(400, "invalid_request");
    assert_eq!(
        server
            .get(&format!("/v3/draft?content={srn}"))
            .expect(200)
            .body,
        json!([])
    );
}

/// Draft.js raw content of plain paragraphs with keys `p0`, `p1`, ...
fn raw_of(paragraphs: &[&str]) -> serde_json::Value {
    let blocks: Vec<serde_json::Value> = paragraphs
        .iter()
        .enumerate()
        .map(|(i, text)| {
            json!({"key": format!("p{i}"), "text": text, "type": "unstyled", "depth": 0,
                   "inlineStyleRanges": [], "entityRanges": [], "data": {}})
        })
        .collect();
    json!({"blocks": blocks, "entityMap": {}})
}

fn html_of(paragraphs: &[&str]) -> String {
    paragraphs.iter().map(|p| format!("<p>{p}</p>")).collect()
}

#[test]
fn a_draft_made_before_a_newer_version_is_merged_onto_it() {
    let server = TestServer::start();
    let first = ["The lede.", "The vote was 5 to 4.", "The kicker."];
    let item = server
        .post(
            "/v3/content",
            &json!({"title": "Vote", "type": "article", "content": html_of(&first),
                    "content_raw": raw_of(&first).to_string()}),
        )
        .expect(200)
        .body;
    let (uuid, srn) = (
        item["uuid"].as_str().expect("uuid"),
        item["srn"].as_str().expect("srn"),
    );
    server
        .get(&format!("/v3/draft/merged?content={srn}"))
        .expect_error(404, "not_found");

    // The reporter's autosave of version 1 edits the lede and the vote...
    let drafted = ["The new lede.", "The vote was 6 to 3.", "The kicker."];
    server
        .post(
            &format!("/v3/draft?content={srn}"),
            &json!({"content": html_of(&drafted), "content_raw": raw_of(&drafted)}),
        )
        .expect(200);
    // ...while the desk saves version 2 with another vote count and a trimmed kicker.
    let desk = ["The lede.", "The vote was 7 to 2.", "Kicker."];
    server
        .put(
            &format!("/v3/content/{uuid}"),
            &json!({"content": html_of(&desk), "content_raw": raw_of(&desk).to_string()}),
        )
        .expect(200);

    let merged = server
        .get(&format!("/v3/draft/merged?content={srn}"))
        .expect(200)
        .body;
    assert_eq!(merged["version"], "2");
    assert_eq!(merged["draft"]["version"], "1");
    assert_eq!(
        merged["content"],
        html_of(&["The new lede.", "The vote was 7 to 2.", "Kicker."])
    );
    let raw: serde_json::Value =
        serde_json::from_str(merged["content_raw"].as_str().expect("raw")).expect("JSON");
    assert_eq!(raw["blocks"][0]["text"], "The new lede.");
    assert_eq!(raw["blocks"][0]["key"], "p0");
    let conflicts = merged["conflicts"].as_array().expect("conflicts");
    assert_eq!(conflicts.len(), 1);
    assert_eq!(conflicts[0]["position"], "1");
    assert_eq!(conflicts[0]["mine"], "<p>The vote was 6 to 3.</p>");
    assert_eq!(conflicts[0]["theirs"], "<p>The vote was 7 to 2.</p>");
    assert_eq!(conflicts[0]["before"], "The new lede.");

    // A draft of the current version comes back as it is.
    server
        .post(
            &format!("/v3/draft?content={srn}"),
            &json!({"content": html_of(&desk), "content_raw": raw_of(&desk)}),
        )
        .expect(200);
    let current = server
        .get(&format!("/v3/draft/merged?content={srn}"))
        .expect(200)
        .body;
    assert_eq!(current["content"], html_of(&desk));
    assert_eq!(current["conflicts"], json!([]));
}

/// A request to `server` signed as `token`.
fn as_user(
    server: &TestServer,
    token: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<&serde_json::Value>,
) -> copydesk_tests::Reply {
    server.call(method, path, Some(token), body)
}

#[test]
fn each_person_keeps_a_draft_of_their_own_with_the_whole_form() {
    let server = TestServer::start();
    let reporter = server.key("Rita Reporter", &["journalist"], &[]).token();
    let editor = server.key("Dana Desk", &["editor"], &[]).token();
    let item = server
        .post(
            "/v3/content",
            &json!({"title": "Harbour", "type": "article", "content": "<p>One.</p>"}),
        )
        .expect(200)
        .body;
    let (uuid, srn) = (
        item["uuid"].as_str().expect("uuid"),
        item["srn"].as_str().expect("srn"),
    );
    let drafts = format!("/v3/draft?content={srn}");
    let others = format!("/v3/draft/others?content={srn}");
    let post = reqwest::Method::POST;
    let get = reqwest::Method::GET;
    let reporters = ["The reporter's lede."];
    as_user(
        &server,
        &reporter,
        post.clone(),
        &drafts,
        Some(&json!({"content": html_of(&reporters), "content_raw": raw_of(&reporters),
                     "fields": {"title": "Harbour reopens", "abstract": "Ships return.", "urls": ["/harbour"]}})),
    )
    .expect(200);
    let editors = ["The editor's lede."];
    as_user(
        &server,
        &editor,
        post,
        &drafts,
        Some(
            &json!({"content": html_of(&editors), "content_raw": raw_of(&editors),
                     "fields": {"title": "Harbour shut", "dominantAttachment": null}}),
        ),
    )
    .expect(200);

    // Each reads their own, never the other's, with the form they typed.
    let mine = as_user(&server, &reporter, get.clone(), &drafts, None)
        .expect(200)
        .body;
    assert_eq!(mine[0]["content"], html_of(&reporters));
    assert_eq!(
        mine[0]["fields"],
        json!({"title": "Harbour reopens", "abstract": "Ships return.", "urls": ["/harbour"]})
    );
    assert_eq!(mine[0]["saved"], false);
    let hers = as_user(&server, &editor, get.clone(), &drafts, None)
        .expect(200)
        .body;
    assert_eq!(hers[0]["content"], html_of(&editors));
    assert_eq!(
        hers[0]["fields"],
        json!({"title": "Harbour shut", "dominantAttachment": null})
    );
    // The admin typed nothing here: no draft is restored as theirs.
    assert_eq!(server.get(&drafts).expect(200).body, json!([]));

    // Each sees the other's unsaved text, by name.
    let seen = as_user(&server, &reporter, get.clone(), &others, None)
        .expect(200)
        .body;
    assert_eq!(seen.as_array().map(Vec::len), Some(1));
    assert_eq!(seen[0]["user"]["name"], "Dana Desk");
    assert_eq!(seen[0]["content"], html_of(&editors));
    let seen = as_user(&server, &editor, get.clone(), &others, None)
        .expect(200)
        .body;
    assert_eq!(seen[0]["user"]["name"], "Rita Reporter");
    assert_eq!(
        server
            .get(&others)
            .expect(200)
            .body
            .as_array()
            .map(Vec::len),
        Some(2)
    );

    // The editor saves a version: her draft is in it, no longer unsaved text.
    as_user(
        &server,
        &editor,
        reqwest::Method::PUT,
        &format!("/v3/content/{uuid}"),
        Some(&json!({"title": "Harbour shut", "content": html_of(&editors), "base_version": "1"})),
    )
    .expect(200);
    let seen = as_user(&server, &reporter, get.clone(), &others, None)
        .expect(200)
        .body;
    assert_eq!(seen, json!([]));
    let hers = as_user(&server, &editor, get.clone(), &drafts, None)
        .expect(200)
        .body;
    assert_eq!(hers[0]["saved"], true);
    // The reporter's draft survives, still unsaved, and shows to the editor.
    let mine = as_user(&server, &reporter, get.clone(), &drafts, None)
        .expect(200)
        .body;
    assert_eq!(mine[0]["saved"], false);
    assert_eq!(
        as_user(&server, &editor, get, &others, None)
            .expect(200)
            .body[0]["user"]["name"],
        "Rita Reporter"
    );

    // A reader may not see drafts; a form field of the wrong type is a 400.
    let reader = server.key("Rex Reader", &["reader"], &[]).token();
    as_user(
        &server,
        &reader,
        reqwest::Method::POST,
        &drafts,
        Some(&json!({"content": "", "content_raw": raw_of(&["x"])})),
    )
    .expect_error(401, "forbidden_action");
    server
        .post(
            &drafts,
            &json!({"content": "", "content_raw": raw_of(&["x"]), "fields": {"title": 5}}),
        )
        .expect_error(400, "invalid_request");
}

#[test]
fn a_merged_draft_carries_its_headline_onto_the_newer_version() {
    let server = TestServer::start();
    let body = ["The lede.", "The kicker."];
    let item = server
        .post(
            "/v3/content",
            &json!({"title": "Vote", "abstract": "Old abstract", "type": "article",
                    "content": html_of(&body), "content_raw": raw_of(&body).to_string()}),
        )
        .expect(200)
        .body;
    let (uuid, srn) = (
        item["uuid"].as_str().expect("uuid"),
        item["srn"].as_str().expect("srn"),
    );
    let desk = server.key("Dana Desk", &["editor"], &[]).token();
    // The admin's draft of version 1 changes the headline; the desk then saves the abstract.
    server
        .post(
            &format!("/v3/draft?content={srn}"),
            &json!({"content": html_of(&body), "content_raw": raw_of(&body),
                    "fields": {"title": "Vote passes", "abstract": "Old abstract"}}),
        )
        .expect(200);
    as_user(
        &server,
        &desk,
        reqwest::Method::PUT,
        &format!("/v3/content/{uuid}"),
        Some(&json!({"abstract": "The council voted.", "base_version": "1"})),
    )
    .expect(200);
    let merged = server
        .get(&format!("/v3/draft/merged?content={srn}"))
        .expect(200)
        .body;
    assert_eq!(merged["version"], "2");
    assert_eq!(
        merged["fields"],
        json!({"title": "Vote passes", "abstract": "The council voted."})
    );
    assert_eq!(merged["field_conflicts"], json!([]));
}

#[test]
fn a_save_based_on_an_older_version_is_merged_onto_the_newer_one() {
    let server = TestServer::start();
    let reporter = server.key("Rita Reporter", &["journalist"], &[]).token();
    let editor = server.key("Dana Desk", &["editor"], &[]).token();
    let first = ["Rates rose 6% in May.", "The kicker."];
    let item = server
        .post(
            "/v3/content",
            &json!({"title": "Rates", "type": "article", "content": html_of(&first),
                    "content_raw": raw_of(&first).to_string()}),
        )
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid");
    let path = format!("/v3/content/{uuid}");
    let put = reqwest::Method::PUT;

    // The editor changes the headline from version 1 and saves version 2.
    as_user(
        &server,
        &editor,
        put.clone(),
        &path,
        Some(
            &json!({"title": "Rates rise again", "content": html_of(&first), "base_version": "1"}),
        ),
    )
    .expect(200);
    // The reporter, still on version 1, sends the old headline and a new kicker.
    let reporters = ["Rates rose 6% in May.", "The kicker, longer."];
    let saved = as_user(
        &server,
        &reporter,
        put.clone(),
        &path,
        Some(&json!({"title": "Rates", "content": html_of(&reporters),
                     "content_raw": raw_of(&reporters).to_string(), "base_version": "1"})),
    )
    .expect(200)
    .body;
    assert_eq!(saved["version"], "3");
    assert_eq!(
        saved["title"], "Rates rise again",
        "the editor's headline stays"
    );
    assert_eq!(
        saved["content"],
        html_of(&reporters),
        "the reporter's kicker is in"
    );
    let audit = saved["audit"].as_array().expect("audit");
    let last = audit.last().expect("an entry");
    assert_eq!(last["action"], "merged");
    assert!(
        last["detail"]
            .as_str()
            .is_some_and(|d| d.contains("version 1") && d.contains("version 2")),
        "{last}"
    );

    // Both change the same words from version 3: the second save is refused
    // and nothing is replaced.
    let editors = ["Rates rose 7% in May.", "The kicker, longer."];
    as_user(
        &server,
        &editor,
        put.clone(),
        &path,
        Some(
            &json!({"content": html_of(&editors), "content_raw": raw_of(&editors).to_string(),
                     "base_version": "3"}),
        ),
    )
    .expect(200);
    let clash = ["Rates rose 8% in May.", "The kicker, longer."];
    let refused = as_user(
        &server,
        &reporter,
        put.clone(),
        &path,
        Some(
            &json!({"content": html_of(&clash), "content_raw": raw_of(&clash).to_string(),
                     "base_version": "3"}),
        ),
    )
    .expect_error(409, "conflict");
    assert_eq!(refused.body["field"], "content");
    assert!(
        refused.message().contains("paragraph 1 of the body"),
        "{}",
        refused.message()
    );
    let now = server.get(&path).expect(200).body;
    assert_eq!(now["version"], "4");
    assert_eq!(now["content"], html_of(&editors));

    // A base that is no version of the item is a 400 naming the field; no
    // base at all replaces, as the hosted service does.
    let bad = server
        .put(&path, &json!({"title": "X", "base_version": "99"}))
        .expect_error(400, "invalid_request");
    assert_eq!(bad.body["field"], "base_version");
    let replaced = server
        .put(&path, &json!({"content": html_of(&clash)}))
        .expect(200)
        .body;
    assert_eq!(replaced["content"], html_of(&clash));
}
