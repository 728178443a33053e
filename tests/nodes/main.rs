//! Two `copydesk-server` nodes on one PostgreSQL database: a lock, an
//! idempotency key and the change feed hold across nodes, not just across
//! one server's threads.

mod database_tls;
mod import;
mod locales;
mod made_alone;
mod plans;

use std::collections::BTreeSet;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use copydesk_tests::{KeyPair, TestServer, png_base64};
use reqwest::Method;
use serde_json::{Value, json};

/// A node on a fresh database, and a second node on the same database.
fn two_nodes() -> (TestServer, TestServer) {
    let a = TestServer::start_on_postgres();
    let b = TestServer::start_beside(&a);
    (a, b)
}

/// Sends `request` from node A's and node B's thread at the same moment
/// (it is told which: 0 or 1); both answers, A's first.
fn race<T: Send>(
    a: &TestServer,
    b: &TestServer,
    request: impl Fn(usize, &TestServer) -> T + Sync,
) -> [T; 2] {
    let barrier = Barrier::new(2);
    std::thread::scope(|scope| {
        let racers = [a, b].into_iter().enumerate().map(|(n, node)| {
            let (barrier, request) = (&barrier, &request);
            scope.spawn(move || {
                barrier.wait();
                request(n, node)
            })
        });
        let racers: Vec<_> = racers.collect();
        let mut answers = racers.into_iter().map(|h| h.join().expect("a racer"));
        [answers.next(), answers.next()].map(|answer| answer.expect("two answers"))
    })
}

#[test]
fn a_lock_race_between_nodes_has_one_winner_every_round() {
    let (a, b) = two_nodes();
    let story = a
        .post(
            "/v3/content",
            &json!({"title": "Contested", "type": "article"}),
        )
        .expect(200)
        .body;
    let srn = story["srn"].as_str().expect("srn").to_owned();
    let uuid = story["uuid"].as_str().expect("uuid").to_owned();
    // Keys live in the shared database: each works on either node.
    let anna = a.key("anna", &["journalist"], &[]).token();
    let bert = b.key("bert", &["journalist"], &[]).token();
    for round in 0..10 {
        let results = race(&a, &b, |n, node| {
            let (who, token) = [("anna", &anna), ("bert", &bert)][n];
            let reply = node.call(
                Method::POST,
                "/v3/lock-request",
                Some(token),
                Some(&json!({"srn": srn})),
            );
            (who, reply.status.as_u16())
        });
        let winners: Vec<&(&str, u16)> = results.iter().filter(|(_, s)| *s == 200).collect();
        let losers = results.iter().filter(|(_, s)| *s == 409).count();
        assert_eq!(
            (winners.len(), losers),
            (1, 1),
            "round {round}: {results:?}"
        );
        let (winner_node, winner_token, loser_node, loser_token) = if winners[0].0 == "anna" {
            (&a, &anna, &b, &bert)
        } else {
            (&b, &bert, &a, &anna)
        };
        // The loser is held off on its own node; the winner writes on its.
        loser_node
            .call(
                Method::PUT,
                &format!("/v3/content/{uuid}"),
                Some(loser_token),
                Some(&json!({"title": format!("loser {round}")})),
            )
            .expect_error(409, "locked");
        winner_node
            .call(
                Method::PUT,
                &format!("/v3/content/{uuid}"),
                Some(winner_token),
                Some(&json!({"title": format!("winner {round}")})),
            )
            .expect(200);
        // The winner's own request again answers its lock, which it releases.
        let lock = winner_node
            .call(
                Method::POST,
                "/v3/lock-request",
                Some(winner_token),
                Some(&json!({"srn": srn})),
            )
            .expect(200)
            .body;
        winner_node
            .call(
                Method::DELETE,
                &format!(
                    "/v3/lock-request/{}",
                    lock[0]["uuid"].as_str().expect("uuid")
                ),
                Some(winner_token),
                None,
            )
            .expect(200);
    }
}

#[test]
fn an_idempotent_write_retried_on_the_other_node_is_applied_once() {
    let (a, b) = two_nodes();
    let body = json!({"title": "Once across nodes", "type": "article"});
    let keyed = |node: &TestServer| {
        node.send(
            node.request(Method::POST, "/v3/content")
                .bearer_auth(a.admin_token())
                .header("Idempotency-Key", "retry-elsewhere")
                .json(&body),
        )
    };
    let first = keyed(&a).expect(200);
    let again = keyed(&b).expect(200);
    assert_eq!(first.body, again.body, "the stored answer, byte for byte");
    for node in [&a, &b] {
        assert_eq!(
            node.get("/v3/content").expect(200).body["total_items"],
            1,
            "applied once"
        );
    }
}

#[test]
fn an_idempotent_write_raced_on_both_nodes_is_applied_once_every_round() {
    let (a, b) = two_nodes();
    for round in 0..10 {
        let body = json!({"title": format!("Raced {round}"), "type": "article"});
        let key = format!("raced-{round}");
        let [first, second] = race(&a, &b, |_, node| {
            node.send(
                node.request(Method::POST, "/v3/content")
                    .bearer_auth(a.admin_token())
                    .header("Idempotency-Key", &key)
                    .json(&body),
            )
        });
        let applied: Vec<_> = [&first, &second]
            .into_iter()
            .filter(|reply| reply.status.as_u16() == 200)
            .collect();
        assert!(!applied.is_empty(), "round {round}: one applies");
        for reply in [&first, &second] {
            match reply.status.as_u16() {
                200 => assert_eq!(
                    reply.body, applied[0].body,
                    "round {round}: the first answer"
                ),
                409 => assert_eq!(reply.code(), "conflict", "round {round}"),
                other => panic!("round {round}: {other} {}", reply.body),
            }
        }
        let listed = a.get("/v3/content").expect(200).body;
        assert_eq!(
            listed["total_items"],
            round + 1,
            "round {round}: applied once"
        );
    }
}

#[test]
fn a_tracking_label_raced_on_both_nodes_goes_to_one_document_every_round() {
    let (a, b) = two_nodes();
    for round in 0..10 {
        // The same label as each desk types it: it differs only in case.
        let typed = [
            format!("Daily/{round}/Front.indd"),
            format!("daily/{round}/FRONT.indd"),
        ];
        let [first, second] = race(&a, &b, |n, node| {
            node.post(
                "/v3/print-document",
                &json!({"label": format!("Front {n}"), "tracking_label": typed[n]}),
            )
        });
        let mut statuses = [first.status.as_u16(), second.status.as_u16()];
        statuses.sort_unstable();
        assert_eq!(
            statuses,
            [200, 409],
            "round {round}: {} {}",
            first.body,
            second.body
        );
        let refused = if first.status.as_u16() == 409 {
            &first
        } else {
            &second
        };
        assert_eq!(refused.body["field"], "tracking_label", "round {round}");
    }
    let listed = b.get("/v3/print-document?per_page=100").expect(200).body;
    assert_eq!(listed["total_items"], 10, "one document a round: {listed}");
}

#[test]
fn the_feed_holds_back_changes_behind_an_older_write_until_it_commits() {
    let (a, b) = two_nodes();
    let head = |node: &TestServer, since: &str| -> Value {
        node.get(&format!("/v3/changes?since={since}"))
            .expect(200)
            .body
    };
    let start = head(&a, "0")["last"].as_str().expect("last").to_owned();
    // An older write still open: it has its transaction id, and a change
    // that will commit after the story below.
    let mut older = postgres::Client::connect(&a.database_url(), postgres::NoTls)
        .expect("a connection of its own");
    let mut open = older.transaction().expect("a transaction");
    open.batch_execute(
        "INSERT INTO change_log (record_type, uuid, operation) VALUES ('tag', 'an-older-write', 'create')",
    )
    .expect("the older write's change");
    let story = b
        .post(
            "/v3/content",
            &json!({"title": "Committed first", "type": "article"}),
        )
        .expect(200)
        .body;
    let uuid = story["uuid"].as_str().expect("uuid");
    for node in [&a, &b] {
        let feed = head(node, &start);
        assert_eq!(
            (
                feed["items"].as_array().map(Vec::len),
                feed["last"].as_str()
            ),
            (Some(0), Some(start.as_str())),
            "nothing passes the older write while it may still commit: {feed}"
        );
    }
    open.commit().expect("the older write commits");
    let feed = head(&a, &start);
    let uuids: Vec<&str> = feed["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|change| change["uuid"].as_str())
        .collect();
    assert_eq!(uuids.first(), Some(&"an-older-write"), "{feed}");
    assert!(uuids.contains(&uuid), "and the story after it: {feed}");
    assert_eq!(
        head(&b, &start)["items"],
        feed["items"],
        "both nodes read one feed"
    );
}

#[test]
fn a_list_past_ten_thousand_is_estimated_and_still_pages_to_its_end() {
    let (a, b) = two_nodes();
    // Posts are a fifth (counted exactly), articles the rest: past 10,000.
    const STORIES: usize = 13_000;
    // Stories written straight into the database, as an import leaves them.
    psql(
        &a.database_url(),
        &format!(
            "INSERT INTO content (uuid, title, slug, type, version, created_at, modified_at)
             SELECT gen_random_uuid()::text, 'Story ' || n, 'story-' || n,
                    CASE WHEN n % 5 = 0 THEN 'post' ELSE 'article' END, 1,
                    '2026-01-01 00:00:00', '2026-01-01 00:00:00'
             FROM generate_series(1, {STORIES}) n; ANALYZE content"
        ),
    );
    let small = a.get("/v3/content?type=post&per_page=1").expect(200).body;
    assert_eq!(
        small["total_items"],
        STORIES / 5,
        "counted exactly: {small}"
    );
    assert_eq!(small.get("total_items_estimated"), None);
    let listed = b.get("/v3/content?per_page=1").expect(200).body;
    assert_eq!(listed["total_items_estimated"], true, "{listed}");
    let estimate = listed["total_items"].as_u64().expect("a count");
    assert!(
        (10_001..=2 * STORIES as u64).contains(&estimate),
        "the planner's estimate, never below what was counted: {estimate}"
    );
    // Paged by its estimated envelope, the list of articles reads every
    // one, once, and its last page says how many there are.
    let mut seen = BTreeSet::new();
    let mut page = 1;
    loop {
        let body = a
            .get(&format!(
                "/v3/content?type=article&per_page=500&page={page}"
            ))
            .expect(200)
            .body;
        let short = body["items"].as_array().map(Vec::len) < Some(500);
        match (page, short) {
            (1, _) => assert_eq!(body["total_items_estimated"], true, "{body}"),
            (_, true) => assert_eq!(
                (
                    body["total_items"].as_u64(),
                    body.get("total_items_estimated")
                ),
                (Some((STORIES - STORIES / 5) as u64), None),
                "a short page knows the count"
            ),
            _ => {}
        }
        for item in body["items"].as_array().expect("items") {
            assert!(seen.insert(item["uuid"].as_str().expect("uuid").to_owned()));
        }
        if body["current"] == body["last"] {
            break;
        }
        page = body["next"].as_u64().expect("next") as usize;
    }
    assert_eq!(
        seen.len(),
        STORIES - STORIES / 5,
        "every article, paged to the end"
    );
}

/// Runs `copydesk-server sync` for `replica` against `central`; what it printed.
pub(crate) fn sync(replica: &TestServer, central: &TestServer, key: &KeyPair) -> String {
    let (ok, printed) = copydesk_tests::sync_once(replica, &central.base, key);
    assert!(ok, "sync failed: {printed}");
    printed
}

#[test]
fn a_replica_pulling_from_one_node_while_both_take_writes_gets_every_item_once() {
    const WRITERS_PER_NODE: usize = 2;
    const ITEMS_PER_WRITER: usize = 1_250;
    let (a, b) = two_nodes();
    let replica = TestServer::start_replica();
    let total = 2 * WRITERS_PER_NODE * ITEMS_PER_WRITER;
    // The writers stop at half way until the replica has pulled once with
    // all of them stopped, so rounds run both while writes go on and with
    // exactly half of them made, whatever the machine's speed.
    let at_half = AtomicUsize::new(0);
    let resumed = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    let midway = std::thread::scope(|scope| {
        let writers: Vec<_> = [&a, &b]
            .into_iter()
            .enumerate()
            .flat_map(|(n, node)| (0..WRITERS_PER_NODE).map(move |w| (n, w, node)))
            .map(|(n, w, node)| {
                let token = a.admin_token().to_owned();
                let (at_half, resumed) = (&at_half, &resumed);
                scope.spawn(move || {
                    for i in 0..ITEMS_PER_WRITER {
                        if i == ITEMS_PER_WRITER / 2 {
                            at_half.fetch_add(1, Ordering::SeqCst);
                            let waiting = std::time::Instant::now();
                            while !resumed.load(Ordering::SeqCst) {
                                assert!(
                                    waiting.elapsed().as_secs() < 300,
                                    "the replica never pulled at half way"
                                );
                                std::thread::sleep(std::time::Duration::from_millis(10));
                            }
                        }
                        node.call(
                            Method::POST,
                            "/v3/content",
                            Some(&token),
                            Some(&json!({"title": format!("node {n} writer {w} item {i}"), "type": "article"})),
                        )
                        .expect(200);
                    }
                })
            })
            .collect();
        // The replica pulls from node A over and over while the writes go on.
        let puller = scope.spawn(|| {
            let mut midway = None;
            while !done.load(Ordering::SeqCst) {
                let all_stopped = at_half.load(Ordering::SeqCst) == 2 * WRITERS_PER_NODE;
                sync(&replica, &a, &a.admin);
                if all_stopped && midway.is_none() {
                    midway = Some(
                        replica.get("/v3/content?per_page=1").expect(200).body["total_items"]
                            .clone(),
                    );
                    resumed.store(true, Ordering::SeqCst);
                }
            }
            midway
        });
        for writer in writers {
            writer.join().expect("a writer");
        }
        done.store(true, Ordering::SeqCst);
        puller.join().expect("the puller")
    });
    sync(&replica, &a, &a.admin);
    let mut titles = BTreeSet::new();
    let mut page = 1;
    loop {
        let listed: Value = replica
            .get(&format!(
                "/v3/content?per_page=500&page={page}&order=id&dir=asc"
            ))
            .expect(200)
            .body;
        let items = listed["items"].as_array().expect("items").clone();
        if items.is_empty() {
            break;
        }
        for item in &items {
            let title = item["title"].as_str().expect("a title").to_owned();
            assert!(titles.insert(title.clone()), "{title} came twice");
        }
        page += 1;
    }
    assert_eq!(
        midway,
        Some(json!(total / 2)),
        "a round pulled at half way, with both nodes' first halves made, holds exactly those"
    );
    assert_eq!(titles.len(), total, "every item, once");
    assert_eq!(
        replica.get("/v3/content?per_page=1").expect(200).body["total_items"],
        total
    );
}

#[test]
fn acknowledged_writes_outlive_the_primary_and_the_node_carries_on_against_the_promoted_standby() {
    use copydesk_tests::postgres::Cluster;
    let primary = Cluster::start(&[]).expect("a primary");
    primary.create_database("failover").expect("a database");
    let standby = primary.standby().expect("a standby");
    // From here the primary waits for the standby's flush before it
    // acknowledges a commit.
    primary
        .require_synchronous_standby()
        .expect("a synchronous standby");
    // libpq's multi-host form: the node finds whichever one takes writes.
    let url = format!(
        "postgres://postgres@127.0.0.1:{},127.0.0.1:{}/failover?target_session_attrs=read-write",
        primary.port, standby.port
    );
    let node = TestServer::start_on_database(&url);
    let acknowledged: Vec<String> = (0..50)
        .map(|i| {
            node.post(
                "/v3/content",
                &json!({"title": format!("before {i}"), "type": "article"}),
            )
            .expect(200)
            .body["uuid"]
                .as_str()
                .expect("uuid")
                .to_owned()
        })
        .collect();
    // Reads side by side leave the node holding several connections, all
    // to the primary about to die.
    std::thread::scope(|scope| {
        let node = &node;
        for uuid in acknowledged.iter().take(8) {
            scope.spawn(move || {
                for _ in 0..20 {
                    node.get(&format!("/v3/content/{uuid}")).expect(200);
                }
            });
        }
    });
    primary.kill().expect("the primary is killed");
    // With no server that takes writes, a write and a read are told to
    // try again (503 with Retry-After), not that the server failed.
    let write = |title: &str| {
        node.call(
            Method::POST,
            "/v3/content",
            Some(node.admin_token()),
            Some(&json!({"title": title, "type": "article"})),
        )
    };
    let first_uuid = acknowledged[0].clone();
    for reply in [
        write("during the failover"),
        node.get(&format!("/v3/content/{first_uuid}")),
    ] {
        assert_eq!(reply.status.as_u16(), 503, "{}", reply.body);
        assert_eq!(reply.code(), "database_unavailable", "{}", reply.body);
        assert!(reply.retry_after.is_some(), "a Retry-After header");
    }
    standby.promote().expect("the standby is promoted");
    // The node drops the connections to the dead primary and finds the
    // promoted standby at the first request.
    let after = write("after the failover").expect(200).body;
    for uuid in acknowledged.iter().chain(std::iter::once(
        &after["uuid"].as_str().expect("uuid").to_owned(),
    )) {
        node.get(&format!("/v3/content/{uuid}")).expect(200);
    }
    let titles = node.get("/v3/content?per_page=500").expect(200).body;
    let during = titles["items"]
        .as_array()
        .expect("a list")
        .iter()
        .filter(|item| item["title"] == "during the failover")
        .count();
    assert_eq!(during, 0, "the refused write was not stored");
}

#[test]
fn a_file_uploaded_to_one_node_is_served_turned_and_removed_by_the_other() {
    use base64::Engine as _;
    let (a, b) = two_nodes();
    let photo = a
        .post(
            "/v3/content",
            &json!({"title": "Harbour", "type": "media",
                    "attachment": {"name": "harbour.png", "file": png_base64(40, 20)}}),
        )
        .expect(200)
        .body;
    let words = b"Minutes of the council, kept as they are.";
    let document = a
        .post(
            "/v3/content",
            &json!({"title": "Minutes", "type": "media",
                    "attachment": {"name": "minutes.txt",
                                   "file": base64::engine::general_purpose::STANDARD.encode(words)}}),
        )
        .expect(200)
        .body;
    let bytes = |node: &TestServer, path: &Value| {
        let path = path.as_str().expect("a url");
        node.send(node.request(Method::GET, path)).expect(200).bytes
    };
    // Node B has never seen either file: it reads them from the database.
    for item in [&photo, &document] {
        for url in ["original_url", "public_url"] {
            assert_eq!(
                bytes(&b, &item["attachment"][url]),
                bytes(&a, &item["attachment"][url]),
                "{url} of {} on the other node",
                item["title"]
            );
        }
    }
    assert_eq!(
        bytes(&b, &document["attachment"]["original_url"]),
        words.to_vec()
    );
    // Turning the preview on B reads the original B never wrote.
    let uuid = photo["uuid"].as_str().expect("uuid");
    let turned = b
        .put(&format!("/v3/attachment/{uuid}"), &json!({"angle": "90"}))
        .expect(200)
        .body;
    let preview =
        image::load_from_memory(&bytes(&a, &turned["attachment"]["public_url"])).expect("an image");
    assert_eq!((preview.width(), preview.height()), (20, 40));
    // The old files went with the old record, on every node.
    let old = photo["attachment"]["public_url"].as_str().expect("url");
    assert_eq!(b.send(b.request(Method::GET, old)).status.as_u16(), 404);
    let doc_uuid = document["uuid"].as_str().expect("uuid");
    a.delete(&format!("/v3/content/{doc_uuid}")).expect(200);
    let gone = document["attachment"]["original_url"]
        .as_str()
        .expect("url");
    assert_eq!(b.send(b.request(Method::GET, gone)).status.as_u16(), 404);
}

/// Runs `copydesk-server check --database URL`: whether it passed, what it printed.
fn check(url: &str) -> (bool, String) {
    let output = copydesk_tests::server_command()
        .args(["check", "--database", url])
        .output()
        .expect("check runs");
    (
        output.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

fn psql(url: &str, statement: &str) {
    let status = std::process::Command::new("/usr/lib/postgresql/15/bin/psql")
        .args([url, "-qAtc", statement])
        .status()
        .expect("psql runs");
    assert!(status.success(), "{statement}");
}

#[test]
fn check_reads_a_postgresql_database_and_names_a_lost_file() {
    let url = copydesk_tests::postgres::fresh_database();
    let node = TestServer::start_on_database(&url);
    let photo = node
        .post(
            "/v3/content",
            &json!({"title": "Harbour", "type": "media",
                    "attachment": {"name": "harbour.png", "file": png_base64(30, 10)}}),
        )
        .expect(200)
        .body;
    let (sound, printed) = check(&url);
    assert!(sound, "{printed}");
    assert!(
        printed.contains("amcheck extension is not installed"),
        "{printed}"
    );
    psql(&url, "CREATE EXTENSION amcheck");
    let (sound, printed) = check(&url);
    assert!(
        sound && printed.contains("is sound") && !printed.contains("note:"),
        "{printed}"
    );
    // A copy of a PostgreSQL database is PostgreSQL's own tools' work.
    let backup = copydesk_tests::server_command()
        .args(["backup", "--database", &url, "--to"])
        .arg(node.dir.path().join("copy.db"))
        .output()
        .expect("backup runs");
    assert!(!backup.status.success());
    assert!(String::from_utf8_lossy(&backup.stderr).contains("pg_basebackup"));
    // A file lost from the database is a damaged database.
    psql(&url, "DELETE FROM attachment_files");
    let (sound, printed) = check(&url);
    let uuid = photo["attachment"]["uuid"].as_str().expect("uuid");
    assert!(
        !sound && printed.contains(&format!("attachment {uuid} has no file")),
        "{printed}"
    );
}
