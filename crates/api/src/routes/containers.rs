//! `/v3/container`: sections, blogs, galleries and collections.

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::access::Action;
use copydesk_core::containers::{ContainerFilter, ContainerInput};
use copydesk_wire as wire;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, ListParams, Query, QueryShape, RawJson};
use crate::openapi::{IdempotencyKey, RecordUuid, RecordUuids, Refusals};
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

/// Which containers the list holds, besides paging and order.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ContainerListQuery {
    /// Container types to list: automatic, manual, blog, gallery (`type[]` repeated, `type`, or comma-separated)
    #[serde(default)]
    #[param(rename = "type[]")]
    r#type: Vec<String>,
    /// Words each container holds in its title or slug
    keywords: Option<String>,
    /// A content item's UUID: only the containers holding it
    content: Option<String>,
}

impl QueryShape for ContainerListQuery {
    const LISTS: &'static [&'static str] = &["type"];
}

#[utoipa::path(
    get,
    path = "/v3/container",
    tag = "container",
    operation_id = "containers_list",
    description = "Access action: CONTAINER list.",
    params(ListParams, ContainerListQuery),
    responses((status = 200, body = wire::Envelope<wire::Container>), Refusals)
)]
pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(list): Query<ListParams>,
    Query(filter): Query<ContainerListQuery>,
) -> ApiResult<Json<wire::Envelope<wire::Container>>> {
    let page = state
        .call(bearer, move |cms, who| {
            let filter = ContainerFilter {
                types: filter.r#type,
                keywords: filter.keywords,
                content: filter.content,
            };
            cms.list_containers(who, &list.into(), &filter)
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
    params(RecordUuid),
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
    params(IdempotencyKey),
    responses((status = 200, body = Vec<wire::Container>), Refusals)
)]
pub async fn create(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Container>>> {
    let container = state
        .call_with(bearer, Action::ContainerCreate, body, |cms, who, body| {
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
    params(IdempotencyKey, RecordUuid),
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
        .call_with(
            bearer,
            Action::ContainerUpdate,
            body,
            move |cms, who, body| cms.update_container(who, &uuid, input(body)),
        )
        .await?;
    Ok(Json(vec![present::container(container)]))
}

#[utoipa::path(
    delete,
    path = "/v3/container/{uuid}",
    tag = "container",
    operation_id = "containers_delete",
    description = "Access action: CONTAINER delete.",
    params(IdempotencyKey, RecordUuids),
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
