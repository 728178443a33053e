//! `/v3/lock-request`: exclusive locks on items.

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::access::Action;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, RawJson};
use crate::openapi::{IdempotencyKey, RecordUuid, Refusals};
use crate::present;

#[utoipa::path(
    get,
    path = "/v3/lock-request/{uuid}",
    tag = "lock-request",
    operation_id = "locks_get",
    description = "Access action: LOCKREQUEST get.",
    params(RecordUuid),
    responses((status = 200, body = Vec<wire::LockRequest>), Refusals)
)]
pub async fn get(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<Vec<wire::LockRequest>>> {
    let lock = state
        .call(bearer, move |cms, who| cms.get_lock_request(who, &uuid))
        .await?;
    Ok(Json(vec![present::lock_request(lock)]))
}

#[utoipa::path(
    post,
    path = "/v3/lock-request",
    tag = "lock-request",
    operation_id = "locks_create",
    description = "Access action: LOCKREQUEST create.",
    request_body = wire::LockRequestBody,
    params(IdempotencyKey),
    responses((status = 200, body = Vec<wire::LockRequest>), Refusals)
)]
pub async fn create(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::LockRequest>>> {
    let lock = state
        .call_with(
            bearer,
            Action::LockRequestCreate,
            body,
            |cms, who, body: wire::LockRequestBody| {
                cms.create_lock_request(who, body.srn.as_deref())
            },
        )
        .await?;
    Ok(Json(vec![present::lock_request(lock)]))
}

#[utoipa::path(
    delete,
    path = "/v3/lock-request/{uuid}",
    tag = "lock-request",
    operation_id = "locks_delete",
    description = "Access action: LOCKREQUEST delete.",
    params(IdempotencyKey, RecordUuid),
    responses((status = 200, body = wire::Message), Refusals)
)]
pub async fn delete(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<wire::Message>> {
    state
        .call(bearer, move |cms, who| cms.delete_lock_request(who, &uuid))
        .await?;
    Ok(Json(wire::Message {
        message: "ok".into(),
    }))
}
