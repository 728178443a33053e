//! `/v3/tag`: labels on content (an extension the contract names).

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::tags::TagInput;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, QueryPairs, RawJson};
use crate::present;

fn input(body: wire::TagBody) -> TagInput {
    TagInput {
        name: body.name,
        slug: body.slug,
    }
}

pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
    query: QueryPairs,
) -> ApiResult<Json<wire::Envelope<wire::Tag>>> {
    let page = state
        .call(bearer, move |cms, who| cms.list_tags(who, &query.list()))
        .await?;
    Ok(Json(present::page(page, present::tag)))
}

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

pub async fn create(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Tag>>> {
    let tag = state
        .call_with(bearer, "TAG create", body, |cms, who, body| {
            cms.create_tag(who, input(body))
        })
        .await?;
    Ok(Json(vec![present::tag(tag)]))
}

pub async fn update(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Tag>>> {
    let tag = state
        .call_with(bearer, "TAG update", body, move |cms, who, body| {
            cms.update_tag(who, &uuid, input(body))
        })
        .await?;
    Ok(Json(vec![present::tag(tag)]))
}

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
