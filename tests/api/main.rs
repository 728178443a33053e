//! Black-box tests of the `/v3` service: the real server, real tokens, real HTTP.

mod access;
mod attachments;
mod authors;
mod changes;
mod comments;
mod containers;
mod content;
mod durability;
mod errors;
mod existing_clients;
mod exports;
mod extensions;
mod hardening;
mod idempotency;
mod locks;
mod print;
mod search;
mod sign_in;
mod versions_drafts;

use serde_json::Value;

/// Asserts that every key of `expected` is present in `record` with a value of the same JSON kind.
#[track_caller]
pub fn assert_shape(record: &Value, expected: &[(&str, &str)]) {
    for (key, kind) in expected {
        let value = record
            .get(*key)
            .unwrap_or_else(|| panic!("{key} is missing from {record}"));
        let ok = match *kind {
            "string" => value.is_string(),
            "string|null" => value.is_string() || value.is_null(),
            "bool" => value.is_boolean(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            "object|null" => value.is_object() || value.is_null(),
            "integer" => value.is_u64(),
            other => panic!("unknown kind {other}"),
        };
        assert!(ok, "{key} should be {kind}, is {value} in {record}");
    }
}

/// A one-pixel-wide PNG of the given size, base64, made with the real encoder.
pub fn png_base64(width: u32, height: u32) -> String {
    use base64::Engine as _;
    let mut image = image::RgbImage::new(width, height);
    for (x, _, pixel) in image.enumerate_pixels_mut() {
        *pixel = image::Rgb([(x % 256) as u8, 10, 200]);
    }
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgb8(image)
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .expect("encodes");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
