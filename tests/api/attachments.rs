//! Attachments: upload on create, replace, turn the preview, metadata, and the files at their URLs.

use copydesk_tests::TestServer;
use reqwest::Method;
use serde_json::json;

use crate::{assert_shape, png_base64};

fn fetch_image(server: &TestServer, path: &str) -> image::DynamicImage {
    let reply = server.send(server.request(Method::GET, path)).expect(200);
    image::load_from_memory(&reply.bytes).expect("the served file is an image")
}

#[test]
fn upload_replace_angle_metadata() {
    let server = TestServer::start();
    let item = server
        .post(
            "/v3/content",
            &json!({"title": "Photo", "type": "media", "attachment": {"name": "harbour.PNG", "file": png_base64(40, 20)}}),
        )
        .expect(200)
        .body;
    let attachment = &item["attachment"];
    assert_shape(
        attachment,
        &[
            ("id", "string"),
            ("uuid", "string"),
            ("base_name", "string"),
            ("salt", "string|null"),
            ("extension", "string"),
            ("parent_id", "string|null"),
            ("content_id", "string"),
            ("height", "string"),
            ("width", "string"),
            ("size_name", "string"),
            ("type", "string"),
            ("preview_extension", "string"),
            ("container_id", "string|null"),
            ("metadata", "object|null"),
            ("srn", "string"),
            ("public_url", "string"),
            ("original_url", "string"),
        ],
    );
    assert_eq!(
        (attachment["width"].as_str(), attachment["height"].as_str()),
        (Some("40"), Some("20"))
    );
    assert_eq!(attachment["type"], "image");
    assert_eq!(attachment["extension"], "png");
    assert_eq!(attachment["base_name"], "harbour");
    assert_eq!(item["has_attachment"], "1");
    assert_eq!(item["dominant_attachment_id"], attachment["id"]);
    let uuid = item["uuid"].as_str().expect("uuid");
    // Files are served without a token.
    let original = fetch_image(&server, attachment["original_url"].as_str().expect("url"));
    assert_eq!((original.width(), original.height()), (40, 20));

    let turned = server
        .put(&format!("/v3/attachment/{uuid}"), &json!({"angle": "90"}))
        .expect(200)
        .body;
    let preview = fetch_image(
        &server,
        turned["attachment"]["public_url"].as_str().expect("url"),
    );
    assert_eq!(
        (preview.width(), preview.height()),
        (20, 40),
        "the preview is turned"
    );
    let original = fetch_image(
        &server,
        turned["attachment"]["original_url"].as_str().expect("url"),
    );
    assert_eq!(
        (original.width(), original.height()),
        (40, 20),
        "the master is not"
    );
    server
        .send(server.request(Method::GET, attachment["public_url"].as_str().expect("url")))
        .expect_error(404, "not_found");

    let replaced = server
        .put(
            &format!("/v3/attachment/{uuid}"),
            &json!({"name": "wide.png", "file": png_base64(64, 8)}),
        )
        .expect(200)
        .body;
    assert_eq!(replaced["attachment"]["width"], "64");
    assert_eq!(replaced["attachment"]["height"], "8");
    assert_eq!(
        replaced["attachment"]["uuid"], attachment["uuid"],
        "the same attachment, a new file"
    );

    let meta = server
        .put(
            &format!("/v3/attachment/{uuid}"),
            &json!({"metadata": {"default": {"crop": "1", "w": 300, "h": "200", "fp-x": "0.5", "fp-y": "0.4", "fit": "cover"}}}),
        )
        .expect(200)
        .body;
    assert_eq!(meta["attachment"]["metadata"]["default"]["w"], "300");
    assert_eq!(meta["attachment"]["metadata"]["default"]["fit"], "cover");
}

#[test]
fn one_kind_of_change_per_request() {
    let server = TestServer::start();
    let item = server
        .post("/v3/content", &json!({"title": "P", "type": "media", "attachment": {"name": "a.png", "file": png_base64(2, 2)}}))
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid");
    for body in [
        json!({}),
        json!({"angle": "90", "metadata": {}}),
        json!({"name": "x.png", "file": png_base64(2, 2), "angle": 90}),
        json!({"angle": "45"}),
        json!({"name": "x.png"}),
        json!({"metadata": {"default": {"colour": "red"}}}),
        json!({"name": "x.png", "file": "not base64!"}),
    ] {
        server
            .put(&format!("/v3/attachment/{uuid}"), &body)
            .expect_error(400, "invalid_request");
    }
    let plain = server
        .post(
            "/v3/content",
            &json!({"title": "no file", "type": "article"}),
        )
        .expect(200)
        .body;
    server
        .put(
            &format!("/v3/attachment/{}", plain["uuid"].as_str().expect("uuid")),
            &json!({"angle": "90"}),
        )
        .expect_error(404, "not_found");
    let after = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    assert_eq!(
        after["attachment"], item["attachment"],
        "refused changes change nothing"
    );
    let files: Vec<_> = std::fs::read_dir(server.dir.path().join("files"))
        .expect("files dir")
        .collect();
    assert_eq!(files.len(), 1, "refused uploads leave no files behind");
}

#[test]
fn other_files_are_kept_as_files() {
    use base64::Engine as _;
    let server = TestServer::start();
    let pdf = base64::engine::general_purpose::STANDARD.encode(b"%PDF-1.4 not really");
    let item = server
        .post("/v3/content", &json!({"title": "Doc", "type": "media", "attachment": {"name": "report.pdf", "file": pdf}}))
        .expect(200)
        .body;
    assert_eq!(item["attachment"]["type"], "file");
    assert_eq!(item["attachment"]["width"], "0");
    let reply = server.send(server.request(
        Method::GET,
        item["attachment"]["original_url"].as_str().expect("url"),
    ));
    assert_eq!(reply.expect(200).bytes, b"%PDF-1.4 not really");
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn upload(
    server: &TestServer,
    token: &str,
    uuid: &str,
    name: Option<&str>,
    bytes: Vec<u8>,
) -> copydesk_tests::Reply {
    let path = match name {
        Some(name) => format!("/v3/attachment/{uuid}/file?name={name}"),
        None => format!("/v3/attachment/{uuid}/file"),
    };
    server.send(
        server
            .request(Method::PUT, &path)
            .bearer_auth(token)
            .header("content-type", "application/octet-stream")
            .body(bytes),
    )
}

#[test]
fn raw_files_stream_in_with_their_hash() {
    let server = TestServer::start();
    let item = server
        .post("/v3/content", &json!({"title": "Video", "type": "media"}))
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid");
    let bytes: Vec<u8> = (0..3 * 1024 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let stored = upload(
        &server,
        server.admin_token(),
        uuid,
        Some("clip.mp4"),
        bytes.clone(),
    )
    .expect(200)
    .body;
    let attachment = &stored["attachment"];
    assert_eq!(attachment["type"], "video");
    assert_eq!(attachment["size"], bytes.len().to_string());
    assert_eq!(attachment["sha256"], sha256_hex(&bytes));
    assert_eq!(stored["has_attachment"], "1");
    let served = server
        .send(server.request(
            Method::GET,
            attachment["original_url"].as_str().expect("url"),
        ))
        .expect(200);
    assert!(served.bytes == bytes, "the file comes back byte for byte");

    let png = {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD
            .decode(png_base64(30, 10))
            .expect("base64")
    };
    let replaced = upload(
        &server,
        server.admin_token(),
        uuid,
        Some("still.png"),
        png.clone(),
    )
    .expect(200)
    .body;
    assert_eq!(replaced["attachment"]["type"], "image");
    assert_eq!(
        (
            replaced["attachment"]["width"].as_str(),
            replaced["attachment"]["height"].as_str()
        ),
        (Some("30"), Some("10"))
    );
    assert_eq!(replaced["attachment"]["sha256"], sha256_hex(&png));
    let folders = std::fs::read_dir(server.dir.path().join("files"))
        .expect("files")
        .count();
    assert_eq!(folders, 1, "the replaced file's folder is gone");

    upload(&server, server.admin_token(), uuid, None, b"x".to_vec())
        .expect_error(400, "invalid_request");
    upload(
        &server,
        server.admin_token(),
        "00000000-0000-4000-8000-000000000000",
        Some("a.bin"),
        b"x".to_vec(),
    )
    .expect_error(404, "not_found");
    let nobody = server.key("nobody", &[], &[]).token();
    let reply = upload(&server, &nobody, uuid, Some("a.bin"), b"x".to_vec());
    assert!(
        reply
            .expect_error(401, "forbidden_action")
            .message()
            .contains("ATTACHMENT update")
    );
}

#[test]
fn a_raw_file_over_the_limit_leaves_nothing() {
    let server = TestServer::start_with(&["--max-body", "100000"]);
    let item = server
        .post("/v3/content", &json!({"title": "Big", "type": "media"}))
        .expect(200)
        .body;
    let uuid = item["uuid"].as_str().expect("uuid");
    upload(
        &server,
        server.admin_token(),
        uuid,
        Some("big.bin"),
        vec![7u8; 300_000],
    )
    .expect_error(413, "too_large");
    let folders = std::fs::read_dir(server.dir.path().join("files"))
        .expect("files")
        .count();
    assert_eq!(folders, 0, "a refused upload leaves no file");
    let after = server.get(&format!("/v3/content/{uuid}")).expect(200).body;
    assert!(after["attachment"].is_null());
    upload(
        &server,
        server.admin_token(),
        uuid,
        Some("small.bin"),
        vec![7u8; 50_000],
    )
    .expect(200);
}

#[test]
fn a_locked_item_takes_no_file() {
    let server = TestServer::start();
    let anna = server.key("anna", &["journalist"], &[]).token();
    let bert = server.key("bert", &["journalist"], &[]).token();
    let item = server
        .post("/v3/content", &json!({"title": "Locked", "type": "media"}))
        .expect(200)
        .body;
    server
        .call(
            Method::POST,
            "/v3/lock-request",
            Some(&anna),
            Some(&json!({"srn": item["srn"]})),
        )
        .expect(200);
    upload(
        &server,
        &bert,
        item["uuid"].as_str().expect("uuid"),
        Some("a.bin"),
        vec![1u8; 10],
    )
    .expect_error(409, "locked");
    assert_eq!(
        std::fs::read_dir(server.dir.path().join("files"))
            .expect("files")
            .count(),
        0
    );
}
