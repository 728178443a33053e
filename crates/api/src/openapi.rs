//! The OpenAPI 3.1 document of `/v3`, generated from the annotated handlers the router is built from.
//!
//! Routes are registered through `utoipa-axum`'s `OpenApiRouter`, so an
//! endpoint cannot be served without being documented, and a snapshot test
//! keeps the committed `docs/openapi.json` equal to what the code generates.

use copydesk_wire::ErrorBody;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{IntoParams, IntoResponses, Modify, OpenApi};

/// The refusals every operation may answer, each in the contract's error shape.
#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum Refusals {
    /// `invalid_request`: malformed JSON, a wrong type, a missing or bad field or parameter.
    #[response(status = 400)]
    BadRequest(#[to_schema] ErrorBody),
    /// `forbidden_action`: the user lacks the operation's access action (named in the message).
    #[response(status = 401)]
    MissingAction(#[to_schema] ErrorBody),
    /// `token_missing`, `token_invalid`, `token_expired`.
    #[response(status = 403)]
    BadToken(#[to_schema] ErrorBody),
    /// `not_found`: an unknown UUID, SRN or path.
    #[response(status = 404)]
    NotFound(#[to_schema] ErrorBody),
    /// `locked` (someone else holds the item) or `conflict` (a unique value is taken).
    #[response(status = 409)]
    Conflict(#[to_schema] ErrorBody),
    /// `too_large`: the body is over the server's limit.
    #[response(status = 413)]
    TooLarge(#[to_schema] ErrorBody),
    /// `unsupported_media_type`: the body is not JSON.
    #[response(status = 415)]
    NotJson(#[to_schema] ErrorBody),
    /// `offline`: a replica needs its central server for this (a lock) and
    /// cannot reach it; `database_damaged`: the server's database is damaged
    /// and takes no more changes.
    #[response(status = 503)]
    Offline(#[to_schema] ErrorBody),
}

/// What a raw upload may be refused with besides [`Refusals`].
#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum UploadRefusals {
    /// `timeout`: the client sent nothing for longer than the server waits.
    #[response(status = 408)]
    Stalled(#[to_schema] ErrorBody),
    /// `too_many_requests`: the server, or this key, already has as many
    /// uploads in flight as it takes; `Retry-After` says when to try again.
    #[response(status = 429, headers(("Retry-After" = u64, description = "Seconds to wait")))]
    Busy(#[to_schema] ErrorBody),
}

/// The list parameters every list takes.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct ListParams {
    /// Page number, from 1.
    page: Option<u64>,
    /// Page size (default 50; more than 500 is served as 500).
    per_page: Option<u64>,
    /// A field of the record to order by.
    order: Option<String>,
    /// `asc` or `desc` (default).
    dir: Option<String>,
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
}
