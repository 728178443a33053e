//! `/v3/content`: articles, posts, media and pages.

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::attachments::Upload;
use copydesk_core::content::{ContentFilter, ContentInput};
use copydesk_wire as wire;

use crate::error::ApiResult;
use crate::extract::{Bearer, QueryPairs, RawJson};
use crate::openapi::{ListParams, Refusals};
use crate::present;
use crate::{AppState, ContentAnswer};

/// An empty `published_at` means "not published", like `null`.
fn nullable_text(value: Option<Option<String>>) -> Option<Option<String>> {
    value.map(|inner| inner.filter(|text| !text.trim().is_empty()))
}

pub(crate) fn input(body: wire::ContentBody) -> ContentInput {
    ContentInput {
        title: body.title,
        slug: body.slug,
        content_type: body.content_type,
        weight: body.weight.map(|w| w.0),
        abstract_text: body.abstract_text,
        abstract_raw: body.abstract_raw.map(|r| r.0),
        body: body.content,
        body_raw: body.content_raw.map(|r| r.0),
        published_at: nullable_text(body.published_at),
        state: body.state.map(|s| s.0),
        dominant_attachment: nullable_text(body.dominant_attachment),
        authors: body.authors,
        tags: body.tags,
        urls: body.urls,
        attachment: body.attachment.map(|a| Upload {
            name: a.name,
            file_base64: a.file,
        }),
        container: nullable_text(body.container),
    }
}

#[utoipa::path(
    get,
    path = "/v3/content",
    tag = "content",
    operation_id = "content_list",
    description = "Access action: CONTENT list.",
    params(
        ListParams,
        ("has_attachment" = Option<u8>, Query, description = "0: items without attachments, 1: items with"),
        ("type" = Option<String>, Query, description = "article, post, media or page"),
        ("status" = Option<String>, Query, description = "published (publication time set and reached), scheduled (still ahead), draft or unpublished (none), any"),
        ("workflow" = Option<String>, Query, description = "A workflow's id"),
        ("keywords" = Option<String>, Query, description = "Words each item holds in its title, abstract, body or slug"),
        ("grid" = Option<String>, Query, description = "Accepted from clients of the hosted service; no meaning here")
    ),
    responses((status = 200, body = wire::Envelope<wire::Content>), Refusals)
)]
pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
    query: QueryPairs,
) -> ApiResult<Json<wire::Envelope<wire::Content>>> {
    // `grid` (a layout hint of the hosted service's own pages) is accepted and has no meaning here.
    let filter = ContentFilter {
        has_attachment: query.get("has_attachment").map(str::to_owned),
        content_type: query.get("type").map(str::to_owned),
        status: query.get("status").map(str::to_owned),
        workflow: query.get("workflow").map(str::to_owned),
        keywords: query
            .get("keywords")
            .or_else(|| query.get("keyword"))
            .map(str::to_owned),
    };
    let page = state
        .call(bearer, move |cms, who| {
            cms.list_content(who, &query.list(), &filter)
        })
        .await?;
    Ok(Json(present::page(page, present::content)))
}

#[utoipa::path(
    get,
    path = "/v3/content/{uuid}",
    tag = "content",
    operation_id = "content_get",
    description = "Access action: CONTENT get. For a key made with `key create --content-as-array`, the item comes as a one-element array (so do the other operations that answer one content item).",
    params(("uuid" = String, Path, description = "The record's UUID (several, comma-separated, for a delete of authors, tags, containers or assignments)")),
    responses((status = 200, body = wire::Content), Refusals)
)]
pub async fn get(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<ContentAnswer> {
    let item = state
        .call_content(bearer, move |cms, who| cms.get_content(who, &uuid))
        .await?;
    Ok(item)
}

#[utoipa::path(
    post,
    path = "/v3/content",
    tag = "content",
    operation_id = "content_create",
    description = "Access action: CONTENT create (plus CONTENT publish when published_at is set, and CONTENT type_<type>).",
    request_body = wire::ContentBody,
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,200}$", description = "Makes the write safe to repeat: a repeat with the same key gets the first answer and applies nothing twice")),
    responses((status = 200, body = wire::Content), Refusals)
)]
pub async fn create(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<ContentAnswer> {
    let item = state
        .call_with_content(bearer, "CONTENT create", body, |cms, who, body| {
            cms.create_content(who, input(body))
        })
        .await?;
    Ok(item)
}

#[utoipa::path(
    put,
    path = "/v3/content/{uuid}",
    tag = "content",
    operation_id = "content_update",
    description = "Access action: CONTENT update (plus CONTENT publish when published_at changes, and CONTENT type_<type> for a type sent).",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,200}$", description = "Makes the write safe to repeat: a repeat with the same key gets the first answer and applies nothing twice"), ("uuid" = String, Path, description = "The record's UUID (several, comma-separated, for a delete of authors, tags, containers or assignments)")),
    request_body = wire::ContentBody,
    responses((status = 200, body = wire::Content), Refusals)
)]
pub async fn update(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    body: RawJson,
) -> ApiResult<ContentAnswer> {
    let item = state
        .call_with_content(bearer, "CONTENT update", body, move |cms, who, body| {
            cms.update_content(who, &uuid, input(body))
        })
        .await?;
    Ok(item)
}

#[utoipa::path(
    delete,
    path = "/v3/content/{uuid}",
    tag = "content",
    operation_id = "content_delete",
    description = "Access action: CONTENT delete.",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,200}$", description = "Makes the write safe to repeat: a repeat with the same key gets the first answer and applies nothing twice"), ("uuid" = String, Path, description = "The record's UUID (several, comma-separated, for a delete of authors, tags, containers or assignments)")),
    responses((status = 200, body = wire::Message), Refusals)
)]
pub async fn delete(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<wire::Message>> {
    state
        .call(bearer, move |cms, who| cms.delete_content(who, &uuid))
        .await?;
    Ok(Json(wire::Message {
        message: "Ok".into(),
    }))
}
