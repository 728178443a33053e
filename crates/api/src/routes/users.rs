//! `/v3/user`: the people records embed (an extension the contract names).

use axum::Json;
use axum::extract::{Path, State};
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, ListParams, Query};
use crate::openapi::{RecordUuid, Refusals};
use crate::present;

#[utoipa::path(
    get,
    path = "/v3/user",
    tag = "user",
    operation_id = "users_list",
    description = "Access action: USER list.",
    params(ListParams),
    responses((status = 200, body = wire::Envelope<wire::User>), Refusals)
)]
pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(list): Query<ListParams>,
) -> ApiResult<Json<wire::Envelope<wire::User>>> {
    let page = state
        .call(bearer, move |cms, who| cms.list_users(who, &list.into()))
        .await?;
    Ok(Json(present::page(page, present::user)))
}

#[utoipa::path(
    get,
    path = "/v3/user/{uuid}",
    tag = "user",
    operation_id = "users_get",
    description = "Access action: USER get.",
    params(RecordUuid),
    responses((status = 200, body = Vec<wire::User>), Refusals)
)]
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

#[utoipa::path(
    get,
    path = "/v3/me",
    tag = "user",
    operation_id = "users_me",
    description = "Access action: none (any valid token). A Copydesk extension: the caller, with their roles and every access action they hold.",
    responses((status = 200, body = wire::Me), Refusals)
)]
pub async fn me(State(state): State<AppState>, bearer: Bearer) -> ApiResult<Json<wire::Me>> {
    let me = state.call(bearer, move |cms, who| cms.whoami(who)).await?;
    Ok(Json(wire::Me {
        user: present::user(me.user),
        roles: me.roles,
        actions: me.actions,
    }))
}
