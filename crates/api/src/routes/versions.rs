//! `/v3/version`: an item's stored revisions; PUT restores one as a new version.

use axum::Json;
use axum::extract::{Path, State};
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, QueryPairs};
use crate::present;

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

pub async fn restore(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<wire::Content>> {
    let item = state
        .call(bearer, move |cms, who| cms.restore_version(who, &uuid))
        .await?;
    Ok(Json(present::content(item)))
}
