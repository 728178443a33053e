//! A SIGKILL in the middle of a stream of writes loses no acknowledged write and leaves a sound database.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use copydesk_tests::TestServer;
use reqwest::Method;
use serde_json::json;

#[test]
fn sigkill_mid_stream_keeps_every_acknowledged_write() {
    let mut server = TestServer::start();
    let base = server.base.clone();
    let token = server.admin_token().to_owned();
    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let writers: Vec<_> = (0..3)
        .map(|writer| {
            let base = base.clone();
            let token = token.clone();
            let acknowledged = Arc::clone(&acknowledged);
            std::thread::spawn(move || {
                let client = reqwest::blocking::Client::builder()
                    .timeout(Duration::from_secs(10))
                    .build()
                    .expect("a client");
                let started = Instant::now();
                for i in 0.. {
                    if started.elapsed() > Duration::from_secs(30) {
                        break;
                    }
                    let body = json!({"title": format!("writer {writer} item {i}"), "type": "article",
                                      "content": format!("<p>{}</p>", "text ".repeat(50))});
                    let sent = client
                        .request(Method::POST, format!("{base}/v3/content"))
                        .bearer_auth(&token)
                        .json(&body)
                        .send();
                    match sent {
                        Ok(response) if response.status().is_success() => {
                            let value: serde_json::Value = match response.json() {
                                Ok(v) => v,
                                Err(_) => break,
                            };
                            let uuid = value["uuid"].as_str().expect("uuid").to_owned();
                            acknowledged.lock().expect("lock").push(uuid);
                        }
                        _ => break,
                    }
                }
            })
        })
        .collect();
    // Let writes flow, then kill the server without warning.
    let waited = Instant::now();
    while acknowledged.lock().expect("lock").len() < 300
        && waited.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    server.kill();
    for writer in writers {
        writer.join().expect("a writer thread ends");
    }
    let acknowledged = acknowledged.lock().expect("lock").clone();
    assert!(
        acknowledged.len() >= 100,
        "the writes were flowing: {}",
        acknowledged.len()
    );

    {
        let db = rusqlite::Connection::open(server.db_path()).expect("the database opens");
        let check: String = db
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))
            .expect("integrity check");
        assert_eq!(check, "ok");
        let fk: i64 = db
            .query_row("SELECT COUNT(*) FROM pragma_foreign_key_check", [], |row| {
                row.get(0)
            })
            .expect("foreign key check");
        assert_eq!(fk, 0);
        // Every stored item has its first version and its change-log entry.
        let orphans: i64 = db
            .query_row(
                "SELECT COUNT(*) FROM content c WHERE NOT EXISTS (SELECT 1 FROM versions v WHERE v.content_id = c.id)
                 OR NOT EXISTS (SELECT 1 FROM change_log l WHERE l.record_type = 'content' AND l.uuid = c.uuid)",
                [],
                |row| row.get(0),
            )
            .expect("count");
        assert_eq!(orphans, 0);
    }

    server.restart();
    for uuid in &acknowledged {
        let item = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
        assert_eq!(item["version"], "1");
    }
    let total = server.get("/v3/content?per_page=1").expect(200).body["total_items"]
        .as_u64()
        .expect("count");
    assert!(total >= acknowledged.len() as u64);
}

/// Reads never wait for writes: while a write waits inside the server (its
/// database lock held by another process), every read still answers.
#[test]
fn reads_do_not_wait_for_a_waiting_write() {
    let server = TestServer::start();
    let item = server
        .post(
            "/v3/content",
            &json!({"title": "Readable", "type": "article"}),
        )
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid").to_owned();
    let db = rusqlite::Connection::open(server.db_path()).expect("the database opens");
    db.execute_batch("BEGIN IMMEDIATE; UPDATE meta SET value = value WHERE key = 'none';")
        .expect("the write lock is taken");
    std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            server.put(
                &format!("/v3/content/{uuid}"),
                &json!({"title": "Written after"}),
            )
        });
        // Give the write time to reach the server and wait on the lock there.
        std::thread::sleep(Duration::from_millis(300));
        assert!(!writer.is_finished(), "the write is waiting for the lock");
        for _ in 0..20 {
            let read = server.get(&format!("/v3/content/{uuid}")).expect(200);
            assert_eq!(read.body["title"], "Readable");
            server.get("/v3/content").expect(200);
        }
        db.execute_batch("ROLLBACK").expect("released");
        let written = writer.join().expect("the writer thread");
        assert_eq!(written.expect(200).body["title"], "Written after");
    });
}

/// The salt folders in a server's files directory.
fn upload_folders(server: &TestServer) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(server.dir.path().join("files"))
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn uploads_cut_off_by_a_kill_leave_no_folder_after_a_restart() {
    let mut server = TestServer::start();
    let kept = server
        .post(
            "/v3/content",
            &json!({"title": "Photo", "type": "media", "attachment": {"name": "p.png", "file": crate::png_base64(4, 4)}}),
        )
        .expect(200)
        .body;
    let kept_folders = upload_folders(&server);
    assert_eq!(kept_folders.len(), 1);
    let uuid = kept["uuid"].as_str().expect("uuid").to_owned();
    let address = server.base.trim_start_matches("http://").to_owned();
    // An upload under way when the server is killed: its folder has no record.
    let stalled = crate::hardening::slow_upload(&address, &uuid, server.admin_token());
    let started = Instant::now();
    while upload_folders(&server).len() < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the upload's folder appears"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    server.kill();
    drop(stalled);
    assert_eq!(
        upload_folders(&server).len(),
        2,
        "the kill leaves it behind"
    );
    server.restart();
    assert_eq!(upload_folders(&server), kept_folders, "removed at start");
    let photo = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    let original = photo["attachment"]["original_url"].as_str().expect("url");
    server
        .send(server.request(Method::GET, original))
        .expect(200);
}

#[test]
fn check_removes_folders_of_cut_off_uploads_an_hour_old() {
    let server = TestServer::start();
    let photo = server
        .post(
            "/v3/content",
            &json!({"title": "Photo", "type": "media", "attachment": {"name": "p.png", "file": crate::png_base64(4, 4)}}),
        )
        .expect(200)
        .body;
    let original = photo["attachment"]["original_url"].as_str().expect("url");
    // `check`, which may run beside a serving server, removes only folders
    // an hour old or more: an upload in flight beside it is younger.
    let files = server.dir.path().join("files");
    let (old, young) = (
        files.join(format!("{:032x}", 1)),
        files.join(format!("{:032x}", 2)),
    );
    for folder in [&old, &young] {
        std::fs::create_dir(folder).expect("a folder");
        std::fs::write(folder.join("incoming"), b"half a photo").expect("a file");
    }
    let two_hours_ago = std::time::SystemTime::now() - Duration::from_secs(7200);
    std::fs::File::open(&old)
        .and_then(|dir| dir.set_modified(two_hours_ago))
        .expect("an old folder");
    let checked = copydesk_tests::server_command()
        .arg("check")
        .arg("--data")
        .arg(server.dir.path())
        .output()
        .expect("check runs");
    let said = String::from_utf8_lossy(&checked.stdout);
    assert!(checked.status.success(), "{said}");
    assert!(
        said.contains("before they were recorded (an hour old or more) removed: 1"),
        "{said}"
    );
    assert!(!old.exists() && young.exists(), "only the old one goes");
    server
        .send(server.request(Method::GET, original))
        .expect(200);
}
