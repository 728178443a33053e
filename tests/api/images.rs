//! What is kept as an image and what decoding one may cost: animations whose frame outgrows the canvas, and files whose first bytes only look like an image.

use std::time::Instant;

use copydesk_tests::TestServer;
use serde_json::{Value, json};

use crate::hardening::{media_with_file, upload_file};
use crate::png_base64;

/// A GIF whose canvas is 1 × 1 but whose first frame is `side` × `side`:
/// tiny on the wire, and its frame is what a decoder allocates.
fn frame_bomb(side: u16) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder =
            gif::Encoder::new(&mut out, 1, 1, &[0, 0, 0, 255, 255, 255]).expect("a GIF");
        let frame = gif::Frame {
            width: side,
            height: side,
            buffer: std::borrow::Cow::Owned(vec![0; usize::from(side) * usize::from(side)]),
            ..gif::Frame::default()
        };
        encoder.write_frame(&frame).expect("the frame");
    }
    out
}

/// The decoding budget every upload in flight shares (two of the largest images).
const DECODING_BUDGET_MIB: u64 = 320;

#[test]
fn eight_animations_whose_frame_outgrows_the_canvas_decode_within_the_budget() {
    let server = TestServer::start();
    // 5,000 × 5,000: 119 MiB to decode, under the one-image limit.
    let bomb = frame_bomb(5_000);
    assert!(bomb.len() < 400 * 1024, "small on the wire: {}", bomb.len());
    let items: Vec<String> = (0..8)
        .map(|i| {
            media_with_file(&server, &format!("small{i}.png"), &[])["uuid"]
                .as_str()
                .expect("uuid")
                .to_owned()
        })
        .collect();
    let before = server.peak_memory_bytes();
    let started = Instant::now();
    std::thread::scope(|scope| {
        for uuid in &items {
            let (server, bomb) = (&server, bomb.clone());
            scope.spawn(move || {
                let taken = upload_file(server, uuid, "spinner.gif", bomb)
                    .expect(200)
                    .body;
                // Kept as the image it is: its canvas, a preview made from the first frame.
                assert_eq!(taken["attachment"]["type"], "image", "{taken}");
                assert_eq!(taken["attachment"]["width"], "1", "{taken}");
            });
        }
    });
    let peak = server.peak_memory_bytes();
    eprintln!(
        "eight frame bombs in {:?}: the server's peak memory {} MiB (before them {} MiB)",
        started.elapsed(),
        peak / 1024 / 1024,
        before / 1024 / 1024
    );
    // The budget, beside what the server held before the uploads (each
    // frame's 119 MiB is charged, so two decode at once, not eight).
    assert!(
        peak < before + (DECODING_BUDGET_MIB + 16) * 1024 * 1024,
        "the server's peak memory stays within the decoding budget: {} MiB",
        peak / 1024 / 1024
    );
    // One whose frame alone is past the limit (6,400 × 6,400: 196 MiB) is
    // refused from its header, as a canvas that large would be.
    let refused = upload_file(&server, &items[0], "huge.gif", frame_bomb(6_400))
        .expect_error(413, "too_large");
    assert!(
        refused.message().contains("first frame 6400 × 6400"),
        "{}",
        refused.body
    );
}

/// `attachment` is a file (no image), and downloads as `bytes`.
fn assert_kept_as_file(server: &TestServer, name: &str, attachment: &Value, bytes: &[u8]) {
    assert_eq!(attachment["type"], "file", "{name}: {attachment}");
    assert_eq!(attachment["width"], "0", "{name}");
    let sent = server.send(server.request(
        reqwest::Method::GET,
        attachment["original_url"].as_str().expect("url"),
    ));
    assert_eq!(sent.expect(200).bytes, bytes, "{name} downloads as sent");
}

#[test]
fn uploads_whose_first_bytes_look_like_an_image_are_kept_as_files() {
    let server = TestServer::start();
    // A TIFF scan (a format this server does not decode), and texts that
    // begin as a BMP, a PBM, a QOI and a Radiance HDR image would.
    let mut tiff = b"II*\x00\x08\x00\x00\x00".to_vec();
    tiff.extend_from_slice(&[0; 64]);
    let files: [(&str, Vec<u8>); 6] = [
        ("scan.tif", tiff),
        (
            "notes.txt",
            b"BM is the desk's shorthand for breaking news".to_vec(),
        ),
        (
            "agenda.txt",
            b"P1 lead: council budget\nP2: harbour".to_vec(),
        ),
        (
            "codes.txt",
            b"qoif is not a word in any of our stories".to_vec(),
        ),
        (
            "render.txt",
            b"#?RADIANCE was the header, then nothing".to_vec(),
        ),
        (
            "broken.png",
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec(),
        ),
    ];
    for (name, bytes) in files {
        // As JSON with the item, and streamed as a new file.
        let item = media_with_file(&server, name, &bytes);
        let uuid = item["uuid"].as_str().expect("uuid");
        assert_kept_as_file(&server, name, &item["attachment"], &bytes);
        let replaced = upload_file(&server, uuid, name, bytes.clone())
            .expect(200)
            .body;
        assert_kept_as_file(&server, name, &replaced["attachment"], &bytes);
    }
    // A real image is still one.
    let photo = server
        .post(
            "/v3/content",
            &json!({"title": "Photo", "type": "media", "attachment": {"name": "p.png", "file": png_base64(4, 2)}}),
        )
        .expect(200)
        .body;
    assert_eq!(photo["attachment"]["type"], "image");
    assert_eq!(photo["attachment"]["width"], "4");
}
