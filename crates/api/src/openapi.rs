//! The OpenAPI 3.1 document of `/v3`, generated from the annotated handlers the router is built from.
//!
//! Routes are registered through `utoipa-axum`'s `OpenApiRouter`, so an
//! endpoint cannot be served without being documented, and a snapshot test
//! keeps the committed `docs/openapi.json` equal to what the code generates.

use copydesk_wire::{ErrorBody, ErrorCode};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{IntoParams, IntoResponses, Modify, OpenApi, ToResponse};

// The refusals, each defined once under `components/responses` (with the
// one `ErrorBody` schema) and referenced by every operation.

/// `invalid_request`: malformed JSON, a wrong type, a missing or bad field or parameter.
#[derive(ToResponse)]
#[allow(dead_code)]
pub struct BadRequest(ErrorBody);

/// `forbidden_action`: the user lacks the operation's access action (named in the message).
#[derive(ToResponse)]
#[allow(dead_code)]
pub struct MissingAction(ErrorBody);

/// `token_missing`, `token_invalid`, `token_expired`.
#[derive(ToResponse)]
#[allow(dead_code)]
pub struct BadToken(ErrorBody);

/// `not_found`: an unknown UUID, SRN or path.
#[derive(ToResponse)]
#[allow(dead_code)]
pub struct NotFound(ErrorBody);

/// `locked` (someone else holds the item) or `conflict` (a unique value is taken).
#[derive(ToResponse)]
#[allow(dead_code)]
pub struct Conflict(ErrorBody);

/// `too_large`: the body is over the server's limit, or a story's or draft's text field over 16 MiB (the message names it).
#[derive(ToResponse)]
#[allow(dead_code)]
pub struct TooLarge(ErrorBody);

/// `unsupported_media_type`: the body is not JSON.
#[derive(ToResponse)]
#[allow(dead_code)]
pub struct NotJson(ErrorBody);

/// `offline`: a replica needs its central server for this (a lock) and
/// cannot reach it; `database_damaged`: the server's database is damaged
/// and takes no more changes; `database_unavailable`: the server cannot
/// reach its database just now, or is still checking it after a start and
/// takes changes once the check has passed (try again after `Retry-After`
/// seconds).
#[derive(ToResponse)]
#[allow(dead_code)]
pub struct Unavailable(ErrorBody);

/// `timeout`: the client sent nothing for longer than the server waits.
#[derive(ToResponse)]
#[allow(dead_code)]
pub struct Stalled(ErrorBody);

/// `too_many_requests`: the server, or this key, already has as many
/// uploads in flight as it takes; `Retry-After` says when to try again.
#[derive(ToResponse)]
#[response(headers(("Retry-After" = u64, description = "Seconds to wait")))]
#[allow(dead_code)]
pub struct Busy(ErrorBody);

/// `sign_in_refused`: a name and password that do not match, or a sign-in
/// link that is unknown, expired or used; the message says which, in words.
#[derive(ToResponse)]
#[allow(dead_code)]
pub struct SignInRefused(ErrorBody);

/// `too_many_requests`: too many failed sign-ins for this name (5) or from
/// this address (20) within 15 minutes; `Retry-After` says when to try again.
#[derive(ToResponse)]
#[response(headers(("Retry-After" = u64, description = "Seconds to wait")))]
#[allow(dead_code)]
pub struct TooManySignIns(ErrorBody);

/// The refusals every operation may answer, each in the contract's error shape.
#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum Refusals {
    #[response(status = 400)]
    BadRequest(#[ref_response] BadRequest),
    #[response(status = 401)]
    MissingAction(#[ref_response] MissingAction),
    #[response(status = 403)]
    BadToken(#[ref_response] BadToken),
    #[response(status = 404)]
    NotFound(#[ref_response] NotFound),
    #[response(status = 409)]
    Conflict(#[ref_response] Conflict),
    #[response(status = 413)]
    TooLarge(#[ref_response] TooLarge),
    #[response(status = 415)]
    NotJson(#[ref_response] NotJson),
    #[response(status = 503)]
    Unavailable(#[ref_response] Unavailable),
}

/// What a raw upload may be refused with besides [`Refusals`].
#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum UploadRefusals {
    #[response(status = 408)]
    Stalled(#[ref_response] Stalled),
    #[response(status = 429)]
    Busy(#[ref_response] Busy),
}

/// What signing in may be refused with (it needs no token).
#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum SignInRefusals {
    #[response(status = 400)]
    BadRequest(#[ref_response] BadRequest),
    #[response(status = 401)]
    Refused(#[ref_response] SignInRefused),
    #[response(status = 403)]
    BadToken(#[ref_response] BadToken),
    #[response(status = 404)]
    NotFound(#[ref_response] NotFound),
    #[response(status = 413)]
    TooLarge(#[ref_response] TooLarge),
    #[response(status = 415)]
    NotJson(#[ref_response] NotJson),
    #[response(status = 429)]
    TooMany(#[ref_response] TooManySignIns),
    #[response(status = 503)]
    Unavailable(#[ref_response] Unavailable),
}

/// The record a path names, by its UUID.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code)]
pub struct RecordUuid {
    /// The record's UUID
    uuid: String,
}

/// The records a delete names: one UUID, or several.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code)]
pub struct RecordUuids {
    /// The record's UUID, or several, comma-separated: all of them are deleted, or none
    uuid: String,
}

/// The content item a path names (attachments and exports belong to one).
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code)]
pub struct ContentUuid {
    /// The content item's UUID
    uuid: String,
}

/// The header that makes a write safe to repeat.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)]
pub struct IdempotencyKey {
    /// Makes the write safe to repeat: a repeat with the same key gets the first answer and applies nothing twice
    #[param(rename = "Idempotency-Key", pattern = "^[!-~]{1,200}$")]
    key: Option<String>,
}

struct BearerToken;

impl Modify for BearerToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some("An HS256 JWT signed with the key pair's private key; claim `pk` is the public key."))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "basic",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Basic)
                    .description(Some("For existing clients of the hosted service: the key pair's private key as the user name, no password."))
                    .build(),
            ),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Copydesk /v3",
        description = "The /v3 editorial service: content, containers, locks, comments and the print side. Every operation names its access action.",
        license(name = "MIT")
    ),
    components(
        schemas(ErrorBody, ErrorCode),
        responses(
            BadRequest,
            MissingAction,
            BadToken,
            NotFound,
            Conflict,
            TooLarge,
            NotJson,
            Unavailable,
            Stalled,
            Busy,
            SignInRefused,
            TooManySignIns
        )
    ),
    modifiers(&BearerToken),
    security(("bearer" = []), ("basic" = []))
)]
pub struct ApiDoc;

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    const SNAPSHOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json");

    fn generated() -> String {
        let mut text = serde_json::to_string_pretty(&crate::openapi_document())
            .expect("the document serialises");
        text.push('\n');
        text
    }

    /// The committed document is what the code generates; `UPDATE_OPENAPI=1` rewrites it.
    #[test]
    fn the_committed_document_matches_the_routes() {
        let generated = generated();
        if std::env::var_os("UPDATE_OPENAPI").is_some() {
            std::fs::write(SNAPSHOT, &generated).expect("writes the snapshot");
        }
        let committed = std::fs::read_to_string(SNAPSHOT).expect("docs/openapi.json exists");
        assert!(
            committed == generated,
            "docs/openapi.json differs from the routes: run `UPDATE_OPENAPI=1 cargo test -p copydesk-api` and review the diff"
        );
    }

    #[test]
    fn every_operation_is_unique_and_names_its_action() {
        let document: serde_json::Value = serde_json::from_str(&generated()).expect("JSON");
        assert_eq!(document["openapi"], "3.1.0");
        let mut ids = BTreeSet::new();
        let paths = document["paths"].as_object().expect("paths");
        assert!(paths.len() > 30);
        for (path, item) in paths {
            assert!(path.starts_with("/v3/"), "{path}");
            for (method, operation) in item.as_object().expect("operations") {
                let id = operation["operationId"].as_str().expect("an operationId");
                assert!(ids.insert(id.to_owned()), "{id} is used twice");
                let description = operation["description"].as_str().unwrap_or("");
                assert!(
                    description.starts_with("Access action:"),
                    "{method} {path} names no action"
                );
                for status in ["200", "400", "401", "403", "404"] {
                    assert!(
                        operation["responses"].get(status).is_some(),
                        "{method} {path} lacks {status}"
                    );
                }
            }
        }
    }

    /// Every `$ref` in `value`, with where it stands.
    fn refs<'a>(value: &'a serde_json::Value, at: &str, out: &mut Vec<(String, &'a str)>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, inner) in map {
                    if key == "$ref" {
                        out.push((at.to_owned(), inner.as_str().unwrap_or_default()));
                    } else {
                        refs(inner, &format!("{at}/{key}"), out);
                    }
                }
            }
            serde_json::Value::Array(items) => {
                for (index, inner) in items.iter().enumerate() {
                    refs(inner, &format!("{at}/{index}"), out);
                }
            }
            _ => {}
        }
    }

    /// The error shape is defined once: every refusal of every operation is
    /// a `$ref` to a response under `components/responses`, each of which
    /// refers to the one `ErrorBody` schema, whose `code` is the enum of codes.
    #[test]
    fn every_refusal_refers_to_the_one_error_schema() {
        let document: serde_json::Value = serde_json::from_str(&generated()).expect("JSON");
        let responses = document["components"]["responses"]
            .as_object()
            .expect("components/responses");
        for (name, response) in responses {
            assert_eq!(
                response["content"]["application/json"]["schema"]["$ref"],
                "#/components/schemas/ErrorBody",
                "{name}"
            );
        }
        let mut refusals = 0;
        for (path, item) in document["paths"].as_object().expect("paths") {
            for (method, operation) in item.as_object().expect("operations") {
                for (status, response) in operation["responses"].as_object().expect("responses") {
                    if status.starts_with('2') {
                        continue;
                    }
                    let target = response["$ref"].as_str().unwrap_or_else(|| {
                        panic!("{method} {path} {status} is not a $ref: {response}")
                    });
                    let name = target
                        .strip_prefix("#/components/responses/")
                        .unwrap_or_else(|| panic!("{method} {path} {status}: {target}"));
                    assert!(responses.contains_key(name), "{target}");
                    assert_eq!(response.as_object().map(|r| r.len()), Some(1));
                    refusals += 1;
                }
            }
        }
        assert!(refusals > 300, "{refusals}");
        let error = &document["components"]["schemas"]["ErrorBody"];
        assert_eq!(
            error["properties"]["code"]["$ref"],
            "#/components/schemas/ErrorCode"
        );
        let codes: Vec<&str> = document["components"]["schemas"]["ErrorCode"]["enum"]
            .as_array()
            .expect("the codes")
            .iter()
            .filter_map(serde_json::Value::as_str)
            .collect();
        let expected: Vec<&str> = copydesk_wire::ErrorCode::ALL
            .iter()
            .map(|code| code.as_str())
            .collect();
        assert_eq!(codes, expected);
        // No schema is copied in full where it could be referred to: lists
        // refer to their items' schema.
        for (name, schema) in document["components"]["schemas"]
            .as_object()
            .expect("schemas")
        {
            if name.starts_with("Envelope_") || name.starts_with("Items_") {
                assert!(
                    schema["properties"]["items"]["items"]["$ref"].is_string(),
                    "{name} copies its items' schema"
                );
            }
        }
    }

    #[test]
    fn every_reference_resolves() {
        let document: serde_json::Value = serde_json::from_str(&generated()).expect("JSON");
        let mut found = Vec::new();
        refs(&document, "#", &mut found);
        assert!(found.len() > 300);
        for (at, target) in found {
            let pointer = target
                .strip_prefix('#')
                .unwrap_or_else(|| panic!("{at}: {target} is outside the document"));
            assert!(
                document.pointer(pointer).is_some(),
                "{at} refers to {target}, which is not there"
            );
        }
    }
}
