//! Black-box tests of the `/v3` service: the real server, real tokens, real HTTP.

mod access;
mod attachments;
mod authors;
mod changes;
mod changes_stream;
mod comments;
mod connections;
mod containers;
mod content;
mod durability;
mod errors;
mod existing_clients;
mod exports;
mod extensions;
mod hardening;
mod idempotency;
mod images;
mod locks;
mod presence;
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

pub use copydesk_tests::png_base64;
