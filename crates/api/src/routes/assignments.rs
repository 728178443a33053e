//! `/v3/assignment`: planning assignments (an extension the contract names).

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::access::Action;
use copydesk_core::assignments::AssignmentInput;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, ListParams, Query, RawJson};
use crate::openapi::{IdempotencyKey, RecordUuid, RecordUuids, Refusals};
use crate::present;

fn input(body: wire::AssignmentBody) -> AssignmentInput {
    AssignmentInput {
        title: body.title,
        description: body.description,
        due_at: body.due_at,
        assignee_id: body.assignee_id.map(|r| r.map(|r| r.0)),
        content_id: body.content_id.map(|r| r.map(|r| r.0)),
    }
}

#[utoipa::path(
    get,
    path = "/v3/assignment",
    tag = "assignment",
    operation_id = "assignments_list",
    description = "Access action: ASSIGNMENT list.",
    params(ListParams),
    responses((status = 200, body = wire::Envelope<wire::Assignment>), Refusals)
)]
pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(list): Query<ListParams>,
) -> ApiResult<Json<wire::Envelope<wire::Assignment>>> {
    let page = state
        .call(bearer, move |cms, who| {
            cms.list_assignments(who, &list.into())
        })
        .await?;
    Ok(Json(present::page(page, present::assignment)))
}

#[utoipa::path(
    get,
    path = "/v3/assignment/{uuid}",
    tag = "assignment",
    operation_id = "assignments_get",
    description = "Access action: ASSIGNMENT get.",
    params(("uuid" = String, Path, description = "The assignment's UUID, or the numeric id a content item's `assignment_id` names")),
    responses((status = 200, body = Vec<wire::Assignment>), Refusals)
)]
pub async fn get(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<Vec<wire::Assignment>>> {
    let assignment = state
        .call(bearer, move |cms, who| cms.get_assignment(who, &uuid))
        .await?;
    Ok(Json(vec![present::assignment(assignment)]))
}

#[utoipa::path(
    post,
    path = "/v3/assignment",
    tag = "assignment",
    operation_id = "assignments_create",
    description = "Access action: ASSIGNMENT create.",
    request_body = wire::AssignmentBody,
    params(IdempotencyKey),
    responses((status = 200, body = Vec<wire::Assignment>), Refusals)
)]
pub async fn create(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Assignment>>> {
    let assignment = state
        .call_with(bearer, Action::AssignmentCreate, body, |cms, who, body| {
            cms.create_assignment(who, input(body))
        })
        .await?;
    Ok(Json(vec![present::assignment(assignment)]))
}

#[utoipa::path(
    put,
    path = "/v3/assignment/{uuid}",
    tag = "assignment",
    operation_id = "assignments_update",
    description = "Access action: ASSIGNMENT update.",
    params(IdempotencyKey, RecordUuid),
    request_body = wire::AssignmentBody,
    responses((status = 200, body = Vec<wire::Assignment>), Refusals)
)]
pub async fn update(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Assignment>>> {
    let assignment = state
        .call_with(
            bearer,
            Action::AssignmentUpdate,
            body,
            move |cms, who, body| cms.update_assignment(who, &uuid, input(body)),
        )
        .await?;
    Ok(Json(vec![present::assignment(assignment)]))
}

#[utoipa::path(
    delete,
    path = "/v3/assignment/{uuid}",
    tag = "assignment",
    operation_id = "assignments_delete",
    description = "Access action: ASSIGNMENT delete.",
    params(IdempotencyKey, RecordUuids),
    responses((status = 200, body = wire::Message), Refusals)
)]
pub async fn delete(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuids): Path<String>,
) -> ApiResult<Json<wire::Message>> {
    state
        .call(bearer, move |cms, who| cms.delete_assignments(who, &uuids))
        .await?;
    Ok(Json(wire::Message {
        message: "ok".into(),
    }))
}
