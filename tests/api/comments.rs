//! Note-comment threads, assignments and their comments; user HTML is stored sanitised.

use copydesk_tests::TestServer;
use reqwest::Method;
use serde_json::json;

use crate::assert_shape;

#[test]
fn note_threads_with_replies() {
    let server = TestServer::start();
    let anna = server.key("anna", &["journalist"], &[]).token();
    let story = server
        .post("/v3/content", &json!({"title": "S", "type": "article"}))
        .expect(200)
        .body;
    let uuid = story["uuid"].as_str().expect("uuid");
    assert_eq!(
        server
            .get(&format!("/v3/note-comment/{uuid}"))
            .expect(200)
            .body,
        json!({"items": []})
    );

    let root = server
        .call(
            Method::POST,
            "/v3/note-comment/root",
            Some(&anna),
            Some(&json!({"comment": "<p>Check the <b>quote</b></p>", "reference": uuid})),
        )
        .expect(200)
        .body;
    assert_eq!(
        root.as_object()
            .map(|o| o.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["items".to_owned()])
    );
    let first = &root["items"][0];
    assert_shape(
        first,
        &[
            ("id", "string"),
            ("uuid", "string"),
            ("reference", "string"),
            ("user_id", "string|null"),
            ("comment", "string"),
            ("created_at", "string"),
            ("version", "string"),
            ("draft_uuid", "string"),
            ("parent_id", "string"),
            ("user", "object"),
        ],
    );
    assert_eq!(first["parent_id"], "0");
    assert_eq!(
        first["version"], "1",
        "the item's current version by default"
    );
    assert_eq!(first["user"]["name"], "anna");
    assert!(
        first["user"]["avatar"].is_string(),
        "comment users carry an avatar"
    );
    let first_uuid = first["uuid"].as_str().expect("uuid");

    let reply = server
        .post(
            &format!("/v3/note-comment/{first_uuid}"),
            &json!({"comment": "Done", "reference": uuid, "version": 1}),
        )
        .expect(200)
        .body;
    let items = reply["items"].as_array().expect("items");
    assert_eq!(items.len(), 2);
    assert_eq!(items[1]["parent_id"], first["id"]);
    let thread = server
        .get(&format!("/v3/note-comment/{uuid}"))
        .expect(200)
        .body;
    assert_eq!(thread, reply);
    // Threads on notes (not content) work the same way.
    let note = "7c1d2a9e-0000-4000-8000-00000000beef";
    server
        .post(
            "/v3/note-comment/root",
            &json!({"comment": "on a note", "reference": note, "version": 3}),
        )
        .expect(200);
    assert_eq!(
        server
            .get(&format!("/v3/note-comment/{note}"))
            .expect(200)
            .body["items"][0]["version"],
        "3"
    );
    // The content item's audit shows the thread.
    let audit = server.get(&format!("/v3/content/{uuid}")).expect(200).body["audit"].clone();
    assert!(
        audit
            .as_array()
            .expect("audit")
            .iter()
            .filter(|a| a["action"] == "comment")
            .count()
            == 2
    );
}

#[test]
fn comments_are_sanitised() {
    let server = TestServer::start();
    let story = server
        .post("/v3/content", &json!({"title": "S", "type": "article"}))
        .expect(200)
        .body;
    let uuid = story["uuid"].as_str().expect("uuid");
    let dirty = r#"<img src=x onerror="alert(document.cookie)"><script>alert(1)</script><a href="javascript:alert(2)">x</a> <i>fine</i>"#;
    let stored = server
        .post(
            "/v3/note-comment/root",
            &json!({"comment": dirty, "reference": uuid}),
        )
        .expect(200)
        .body;
    let comment = stored["items"][0]["comment"].as_str().expect("comment");
    for bad in ["onerror", "<script", "javascript:", "alert("] {
        assert!(!comment.contains(bad), "{bad} survived: {comment}");
    }
    assert!(comment.contains("<i>fine</i>"));
    let assignment = server
        .post("/v3/assignment", &json!({"title": "Interview"}))
        .expect(200)
        .body[0]
        .clone();
    let stored = server
        .post(
            &format!(
                "/v3/assignment-comment/{}",
                assignment["uuid"].as_str().expect("uuid")
            ),
            &json!({"comment": dirty}),
        )
        .expect(200)
        .body;
    let comment = stored["comment"].as_str().expect("comment");
    assert!(
        !comment.contains("onerror")
            && !comment.contains("<script")
            && !comment.contains("javascript:")
    );
    server
        .post(
            "/v3/note-comment/root",
            &json!({"comment": "<script>alert(1)</script>", "reference": uuid}),
        )
        .expect_error(400, "invalid_request");
}

#[test]
fn bad_note_comments() {
    let server = TestServer::start();
    let story = server
        .post("/v3/content", &json!({"title": "S", "type": "article"}))
        .expect(200)
        .body;
    let uuid = story["uuid"].as_str().expect("uuid");
    let reply = server
        .post("/v3/note-comment/root", &json!({"reference": uuid}))
        .expect_error(400, "invalid_request");
    assert_eq!(reply.body["field"], "comment");
    let reply = server
        .post("/v3/note-comment/root", &json!({"comment": "x"}))
        .expect_error(400, "invalid_request");
    assert_eq!(reply.body["field"], "reference");
    server
        .post(
            "/v3/note-comment/root",
            &json!({"comment": "x", "reference": uuid, "version": "v1"}),
        )
        .expect_error(400, "invalid_request");
    server
        .post(
            "/v3/note-comment/00000000-0000-4000-8000-000000000000",
            &json!({"comment": "x", "reference": uuid}),
        )
        .expect_error(404, "not_found");
    let root = server
        .post(
            "/v3/note-comment/root",
            &json!({"comment": "x", "reference": uuid}),
        )
        .expect(200)
        .body;
    let other = "11111111-0000-4000-8000-000000000000";
    server
        .post(
            &format!(
                "/v3/note-comment/{}",
                root["items"][0]["uuid"].as_str().expect("uuid")
            ),
            &json!({"comment": "y", "reference": other}),
        )
        .expect_error(400, "invalid_request");
    let nobody = server.key("nobody", &[], &[]).token();
    for (method, path, action) in [
        (
            Method::GET,
            format!("/v3/note-comment/{uuid}"),
            "NOTECOMMENT get",
        ),
        (
            Method::POST,
            "/v3/note-comment/root".to_owned(),
            "NOTECOMMENT create",
        ),
        (
            Method::GET,
            "/v3/assignment-comment/x".to_owned(),
            "ASSIGNMENTCOMMENT list",
        ),
        (
            Method::POST,
            "/v3/assignment-comment/x".to_owned(),
            "ASSIGNMENTCOMMENT create",
        ),
        (Method::GET, "/v3/assignment".to_owned(), "ASSIGNMENT list"),
        (Method::GET, "/v3/assignment/x".to_owned(), "ASSIGNMENT get"),
        (
            Method::POST,
            "/v3/assignment".to_owned(),
            "ASSIGNMENT create",
        ),
        (
            Method::PUT,
            "/v3/assignment/x".to_owned(),
            "ASSIGNMENT update",
        ),
        (
            Method::DELETE,
            "/v3/assignment/x".to_owned(),
            "ASSIGNMENT delete",
        ),
    ] {
        let reply = server.call(method, &path, Some(&nobody), Some(&json!({"comment": "x"})));
        assert!(
            reply
                .expect_error(401, "forbidden_action")
                .message()
                .contains(action),
            "{path}"
        );
    }
}

#[test]
fn assignments_and_their_comments() {
    let server = TestServer::start();
    let anna = server.key("anna", &["journalist"], &[]);
    let story = server
        .post("/v3/content", &json!({"title": "S", "type": "article"}))
        .expect(200)
        .body;
    let created = server
        .post(
            "/v3/assignment",
            &json!({"title": "Interview the mayor", "description": "Before Friday", "due_at": "2026-12-01 12:00:00",
                    "assignee_id": anna.user_uuid, "content_id": story["id"]}),
        )
        .expect(200)
        .body;
    let assignment = &created[0];
    assert_shape(
        assignment,
        &[
            ("id", "string"),
            ("uuid", "string"),
            ("title", "string"),
            ("description", "string"),
            ("due_at", "string|null"),
            ("assignee_id", "string|null"),
            ("content_id", "string|null"),
            ("created_at", "string"),
            ("modified_at", "string"),
            ("srn", "string"),
            ("assignee", "object|null"),
        ],
    );
    assert_eq!(assignment["assignee"]["name"], "anna");
    assert_eq!(assignment["content_id"], story["id"]);
    let story_now = server
        .get(&format!(
            "/v3/content/{}",
            story["uuid"].as_str().expect("uuid")
        ))
        .expect(200)
        .body;
    assert_eq!(story_now["assignment_id"], assignment["id"]);
    let uuid = assignment["uuid"].as_str().expect("uuid");
    assert_eq!(
        server
            .get(&format!("/v3/assignment/{uuid}"))
            .expect(200)
            .body,
        created
    );
    // The id a content item names finds it too (the editor goes that way).
    let by_id = story_now["assignment_id"].as_str().expect("assignment_id");
    assert_eq!(
        server
            .get(&format!("/v3/assignment/{by_id}"))
            .expect(200)
            .body,
        created
    );
    server.get("/v3/assignment/987654").expect(404);
    assert_eq!(
        server.get("/v3/assignment").expect(200).body["total_items"],
        1
    );

    let comment = server
        .call(
            Method::POST,
            &format!("/v3/assignment-comment/{uuid}"),
            Some(&anna.token()),
            Some(&json!({"comment": "On it"})),
        )
        .expect(200)
        .body;
    assert_shape(
        &comment,
        &[
            ("id", "string"),
            ("uuid", "string"),
            ("user_id", "string|null"),
            ("assignment_id", "string"),
            ("comment", "string"),
            ("created_at", "string"),
            ("user", "object"),
        ],
    );
    assert_eq!(
        comment["user"]["name"], "anna",
        "attributed to the token's user"
    );
    assert!(comment["user"]["avatar"].is_string());
    server
        .post(
            &format!("/v3/assignment-comment/{uuid}"),
            &json!({"comment": "Thanks"}),
        )
        .expect(200);
    let list = server
        .get(&format!("/v3/assignment-comment/{uuid}"))
        .expect(200)
        .body;
    let texts: Vec<&str> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|c| c["comment"].as_str())
        .collect();
    assert_eq!(texts, ["On it", "Thanks"]);

    let updated = server
        .put(
            &format!("/v3/assignment/{uuid}"),
            &json!({"due_at": null, "title": "Interview"}),
        )
        .expect(200)
        .body;
    assert!(updated[0]["due_at"].is_null());
    assert_eq!(updated[0]["description"], "Before Friday");
    server
        .post(
            "/v3/assignment",
            &json!({"title": "x", "due_at": "someday"}),
        )
        .expect_error(400, "invalid_request");
    server
        .post("/v3/assignment", &json!({"description": "no title"}))
        .expect_error(400, "invalid_request");
    server
        .post("/v3/assignment", &json!({"title": "x", "assignee_id": 999}))
        .expect_error(404, "not_found");
    server
        .get("/v3/assignment-comment/00000000-0000-4000-8000-000000000000")
        .expect_error(404, "not_found");
    server
        .post(
            "/v3/assignment-comment/00000000-0000-4000-8000-000000000000",
            &json!({"comment": "x"}),
        )
        .expect_error(404, "not_found");
    server
        .post(&format!("/v3/assignment-comment/{uuid}"), &json!({}))
        .expect_error(400, "invalid_request");
    server.delete(&format!("/v3/assignment/{uuid}")).expect(200);
    let story_now = server
        .get(&format!(
            "/v3/content/{}",
            story["uuid"].as_str().expect("uuid")
        ))
        .expect(200)
        .body;
    assert!(story_now["assignment_id"].is_null());
}

#[test]
fn a_storys_notes_are_listed_open_resolved_and_with_their_words_deleted() {
    const OPEN: &str = "1b2c3d4e-0000-4000-8000-00000000000a";
    const RESOLVED: &str = "1b2c3d4e-0000-4000-8000-00000000000b";
    const DELETED: &str = "1b2c3d4e-0000-4000-8000-00000000000c";
    let server = TestServer::start();
    let story = server
        .post(
            "/v3/content",
            &json!({"title": "Fees", "type": "article", "content": format!(
                "<p><span data-notes=\"{OPEN}\">Fees</span> rise \
                 <span data-notes=\"{DELETED}\">six per cent</span> in \
                 <span data-resolved-notes=\"{RESOLVED}\">May</span>.</p>"
            )}),
        )
        .expect(200)
        .body;
    let uuid = story["uuid"].as_str().expect("uuid");
    // The next version drops the words of one note.
    server
        .put(
            &format!("/v3/content/{uuid}"),
            &json!({"content": format!(
                "<p><span data-notes=\"{OPEN}\">Fees</span> rise in \
                 <span data-resolved-notes=\"{RESOLVED}\">May</span>.</p>"
            )}),
        )
        .expect(200);
    let listed = server
        .get(&format!("/v3/content/{uuid}/notes"))
        .expect(200)
        .body;
    let notes: Vec<(&str, &str, &str, &str)> = listed["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|n| {
            (
                n["uuid"].as_str().unwrap_or(""),
                n["words"].as_str().unwrap_or(""),
                n["state"].as_str().unwrap_or(""),
                n["version"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        notes,
        [
            (OPEN, "Fees", "open", "2"),
            (RESOLVED, "May", "resolved", "2"),
            (DELETED, "six per cent", "words_deleted", "1"),
        ]
    );
    // Listing reads the story: CONTENT get, in the contract's shape when refused or unknown.
    let outsider = server.key("outsider", &[], &["NOTECOMMENT get"]).token();
    let refused = server.call(
        Method::GET,
        &format!("/v3/content/{uuid}/notes"),
        Some(&outsider),
        None,
    );
    assert!(
        refused
            .expect_error(401, "forbidden_action")
            .message()
            .contains("CONTENT get")
    );
    server
        .get("/v3/content/00000000-0000-4000-8000-000000000000/notes")
        .expect_error(404, "not_found");
}
