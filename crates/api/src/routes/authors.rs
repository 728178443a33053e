//! `/v3/author`: bylines.

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::access::Action;
use copydesk_core::authors::AuthorInput;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, ListParams, Query, RawJson};
use crate::openapi::{IdempotencyKey, RecordUuid, RecordUuids, Refusals};
use crate::present;

fn input(body: wire::AuthorBody) -> AuthorInput {
    AuthorInput {
        slug: body.slug,
        name: body.name,
        email: body.email,
        tagline: body.tagline,
        description: body.description,
        status: body.status.map(|s| s.0),
    }
}

#[utoipa::path(
    get,
    path = "/v3/author",
    tag = "author",
    operation_id = "authors_list",
    description = "Access action: AUTHOR list.",
    params(ListParams),
    responses((status = 200, body = wire::Envelope<wire::Author>), Refusals)
)]
pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(list): Query<ListParams>,
) -> ApiResult<Json<wire::Envelope<wire::Author>>> {
    let page = state
        .call(bearer, move |cms, who| cms.list_authors(who, &list.into()))
        .await?;
    Ok(Json(present::page(page, present::author)))
}

#[utoipa::path(
    get,
    path = "/v3/author/{uuid}",
    tag = "author",
    operation_id = "authors_get",
    description = "Access action: AUTHOR get.",
    params(RecordUuid),
    responses((status = 200, body = Vec<wire::Author>), Refusals)
)]
pub async fn get(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<Vec<wire::Author>>> {
    let author = state
        .call(bearer, move |cms, who| cms.get_author(who, &uuid))
        .await?;
    Ok(Json(vec![present::author(author)]))
}

#[utoipa::path(
    post,
    path = "/v3/author",
    tag = "author",
    operation_id = "authors_create",
    description = "Access action: AUTHOR create.",
    request_body = wire::AuthorBody,
    params(IdempotencyKey),
    responses((status = 200, body = Vec<wire::Author>), Refusals)
)]
pub async fn create(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Author>>> {
    let author = state
        .call_with(bearer, Action::AuthorCreate, body, |cms, who, body| {
            cms.create_author(who, input(body))
        })
        .await?;
    Ok(Json(vec![present::author(author)]))
}

#[utoipa::path(
    put,
    path = "/v3/author/{uuid}",
    tag = "author",
    operation_id = "authors_update",
    description = "Access action: AUTHOR update.",
    params(IdempotencyKey, RecordUuid),
    request_body = wire::AuthorBody,
    responses((status = 200, body = Vec<wire::Author>), Refusals)
)]
pub async fn update(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Author>>> {
    let author = state
        .call_with(bearer, Action::AuthorUpdate, body, move |cms, who, body| {
            cms.update_author(who, &uuid, input(body))
        })
        .await?;
    Ok(Json(vec![present::author(author)]))
}

#[utoipa::path(
    delete,
    path = "/v3/author/{uuid}",
    tag = "author",
    operation_id = "authors_delete",
    description = "Access action: AUTHOR delete.",
    params(IdempotencyKey, RecordUuids),
    responses((status = 200, body = wire::Message), Refusals)
)]
pub async fn delete(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuids): Path<String>,
) -> ApiResult<Json<wire::Message>> {
    state
        .call(bearer, move |cms, who| cms.delete_authors(who, &uuids))
        .await?;
    Ok(Json(wire::Message {
        message: "ok".into(),
    }))
}
