//! `/v3/version`: an item's stored revisions; PUT restores one as a new version.

use axum::Json;
use axum::extract::{Path, State};
use copydesk_wire as wire;

use crate::error::ApiResult;
use crate::extract::{Bearer, QueryPairs};
use crate::openapi::{ListParams, Refusals};
use crate::present;
use crate::{AppState, ContentAnswer};

#[utoipa::path(
    get,
    path = "/v3/version",
    tag = "version",
    operation_id = "versions_list",
    description = "Access action: VERSION list.",
    params(("content" = String, Query, description = "The content item's SRN"), ListParams),
    responses((status = 200, body = wire::Envelope<wire::Version>), Refusals)
)]
pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
    query: QueryPairs,
) -> ApiResult<Json<wire::Envelope<wire::Version>>> {
    let page = state
        .call(bearer, move |cms, who| {
            cms.list_versions(who, query.get("content"), &query.list())
        })
        .await?;
    Ok(Json(present::page(page, present::version)))
}

#[utoipa::path(
    get,
    path = "/v3/version/{uuid}",
    tag = "version",
    operation_id = "versions_get",
    description = "Access action: VERSION get.",
    params(("uuid" = String, Path, description = "The record's UUID (several, comma-separated, for a delete of authors, tags, containers or assignments)")),
    responses((status = 200, body = Vec<wire::Version>), Refusals)
)]
pub async fn get(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<Vec<wire::Version>>> {
    let version = state
        .call(bearer, move |cms, who| cms.get_version(who, &uuid))
        .await?;
    Ok(Json(vec![present::version(version)]))
}

#[utoipa::path(
    put,
    path = "/v3/version/{uuid}",
    tag = "version",
    operation_id = "versions_restore",
    description = "Access action: VERSION restore.",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,200}$", description = "Makes the write safe to repeat: a repeat with the same key gets the first answer and applies nothing twice"), ("uuid" = String, Path, description = "The record's UUID (several, comma-separated, for a delete of authors, tags, containers or assignments)")),
    responses((status = 200, body = wire::Content), Refusals)
)]
pub async fn restore(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<ContentAnswer> {
    let item = state
        .call_content(bearer, move |cms, who| cms.restore_version(who, &uuid))
        .await?;
    Ok(item)
}
