//! `/v3/version`: an item's stored revisions; PUT restores one as a new version.

use axum::Json;
use axum::extract::{Path, State};
use copydesk_wire as wire;

use crate::error::ApiResult;
use crate::extract::{Bearer, ContentSrn, ListParams, Query};
use crate::openapi::{IdempotencyKey, RecordUuid, Refusals};
use crate::present;
use crate::{AppState, ContentAnswer};

#[utoipa::path(
    get,
    path = "/v3/version",
    tag = "version",
    operation_id = "versions_list",
    description = "Access action: VERSION list.",
    params(ContentSrn, ListParams),
    responses((status = 200, body = wire::Envelope<wire::Version>), Refusals)
)]
pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(item): Query<ContentSrn>,
    Query(list): Query<ListParams>,
) -> ApiResult<Json<wire::Envelope<wire::Version>>> {
    let page = state
        .call(bearer, move |cms, who| {
            cms.list_versions(who, item.content.as_deref(), &list.into())
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
    params(RecordUuid),
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
    params(IdempotencyKey, RecordUuid),
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
