//! `/v3/content`: articles, posts, media and pages.

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::access::Action;
use copydesk_core::attachments::Upload;
use copydesk_core::content::{ContentFilter, ContentInput};
use copydesk_wire as wire;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::ApiResult;
use crate::extract::{Bearer, ListParams, Query, QueryShape, RawJson};
use crate::openapi::{IdempotencyKey, RecordUuid, Refusals};
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
        base_version: body.base_version.map(|v| v.0),
    }
}

/// What the content list filters by, besides paging and order.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ContentListQuery {
    /// 0: items without attachments, 1: items with
    #[param(value_type = Option<u8>)]
    has_attachment: Option<String>,
    /// article, post, media or page
    r#type: Option<String>,
    /// published (publication time set and reached), scheduled (still ahead), draft or unpublished (none), any
    status: Option<String>,
    /// A workflow's id
    workflow: Option<String>,
    /// Words each item holds in its title, abstract, body or slug
    keywords: Option<String>,
    /// `keywords` as some clients spell it (`keywords` wins when both come).
    #[param(ignore)]
    keyword: Option<String>,
    /// An author each item carries: its UUID, slug or name
    author: Option<String>,
    /// A tag each item carries: its UUID, slug or name
    tag: Option<String>,
    /// Items last changed on or after this day (YYYY-MM-DD, UTC) or moment (ISO 8601 with its offset)
    changed_from: Option<String>,
    /// Items last changed on or before this day (YYYY-MM-DD, UTC) or moment (ISO 8601 with its offset)
    changed_to: Option<String>,
    /// Accepted from clients of the hosted service; no meaning here
    #[allow(dead_code)]
    grid: Option<String>,
}

impl QueryShape for ContentListQuery {}

impl From<ContentListQuery> for ContentFilter {
    fn from(query: ContentListQuery) -> Self {
        Self {
            has_attachment: query.has_attachment,
            content_type: query.r#type,
            status: query.status,
            workflow: query.workflow,
            keywords: query.keywords.or(query.keyword),
            author: query.author,
            tag: query.tag,
            changed_from: query.changed_from,
            changed_to: query.changed_to,
        }
    }
}

#[utoipa::path(
    get,
    path = "/v3/content",
    tag = "content",
    operation_id = "content_list",
    description = "Access action: CONTENT list.",
    params(ListParams, ContentListQuery),
    responses((status = 200, body = wire::Envelope<wire::Content>), Refusals)
)]
pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(list): Query<ListParams>,
    Query(filter): Query<ContentListQuery>,
) -> ApiResult<axum::response::Response> {
    // `grid` (a layout hint of the hosted service's own pages) is accepted and has no meaning here.
    let filter = ContentFilter::from(filter);
    let page = state
        .call(bearer, move |cms, who| {
            cms.list_content_rendered(who, &list.into(), &filter)
        })
        .await?;
    Ok(crate::json_text(present::rendered_page(page)))
}

#[utoipa::path(
    get,
    path = "/v3/content/{uuid}",
    tag = "content",
    operation_id = "content_get",
    description = "Access action: CONTENT get. For a key made with `key create --content-as-array`, the item comes as a one-element array (so do the other operations that answer one content item).",
    params(RecordUuid),
    responses((status = 200, body = wire::Content), Refusals)
)]
pub async fn get(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<ContentAnswer> {
    state.read_content(bearer, uuid).await
}

#[utoipa::path(
    post,
    path = "/v3/content",
    tag = "content",
    operation_id = "content_create",
    description = "Access action: CONTENT create (plus CONTENT publish when published_at is set, and CONTENT type_<type>).",
    request_body = wire::ContentBody,
    params(IdempotencyKey),
    responses((status = 200, body = wire::Content), Refusals)
)]
pub async fn create(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<ContentAnswer> {
    let item = state
        .call_with_content(bearer, Action::ContentCreate, body, |cms, who, body| {
            cms.create_content_rendered(who, input(body))
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
    params(IdempotencyKey, RecordUuid),
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
        .call_with_content(
            bearer,
            Action::ContentUpdate,
            body,
            move |cms, who, body| cms.update_content(who, &uuid, input(body)),
        )
        .await?;
    Ok(item)
}

#[utoipa::path(
    delete,
    path = "/v3/content/{uuid}",
    tag = "content",
    operation_id = "content_delete",
    description = "Access action: CONTENT delete.",
    params(IdempotencyKey, RecordUuid),
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
