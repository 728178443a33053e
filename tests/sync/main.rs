//! The typed remote client against real servers: a Copydesk server, a plain one, and none at all.

use copydesk_sync::{ErrorCode, Remote, RemoteKey, SyncError};
use copydesk_tests::{KeyPair, TestServer};
use copydesk_wire as wire;

mod access;
mod annotations;
mod convergence;
mod https;
mod live;
mod merge;
mod records;
mod stopping;
mod structure;

fn remote_for(server: &TestServer, key: &KeyPair) -> Remote {
    Remote::new(
        &server.base,
        RemoteKey {
            public_key: key.public_key.clone(),
            private_key: key.private_key.clone(),
        },
    )
    .expect("a client")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

fn article(title: &str) -> wire::ContentBody {
    wire::ContentBody {
        title: Some(title.to_owned()),
        content_type: Some("article".to_owned()),
        content: Some("<p>Filed from the road</p>".to_owned()),
        ..wire::ContentBody::default()
    }
}

#[test]
fn speaks_to_a_copydesk_server() {
    let server = TestServer::start();
    let remote = remote_for(&server, &server.admin);
    runtime().block_on(async {
        assert!(remote.capabilities().await.expect("answers").change_feed);
        let created = remote
            .create_content(&article("Offline story"), "outbox-1")
            .await
            .expect("created");
        let repeated = remote
            .create_content(&article("Offline story"), "outbox-1")
            .await
            .expect("replayed");
        assert_eq!(
            created.uuid, repeated.uuid,
            "a retried create makes nothing twice"
        );
        let read = remote.content(&created.uuid).await.expect("read");
        assert_eq!(read, created);
        let mut edit = article("Offline story, edited");
        edit.content = None;
        let updated = remote
            .update_content(&created.uuid, &edit, "outbox-2")
            .await
            .expect("updated");
        assert_eq!(updated.version, "2");
        let feed = remote.changes(0, 100).await.expect("the feed");
        assert!(feed.items.iter().any(|c| c.record_type == "content"
            && c.uuid == created.uuid
            && c.operation == "update"));
        let page = remote.content_page(1, 10).await.expect("a page");
        assert_eq!(page.total_items, 1);
    });
    assert_eq!(server.get("/v3/content").expect(200).body["total_items"], 1);
}

#[test]
fn tells_refusals_from_passing_failures() {
    let server = TestServer::start();
    let remote = remote_for(&server, &server.admin);
    runtime().block_on(async {
        let missing = remote.content("00000000-0000-4000-8000-000000000000").await.expect_err("unknown");
        assert_eq!(missing.code(), Some(ErrorCode::NotFound));
        assert!(!missing.is_transient());
        let invalid = remote.create_content(&wire::ContentBody::default(), "k-invalid").await.expect_err("no title");
        assert!(matches!(&invalid, SyncError::Remote { status: 400, field: Some(f), .. } if f == "title"), "{invalid:?}");
        assert!(!invalid.is_transient());
    });
    // A key the server does not know is refused, not retried.
    let mut forged = server.admin.clone();
    forged.private_key = "0".repeat(64);
    let refused = runtime()
        .block_on(remote_for(&server, &forged).content_page(1, 1))
        .expect_err("refused");
    assert_eq!(refused.code(), Some(ErrorCode::TokenInvalid));
    assert!(!refused.is_transient());
    // A user without the action is told which one.
    let reader = server.key("rita", &["reader"], &[]);
    let denied = runtime()
        .block_on(remote_for(&server, &reader).create_content(&article("x"), "k-denied"))
        .expect_err("denied");
    assert!(
        matches!(&denied, SyncError::Remote { status: 401, message, .. } if message.contains("CONTENT create"))
    );
}

#[test]
fn no_server_is_a_passing_failure() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("an address").port()
    };
    let remote = Remote::new(
        &format!("http://127.0.0.1:{port}"),
        RemoteKey {
            public_key: "p".into(),
            private_key: "s".into(),
        },
    )
    .expect("a client");
    let err = runtime()
        .block_on(remote.capabilities())
        .expect_err("nobody listens");
    assert!(matches!(err, SyncError::Unreachable(_)), "{err:?}");
    assert!(err.is_transient());
}

#[test]
fn a_plain_remote_offers_no_extensions() {
    let server = TestServer::start_with(&["--plain"]);
    let remote = remote_for(&server, &server.admin);
    runtime().block_on(async {
        assert!(!remote.capabilities().await.expect("answers").change_feed);
        // Without idempotency keys a repeated create makes two records: the
        // engine must look for what a lost create made before repeating it.
        remote
            .create_content(&article("Twice"), "ignored")
            .await
            .expect("created");
        remote
            .create_content(&article("Twice"), "ignored")
            .await
            .expect("created again");
        assert_eq!(
            remote
                .content_page(1, 10)
                .await
                .expect("a page")
                .total_items,
            2
        );
    });
}

/// Runs `copydesk-server sync` for `replica` against `central`, as the user of `key`.
fn sync(replica: &TestServer, central_base: &str, key: &KeyPair) -> (bool, String) {
    copydesk_tests::sync_once(replica, central_base, key)
}

/// `copydesk-server sync` of `replica` with `remote`, started in the
/// background with `key` in its key file and the `more` arguments, its
/// output dropped.
fn sync_in_background(
    replica: &TestServer,
    remote: &str,
    key: &KeyPair,
    more: &[&str],
) -> std::process::Child {
    copydesk_tests::sync_command(replica, remote, key)
        .args(more)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("sync starts")
}

fn names(server: &TestServer, kind: &str) -> Vec<String> {
    let list = server
        .get(&format!("/v3/{kind}?order=name&dir=asc"))
        .expect(200)
        .body;
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|a| a["name"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn offline_work_reaches_the_central_server_once() {
    let central = TestServer::start();
    let replica = TestServer::start_replica();
    let key = central.key("laptop", &["editor"], &[]);
    replica
        .post(
            "/v3/author",
            &serde_json::json!({"name": "Ann Offline", "tagline": "On the road"}),
        )
        .expect(200);
    replica
        .post("/v3/tag", &serde_json::json!({"name": "Flood"}))
        .expect(200);
    let status = replica.get("/v3/sync/status").expect(200).body;
    assert_eq!(
        status["pending"], "0",
        "not a replica until it has a remote"
    );

    // The first sync takes the work done before the replica had a remote.
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");
    assert!(out.contains("pushed 2"), "{out}");
    assert_eq!(names(&central, "author"), ["Ann Offline"]);
    assert_eq!(names(&central, "tag"), ["Flood"]);
    // Work done from now on is recorded for the central server.
    replica
        .post("/v3/author", &serde_json::json!({"name": "Bo Offline"}))
        .expect(200);
    let status = replica.get("/v3/sync/status").expect(200).body;
    assert_eq!(status["pending"], "1");
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");
    assert!(out.contains("pushed 1"), "{out}");
    assert_eq!(names(&central, "author"), ["Ann Offline", "Bo Offline"]);
    // Again: nothing is sent twice, and nothing comes back doubled.
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok && out.contains("pushed 0"), "{out}");
    assert_eq!(names(&central, "author"), ["Ann Offline", "Bo Offline"]);
    assert_eq!(names(&replica, "author"), ["Ann Offline", "Bo Offline"]);
    let status = replica.get("/v3/sync/status").expect(200).body;
    assert_eq!(
        (status["pending"].as_str(), status["online"].as_bool()),
        (Some("0"), Some(true))
    );
    assert!(status["last_sync_at"].is_string());
}

#[test]
fn central_changes_and_deletes_arrive() {
    let central = TestServer::start();
    let replica = TestServer::start_replica();
    let key = central.key("laptop", &["editor"], &[]);
    let tag = central
        .post("/v3/tag", &serde_json::json!({"name": "Election"}))
        .expect(200)
        .body[0]
        .clone();
    let uuid = tag["uuid"].as_str().expect("uuid");
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");
    assert_eq!(
        replica.get(&format!("/v3/tag/{uuid}")).expect(200).body[0]["name"],
        "Election"
    );
    central
        .put(
            &format!("/v3/tag/{uuid}"),
            &serde_json::json!({"name": "Election night"}),
        )
        .expect(200);
    assert!(sync(&replica, &central.base, &key).0);
    assert_eq!(
        replica.get(&format!("/v3/tag/{uuid}")).expect(200).body[0]["name"],
        "Election night"
    );
    central.delete(&format!("/v3/tag/{uuid}")).expect(200);
    assert!(sync(&replica, &central.base, &key).0);
    replica
        .get(&format!("/v3/tag/{uuid}"))
        .expect_error(404, "not_found");
    assert_eq!(
        replica.get("/v3/sync/status").expect(200).body["pending"],
        "0",
        "pulled changes are not sent back"
    );
}

#[test]
fn edits_on_both_sides_merge_and_a_clash_is_listed() {
    let central = TestServer::start();
    let replica = TestServer::start_replica();
    let key = central.key("laptop", &["editor"], &[]);
    let author = central
        .post(
            "/v3/author",
            &serde_json::json!({"name": "Cleo", "tagline": "Courts", "description": "Ten years"}),
        )
        .expect(200)
        .body[0]
        .clone();
    let uuid = author["uuid"].as_str().expect("uuid");
    assert!(sync(&replica, &central.base, &key).0);

    // Different fields: both kept.
    replica
        .put(
            &format!("/v3/author/{uuid}"),
            &serde_json::json!({"tagline": "Courts and crime"}),
        )
        .expect(200);
    central
        .put(
            &format!("/v3/author/{uuid}"),
            &serde_json::json!({"description": "Twelve years"}),
        )
        .expect(200);
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");
    for server in [&central, &replica] {
        let now = server.get(&format!("/v3/author/{uuid}")).expect(200).body[0].clone();
        assert_eq!(
            (now["tagline"].as_str(), now["description"].as_str()),
            (Some("Courts and crime"), Some("Twelve years"))
        );
    }

    // The same field: the central value stays, the local one is listed with it.
    central
        .put(
            &format!("/v3/author/{uuid}"),
            &serde_json::json!({"name": "Cleo Central"}),
        )
        .expect(200);
    // The replica's edit happens offline, after the central one, but reaches it later.
    let offline_edit = replica.put(
        &format!("/v3/author/{uuid}"),
        &serde_json::json!({"name": "Cleo Laptop"}),
    );
    offline_edit.expect(200);
    // Waiting to go, listed by what a person calls it.
    let waiting = replica.get("/v3/sync/waiting").expect(200).body;
    let waiting = waiting["items"].as_array().expect("items").clone();
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(waiting[0]["record"]["record_type"], "author");
    assert_eq!(waiting[0]["record"]["uuid"], uuid);
    assert_eq!(waiting[0]["record"]["headline"], "Cleo Laptop");
    assert_eq!(waiting[0]["record"]["story_uuid"], serde_json::Value::Null);
    assert_eq!(waiting[0]["operation"], "update");
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");
    assert!(out.contains("conflicts 1"), "{out}");
    assert_eq!(
        replica.get("/v3/sync/waiting").expect(200).body["items"],
        serde_json::json!([]),
        "nothing waits once sent"
    );
    for server in [&central, &replica] {
        let now = server.get(&format!("/v3/author/{uuid}")).expect(200).body[0].clone();
        assert_eq!(
            now["name"], "Cleo Central",
            "the central value stays current on both sides"
        );
    }
    let conflicts = replica.get("/v3/sync/conflicts").expect(200).body;
    let listed = conflicts["items"].as_array().expect("items");
    assert_eq!(listed.len(), 1, "{conflicts}");
    assert_eq!(listed[0]["field"], "name");
    assert_eq!(
        listed[0]["mine"], "Cleo Laptop",
        "the local value is kept, listed"
    );
    assert_eq!(listed[0]["theirs"], "Cleo Central");
    assert!(listed[0]["srn"].as_str().unwrap_or("").ends_with(uuid));
    assert_eq!(
        listed[0]["record"]["headline"], "Cleo Central",
        "named as it reads now"
    );
    assert_eq!(listed[0]["record"]["record_type"], "author");
    assert_eq!(
        replica.get("/v3/sync/status").expect(200).body["conflicts"],
        "1"
    );

    // The reporter settles it: keep mine. The choice is itself synced.
    let conflict = listed[0]["uuid"].as_str().expect("uuid").to_owned();
    let resolve = format!("/v3/sync/conflicts/{conflict}/resolve");
    replica
        .post(&resolve, &serde_json::json!({"keep": "both"}))
        .expect_error(400, "invalid_request");
    replica
        .post(
            "/v3/sync/conflicts/00000000-0000-4000-8000-000000000000/resolve",
            &serde_json::json!({"keep": "mine"}),
        )
        .expect_error(404, "not_found");
    replica
        .post(&resolve, &serde_json::json!({"keep": "mine"}))
        .expect(200);
    replica
        .post(&resolve, &serde_json::json!({"keep": "theirs"}))
        .expect_error(409, "conflict");
    assert_eq!(
        replica.get(&format!("/v3/author/{uuid}")).expect(200).body[0]["name"],
        "Cleo Laptop"
    );
    assert_eq!(
        replica.get("/v3/sync/conflicts").expect(200).body["items"],
        serde_json::json!([])
    );
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(
        ok && out.contains("pushed 1") && out.contains("conflicts 0"),
        "{out}"
    );
    assert_eq!(
        central.get(&format!("/v3/author/{uuid}")).expect(200).body[0]["name"],
        "Cleo Laptop"
    );
}

#[test]
fn an_unreachable_server_is_reported() {
    let replica = TestServer::start_replica();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("an address").port()
    };
    let (ok, out) = sync(
        &replica,
        &format!("http://127.0.0.1:{port}"),
        &replica.admin,
    );
    assert!(!ok, "{out}");
    assert!(out.contains("cannot be reached"), "{out}");
    assert_eq!(
        replica.get("/v3/sync/status").expect(200).body["online"],
        false
    );
}

#[test]
fn content_travels_with_its_authors_and_merges() {
    let central = TestServer::start();
    let replica = TestServer::start_replica();
    let key = central.key("laptop", &["editor"], &[]);
    assert!(
        sync(&replica, &central.base, &key).0,
        "the replica gets its remote"
    );

    // Written offline on the laptop: an author, a tag and a story by her.
    let author = replica
        .post("/v3/author", &serde_json::json!({"name": "Dana Field"}))
        .expect(200)
        .body[0]
        .clone();
    let tag = replica
        .post("/v3/tag", &serde_json::json!({"name": "Harbour"}))
        .expect(200)
        .body[0]
        .clone();
    let story = replica
        .post(
            "/v3/content",
            &serde_json::json!({"title": "Ferry stuck", "type": "article", "content": "<p>First draft</p>",
                                "authors": [author["uuid"]], "tags": [tag["uuid"]], "urls": ["news/ferry"]}),
        )
        .expect(200)
        .body;
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok && out.contains("pushed 3"), "{out}");
    let on_central = central.get("/v3/content").expect(200).body["items"][0].clone();
    assert_eq!(on_central["title"], "Ferry stuck");
    assert_eq!(
        on_central["authors"][0]["name"], "Dana Field",
        "the author reference follows its new identity"
    );
    assert_eq!(on_central["tags"][0]["name"], "Harbour");
    assert_eq!(on_central["urls"][0]["url"], "/news/ferry");
    let central_uuid = on_central["uuid"].as_str().expect("uuid").to_owned();
    let local_uuid = story["uuid"].as_str().expect("uuid").to_owned();

    // The desk edits the body; the reporter edits the title offline.
    central
        .put(
            &format!("/v3/content/{central_uuid}"),
            &serde_json::json!({"content": "<p>Desk edit</p>"}),
        )
        .expect(200);
    replica
        .put(
            &format!("/v3/content/{local_uuid}"),
            &serde_json::json!({"title": "Ferry stuck for hours"}),
        )
        .expect(200);
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok && out.contains("conflicts 0"), "{out}");
    let central_now = central
        .get(&format!("/v3/content/{central_uuid}"))
        .expect(200)
        .body;
    let local_now = replica
        .get(&format!("/v3/content/{local_uuid}"))
        .expect(200)
        .body;
    for now in [&central_now, &local_now] {
        assert_eq!(now["title"], "Ferry stuck for hours");
        assert_eq!(now["content"], "<p>Desk edit</p>");
        assert_eq!(now["authors"][0]["name"], "Dana Field");
    }

    // Both change the same words of the body: the desk's stays current, the
    // reporter's paragraph is listed and kept in the history.
    central
        .put(
            &format!("/v3/content/{central_uuid}"),
            &serde_json::json!({"content": "<p>Desk says so</p>"}),
        )
        .expect(200);
    replica
        .put(
            &format!("/v3/content/{local_uuid}"),
            &serde_json::json!({"content": "<p>Reporter again</p>"}),
        )
        .expect(200);
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok && out.contains("conflicts 1"), "{out}");
    assert_eq!(
        central
            .get(&format!("/v3/content/{central_uuid}"))
            .expect(200)
            .body["content"],
        "<p>Desk says so</p>"
    );
    assert_eq!(
        replica
            .get(&format!("/v3/content/{local_uuid}"))
            .expect(200)
            .body["content"],
        "<p>Desk says so</p>"
    );
    let conflicts = replica.get("/v3/sync/conflicts").expect(200).body;
    let listed = &conflicts["items"][0];
    assert_eq!(
        (listed["field"].as_str(), listed["mine"].as_str()),
        (Some("content"), Some("<p>Reporter again</p>"))
    );
    let srn = local_now["srn"].as_str().expect("srn");
    let versions = replica
        .get(&format!("/v3/version?content={srn}&per_page=100"))
        .expect(200)
        .body;
    assert!(
        versions["items"]
            .as_array()
            .expect("items")
            .iter()
            .any(|v| v["content"] == "<p>Reporter again</p>"),
        "the reporter's text is in the item's history"
    );

    // Deleted at the desk: gone here too.
    central
        .delete(&format!("/v3/content/{central_uuid}"))
        .expect(200);
    assert!(sync(&replica, &central.base, &key).0);
    replica
        .get(&format!("/v3/content/{local_uuid}"))
        .expect_error(404, "not_found");
}

/// Polls `check` until it holds, for at most 20 seconds (a liveness wait, not a speed test).
/// A replica served with `--remote`, syncing every 100 ms through `remote`
/// (the folder holding its key file goes with it).
fn serving_replica(remote: &str, key: &KeyPair) -> (TestServer, tempfile::TempDir) {
    let keys = tempfile::tempdir().expect("a folder");
    let key_file = keys.path().join("key.json");
    std::fs::write(&key_file, serde_json::to_string(key).expect("JSON")).expect("writes");
    let key_arg = key_file.to_string_lossy().into_owned();
    let replica = TestServer::start_with(&[
        "--remote",
        remote,
        "--key-file",
        &key_arg,
        "--sync-every-ms",
        "100",
    ]);
    (replica, keys)
}

fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(20) {
        if check() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{what} did not happen");
}

#[test]
fn a_serving_replica_keeps_itself_synced() {
    let central = TestServer::start();
    let key = central.key("laptop", &["editor"], &[]);
    let keys = tempfile::tempdir().expect("a folder");
    let key_file = keys.path().join("key.json");
    std::fs::write(&key_file, serde_json::to_string(&key).expect("JSON")).expect("writes");
    let key_arg = key_file.to_string_lossy().into_owned();
    let replica = TestServer::start_with(&["--remote", &central.base, "--key-file", &key_arg]);

    let tag = central
        .post("/v3/tag", &serde_json::json!({"name": "Breaking"}))
        .expect(200)
        .body[0]
        .clone();
    let uuid = tag["uuid"].as_str().expect("uuid").to_owned();
    eventually("the central tag reaching the replica", || {
        replica
            .call(
                reqwest::Method::GET,
                &format!("/v3/tag/{uuid}"),
                Some(replica.admin_token()),
                None,
            )
            .status
            == 200
    });
    replica
        .post("/v3/author", &serde_json::json!({"name": "Eve Remote"}))
        .expect(200);
    eventually("the replica's author reaching the central server", || {
        names(&central, "author") == ["Eve Remote"]
    });
    let status = replica.get("/v3/sync/status").expect(200).body;
    assert_eq!(status["online"], true);
}

#[test]
fn cut_connections_and_a_restarted_server_lose_and_double_nothing() {
    let mut central = TestServer::start();
    let proxy = copydesk_tests::CuttingProxy::new(&central.base);
    let replica = TestServer::start_replica();
    let key = central.key("laptop", &["editor"], &[]);
    assert!(
        sync(&replica, &proxy.base, &key).0,
        "the replica gets its remote"
    );
    for i in 0..6 {
        replica
            .post(
                "/v3/author",
                &serde_json::json!({"name": format!("Reporter {i}")}),
            )
            .expect(200);
    }
    // Every answer of the next round is lost after the server applied the request.
    proxy.cut_next_answers(100);
    let (ok, out) = sync(&replica, &proxy.base, &key);
    assert!(!ok, "a round that hears nothing fails: {out}");
    proxy.cut_next_answers(0);
    // The server goes down and comes back on the same data.
    proxy.set_down(true);
    assert!(!sync(&replica, &proxy.base, &key).0);
    central.restart();
    proxy.retarget(&central.base);
    proxy.set_down(false);
    let (ok, out) = sync(&replica, &proxy.base, &key);
    assert!(ok, "{out}");
    let expected: Vec<String> = (0..6).map(|i| format!("Reporter {i}")).collect();
    assert_eq!(
        names(&central, "author"),
        expected,
        "each author once on the server"
    );
    assert_eq!(
        names(&replica, "author"),
        expected,
        "and once on the replica"
    );
    assert_eq!(
        replica.get("/v3/sync/status").expect(200).body["pending"],
        "0"
    );
}

#[test]
fn a_sync_killed_midway_resumes() {
    let central = TestServer::start();
    let replica = TestServer::start_replica();
    let key = central.key("laptop", &["editor"], &[]);
    assert!(sync(&replica, &central.base, &key).0);
    for i in 0..150 {
        replica
            .post(
                "/v3/tag",
                &serde_json::json!({"name": format!("topic {i:03}")}),
            )
            .expect(200);
    }
    let mut child = sync_in_background(&replica, &central.base, &key, &[]);
    // Kill it once some of the tags have gone up.
    eventually("the first tags arriving", || {
        central.get("/v3/tag?per_page=1").expect(200).body["total_items"]
            .as_u64()
            .unwrap_or(0)
            >= 10
    });
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    let (ok, out) = sync(&replica, &central.base, &key);
    assert!(ok, "{out}");
    let on_central = central.get("/v3/tag?per_page=500").expect(200).body;
    if on_central["total_items"] != 150 {
        let mut names: Vec<&str> = on_central["items"]
            .as_array()
            .expect("items")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        names.sort();
        let dups: Vec<&&str> = names
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| &w[0])
            .collect();
        eprintln!("DUPLICATES {dups:?}; sync said: {out}");
        let status = replica.get("/v3/sync/status").expect(200).body;
        eprintln!("STATUS {status}");
    }
    assert_eq!(on_central["total_items"], 150, "every tag once");
    let mut seen = std::collections::BTreeSet::new();
    for tag in on_central["items"].as_array().expect("items") {
        assert!(
            seen.insert(tag["name"].as_str().unwrap_or("").to_owned()),
            "no duplicate"
        );
    }
    assert_eq!(
        replica.get("/v3/tag?per_page=1").expect(200).body["total_items"],
        150
    );
}

/// Content text by title.
fn stories(server: &TestServer) -> std::collections::BTreeMap<String, String> {
    let list = server.get("/v3/content?per_page=500").expect(200).body;
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|c| {
            (
                c["title"].as_str().unwrap_or("").to_owned(),
                c["content"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// Every text an item's versions hold on `server`.
fn history(server: &TestServer, title: &str) -> Vec<String> {
    let list = server.get("/v3/content?per_page=500").expect(200).body;
    let Some(item) = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["title"] == title)
    else {
        return Vec::new();
    };
    let srn = item["srn"].as_str().expect("srn");
    let versions = server
        .get(&format!("/v3/version?content={srn}&per_page=500"))
        .expect(200)
        .body;
    versions["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| v["content"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn locks_need_the_server() {
    let central = TestServer::start();
    let proxy = copydesk_tests::CuttingProxy::new(&central.base);
    let key = central.key("laptop", &["editor"], &[]);
    let desk = central.key("desk", &["editor"], &[]).token();
    let (replica, _keys) = serving_replica(&proxy.base, &key);
    let story = central
        .post(
            "/v3/content",
            &serde_json::json!({"title": "Exclusive", "type": "article"}),
        )
        .expect(200)
        .body;
    let uuid = story["uuid"].as_str().expect("uuid").to_owned();
    eventually("the story reaching the replica", || {
        replica
            .call(
                reqwest::Method::GET,
                &format!("/v3/content/{uuid}"),
                Some(replica.admin_token()),
                None,
            )
            .status
            == 200
    });

    // A lock taken on the laptop is real on the server: the desk cannot write.
    let lock = replica
        .post(
            "/v3/lock-request",
            &serde_json::json!({"srn": story["srn"]}),
        )
        .expect(200)
        .body;
    assert_eq!(
        central.get(&format!("/v3/content/{uuid}")).expect(200).body["lock"],
        true
    );
    central
        .call(
            reqwest::Method::PUT,
            &format!("/v3/content/{uuid}"),
            Some(&desk),
            Some(&serde_json::json!({"title": "Desk"})),
        )
        .expect_error(409, "locked");
    // Released on the laptop, released on the server.
    replica
        .delete(&format!(
            "/v3/lock-request/{}",
            lock[0]["uuid"].as_str().expect("uuid")
        ))
        .expect(200);
    assert_eq!(
        central.get(&format!("/v3/content/{uuid}")).expect(200).body["lock"],
        false
    );

    // Someone else holds it on the server: refused on the laptop too.
    central
        .call(
            reqwest::Method::POST,
            "/v3/lock-request",
            Some(&desk),
            Some(&serde_json::json!({"srn": story["srn"]})),
        )
        .expect(200);
    replica
        .post(
            "/v3/lock-request",
            &serde_json::json!({"srn": story["srn"]}),
        )
        .expect_error(409, "locked");

    // Without the server, no lock: a clear offline error, nothing half-made.
    proxy.set_down(true);
    let reply = replica
        .post(
            "/v3/lock-request",
            &serde_json::json!({"srn": story["srn"]}),
        )
        .expect_error(503, "offline");
    assert!(
        reply.message().contains("cannot be reached"),
        "{}",
        reply.body
    );
    assert_eq!(
        replica.get(&format!("/v3/content/{uuid}")).expect(200).body["lock"],
        false
    );
    proxy.set_down(false);
}

#[test]
fn a_plain_remote_still_syncs() {
    let central = TestServer::start_with(&["--plain"]);
    let proxy = copydesk_tests::CuttingProxy::new(&central.base);
    let replica = TestServer::start_replica();
    let key = central.key("laptop", &["editor"], &[]);
    let author = central
        .post("/v3/author", &serde_json::json!({"name": "Fay Plain"}))
        .expect(200)
        .body[0]
        .clone();
    let story = central
        .post("/v3/content", &serde_json::json!({"title": "Plain story", "type": "article", "authors": [author["uuid"]]}))
        .expect(200)
        .body;
    let (ok, out) = sync(&replica, &proxy.base, &key);
    assert!(ok, "{out}");
    let uuid = story["uuid"].as_str().expect("uuid");
    assert_eq!(
        replica.get(&format!("/v3/content/{uuid}")).expect(200).body["authors"][0]["name"],
        "Fay Plain"
    );

    // Made offline, and its first answer lost: the repeat finds what the first made.
    replica
        .post("/v3/tag", &serde_json::json!({"name": "Once"}))
        .expect(200);
    proxy.cut_next_posts(1);
    let (_, out) = sync(&replica, &proxy.base, &key);
    assert!(
        out.contains("1 waiting"),
        "the create's answer was lost: {out}"
    );
    assert_eq!(names(&central, "tag"), ["Once"], "yet the server made it");
    let (ok, out) = sync(&replica, &proxy.base, &key);
    assert!(ok, "{out}");
    assert_eq!(
        names(&central, "tag"),
        ["Once"],
        "no duplicate on a server without idempotency keys"
    );
    assert_eq!(names(&replica, "tag"), ["Once"]);

    // Edits and deletes on the server arrive, found by listing and reconciling.
    central
        .put(
            &format!("/v3/content/{uuid}"),
            &serde_json::json!({"title": "Plain story, updated"}),
        )
        .expect(200);
    central
        .delete(&format!(
            "/v3/author/{}",
            author["uuid"].as_str().expect("uuid")
        ))
        .expect(200);
    assert!(sync(&replica, &proxy.base, &key).0);
    assert_eq!(
        replica.get(&format!("/v3/content/{uuid}")).expect(200).body["title"],
        "Plain story, updated"
    );
    assert!(
        names(&replica, "author").is_empty(),
        "the deleted author is gone here too"
    );
}
