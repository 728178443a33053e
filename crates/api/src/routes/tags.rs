//! `/v3/tag`: labels on content (an extension the contract names).

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::access::Action;
use copydesk_core::tags::TagInput;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, ListParams, Query, RawJson};
use crate::openapi::{IdempotencyKey, RecordUuid, RecordUuids, Refusals};
use crate::present;

fn input(body: wire::TagBody) -> TagInput {
    TagInput {
        name: body.name,
        slug: body.slug,
    }
}

#[utoipa::path(
    get,
    path = "/v3/tag",
    tag = "tag",
    operation_id = "tags_list",
    description = "Access action: TAG list.",
    params(ListParams),
    responses((status = 200, body = wire::Envelope<wire::Tag>), Refusals)
)]
pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(list): Query<ListParams>,
) -> ApiResult<Json<wire::Envelope<wire::Tag>>> {
    let page = state
        .call(bearer, move |cms, who| cms.list_tags(who, &list.into()))
        .await?;
    Ok(Json(present::page(page, present::tag)))
}

#[utoipa::path(
    get,
    path = "/v3/tag/{uuid}",
    tag = "tag",
    operation_id = "tags_get",
    description = "Access action: TAG get.",
    params(RecordUuid),
    responses((status = 200, body = Vec<wire::Tag>), Refusals)
)]
pub async fn get(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<Vec<wire::Tag>>> {
    let tag = state
        .call(bearer, move |cms, who| cms.get_tag(who, &uuid))
        .await?;
    Ok(Json(vec![present::tag(tag)]))
}

#[utoipa::path(
    post,
    path = "/v3/tag",
    tag = "tag",
    operation_id = "tags_create",
    description = "Access action: TAG create.",
    request_body = wire::TagBody,
    params(IdempotencyKey),
    responses((status = 200, body = Vec<wire::Tag>), Refusals)
)]
pub async fn create(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Tag>>> {
    let tag = state
        .call_with(bearer, Action::TagCreate, body, |cms, who, body| {
            cms.create_tag(who, input(body))
        })
        .await?;
    Ok(Json(vec![present::tag(tag)]))
}

#[utoipa::path(
    put,
    path = "/v3/tag/{uuid}",
    tag = "tag",
    operation_id = "tags_update",
    description = "Access action: TAG update.",
    params(IdempotencyKey, RecordUuid),
    request_body = wire::TagBody,
    responses((status = 200, body = Vec<wire::Tag>), Refusals)
)]
pub async fn update(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Tag>>> {
    let tag = state
        .call_with(bearer, Action::TagUpdate, body, move |cms, who, body| {
            cms.update_tag(who, &uuid, input(body))
        })
        .await?;
    Ok(Json(vec![present::tag(tag)]))
}

#[utoipa::path(
    delete,
    path = "/v3/tag/{uuid}",
    tag = "tag",
    operation_id = "tags_delete",
    description = "Access action: TAG delete.",
    params(IdempotencyKey, RecordUuids),
    responses((status = 200, body = wire::Message), Refusals)
)]
pub async fn delete(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuids): Path<String>,
) -> ApiResult<Json<wire::Message>> {
    state
        .call(bearer, move |cms, who| cms.delete_tags(who, &uuids))
        .await?;
    Ok(Json(wire::Message {
        message: "ok".into(),
    }))
}
