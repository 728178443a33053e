//! Sync with a key that may not read everything: a replica takes what its
//! key may read, skips the rest without stalling (the cursor moves on), says
//! in its status what it does not receive and for want of which action, and
//! fetches it once the key may read it. Checked against every role `key
//! create --role` grants, on a central server holding every synced type.

use std::collections::{BTreeMap, BTreeSet};

use copydesk_tests::{KeyPair, TestServer};
use reqwest::Method;
use serde_json::{Value, json};

use super::sync;

/// What each synced type needs to be read through the `/v3` service, in the
/// order the reads ask for it: the first one a key lacks is the one a
/// replica names.
const READ_ACTIONS: &[(&str, &[&str])] = &[
    ("author", &["AUTHOR get"]),
    ("tag", &["TAG get"]),
    ("content", &["CONTENT get"]),
    ("assignment", &["ASSIGNMENT get"]),
    ("container", &["CONTAINER get"]),
    ("workflow", &["WORKFLOW get"]),
    ("issue", &["ISSUE get"]),
    // Reading one print document needs "create" (api-v3.md: "as stated").
    ("print_document", &["PRINTDOCUMENT create"]),
    ("attachment", &["CONTENT get"]),
    ("note_comment", &["NOTECOMMENT get", "CONTENT get"]),
    (
        "assignment_comment",
        &["ASSIGNMENTCOMMENT list", "ASSIGNMENT get"],
    ),
    ("draft", &["CONTENT get", "DRAFT list"]),
];

/// The record's UUID (an answer holding one record in an array counts as that record).
fn uuid(record: &Value) -> String {
    let record = if record.is_array() {
        &record[0]
    } else {
        record
    };
    record["uuid"]
        .as_str()
        .unwrap_or_else(|| panic!("no uuid in {record}"))
        .to_owned()
}

/// One record of every synced type on a central server, with its references.
struct Newsroom {
    author: String,
    tag: String,
    story: String,
    story_srn: String,
    photo: String,
    photo_sha: String,
    container: String,
    assignment: String,
    workflow: String,
    issue: String,
    print_document: String,
}

impl Newsroom {
    /// Makes them on `central` as its admin: a story with its author, tag,
    /// draft and a note thread (a note and a reply), a photo with its file,
    /// a container, an assignment with a comment, a workflow, an issue, a
    /// print document in both with its print lock taken, and the story's
    /// export (exports do not travel; the feed names them all the same).
    fn on(central: &TestServer) -> Self {
        let author = uuid(
            &central
                .post("/v3/author", &json!({"name": "Ann Court"}))
                .expect(200)
                .body,
        );
        let tag = uuid(
            &central
                .post("/v3/tag", &json!({"name": "Flood"}))
                .expect(200)
                .body,
        );
        let story = central
            .post(
                "/v3/content",
                &json!({"title": "Dam holds", "type": "article", "content": "<p>Holding</p>",
                        "authors": [author], "tags": [tag]}),
            )
            .expect(200)
            .body;
        let story_srn = story["srn"].as_str().expect("an srn").to_owned();
        let story = uuid(&story);
        central
            .post(
                &format!("/v3/draft?content={story_srn}"),
                &json!({"content": "<p>Holding, in the admin's own draft</p>", "content_raw": json!({
                    "entityMap": {}, "blocks": [{"key": "a1", "text": "Holding, in the admin's own draft",
                    "type": "unstyled", "depth": 0, "inlineStyleRanges": [], "entityRanges": [],
                    "data": {}}]}).to_string()}),
            )
            .expect(200);
        let note = central
            .post(
                "/v3/note-comment/root",
                &json!({"comment": "<p>Check the level</p>", "reference": story}),
            )
            .expect(200)
            .body["items"][0]
            .clone();
        central
            .post(
                &format!("/v3/note-comment/{}", uuid(&note)),
                &json!({"comment": "<p>Checked: 4.2 m</p>", "reference": story}),
            )
            .expect(200);
        let photo = central
            .post(
                "/v3/content",
                &json!({"title": "Dam photo", "type": "media", "attachment": {
                    "name": "dam.png", "file": copydesk_tests::png_base64(40, 30)}}),
            )
            .expect(200)
            .body;
        let photo_sha = photo["attachment"]["sha256"]
            .as_str()
            .expect("a file")
            .to_owned();
        let photo = uuid(&photo);
        let container = uuid(
            &central
                .post(
                    "/v3/container",
                    &json!({"title": "Flood front", "type": "manual",
                            "content": [story, photo]}),
                )
                .expect(200)
                .body,
        );
        let assignment = uuid(
            &central
                .post(
                    "/v3/assignment",
                    &json!({"title": "Follow the dam", "content_id": story}),
                )
                .expect(200)
                .body,
        );
        central
            .post(
                &format!("/v3/assignment-comment/{assignment}"),
                &json!({"comment": "<p>Call the engineer</p>"}),
            )
            .expect(200);
        let workflow = uuid(
            &central
                .post(
                    "/v3/workflow",
                    &json!({"name": "Print run", "slug": "print-run"}),
                )
                .expect(200)
                .body,
        );
        let issue = uuid(
            &central
                .post("/v3/issue", &json!({"label": "Monday 23 November"}))
                .expect(200)
                .body,
        );
        let print_document = uuid(
            &central
                .post(
                    "/v3/print-document",
                    &json!({"label": "Front page", "tracking_label": "monday/front.indd",
                            "workflow_id": workflow, "issue_id": issue}),
                )
                .expect(200)
                .body,
        );
        central
            .post(
                &format!("/v3/print-document/{print_document}/lock"),
                &json!({}),
            )
            .expect(200);
        central
            .put(
                &format!("/v3/export/{story}"),
                &json!({"content": "<p>Holding</p>"}),
            )
            .expect(200);
        Self {
            author,
            tag,
            story,
            story_srn,
            photo,
            photo_sha,
            container,
            assignment,
            workflow,
            issue,
            print_document,
        }
    }

    /// Whether `replica` holds the record of `kind`, whole (a thread with
    /// both its notes, the photo with its file, the story's last draft).
    fn held(&self, replica: &TestServer, kind: &str) -> bool {
        let found = |path: &str| {
            let reply = replica.get(path);
            (reply.status == 200).then_some(reply.body)
        };
        match kind {
            "author" => found(&format!("/v3/author/{}", self.author)).is_some(),
            "tag" => found(&format!("/v3/tag/{}", self.tag)).is_some(),
            "content" => found(&format!("/v3/content/{}", self.story)).is_some(),
            "assignment" => found(&format!("/v3/assignment/{}", self.assignment)).is_some(),
            "container" => found(&format!("/v3/container/{}", self.container)).is_some(),
            "workflow" => found(&format!("/v3/workflow/{}", self.workflow)).is_some(),
            "issue" => found(&format!("/v3/issue/{}", self.issue)).is_some(),
            "print_document" => {
                found(&format!("/v3/print-document/{}", self.print_document)).is_some()
            }
            "attachment" => found(&format!("/v3/content/{}", self.photo))
                .is_some_and(|photo| photo["attachment"]["sha256"] == self.photo_sha.as_str()),
            "note_comment" => found(&format!("/v3/note-comment/{}", self.story))
                .is_some_and(|thread| thread["items"].as_array().map_or(0, Vec::len) == 2),
            "assignment_comment" => found(&format!("/v3/assignment-comment/{}", self.assignment))
                .is_some_and(|comments| comments["items"].as_array().map_or(0, Vec::len) == 1),
            // A draft is its writer's: only the key's own comes, never the admin's.
            "draft" => {
                found(&format!("/v3/draft?content={}", self.story_srn)).is_some_and(|drafts| {
                    assert!(!drafts.to_string().contains("admin's own"), "{drafts}");
                    drafts.to_string().contains("say engineers")
                })
            }
            other => panic!("no check for {other}"),
        }
    }

    /// Checks that the references of what `replica` holds point at what it holds.
    fn check_links(&self, replica: &TestServer, role: &str) {
        if let Some(story) = Some(replica.get(&format!("/v3/content/{}", self.story)))
            .filter(|reply| reply.status == 200)
            .map(|reply| reply.body)
        {
            assert_eq!(story["authors"][0]["uuid"], self.author.as_str(), "{role}");
            assert_eq!(story["tags"][0]["uuid"], self.tag.as_str(), "{role}");
        }
        let document = replica.get(&format!("/v3/print-document/{}", self.print_document));
        if document.status == 200 {
            assert_eq!(
                document.body[0]["workflow"]["uuid"],
                self.workflow.as_str(),
                "{role}"
            );
            assert_eq!(
                document.body[0]["issue"]["uuid"],
                self.issue.as_str(),
                "{role}"
            );
        }
    }
}

/// The access actions `key` holds on `central`, as the server itself says.
fn actions_of(central: &TestServer, key: &KeyPair) -> BTreeSet<String> {
    let me = central
        .call(Method::GET, "/v3/me", Some(&key.token()), None)
        .expect(200)
        .body;
    me["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .filter_map(|a| a.as_str().map(str::to_owned))
        .collect()
}

/// Per type, the action a key holding `actions` lacks to read it (`None`: it may).
fn missing_per_type(actions: &BTreeSet<String>) -> BTreeMap<&'static str, Option<&'static str>> {
    READ_ACTIONS
        .iter()
        .map(|(kind, needs)| {
            (
                *kind,
                needs.iter().copied().find(|need| !actions.contains(*need)),
            )
        })
        .collect()
}

/// What the replica's status says it does not receive: type → (action, count).
fn not_readable(status: &Value) -> BTreeMap<String, (String, Value)> {
    status["not_readable"]
        .as_array()
        .unwrap_or_else(|| panic!("no not_readable in {status}"))
        .iter()
        .map(|entry| {
            let kind = entry["record_type"].as_str().expect("a type").to_owned();
            assert!(
                entry["label"].as_str().is_some_and(|l| !l.is_empty()),
                "{entry}"
            );
            (
                kind,
                (
                    entry["action"].as_str().expect("an action").to_owned(),
                    entry["count"].clone(),
                ),
            )
        })
        .collect()
}

#[test]
fn every_role_receives_what_it_may_read_and_is_told_what_it_may_not() {
    let central = TestServer::start();
    let newsroom = Newsroom::on(&central);
    let mut unreadable_somewhere = 0;
    for role in ["journalist", "editor", "printdesk", "reader"] {
        let key = central.key(&format!("{role} laptop"), &[role], &[]);
        let actions = actions_of(&central, &key);
        let mut missing = missing_per_type(&actions);
        // The person's own draft, typed on the server from another computer:
        // the only draft the key is answered. One who may not write drafts has none.
        if actions.contains("DRAFT create") {
            central
                .call(
                    Method::POST,
                    &format!("/v3/draft?content={}", newsroom.story_srn),
                    Some(&key.token()),
                    Some(
                        &json!({"content": "<p>Holding, say engineers</p>", "content_raw": json!({
                        "entityMap": {}, "blocks": [{"key": "a1", "text": "Holding, say engineers",
                        "type": "unstyled", "depth": 0, "inlineStyleRanges": [], "entityRanges": [],
                        "data": {}}]}).to_string()}),
                    ),
                )
                .expect(200);
        } else {
            missing.remove("draft");
        }
        let replica = TestServer::start_replica();
        let (ok, out) = sync(&replica, &central.base, &key);
        assert!(
            ok,
            "{role}: the sync never stalls on what it may not read: {out}"
        );
        for (kind, lacks) in &missing {
            assert_eq!(
                newsroom.held(&replica, kind),
                lacks.is_none(),
                "{role}: {kind} (lacks {lacks:?}); sync said {out}"
            );
        }
        if !actions.contains("DRAFT create") {
            assert!(
                !newsroom.held(&replica, "draft"),
                "{role}: another's draft came"
            );
        }
        newsroom.check_links(&replica, role);

        let status = replica.get("/v3/sync/status").expect(200).body;
        let expected: BTreeMap<String, String> = missing
            .iter()
            .filter_map(|(kind, lacks)| lacks.map(|a| ((*kind).to_owned(), a.to_owned())))
            .collect();
        unreadable_somewhere += expected.len();
        let named = not_readable(&status);
        assert_eq!(
            named
                .iter()
                .map(|(kind, (action, _))| (kind.clone(), action.clone()))
                .collect::<BTreeMap<_, _>>(),
            expected,
            "{role}: {status}"
        );
        for (kind, (action, count)) in &named {
            assert_eq!(count, "1", "{role}: one {kind} not read for {action}");
            assert!(
                out.contains(action.as_str()),
                "{role}: the summary names {action}: {out}"
            );
        }
        assert_eq!(status["online"], true, "{role}: {status}");
        assert_eq!(status["last_error"], Value::Null, "{role}: {status}");
        assert!(status["last_sync_at"].is_string(), "{role}: {status}");

        // Again: nothing stalls, nothing arrives twice, the same is named.
        let (ok, out) = sync(&replica, &central.base, &key);
        assert!(ok && out.contains("pulled 0"), "{role}: {out}");
        let again = replica.get("/v3/sync/status").expect(200).body;
        assert_eq!(not_readable(&again), named, "{role}");
    }
    // The journalist's, the editor's and the reader's keys lack what reading
    // a print document needs: the case the roles must cover.
    assert_eq!(unreadable_somewhere, 3);
    // The central server syncs with nobody: nothing is unread, nothing failed.
    let own = central.get("/v3/sync/status").expect(200).body;
    assert_eq!(
        (&own["not_readable"], &own["last_error"], &own["online"]),
        (&json!([]), &Value::Null, &json!(true)),
        "{own}"
    );
}

#[test]
fn a_journalists_edit_goes_up_while_print_documents_stay_unread_until_granted() {
    let central = TestServer::start();
    let newsroom = Newsroom::on(&central);
    let key = central.key("Jo", &["journalist"], &[]);
    let replica = TestServer::start_replica();
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");
    assert!(
        out.contains("print documents (1, needs PRINTDOCUMENT create)"),
        "{out}"
    );
    let first_good = replica.get("/v3/sync/status").expect(200).body["last_sync_at"].clone();

    // An edit made on the laptop goes up in the next round, print documents or not.
    replica
        .put(
            &format!("/v3/content/{}", newsroom.story),
            &json!({"title": "Dam holds, engineers say"}),
        )
        .expect(200);
    // And one it may not make (publishing needs "CONTENT publish"): set
    // aside as needing attention, without holding back the other.
    replica
        .put(
            &format!("/v3/content/{}", newsroom.photo),
            &json!({"published_at": "2026-11-23 06:00:00"}),
        )
        .expect(200);
    assert_eq!(
        replica.get("/v3/sync/status").expect(200).body["pending"],
        "2"
    );
    // The desk tracks another print document and edits the story's abstract meanwhile.
    central
        .post(
            "/v3/print-document",
            &json!({"label": "Page 2", "tracking_label": "monday/p2.indd",
                    "workflow_id": newsroom.workflow, "issue_id": newsroom.issue}),
        )
        .expect(200);
    central
        .put(
            &format!("/v3/content/{}", newsroom.story),
            &json!({"abstract": "Water at 4.2 m"}),
        )
        .expect(200);
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(
        ok && out.contains("pushed 1") && out.contains("needs attention 1"),
        "{out}"
    );
    let there = central
        .get(&format!("/v3/content/{}", newsroom.story))
        .expect(200)
        .body;
    assert_eq!(there["title"], "Dam holds, engineers say");
    let here = replica
        .get(&format!("/v3/content/{}", newsroom.story))
        .expect(200)
        .body;
    assert_eq!(here["abstract"], "Water at 4.2 m", "the feed went on");
    let status = replica.get("/v3/sync/status").expect(200).body;
    assert_eq!(status["pending"], "0", "{status}");
    assert_eq!(status["needs_attention"], "1", "{status}");
    assert_eq!(
        not_readable(&status)["print_document"],
        ("PRINTDOCUMENT create".to_owned(), json!("2"))
    );

    // A round that fails is never a good sync: the status says why, and when the last good one was.
    let mut forged = key.clone();
    forged.private_key = "0".repeat(64);
    let (ok, out) = sync(&replica, &central.base, &forged);
    assert!(!ok, "{out}");
    let failed = replica.get("/v3/sync/status").expect(200).body;
    assert!(
        failed["last_error"]
            .as_str()
            .is_some_and(|e| e.contains("token_invalid")),
        "{failed}"
    );
    assert!(failed["last_error_at"].is_string(), "{failed}");
    assert_eq!(failed["online"], true, "it reached the server: {failed}");
    assert_ne!(failed["last_sync_at"], Value::Null);
    assert!(
        failed["last_sync_at"].as_str() >= first_good.as_str(),
        "{failed}"
    );

    // The desk grants the journalist what reading a print document needs:
    // both arrive at the next round, with their workflow and issue.
    central.key("Jo", &[], &["PRINTDOCUMENT create"]);
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok && !out.contains("not readable"), "{out}");
    let documents = replica.get("/v3/print-document").expect(200).body;
    assert_eq!(documents["total_items"], 2, "{documents}");
    newsroom.check_links(&replica, "journalist");
    let status = replica.get("/v3/sync/status").expect(200).body;
    assert_eq!(status["not_readable"], json!([]), "{status}");
    assert_eq!(status["last_error"], Value::Null, "{status}");
}

/// A key that may read stories but not their authors, nor assignments: a
/// story arrives without the link, the assignment's comment waits with its
/// assignment, a local edit of the story never unlinks the author on the
/// server, and everything is linked once the key may read it.
#[test]
fn what_refers_to_an_unreadable_record_waits_or_keeps_the_link() {
    let central = TestServer::start();
    let newsroom = Newsroom::on(&central);
    let mut actions: Vec<String> =
        actions_of(&central, &central.key("probe", &["journalist"], &[]))
            .into_iter()
            .filter(|a| !a.starts_with("AUTHOR ") && !a.starts_with("ASSIGNMENT "))
            .collect();
    actions.sort();
    let actions: Vec<&str> = actions.iter().map(String::as_str).collect();
    let key = central.key("Sam", &[], &actions);
    let replica = TestServer::start_replica();
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");
    let status = replica.get("/v3/sync/status").expect(200).body;
    let named = not_readable(&status);
    assert_eq!(
        named["author"],
        ("AUTHOR get".to_owned(), json!("1")),
        "{status}"
    );
    assert_eq!(
        named["assignment"],
        ("ASSIGNMENT get".to_owned(), json!("1"))
    );
    assert_eq!(
        named["assignment_comment"],
        ("ASSIGNMENT get".to_owned(), json!("1")),
        "a comment waits with its assignment"
    );
    let story = replica
        .get(&format!("/v3/content/{}", newsroom.story))
        .expect(200)
        .body;
    assert_eq!(story["authors"], json!([]), "{story}");
    assert_eq!(story["tags"][0]["uuid"], newsroom.tag.as_str());

    // An edit here sends the title, and leaves the author it could not see.
    replica
        .put(
            &format!("/v3/content/{}", newsroom.story),
            &json!({"title": "Dam holds for now"}),
        )
        .expect(200);
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok && out.contains("pushed 1"), "{out}");
    let there = central
        .get(&format!("/v3/content/{}", newsroom.story))
        .expect(200)
        .body;
    assert_eq!(there["title"], "Dam holds for now");
    assert_eq!(
        there["authors"][0]["uuid"],
        newsroom.author.as_str(),
        "{there}"
    );

    // Granted, the author, the assignment and its comment arrive and are linked.
    central.key("Sam", &[], &["AUTHOR get", "ASSIGNMENT get"]);
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");
    for kind in ["author", "assignment", "assignment_comment", "content"] {
        assert!(newsroom.held(&replica, kind), "{kind}");
    }
    newsroom.check_links(&replica, "after the grant");
    let assignment = replica
        .get(&format!("/v3/assignment/{}", newsroom.assignment))
        .expect(200)
        .body;
    assert_eq!(
        assignment[0]["content_uuid"],
        newsroom.story.as_str(),
        "{assignment}"
    );
    let status = replica.get("/v3/sync/status").expect(200).body;
    assert_eq!(
        not_readable(&status).into_keys().collect::<Vec<_>>(),
        ["print_document"],
        "as for any journalist: {status}"
    );
    assert_eq!(status["pending"], "0", "relinking is not an edit: {status}");
}

/// A plain remote lists each type: one the key may not list is named with
/// no count (the listing said nothing), and what was here of it stays.
#[test]
fn a_plain_remote_names_a_type_it_would_not_list() {
    let central = TestServer::start_with(&["--plain"]);
    let newsroom = Newsroom::on(&central);
    let key = central.key("Pat", &["journalist"], &[]);
    let replica = TestServer::start_replica();
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");
    // Listed, print documents are read by a journalist too (PRINTDOCUMENT get).
    assert!(newsroom.held(&replica, "print_document"));
    let mut actions: Vec<String> = actions_of(&central, &key)
        .into_iter()
        .filter(|a| a != "TAG list")
        .collect();
    actions.sort();
    let actions: Vec<&str> = actions.iter().map(String::as_str).collect();
    let narrow = central.key("Pat narrow", &[], &actions);
    let (ok, out) = sync(&replica, &central.base, &narrow);
    assert!(ok, "{out}");
    let status = replica.get("/v3/sync/status").expect(200).body;
    assert_eq!(
        not_readable(&status)["tag"],
        ("TAG list".to_owned(), Value::Null),
        "{status}"
    );
    assert!(
        newsroom.held(&replica, "tag"),
        "a listing refused deletes nothing"
    );
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");
    let status = replica.get("/v3/sync/status").expect(200).body;
    assert_eq!(status["not_readable"], json!([]), "{status}");
}
