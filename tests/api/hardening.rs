//! What an attacker or an unlucky operator tries: user files that would run as pages, huge searches and images, slow uploads, early tokens, a damaged database, a stop, a live backup.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use copydesk_tests::{TestServer, server_command};
use reqwest::Method;
use serde_json::{Value, json};

use crate::png_base64;

/// Creates a media item holding `bytes` as a file named `name`.
pub(crate) fn media_with_file(server: &TestServer, name: &str, bytes: &[u8]) -> Value {
    media_item(
        server,
        name,
        &base64::engine::general_purpose::STANDARD.encode(bytes),
    )
}

/// Creates a media item holding the base64 `file` as a file named `name`.
pub(crate) fn media_item(server: &TestServer, name: &str, file: &str) -> Value {
    server
        .post(
            "/v3/content",
            &json!({"title": format!("File {name}"), "type": "media", "attachment": {"name": name, "file": file}}),
        )
        .expect(200)
        .body
}

/// Fetches a file URL without a token; returns the answer's headers.
fn file_headers(server: &TestServer, url: &str) -> reqwest::header::HeaderMap {
    let response = reqwest::blocking::get(server.url(url)).expect("the file answers");
    assert_eq!(response.status().as_u16(), 200, "{url}");
    response.headers().clone()
}

fn header<'a>(headers: &'a reqwest::header::HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
}

#[test]
fn uploaded_files_never_run_as_pages_and_images_still_display() {
    let server = TestServer::start();
    let active: [(&str, &[u8]); 4] = [
        (
            "e.html",
            b"<html><script>fetch('/steal?'+sessionStorage.length)</script></html>",
        ),
        (
            "e.svg",
            b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>",
        ),
        ("e.js", b"alert(document.domain)"),
        ("e.xml", b"<?xml version='1.0'?><x:script xmlns:x='http://www.w3.org/1999/xhtml'>alert(1)</x:script>"),
    ];
    for (name, bytes) in active {
        let item = media_with_file(&server, name, bytes);
        for url_field in ["original_url", "public_url"] {
            let url = item["attachment"][url_field].as_str().expect("a url");
            let headers = file_headers(&server, url);
            assert!(
                header(&headers, "content-disposition").starts_with("attachment"),
                "{name} at {url_field} must download, not display: {headers:?}"
            );
            assert!(
                header(&headers, "content-disposition").contains(name),
                "the download keeps its name: {headers:?}"
            );
            assert_eq!(header(&headers, "x-content-type-options"), "nosniff");
            assert_eq!(
                header(&headers, "content-security-policy"),
                "default-src 'none'; sandbox"
            );
        }
    }

    let photo = media_item(&server, "harbour.png", &png_base64(40, 20));
    for url_field in ["original_url", "public_url"] {
        let url = photo["attachment"][url_field].as_str().expect("a url");
        let headers = file_headers(&server, url);
        assert_eq!(header(&headers, "content-type"), "image/png");
        assert!(
            !header(&headers, "content-disposition").starts_with("attachment"),
            "an image displays inline: {headers:?}"
        );
        assert_eq!(header(&headers, "x-content-type-options"), "nosniff");
        assert_eq!(
            header(&headers, "content-security-policy"),
            "default-src 'none'; sandbox"
        );
    }

    // A page named like an image is not an image: it downloads too.
    let disguised = media_with_file(&server, "holiday.png", b"<html><script>alert(1)</script>");
    let headers = file_headers(
        &server,
        disguised["attachment"]["original_url"]
            .as_str()
            .expect("a url"),
    );
    assert!(header(&headers, "content-disposition").starts_with("attachment"));
}

#[test]
fn searches_too_large_to_run_are_refused_with_the_limit_named() {
    let server = TestServer::start();
    server
        .post(
            "/v3/content",
            &json!({"title": "Council votes", "type": "article"}),
        )
        .expect(200);
    let many_words: Vec<String> = (0..1200).map(|i| format!("w{i}")).collect();
    let refused = server
        .get(&format!(
            "/v3/search?type=content&keywords={}",
            many_words.join("%20")
        ))
        .expect_error(400, "invalid_request");
    assert_eq!(refused.body["field"], "keywords");
    assert!(refused.message().contains("50"), "{}", refused.body);

    let long_word = "a".repeat(60_000);
    for record_type in ["content", "author", "tag"] {
        let refused = server
            .get(&format!(
                "/v3/search?type={record_type}&keywords={long_word}"
            ))
            .expect_error(400, "invalid_request");
        assert!(refused.message().contains("200"), "{}", refused.body);
    }

    // Up to the limit, a search runs.
    let fifty: Vec<&str> = std::iter::repeat_n("council", 50).collect();
    let found = server
        .get(&format!(
            "/v3/search?type=content&keywords={}",
            fifty.join("%20")
        ))
        .expect(200)
        .body;
    assert_eq!(found["items"].as_array().map(Vec::len), Some(1), "{found}");
}

/// A PNG of `width` × `height` pixels of one colour: tiny on the wire, huge decoded.
fn flat_png(width: u32, height: u32, color: image::ExtendedColorType) -> Vec<u8> {
    use image::ImageEncoder as _;
    let bytes_per_pixel = u64::from(color.bits_per_pixel() / 8);
    let raw = vec![
        0u8;
        usize::try_from(u64::from(width) * u64::from(height) * bytes_per_pixel)
            .expect("fits")
    ];
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new_with_quality(
        &mut png,
        image::codecs::png::CompressionType::Default,
        image::codecs::png::FilterType::NoFilter,
    )
    .write_image(&raw, width, height, color)
    .expect("encodes");
    png
}

/// Streams `bytes` as an item's new file (`PUT /v3/attachment/{uuid}/file`).
pub(crate) fn upload_file(
    server: &TestServer,
    uuid: &str,
    name: &str,
    bytes: Vec<u8>,
) -> copydesk_tests::Reply {
    server.send(
        server
            .request(
                Method::PUT,
                &format!("/v3/attachment/{uuid}/file?name={name}"),
            )
            .bearer_auth(server.admin_token())
            .header("content-type", "application/octet-stream")
            .body(bytes),
    )
}

#[test]
fn a_huge_image_is_refused_or_handled_within_bounded_memory() {
    let server = TestServer::start();
    let item = media_item(&server, "small.png", &png_base64(8, 8));
    let uuid = item["uuid"].as_str().expect("uuid");

    // 11,000 × 11,000 in colour with alpha: 462 MiB decoded, refused from its header.
    let poster = flat_png(11_000, 11_000, image::ExtendedColorType::Rgba8);
    assert!(
        poster.len() < 2 * 1024 * 1024,
        "small on the wire: {}",
        poster.len()
    );
    let refused =
        upload_file(&server, uuid, "poster.png", poster.clone()).expect_error(413, "too_large");
    assert!(
        refused.message().contains("11000 × 11000"),
        "{}",
        refused.body
    );
    let as_json = server
        .put(
            &format!("/v3/attachment/{uuid}"),
            &json!({"name": "poster.png", "file": base64::engine::general_purpose::STANDARD.encode(&poster)}),
        )
        .expect_error(413, "too_large");
    assert!(as_json.message().contains("MiB"), "{}", as_json.body);
    let unchanged = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    assert_eq!(unchanged["attachment"]["width"], "8", "the old file stays");

    // 11,000 × 11,000 in grey: 115 MiB decoded, under the limit: handled,
    // with a preview scaled down, in bounded memory.
    let grey = flat_png(11_000, 11_000, image::ExtendedColorType::L8);
    let taken = upload_file(&server, uuid, "grey.png", grey)
        .expect(200)
        .body;
    assert_eq!(taken["attachment"]["width"], "11000");
    let preview = reqwest::blocking::get(
        server.url(taken["attachment"]["public_url"].as_str().expect("a url")),
    )
    .expect("the preview answers")
    .bytes()
    .expect("its bytes");
    let preview = image::load_from_memory(&preview).expect("the preview is an image");
    assert_eq!((preview.width(), preview.height()), (3000, 3000));

    let peak = server.peak_memory_bytes();
    eprintln!("the server's peak memory: {} MiB", peak / 1024 / 1024);
    assert!(
        peak < 256 * 1024 * 1024,
        "the server's peak memory stays under 256 MiB: {} MiB",
        peak / 1024 / 1024
    );
}

/// Opens an upload that sends its headers and a few bytes, then waits.
pub(crate) fn slow_upload(base_addr: &str, uuid: &str, token: &str) -> TcpStream {
    let mut stream = TcpStream::connect(base_addr).expect("connects");
    let head = format!(
        "PUT /v3/attachment/{uuid}/file?name=slow.bin HTTP/1.1\r\nHost: {base_addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\nabc"
    );
    stream.write_all(head.as_bytes()).expect("sends");
    stream
}

#[test]
fn six_hundred_slow_uploads_leave_the_server_answering() {
    let server = TestServer::start_with(&["--body-timeout", "5"]);
    let item = server
        .post("/v3/content", &json!({"title": "Slow", "type": "media"}))
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid").to_owned();
    let addr = server.base.trim_start_matches("http://").to_owned();
    let keys: Vec<String> = (0..12)
        .map(|i| {
            server
                .key(&format!("photographer {i}"), &["admin"], &[])
                .token()
        })
        .collect();
    let mut uploads = Vec::new();
    for i in 0..600 {
        uploads.push(slow_upload(&addr, &uuid, &keys[i % keys.len()]));
    }
    // Every other request still answers at once.
    for _ in 0..5 {
        let started = Instant::now();
        server.get("/v3/me").expect(200);
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "GET /v3/me took {:?} beside 600 slow uploads",
            started.elapsed()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Past the cap, uploads were turned away at once, with a time to come back.
    let mut refused = 0;
    for stream in &mut uploads {
        stream
            .set_read_timeout(Some(Duration::from_millis(50)))
            .expect("a timeout");
        let mut answer = [0u8; 512];
        if let Ok(n) = stream.read(&mut answer) {
            let text = String::from_utf8_lossy(&answer[..n]).to_lowercase();
            if text.starts_with("http/1.1 429") {
                assert!(text.contains("retry-after: 5"), "{text}");
                assert!(text.contains("connection: close"), "{text}");
                assert!(text.contains("too_many_requests"), "{text}");
                refused += 1;
            }
        }
    }
    assert_eq!(refused, 600 - 64, "64 uploads in flight at most");
    // The ones let in, stalled, are cut off after the body timeout.
    let stalled = uploads
        .iter_mut()
        .find_map(|stream| {
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .expect("a timeout");
            let mut answer = [0u8; 1024];
            let n = stream.read(&mut answer).ok()?;
            let text = String::from_utf8_lossy(&answer[..n]).to_lowercase();
            text.starts_with("http/1.1 408").then_some(text)
        })
        .expect("a stalled upload is answered 408");
    assert!(stalled.contains("\"code\":\"timeout\""), "{stalled}");
    drop(uploads);
    server.get("/v3/me").expect(200);
}

#[derive(serde::Serialize)]
struct EarlyClaims<'a> {
    pk: &'a str,
    iat: i64,
    nbf: i64,
    exp: i64,
}

#[test]
fn a_token_not_valid_yet_is_refused_and_cannot_be_refreshed() {
    let server = TestServer::start();
    let now = chrono::Utc::now().timestamp();
    let sign = |nbf: i64| {
        jsonwebtoken::encode(
            &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
            &EarlyClaims {
                pk: &server.admin.public_key,
                iat: now,
                nbf,
                exp: now + 7200,
            },
            &jsonwebtoken::EncodingKey::from_secret(server.admin.private_key.as_bytes()),
        )
        .expect("signs")
    };
    let early = sign(now + 3600);
    let refused = server
        .call(Method::GET, "/v3/me", Some(&early), None)
        .expect_error(403, "token_invalid");
    assert!(refused.message().contains("nbf"), "{}", refused.body);
    server
        .call(Method::GET, "/v3/token/refresh", Some(&early), None)
        .expect_error(403, "token_invalid");
    let valid = sign(now - 10);
    server
        .call(Method::GET, "/v3/token/refresh", Some(&valid), None)
        .expect(200);
}

/// Creates `count` stories; returns their UUIDs.
fn stories(server: &TestServer, count: usize) -> Vec<String> {
    (0..count)
        .map(|i| {
            server
                .post(
                    "/v3/content",
                    &json!({"title": format!("Story {i}"), "type": "article",
                            "content": format!("<p>{}</p>", "The council met again. ".repeat(40))}),
                )
                .expect(200)
                .body["uuid"]
                .as_str()
                .expect("uuid")
                .to_owned()
        })
        .collect()
}

/// The content UUIDs in the database file `db` alone.
fn uuids_in(db: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).expect("opens");
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .expect("checks");
    assert_eq!(check, "ok");
    let mut statement = conn.prepare("SELECT uuid FROM content").expect("prepares");
    statement
        .query_map([], |row| row.get(0))
        .expect("queries")
        .collect::<Result<_, _>>()
        .expect("reads")
}

#[test]
fn a_clean_stop_leaves_every_story_in_the_database_file_alone() {
    let mut server = TestServer::start();
    let written = stories(&server, 300);
    assert!(server.terminate(Duration::from_secs(30)), "a clean exit");
    let wal = server.dir.path().join("copydesk.db-wal");
    assert!(
        !wal.exists() || std::fs::metadata(&wal).expect("metadata").len() == 0,
        "the WAL is empty or gone after a clean stop"
    );
    let copy = tempfile::tempdir().expect("a folder");
    let copied = copy.path().join("copydesk.db");
    std::fs::copy(server.db_path(), &copied).expect("copies");
    let found = uuids_in(&copied);
    for uuid in &written {
        assert!(found.contains(uuid), "{uuid} is in copydesk.db alone");
    }
}

/// Runs `copydesk-server serve` on `dir` expecting it to refuse to start; returns its stderr.
fn refused_start(dir: &Path) -> String {
    let mut child = server_command()
        .args(["serve", "--listen", "127.0.0.1:0", "--data"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waits") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("the server started on a damaged database");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("reads");
    assert!(!status.success(), "refused: {stderr}");
    stderr
}

#[test]
fn a_damaged_database_is_refused_at_start_and_check_reports_it() {
    let mut server = TestServer::start();
    stories(&server, 200);
    assert!(server.terminate(Duration::from_secs(30)));
    let check = server_command()
        .args(["check", "--data"])
        .arg(server.dir.path())
        .output()
        .expect("check runs");
    assert!(check.status.success(), "a sound database passes check");
    assert!(String::from_utf8_lossy(&check.stdout).contains("is sound"));

    damage_the_middle_of(&server.db_path());

    let said = refused_start(server.dir.path());
    assert!(said.contains("is damaged"), "{said}");
    assert!(said.contains("copydesk-server check"), "{said}");
    let key_create = server_command()
        .args(["key", "create", "--name", "late", "--data"])
        .arg(server.dir.path())
        .output()
        .expect("runs");
    assert!(
        !key_create.status.success(),
        "nothing writes to a damaged database"
    );

    let check = server_command()
        .args(["check", "--data"])
        .arg(server.dir.path())
        .output()
        .expect("check runs");
    assert_eq!(check.status.code(), Some(1), "check fails on damage");
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(report.contains("is damaged"), "{report}");
}

/// Overwrites pages in the middle of `db`, as a failing disk would.
fn damage_the_middle_of(db: &Path) {
    let length = std::fs::metadata(db).expect("metadata").len();
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(db)
        .expect("opens");
    let middle = (length / 2 / 4096) * 4096;
    std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(middle)).expect("seeks");
    file.write_all(&vec![0xA5; 8 * 4096]).expect("overwrites");
    file.sync_all().expect("syncs");
}

#[test]
fn a_database_checked_beside_serving_answers_reads_and_takes_no_write_once_found_damaged() {
    let mut server = TestServer::start();
    let written = stories(&server, 200);
    assert!(server.terminate(Duration::from_secs(30)));
    damage_the_middle_of(&server.db_path());

    // Checked beside serving, the server starts on the damaged file (the
    // default, `auto`, checks a file this small before and refuses it).
    server.restart_with(&["--start-check", "beside"]);
    let read = written
        .iter()
        .any(|uuid| server.get(&format!("/v3/content/{uuid}")).status == 200);
    assert!(read, "reads are answered while and after the check runs");
    let started = Instant::now();
    let refused = loop {
        let reply = server.post("/v3/content", &json!({"title": "Late", "type": "article"}));
        if reply.code() != "database_unavailable" {
            break reply;
        }
        // Refused while the check runs: retry after the time it names.
        assert_eq!(reply.status.as_u16(), 503, "{}", reply.body);
        assert_eq!(reply.retry_after.as_deref(), Some("10"));
        assert!(reply.message().contains("checking"), "{}", reply.body);
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the start check never ended"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    refused.expect_error(503, "database_damaged");
    server
        .post("/v3/content", &json!({"title": "Later", "type": "article"}))
        .expect_error(503, "database_damaged");
    assert!(
        server.terminate(Duration::from_secs(30)),
        "the server stops"
    );
}

#[test]
fn a_backup_of_a_busy_server_holds_every_acknowledged_write() {
    let server = TestServer::start();
    let base = server.base.clone();
    let token = server.admin_token().to_owned();
    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..2)
        .map(|writer| {
            let (base, token) = (base.clone(), token.clone());
            let (acknowledged, stop) = (Arc::clone(&acknowledged), Arc::clone(&stop));
            std::thread::spawn(move || {
                let client = reqwest::blocking::Client::new();
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let answer = client
                        .post(format!("{base}/v3/content"))
                        .bearer_auth(&token)
                        .json(&json!({"title": format!("Live {writer}-{i}"), "type": "article"}))
                        .send()
                        .expect("answers");
                    assert!(answer.status().is_success());
                    let body: Value = answer.json().expect("json");
                    acknowledged
                        .lock()
                        .expect("lock")
                        .push(body["uuid"].as_str().expect("uuid").to_owned());
                    i += 1;
                }
            })
        })
        .collect();
    while acknowledged.lock().expect("lock").len() < 200 {
        std::thread::sleep(Duration::from_millis(10));
    }
    let before_backup = acknowledged.lock().expect("lock").clone();
    let target = tempfile::tempdir().expect("a folder");
    let backup_file = target.path().join("copydesk-backup.db");
    let backup = server_command()
        .args(["backup", "--data"])
        .arg(server.dir.path())
        .arg("--to")
        .arg(&backup_file)
        .output()
        .expect("backup runs");
    stop.store(true, Ordering::Relaxed);
    for writer in writers {
        writer.join().expect("a writer ends");
    }
    assert!(
        backup.status.success(),
        "{}",
        String::from_utf8_lossy(&backup.stderr)
    );
    let found = uuids_in(&backup_file);
    for uuid in &before_backup {
        assert!(
            found.contains(uuid),
            "{uuid} acknowledged before the backup is in it"
        );
    }
    let again = server_command()
        .args(["backup", "--data"])
        .arg(server.dir.path())
        .arg("--to")
        .arg(&backup_file)
        .output()
        .expect("backup runs");
    assert!(!again.status.success(), "a backup never overwrites a file");
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists already"));
}

#[test]
fn a_stalled_body_is_cut_off_whichever_way_it_is_read() {
    let server = TestServer::start_with(&["--body-timeout", "1"]);
    let item = server
        .post("/v3/content", &json!({"title": "Stalled", "type": "media"}))
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid");
    let addr = server.base.trim_start_matches("http://");
    let token = server.admin_token();
    let requests = [
        format!(
            "POST /v3/content HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"title\""
        ),
        format!(
            "PUT /v3/attachment/{uuid}/file?name=a.bin HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nIdempotency-Key: stalled-1\r\nContent-Length: 100\r\n\r\nabc"
        ),
        format!(
            "PUT /v3/attachment/{uuid}/file?name=a.bin HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Length: 100\r\n\r\nabc"
        ),
    ];
    for request in requests {
        let mut stream = TcpStream::connect(addr).expect("connects");
        stream.write_all(request.as_bytes()).expect("sends");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("a timeout");
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 408"), "{request}\n→ {answer}");
        assert!(answer.contains("\"code\":\"timeout\""), "{answer}");
    }
    let unchanged = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    assert!(unchanged["attachment"].is_null(), "no file was recorded");
    let left = std::fs::read_dir(server.dir.path().join("files"))
        .expect("the files folder")
        .count();
    assert_eq!(left, 0, "what a stalled upload sent is removed");
}

#[test]
fn a_story_or_draft_text_beyond_16_mib_is_refused_with_the_field_and_limit_named() {
    let server = TestServer::start();
    let over = format!("<p>{}</p>", "a".repeat(16 * 1024 * 1024));
    let refused = server
        .post(
            "/v3/content",
            &json!({"title": "Long", "type": "article", "content": over}),
        )
        .expect_error(413, "too_large");
    assert!(
        refused.message().contains("\"content\""),
        "{}",
        refused.body
    );
    assert!(refused.message().contains("16777216"), "{}", refused.body);
    let story = server
        .post("/v3/content", &json!({"title": "Short", "type": "article"}))
        .expect(200)
        .body;
    let uuid = story["uuid"].as_str().expect("uuid");
    let srn = story["srn"].as_str().expect("srn");
    let refused = server
        .put(
            &format!("/v3/content/{uuid}"),
            &json!({"abstract_raw": "x".repeat(16 * 1024 * 1024 + 1)}),
        )
        .expect_error(413, "too_large");
    assert!(
        refused.message().contains("\"abstract_raw\""),
        "{}",
        refused.body
    );
    // A draft's raw content: a text of 100,000 links is taken, one past the limit is not.
    let links = 100_000;
    let ranges: Vec<Value> = (0..links)
        .map(|k| json!({"offset": 2 * (k % 100), "length": 1, "key": k}))
        .collect();
    let blocks: Vec<Value> = ranges
        .chunks(100)
        .enumerate()
        .map(|(b, chunk)| {
            json!({"key": format!("k{b}"), "text": "ab".repeat(100), "type": "unstyled",
                   "depth": 0, "inlineStyleRanges": [], "entityRanges": chunk, "data": {}})
        })
        .collect();
    let entities: serde_json::Map<String, Value> = (0..links)
        .map(|k| (k.to_string(), json!({"type": "LINK", "mutability": "MUTABLE", "data": {"url": format!("https://x.test/{k}")}})))
        .collect();
    let raw = json!({"blocks": blocks, "entityMap": entities}).to_string();
    server
        .post(
            &format!("/v3/draft?content={srn}"),
            &json!({"content": "<p>links</p>", "content_raw": raw}),
        )
        .expect(200);
    // The same raw content, padded with spaces (still JSON) to one byte past the limit.
    let padded = format!("{raw}{}", " ".repeat(16 * 1024 * 1024 + 1 - raw.len()));
    let refused = server
        .post(
            &format!("/v3/draft?content={srn}"),
            &json!({"content": "<p>links</p>", "content_raw": padded}),
        )
        .expect_error(413, "too_large");
    assert!(
        refused.message().contains("\"content_raw\""),
        "{}",
        refused.body
    );
    // Nothing of the refused writes was stored.
    let kept = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    assert_eq!(kept["abstract_raw"], story["abstract_raw"]);
}
