//! `/v3/container`: sections, blogs, galleries and collections.

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::containers::ContainerInput;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, QueryPairs, RawJson};
use crate::openapi::{ListParams, Refusals};
use crate::present;

fn input(body: wire::ContainerBody) -> ContainerInput {
    ContainerInput {
        title: body.title,
        slug: body.slug,
        description: body.description,
        container_type: body.container_type,
        sort_order: body.sort_order,
        published_at: body
            .published_at
            .map(|inner| inner.filter(|text| !text.trim().is_empty())),
        content: body.content,
        tags: body.tags,
    }
}

#[utoipa::path(
    get,
    path = "/v3/container",
    tag = "container",
    operation_id = "containers_list",
    description = "Access action: CONTAINER list.",
    params(ListParams, ("type[]" = Option<Vec<String>>, Query, description = "Container types to list: automatic, manual, blog, gallery")),
    responses((status = 200, body = wire::Envelope<wire::Container>), Refusals)
)]
pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
    query: QueryPairs,
) -> ApiResult<Json<wire::Envelope<wire::Container>>> {
    let page = state
        .call(bearer, move |cms, who| {
            cms.list_containers(who, &query.list(), &query.all("type"))
        })
        .await?;
    Ok(Json(present::page(page, present::container)))
}

#[utoipa::path(
    get,
    path = "/v3/container/{uuid}",
    tag = "container",
    operation_id = "containers_get",
    description = "Access action: CONTAINER get.",
    params(("uuid" = String, Path, description = "The record's UUID (several, comma-separated, for a delete of authors, tags, containers or assignments)")),
    responses((status = 200, body = Vec<wire::Container>), Refusals)
)]
pub async fn get(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<Vec<wire::Container>>> {
    let container = state
        .call(bearer, move |cms, who| cms.get_container(who, &uuid))
        .await?;
    Ok(Json(vec![present::container(container)]))
}

#[utoipa::path(
    post,
    path = "/v3/container",
    tag = "container",
    operation_id = "containers_create",
    description = "Access action: CONTAINER create.",
    request_body = wire::ContainerBody,
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,200}$", description = "Makes the write safe to repeat: a repeat with the same key gets the first answer and applies nothing twice")),
    responses((status = 200, body = Vec<wire::Container>), Refusals)
)]
pub async fn create(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Container>>> {
    let container = state
        .call_with(bearer, "CONTAINER create", body, |cms, who, body| {
            cms.create_container(who, input(body))
        })
        .await?;
    Ok(Json(vec![present::container(container)]))
}

#[utoipa::path(
    put,
    path = "/v3/container/{uuid}",
    tag = "container",
    operation_id = "containers_update",
    description = "Access action: CONTAINER update.",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,200}$", description = "Makes the write safe to repeat: a repeat with the same key gets the first answer and applies nothing twice"), ("uuid" = String, Path, description = "The record's UUID (several, comma-separated, for a delete of authors, tags, containers or assignments)")),
    request_body = wire::ContainerBody,
    responses((status = 200, body = Vec<wire::Container>), Refusals)
)]
pub async fn update(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Container>>> {
    let container = state
        .call_with(bearer, "CONTAINER update", body, move |cms, who, body| {
            cms.update_container(who, &uuid, input(body))
        })
        .await?;
    Ok(Json(vec![present::container(container)]))
}

#[utoipa::path(
    delete,
    path = "/v3/container/{uuid}",
    tag = "container",
    operation_id = "containers_delete",
    description = "Access action: CONTAINER delete.",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,200}$", description = "Makes the write safe to repeat: a repeat with the same key gets the first answer and applies nothing twice"), ("uuid" = String, Path, description = "The record's UUID (several, comma-separated, for a delete of authors, tags, containers or assignments)")),
    responses((status = 200, body = wire::Message), Refusals)
)]
pub async fn delete(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuids): Path<String>,
) -> ApiResult<Json<wire::Message>> {
    state
        .call(bearer, move |cms, who| cms.delete_containers(who, &uuids))
        .await?;
    Ok(Json(wire::Message {
        message: "ok".into(),
    }))
}
