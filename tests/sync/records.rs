//! Every kind of record a journalist writes offline reaches the central
//! server with its references intact, and comes back from it: comments and
//! replies, drafts, containers (a gallery's placeholder made once),
//! assignments and their comments, attachments as files.

use base64::Engine as _;
use copydesk_tests::TestServer;
use serde_json::{Value, json};

use super::sync;

/// The record of `kind` titled (or named) `title` on `server`.
fn find(server: &TestServer, kind: &str, title: &str) -> Value {
    let listed = server
        .get(&format!("/v3/{kind}?per_page=100"))
        .expect(200)
        .body;
    listed["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|item| item["title"] == title || item["name"] == title)
        .cloned()
        .unwrap_or_else(|| panic!("no {kind} \"{title}\" on {}: {listed}", server.base))
}

/// A record's UUID (an answer holding one record in an array counts as that record).
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

/// Bytes no compressor shrinks and no chunk holds whole.
fn file_bytes(seed: u8, len: usize) -> Vec<u8> {
    let mut state = u32::from(seed).wrapping_mul(2_654_435_761) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state & 0xff) as u8
        })
        .collect()
}

fn download(server: &TestServer, url: &str) -> Vec<u8> {
    let response = reqwest::blocking::get(server.url(url)).expect("the file");
    assert_eq!(response.status(), 200, "{url}");
    response.bytes().expect("its bytes").to_vec()
}

fn thread(server: &TestServer, content: &str) -> Vec<Value> {
    server
        .get(&format!("/v3/note-comment/{content}"))
        .expect(200)
        .body["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn last_draft(server: &TestServer, content: &Value) -> Value {
    let srn = content["srn"].as_str().expect("an srn");
    server
        .get(&format!("/v3/draft?content={srn}"))
        .expect(200)
        .body[0]
        .clone()
}

fn draft_raw(text: &str) -> String {
    json!({"entityMap": {}, "blocks": [{"key": "a1", "text": text, "type": "unstyled", "depth": 0,
        "inlineStyleRanges": [], "entityRanges": [], "data": {}}]})
    .to_string()
}

#[test]
fn every_kind_of_record_travels_with_its_references() {
    travels_both_ways(&[]);
}

/// The same against a server with none of Copydesk's extensions: listings
/// instead of the change feed, no idempotency keys, files sent in the body.
#[test]
fn every_kind_of_record_travels_through_a_plain_remote() {
    travels_both_ways(&["--plain"]);
}

fn travels_both_ways(central_options: &[&str]) {
    let central = TestServer::start_with(central_options);
    let replica = TestServer::start_replica();
    let key = central.key("laptop", &["admin"], &[]);
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");

    // Offline on the replica: a story with its author, a photo item with its
    // file, a thread with a reply, a draft, two containers, an assignment.
    let author = replica
        .post("/v3/author", &json!({"name": "Ann Offline"}))
        .expect(200)
        .body[0]
        .clone();
    let story = replica
        .post(
            "/v3/content",
            &json!({"title": "Dam holds", "type": "article", "content": "<p>Holding</p>",
                    "authors": [uuid(&author)]}),
        )
        .expect(200)
        .body;
    let photo_bytes = file_bytes(7, 300_000);
    let photo = replica
        .post(
            "/v3/content",
            &json!({"title": "Dam photo", "type": "media", "attachment": {
                "name": "dam.raw",
                "file": base64::engine::general_purpose::STANDARD.encode(&photo_bytes)}}),
        )
        .expect(200)
        .body;
    let root = replica
        .post(
            "/v3/note-comment/root",
            &json!({"comment": "<p>Check the level</p>", "reference": uuid(&story)}),
        )
        .expect(200)
        .body["items"][0]
        .clone();
    replica
        .post(
            &format!("/v3/note-comment/{}", uuid(&root)),
            &json!({"comment": "<p>Checked: 4.2 m</p>", "reference": uuid(&story)}),
        )
        .expect(200);
    let story_srn = story["srn"].as_str().expect("srn").to_owned();
    for text in ["first autosave", "second autosave"] {
        replica
            .post(
                &format!("/v3/draft?content={story_srn}"),
                &json!({"content": format!("<p>{text}</p>"), "content_raw": draft_raw(text)}),
            )
            .expect(200);
    }
    replica
        .post(
            "/v3/container",
            &json!({"title": "Flood front", "type": "manual",
                    "content": [uuid(&story), uuid(&photo)]}),
        )
        .expect(200);
    replica
        .post(
            "/v3/container",
            &json!({"title": "Flood pictures", "type": "gallery", "content": [uuid(&photo)]}),
        )
        .expect(200);
    let assignment = replica
        .post(
            "/v3/assignment",
            &json!({"title": "Follow the dam", "content_id": uuid(&story)}),
        )
        .expect(200)
        .body;
    replica
        .post(
            &format!("/v3/assignment-comment/{}", uuid(&assignment)),
            &json!({"comment": "<p>Call the engineer</p>"}),
        )
        .expect(200);

    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok && out.contains("needs attention 0"), "{out}");

    // On the central server, every reference points at its own records.
    let central_author = find(&central, "author", "Ann Offline");
    let central_story = central
        .get(&format!(
            "/v3/content/{}",
            uuid(&find(&central, "content", "Dam holds"))
        ))
        .expect(200)
        .body;
    assert_eq!(central_story["authors"][0]["uuid"], central_author["uuid"]);
    let central_photo = central
        .get(&format!(
            "/v3/content/{}",
            uuid(&find(&central, "content", "Dam photo"))
        ))
        .expect(200)
        .body;
    let attachment = &central_photo["attachment"];
    assert_eq!(
        attachment["sha256"], photo["attachment"]["sha256"],
        "the file arrived whole"
    );
    assert_eq!(
        download(&central, attachment["original_url"].as_str().expect("url")),
        photo_bytes
    );
    let notes = thread(&central, &uuid(&central_story));
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert_eq!(notes[0]["parent_id"], "0");
    assert_eq!(
        notes[1]["parent_id"], notes[0]["id"],
        "the reply answers the root"
    );
    assert_eq!(notes[1]["comment"], "<p>Checked: 4.2 m</p>");
    // The draft was posted by the laptop's key: it is that person's.
    let srn = central_story["srn"].as_str().expect("an srn");
    let draft = central
        .call(
            reqwest::Method::GET,
            &format!("/v3/draft?content={srn}"),
            Some(&key.token()),
            None,
        )
        .expect(200)
        .body[0]
        .clone();
    assert_eq!(draft["content_raw"], draft_raw("second autosave"));
    let front = find(&central, "container", "Flood front");
    let listed: Vec<&Value> = front["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|c| &c["uuid"])
        .collect();
    assert_eq!(listed, [&central_story["uuid"], &central_photo["uuid"]]);
    let gallery = find(&central, "container", "Flood pictures");
    let placeholder = gallery["placeholder"]
        .as_str()
        .expect("a placeholder")
        .to_owned();
    let listed: Vec<&Value> = gallery["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|c| &c["uuid"])
        .collect();
    assert_eq!(
        listed,
        [&Value::from(placeholder.clone()), &central_photo["uuid"]]
    );
    let media = central.get("/v3/content?per_page=100").expect(200).body["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|c| c["type"] == "media")
        .count();
    assert_eq!(media, 2, "the photo and one placeholder, made once");
    let central_assignment = find(&central, "assignment", "Follow the dam");
    assert_eq!(central_assignment["content_uuid"], central_story["uuid"]);
    let assignment_comments = central
        .get(&format!(
            "/v3/assignment-comment/{}",
            uuid(&central_assignment)
        ))
        .expect(200)
        .body;
    assert_eq!(
        assignment_comments["items"][0]["comment"],
        "<p>Call the engineer</p>"
    );

    // Nothing is sent twice, and nothing comes back doubled.
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok && out.contains("pushed 0"), "{out}");
    assert_eq!(
        replica.get("/v3/content").expect(200).body["total_items"],
        3
    );
    assert_eq!(
        central.get("/v3/content").expect(200).body["total_items"],
        3
    );
    assert_eq!(thread(&replica, &uuid(&story)).len(), 2);

    // The desk answers on the central server; it all comes back.
    central
        .post(
            &format!(
                "/v3/note-comment/{}",
                notes[0]["uuid"].as_str().expect("uuid")
            ),
            &json!({"comment": "<p>Desk: thanks</p>", "reference": uuid(&central_story)}),
        )
        .expect(200);
    // The laptop's own person autosaves on the server too (another
    // computer of theirs): a draft is its writer's, so that one travels.
    let central_srn = central_story["srn"].as_str().expect("srn");
    central
        .call(
            reqwest::Method::POST,
            &format!("/v3/draft?content={central_srn}"),
            Some(&key.token()),
            Some(
                &json!({"content": "<p>desk edit</p>", "content_raw": draft_raw("desk edit"),
                         "fields": {"title": "Dam holds, desk headline", "authors": ["not-here"]}}),
            ),
        )
        .expect(200);
    let new_bytes = file_bytes(9, 200_000);
    central
        .put(
            &format!("/v3/attachment/{}", uuid(&central_photo)),
            &json!({"name": "dam-2.raw",
                    "file": base64::engine::general_purpose::STANDARD.encode(&new_bytes)}),
        )
        .expect(200);
    central
        .put(
            &format!("/v3/container/{}", uuid(&front)),
            &json!({"content": [uuid(&central_photo), uuid(&central_story)]}),
        )
        .expect(200);
    central
        .post(
            &format!("/v3/assignment-comment/{}", uuid(&central_assignment)),
            &json!({"comment": "<p>Engineer called back</p>"}),
        )
        .expect(200);
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok && out.contains("conflicts 0"), "{out}");

    let notes = thread(&replica, &uuid(&story));
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert_eq!(notes[2]["comment"], "<p>Desk: thanks</p>");
    assert_eq!(
        notes[2]["parent_id"], notes[0]["id"],
        "the desk's reply answers the root here too"
    );
    let story_here = replica
        .get(&format!("/v3/content/{}", uuid(&story)))
        .expect(200)
        .body;
    let draft_here = last_draft(&replica, &story_here);
    assert_eq!(draft_here["content_raw"], draft_raw("desk edit"));
    // Its headline travels; an author named by the server's UUID does not.
    assert_eq!(
        draft_here["fields"],
        json!({"title": "Dam holds, desk headline"})
    );
    let photo_here = replica
        .get(&format!("/v3/content/{}", uuid(&photo)))
        .expect(200)
        .body;
    let attachment = &photo_here["attachment"];
    assert_eq!(attachment["base_name"], "dam-2");
    assert_eq!(
        download(&replica, attachment["original_url"].as_str().expect("url")),
        new_bytes,
        "the new file came down whole"
    );
    let front_here = find(&replica, "container", "Flood front");
    let listed: Vec<&Value> = front_here["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|c| &c["uuid"])
        .collect();
    assert_eq!(listed, [&photo["uuid"], &story["uuid"]]);
    let comments_here = replica
        .get(&format!("/v3/assignment-comment/{}", uuid(&assignment)))
        .expect(200)
        .body;
    assert_eq!(comments_here["items"].as_array().map(Vec::len), Some(2));
    // And again: quiet.
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok && out.contains("pushed 0"), "{out}");
    assert_eq!(thread(&central, &uuid(&central_story)).len(), 3);
    assert_eq!(
        replica.get("/v3/container").expect(200).body["total_items"],
        2
    );
    assert_eq!(
        central.get("/v3/container").expect(200).body["total_items"],
        2
    );
}

/// The print side travels too: workflows and issues made centrally reach the
/// laptop, a print document tracked there reaches the central server with
/// them, and its lock is taken and released on the central server.
#[test]
fn print_documents_travel_and_their_locks_need_the_server() {
    let central = TestServer::start();
    let proxy = copydesk_tests::CuttingProxy::new(&central.base);
    let key = central.key("laptop", &["editor", "printdesk"], &[]);
    let desk = central.key("desk", &["printdesk"], &[]).token();
    let (replica, _keys) = super::serving_replica(&proxy.base, &key);
    let workflow = central
        .post(
            "/v3/workflow",
            &json!({"name": "Print run", "slug": "print-run"}),
        )
        .expect(200)
        .body;
    let issue = central
        .post("/v3/issue", &json!({"label": "Monday 23 November"}))
        .expect(200)
        .body;
    let (workflow, issue) = (uuid(&workflow), uuid(&issue));
    super::eventually("the plan reaching the laptop", || {
        replica
            .call(
                reqwest::Method::GET,
                &format!("/v3/issue/{issue}"),
                Some(replica.admin_token()),
                None,
            )
            .status
            == 200
    });
    let made = replica
        .post(
            "/v3/print-document",
            &json!({"label": "Front page", "tracking_label": "monday/front.indd",
                    "workflow_id": workflow, "issue_id": issue}),
        )
        .expect(200)
        .body;
    let here = uuid(&made);
    let on_central = || {
        central
            .get("/v3/print-document?per_page=100")
            .expect(200)
            .body["items"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .find(|d| d["tracking_label"] == "mondayfrontindd")
    };
    super::eventually("the document reaching the central server", || {
        on_central().is_some()
    });
    let document = on_central().expect("the document");
    assert_eq!(
        document["tracking_path"], "monday/front.indd",
        "the label travels as it was typed"
    );
    assert_eq!(document["workflow"]["uuid"], workflow.as_str());
    assert_eq!(document["issue"]["uuid"], issue.as_str());
    let there = uuid(&document);

    // Taken on the laptop, out on the central server: the desk is refused there.
    let locked = replica
        .post(&format!("/v3/print-document/{here}/lock"), &json!({}))
        .expect(200)
        .body;
    assert_eq!(locked["print_locked"], "1");
    // Whether the document is out on the central server, and the desk's try to take it.
    let out_there = || {
        central
            .get(&format!("/v3/print-document/{there}"))
            .expect(200)
            .body[0]["print_locked"]
            .clone()
    };
    let desk_locks = || {
        central.call(
            reqwest::Method::POST,
            &format!("/v3/print-document/{there}/lock"),
            Some(&desk),
            Some(&json!({})),
        )
    };
    assert_eq!(out_there(), "1");
    desk_locks().expect_error(409, "locked");
    // Released on the laptop, released there.
    replica
        .delete(&format!("/v3/print-document/{here}/lock"))
        .expect(200);
    assert_eq!(out_there(), "0");
    // The desk has it now: the laptop is refused, and nothing is locked here.
    desk_locks().expect(200);
    replica
        .post(&format!("/v3/print-document/{here}/lock"), &json!({}))
        .expect_error(409, "locked");
    // Offline, a lock is refused outright rather than faked.
    proxy.set_down(true);
    replica
        .post(&format!("/v3/print-document/{here}/lock"), &json!({}))
        .expect_error(503, "offline");
    let here_doc = replica
        .get(&format!("/v3/print-document/{here}"))
        .expect(200)
        .body;
    assert_eq!(here_doc[0]["print_locked"], "0");
}

/// What the server refuses is set aside, visible, with the edit kept, and
/// never blocks the rest.
#[test]
fn refusals_need_attention_and_keep_the_edit() {
    let central = TestServer::start();
    let replica = TestServer::start_replica();
    // A journalist may write stories but not publish them or make containers.
    let key = central.key("laptop", &["journalist"], &[]);
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");
    replica
        .post(
            "/v3/content",
            &json!({"title": "Published offline", "type": "article",
                    "published_at": "2026-11-22T06:00:00Z"}),
        )
        .expect(200);
    replica
        .post(
            "/v3/container",
            &json!({"title": "Front", "type": "automatic"}),
        )
        .expect(200);
    replica
        .post(
            "/v3/content",
            &json!({"title": "Plain story", "type": "article"}),
        )
        .expect(200);
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok && out.contains("needs attention 2"), "{out}");
    assert_eq!(
        find(&central, "content", "Plain story")["title"],
        "Plain story"
    );
    let listed = replica.get("/v3/sync/attention").expect(200).body;
    let items = listed["items"].as_array().expect("items");
    assert_eq!(items.len(), 2, "{listed}");
    let errors: Vec<&str> = items.iter().filter_map(|i| i["error"].as_str()).collect();
    assert!(
        errors.iter().any(|e| e.contains("CONTENT publish")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("CONTAINER create")),
        "{errors:?}"
    );
    // The edits are kept here, and a later round neither drops nor resends them.
    assert_eq!(
        find(&replica, "content", "Published offline")["title"],
        "Published offline"
    );
    assert_eq!(find(&replica, "container", "Front")["title"], "Front");
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(
        ok && out.contains("pushed 0") && out.contains("needs attention 2"),
        "{out}"
    );
    let status = replica.get("/v3/sync/status").expect(200).body;
    assert_eq!(status["needs_attention"], "2");
    assert_eq!(status["syncing"], false);
}

/// A change pulled from the central server is a version on the replica, and
/// that version keeps the authors and tags the change brought, while the
/// replica's earlier versions keep theirs.
#[test]
fn a_pulled_change_is_a_version_with_its_authors_and_tags() {
    let central = TestServer::start();
    let replica = TestServer::start_replica();
    let key = central.key("laptop", &["admin"], &[]);
    let made = |path: &str, name: &str| -> String {
        uuid(&central.post(path, &json!({"name": name})).expect(200).body)
    };
    let ann = made("/v3/author", "Ann Central");
    let bob = made("/v3/author", "Bob Central");
    let port = made("/v3/tag", "Port");
    let strike = made("/v3/tag", "Strike");
    let story = uuid(
        &central
            .post(
                "/v3/content",
                &json!({"title": "Cranes stop", "type": "article", "authors": [ann, bob], "tags": [port]}),
            )
            .expect(200)
            .body,
    );
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");
    central
        .put(
            &format!("/v3/content/{story}"),
            &json!({"authors": [ann], "tags": [port, strike]}),
        )
        .expect(200);
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok && out.contains("conflicts 0"), "{out}");

    let here = find(&replica, "content", "Cranes stop");
    let srn = here["srn"].as_str().expect("srn");
    let versions = replica
        .get(&format!("/v3/version?content={srn}&order=version&dir=asc"))
        .expect(200)
        .body;
    let names = |version: &Value, field: &str| -> Vec<String> {
        version[field]
            .as_array()
            .unwrap_or_else(|| panic!("{field} in {version}"))
            .iter()
            .map(|linked| linked["name"].as_str().expect("name").to_owned())
            .collect()
    };
    let items = versions["items"].as_array().expect("items");
    let (first, last) = (&items[0], &items[items.len() - 1]);
    assert_eq!(names(first, "authors"), ["Ann Central", "Bob Central"]);
    assert_eq!(names(first, "tags"), ["Port"]);
    assert_eq!(names(last, "authors"), ["Ann Central"]);
    assert_eq!(names(last, "tags"), ["Port", "Strike"]);
    assert_eq!(
        last["authors"], here["authors"],
        "the newest is the item now"
    );
}
