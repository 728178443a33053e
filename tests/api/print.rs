//! The print desk: workflows, sections, issues, print documents and their non-exclusive lock.

use copydesk_tests::TestServer;
use reqwest::Method;
use serde_json::{Value, json};

use crate::assert_shape;

fn planning(server: &TestServer) -> (Value, Value, Value) {
    let workflow = server
        .post(
            "/v3/workflow",
            &json!({"name": "Print edition", "is_print": 1, "is_web": false, "priority": "2"}),
        )
        .expect(200)
        .body[0]
        .clone();
    let issue = server
        .post("/v3/issue", &json!({"label": "2026-11-23", "description": "Monday", "published_at": "2026-11-23 05:00:00"}))
        .expect(200)
        .body[0]
        .clone();
    let section = server
        .post(
            "/v3/workflow-section",
            &json!({"name": "Sports", "workflow_id": workflow["id"]}),
        )
        .expect(200)
        .body[0]
        .clone();
    (workflow, issue, section)
}

#[test]
fn planning_records() {
    let server = TestServer::start();
    let (workflow, issue, section) = planning(&server);
    assert_shape(
        &workflow,
        &[
            ("id", "string"),
            ("uuid", "string"),
            ("slug", "string"),
            ("name", "string"),
            ("status", "string"),
            ("is_web", "string"),
            ("is_print", "string"),
            ("priority", "string"),
            ("is_content", "string"),
            ("is_assignment", "string"),
            ("srn", "string"),
        ],
    );
    assert_eq!(
        (
            workflow["is_print"].as_str(),
            workflow["is_web"].as_str(),
            workflow["priority"].as_str()
        ),
        (Some("1"), Some("0"), Some("2"))
    );
    assert_shape(
        &issue,
        &[
            ("id", "string"),
            ("uuid", "string"),
            ("label", "string"),
            ("description", "string"),
            ("status", "string"),
            ("created_at", "string"),
            ("modified_at", "string"),
            ("published_at", "string|null"),
            ("srn", "string"),
            ("decorated_label", "string"),
        ],
    );
    assert!(issue["srn"].as_str().unwrap_or("").contains("/issue:"));
    assert_eq!(section["workflow_id"], workflow["id"]);
    for (path, record) in [
        ("workflow", &workflow),
        ("issue", &issue),
        ("workflow-section", &section),
    ] {
        let got = server
            .get(&format!(
                "/v3/{path}/{}",
                record["uuid"].as_str().expect("uuid")
            ))
            .expect(200)
            .body;
        assert_eq!(&got[0], record);
        assert_eq!(
            server.get(&format!("/v3/{path}")).expect(200).body["total_items"],
            1
        );
    }
    server
        .post("/v3/workflow", &json!({"slug": "x"}))
        .expect_error(400, "invalid_request");
    server
        .post("/v3/workflow", &json!({"name": "x", "is_web": "maybe"}))
        .expect_error(400, "invalid_request");
    server
        .post("/v3/issue", &json!({"description": "x"}))
        .expect_error(400, "invalid_request");
    server
        .post(
            "/v3/workflow-section",
            &json!({"name": "x", "workflow_id": 99}),
        )
        .expect_error(404, "not_found");
}

#[test]
fn print_documents_are_tracked() {
    let server = TestServer::start();
    let (workflow, issue, section) = planning(&server);
    let created = server
        .post(
            "/v3/print-document",
            &json!({"label": "Front page.indd", "tracking_label": "Daily/2026-11-23/Front page.indd",
                    "workflow_id": workflow["id"], "issue_id": issue["id"].as_str().expect("id").parse::<i64>().expect("number"),
                    "assignee_id": null, "workflow_section_id": section["id"]}),
        )
        .expect(200)
        .body;
    let doc = &created[0];
    assert_shape(
        doc,
        &[
            ("id", "string"),
            ("uuid", "string"),
            ("label", "string"),
            ("tracking_label", "string"),
            ("issue_id", "string"),
            ("workflow_id", "string"),
            ("print_locked", "string"),
            ("print_locked_user", "string|null"),
            ("created_at", "string"),
            ("modified_at", "string"),
            ("assignee_id", "string"),
            ("workflow_section_id", "string"),
            ("issue", "object"),
            ("workflow", "object"),
        ],
    );
    assert_eq!(doc["tracking_label"], "Daily20261123Frontpageindd");
    assert_eq!(
        doc["tracking_path"], "Daily/2026-11-23/Front page.indd",
        "kept as typed, to show"
    );
    assert_eq!(doc["print_locked"], "0");
    assert!(doc["print_locked_user"].is_null());
    assert_eq!(doc["issue"], issue);
    assert_eq!(doc["workflow"], workflow);
    assert_eq!(doc["assignee_id"], "0");
    let uuid = doc["uuid"].as_str().expect("uuid");
    for identifier in [
        uuid,
        "Daily20261123Frontpageindd",
        "Daily%2F2026-11-23%2FFront%20page.indd",
    ] {
        let got = server
            .get(&format!("/v3/print-document/{identifier}"))
            .expect(200)
            .body;
        assert_eq!(&got[0]["uuid"], uuid, "{identifier}");
    }
    server
        .get("/v3/print-document/NoSuchLabel")
        .expect_error(404, "not_found");
    let reply = server
        .post(
            "/v3/print-document",
            &json!({"label": "Copy", "tracking_label": "daily 20261123 Front-page.indd"}),
        )
        .expect_error(409, "conflict");
    assert_eq!(
        reply.body["field"], "tracking_label",
        "labels differ only in case"
    );
    server
        .post(
            "/v3/print-document",
            &json!({"label": "Copy", "tracking_label": "Daily/2026-11-23/Front page.indd"}),
        )
        .expect_error(409, "conflict");
    assert_eq!(
        server
            .post("/v3/print-document", &json!({"tracking_label": "x"}))
            .expect_error(400, "invalid_request")
            .body["field"],
        "label"
    );
    assert_eq!(
        server
            .post("/v3/print-document", &json!({"label": "x"}))
            .expect_error(400, "invalid_request")
            .body["field"],
        "tracking_label"
    );
    server
        .post(
            "/v3/print-document",
            &json!({"label": "x", "tracking_label": "--"}),
        )
        .expect_error(400, "invalid_request");
    server
        .post(
            "/v3/print-document",
            &json!({"label": "x", "tracking_label": "y", "workflow_id": 77}),
        )
        .expect_error(404, "not_found");

    let updated = server
        .put(
            &format!("/v3/print-document/{uuid}"),
            &json!({"label": "Front page v2.indd", "workflow_section_id": 0}),
        )
        .expect(200)
        .body;
    assert_eq!(updated[0]["label"], "Front page v2.indd");
    assert_eq!(updated[0]["workflow_section_id"], "0");
    assert_eq!(updated[0]["tracking_label"], "Daily20261123Frontpageindd");
    // Changing only the case of its own label is no conflict with itself.
    let recased = server
        .put(
            &format!("/v3/print-document/{uuid}"),
            &json!({"tracking_label": "DAILY20261123FRONTPAGEINDD"}),
        )
        .expect(200)
        .body;
    assert_eq!(recased[0]["tracking_label"], "DAILY20261123FRONTPAGEINDD");
    let other = server
        .post(
            "/v3/print-document",
            &json!({"label": "Back", "tracking_label": "Back"}),
        )
        .expect(200)
        .body[0]
        .clone();
    server
        .put(
            &format!(
                "/v3/print-document/{}",
                other["uuid"].as_str().expect("uuid")
            ),
            &json!({"tracking_label": "daily20261123frontpageindd"}),
        )
        .expect_error(409, "conflict");
    let list = server.get("/v3/print-document").expect(200).body;
    assert_eq!(list["total_items"], 2);
    assert_eq!(list["limit"], 50);
}

#[test]
fn the_print_lock_marks_who_has_it_out() {
    let server = TestServer::start();
    let anna_key = server.key("anna", &["printdesk"], &[]);
    let anna = anna_key.token();
    let bert = server.key("bert", &["printdesk"], &[]).token();
    let chief_key = server.key("chief", &["printdesk"], &["PRINTDOCUMENT passThruLock"]);
    let chief = chief_key.token();
    let doc = server
        .post(
            "/v3/print-document",
            &json!({"label": "P1", "tracking_label": "P1"}),
        )
        .expect(200)
        .body[0]
        .clone();
    let uuid = doc["uuid"].as_str().expect("uuid");
    let lock = format!("/v3/print-document/{uuid}/lock");

    let locked = server
        .call(Method::POST, &lock, Some(&anna), None)
        .expect(200)
        .body;
    assert_eq!(locked["print_locked"], "1");
    assert_eq!(locked["print_locked_user"], anna_key.user_uuid.as_str());
    // Locking again is harmless; someone else cannot take it or remove it.
    server
        .call(Method::POST, &lock, Some(&anna), Some(&json!({})))
        .expect(200);
    server
        .call(Method::POST, &lock, Some(&bert), None)
        .expect_error(409, "locked");
    server
        .call(Method::DELETE, &lock, Some(&bert), None)
        .expect_error(409, "locked");
    // The lock blocks no write.
    server
        .call(
            Method::PUT,
            &format!("/v3/print-document/{uuid}"),
            Some(&bert),
            Some(&json!({"label": "P1 by bert"})),
        )
        .expect(200);
    // on_behalf_of needs passThruLock.
    let reply = server
        .call(
            Method::POST,
            &lock,
            Some(&bert),
            Some(&json!({"on_behalf_of": anna_key.user_uuid})),
        )
        .expect_error(401, "forbidden_action");
    assert!(reply.message().contains("PRINTDOCUMENT passThruLock"));
    // The chief takes it over for himself, then forces it open.
    let taken = server
        .call(Method::POST, &lock, Some(&chief), None)
        .expect(200)
        .body;
    assert_eq!(taken["print_locked_user"], chief_key.user_uuid.as_str());
    server
        .call(Method::POST, &lock, Some(&anna), None)
        .expect_error(409, "locked");
    let onbehalf = server
        .call(
            Method::POST,
            &lock,
            Some(&chief),
            Some(&json!({"on_behalf_of": anna_key.user_uuid})),
        )
        .expect(200)
        .body;
    assert_eq!(onbehalf["print_locked_user"], anna_key.user_uuid.as_str());
    let opened = server
        .call(Method::DELETE, &lock, Some(&chief), None)
        .expect(200)
        .body;
    assert_eq!(opened["print_locked"], "0");
    assert!(opened["print_locked_user"].is_null());
    let actions: Vec<String> = opened["audit"]
        .as_array()
        .expect("audit")
        .iter()
        .map(|a| {
            format!(
                "{} by {}",
                a["action"].as_str().unwrap_or(""),
                a["user_name"].as_str().unwrap_or("")
            )
        })
        .collect();
    for expected in [
        "lock by anna",
        "update by bert",
        "lock takeover by chief",
        "forced unlock by chief",
    ] {
        assert!(
            actions.contains(&expected.to_owned()),
            "{expected} in {actions:?}"
        );
    }
    // The holder removes their own lock.
    server
        .call(Method::POST, &lock, Some(&bert), None)
        .expect(200);
    server
        .call(Method::DELETE, &lock, Some(&bert), None)
        .expect(200);
    server
        .call(
            Method::POST,
            &lock,
            Some(&chief),
            Some(&json!({"on_behalf_of": "00000000-0000-4000-8000-000000000000"})),
        )
        .expect_error(404, "not_found");
    server
        .call(
            Method::POST,
            "/v3/print-document/00000000-0000-4000-8000-000000000000/lock",
            Some(&anna),
            None,
        )
        .expect_error(404, "not_found");
}

#[test]
fn print_desk_actions() {
    let server = TestServer::start();
    let nobody = server.key("nobody", &[], &[]).token();
    for (method, path, action) in [
        (Method::GET, "/v3/print-document", "PRINTDOCUMENT get"),
        (Method::POST, "/v3/print-document", "PRINTDOCUMENT create"),
        (Method::GET, "/v3/print-document/x", "PRINTDOCUMENT create"),
        (Method::PUT, "/v3/print-document/x", "PRINTDOCUMENT update"),
        (
            Method::POST,
            "/v3/print-document/x/lock",
            "PRINTDOCUMENT update",
        ),
        (
            Method::DELETE,
            "/v3/print-document/x/lock",
            "PRINTDOCUMENT update",
        ),
        (Method::GET, "/v3/workflow", "WORKFLOW list"),
        (Method::GET, "/v3/workflow/x", "WORKFLOW get"),
        (Method::POST, "/v3/workflow", "WORKFLOW create"),
        (Method::GET, "/v3/workflow-section", "WORKFLOWSECTION list"),
        (Method::GET, "/v3/workflow-section/x", "WORKFLOWSECTION get"),
        (
            Method::POST,
            "/v3/workflow-section",
            "WORKFLOWSECTION create",
        ),
        (Method::GET, "/v3/issue", "ISSUE list"),
        (Method::GET, "/v3/issue/x", "ISSUE get"),
        (Method::POST, "/v3/issue", "ISSUE create"),
    ] {
        let reply = server.call(method, path, Some(&nobody), Some(&json!({"label": "x"})));
        assert!(
            reply
                .expect_error(401, "forbidden_action")
                .message()
                .contains(action),
            "{path} needs {action}"
        );
    }
}
