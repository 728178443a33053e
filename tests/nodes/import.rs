//! `copydesk-server import`: a SQLite central server with a synced replica
//! moves to PostgreSQL, and the replica's next sync pulls nothing twice and
//! loses nothing.

use std::collections::BTreeMap;

use copydesk_tests::{TestServer, png_base64, postgres, server_command};

use crate::sync;
use reqwest::Method;
use serde_json::{Value, json};

/// Runs `copydesk-server import` from the SQLite server's data directory.
fn import(sqlite: &TestServer, url: &str, data: &std::path::Path) -> std::process::Output {
    server_command()
        .arg("import")
        .arg("--from")
        .arg(sqlite.dir.path())
        .arg("--database")
        .arg(url)
        .arg("--data")
        .arg(data)
        .output()
        .expect("import runs")
}

/// The number after `word` in a sync's summary ("pushed 2, pulled 5").
fn count_after(summary: &str, word: &str) -> usize {
    summary
        .split(&format!("{word} "))
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no \"{word}\" count in {summary}"))
}

/// Every story a server holds, by UUID, as its single GET answers it.
fn stories(server: &TestServer) -> BTreeMap<String, Value> {
    let list = server.get("/v3/content?limit=200").expect(200).body;
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| {
            let uuid = item["uuid"].as_str().expect("uuid").to_owned();
            let whole = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
            (uuid, whole)
        })
        .collect()
}

/// What a server says about a story beyond its own answer: its versions and
/// its comment thread.
fn history(server: &TestServer, story: &Value) -> (Value, Value) {
    let srn = story["srn"].as_str().expect("srn");
    let uuid = story["uuid"].as_str().expect("uuid");
    (
        server
            .get(&format!("/v3/version?content={srn}&order=version&dir=asc"))
            .expect(200)
            .body,
        server
            .get(&format!("/v3/note-comment/{uuid}"))
            .expect(200)
            .body,
    )
}

fn titles(server: &TestServer) -> Vec<String> {
    let mut titles: Vec<String> = stories(server)
        .values()
        .map(|s| s["title"].as_str().expect("title").to_owned())
        .collect();
    titles.sort();
    titles
}

#[test]
fn a_sqlite_central_server_moves_to_postgresql_and_its_replica_syncs_on() {
    // A central server on SQLite, as a small newsroom runs it.
    let sqlite = TestServer::start_replica();
    let author = sqlite
        .post("/v3/author", &json!({"name": "Ann Archive"}))
        .expect(200)
        .body[0]
        .clone();
    let story = sqlite
        .post(
            "/v3/content",
            &json!({"title": "Council budget", "type": "article",
                    "content": "<p>The council met.</p>",
                    "authors": [author["uuid"]]}),
        )
        .expect(200)
        .body;
    let uuid = story["uuid"].as_str().expect("uuid").to_owned();
    sqlite
        .put(
            &format!("/v3/content/{uuid}"),
            // What COPY's text format escapes: a tab, a new line, a
            // return and a backslash, each kept as written.
            &json!({"title": "Council budget passes", "abstract": "Votes:\t12\\3",
                    "content": "<p>The council voted.</p>\n<p>Line\r\nend \\N</p>"}),
        )
        .expect(200);
    let thread = sqlite
        .post(
            "/v3/note-comment/root",
            &json!({"comment": "Check the figures", "reference": uuid, "version": 2}),
        )
        .expect(200)
        .body;
    let first_comment = thread["items"][0]["uuid"]
        .as_str()
        .expect("uuid")
        .to_owned();
    sqlite
        .post(
            &format!("/v3/note-comment/{first_comment}"),
            &json!({"comment": "Checked", "reference": uuid, "version": 2}),
        )
        .expect(200);
    let photo = sqlite
        .post(
            "/v3/content",
            &json!({"title": "Harbour", "type": "media",
                    "attachment": {"name": "harbour.png", "file": png_base64(40, 20)}}),
        )
        .expect(200)
        .body;
    let dropped = sqlite
        .post(
            "/v3/content",
            &json!({"title": "Spiked", "type": "article"}),
        )
        .expect(200)
        .body;
    sqlite
        .delete(&format!(
            "/v3/content/{}",
            dropped["uuid"].as_str().expect("uuid")
        ))
        .expect(200);

    // A laptop syncs with it, then works offline while the desk writes on.
    let key = sqlite.key("laptop", &["editor"], &[]);
    let replica = TestServer::start_replica();
    sync(&replica, &sqlite, &key);
    assert_eq!(titles(&replica), titles(&sqlite));
    replica
        .post(
            "/v3/content",
            &json!({"title": "Written offline", "type": "article"}),
        )
        .expect(200);
    sqlite
        .post(
            "/v3/content",
            &json!({"title": "Filed at the desk", "type": "article"}),
        )
        .expect(200);

    // What the SQLite server answers, to hold the PostgreSQL one to.
    let before = stories(&sqlite);
    let before_history: BTreeMap<String, (Value, Value)> = before
        .iter()
        .map(|(uuid, story)| (uuid.clone(), history(&sqlite, story)))
        .collect();
    let photo_path = photo["attachment"]["original_url"]
        .as_str()
        .expect("url")
        .to_owned();
    let photo_bytes = sqlite
        .send(sqlite.request(Method::GET, &photo_path))
        .expect(200)
        .bytes;
    let mut sqlite = sqlite;
    assert!(sqlite.terminate(std::time::Duration::from_secs(30)));

    // The move: a new, empty PostgreSQL database and a fresh data directory.
    let url = postgres::fresh_database();
    let node_dir = tempfile::tempdir().expect("a directory");
    let output = import(&sqlite, &url, node_dir.path());
    let printed = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "import failed: {printed}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(printed.contains("  attachments: 1\n"), "{printed}");

    // Importing twice would mix two newsrooms: refused, nothing written.
    let again = import(&sqlite, &url, node_dir.path());
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already holds data"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // The newsroom keeps its server's address; its replicas know it by that.
    let central = sqlite.replace_with_database(&url);
    // Every story, version and comment answers as it did, byte for byte.
    let after = stories(&central);
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>()
    );
    for (uuid, story) in &before {
        assert_eq!(&after[uuid], story, "story {uuid}");
        assert_eq!(
            history(&central, &after[uuid]),
            before_history[uuid],
            "the versions and comments of {uuid}"
        );
    }
    // The file came along.
    assert_eq!(
        central
            .send(central.request(Method::GET, &photo_path))
            .expect(200)
            .bytes,
        photo_bytes
    );
    // A story written now gets a new id, not one the import holds.
    central
        .post(
            "/v3/content",
            &json!({"title": "First on PostgreSQL", "type": "article"}),
        )
        .expect(200);

    // The laptop's next sync: its offline story goes up; it pulls only what
    // it had not seen (the desk's two stories), nothing twice.
    let summary = sync(&replica, &central, &key);
    assert_eq!(count_after(&summary, "pushed"), 1, "{summary}");
    let pulled = count_after(&summary, "pulled");
    assert!(
        (2..=6).contains(&pulled),
        "the replica pulled {pulled} changes: it started over or missed some ({summary})"
    );
    let mut expected = titles(&central);
    expected.dedup();
    assert_eq!(
        titles(&replica),
        expected,
        "the replica has every story once"
    );
    assert_eq!(
        titles(&central),
        [
            "Council budget passes",
            "Filed at the desk",
            "First on PostgreSQL",
            "Harbour",
            "Written offline"
        ]
    );
    let again = sync(&replica, &central, &key);
    assert_eq!(
        (count_after(&again, "pushed"), count_after(&again, "pulled")),
        (0, 0),
        "{again}"
    );
}
