//! `/v3/user`: the people records embed (an extension the contract names).

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
) -> ApiResult<Json<wire::Envelope<wire::User>>> {
    let page = state
        .call(bearer, move |cms, who| cms.list_users(who, &query.list()))
        .await?;
    Ok(Json(present::page(page, present::user)))
}

pub async fn get(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<Vec<wire::User>>> {
    let user = state
        .call(bearer, move |cms, who| cms.get_user(who, &uuid))
        .await?;
    Ok(Json(vec![present::user(user)]))
}
