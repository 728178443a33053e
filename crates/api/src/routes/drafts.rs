//! `/v3/draft`: the editor's autosaved drafts of an item.

use axum::Json;
use axum::extract::State;
use copydesk_core::drafts::DraftInput;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, ContentSrn, Query, RawJson};
use crate::openapi::{IdempotencyKey, Refusals};
use crate::present;

#[utoipa::path(
    get,
    path = "/v3/draft",
    tag = "draft",
    operation_id = "drafts_last",
    description = "Access action: DRAFT list.",
    params(ContentSrn),
    responses((status = 200, body = Vec<wire::Draft>), Refusals)
)]
pub async fn last(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(item): Query<ContentSrn>,
) -> ApiResult<Json<Vec<wire::Draft>>> {
    let drafts = state
        .call(bearer, move |cms, who| {
            cms.last_draft(who, item.content.as_deref())
        })
        .await?;
    Ok(Json(drafts.into_iter().map(present::draft).collect()))
}

#[utoipa::path(
    get,
    path = "/v3/draft/merged",
    tag = "draft",
    operation_id = "drafts_merged",
    description = "Access action: DRAFT list. A Copydesk extension: the item's last draft merged paragraph by paragraph and word by word onto the item's current version, when someone saved a newer version since the draft was made (the draft's own version is the base). 404 when there is no draft; 409 when the draft's version is no longer kept.",
    params(ContentSrn),
    responses((status = 200, body = wire::MergedDraft), Refusals)
)]
pub async fn merged(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(item): Query<ContentSrn>,
) -> ApiResult<Json<wire::MergedDraft>> {
    let merged = state
        .call(bearer, move |cms, who| {
            cms.merged_draft(who, item.content.as_deref())
        })
        .await?;
    Ok(Json(present::merged_draft(merged)))
}

#[utoipa::path(
    post,
    path = "/v3/draft",
    tag = "draft",
    operation_id = "drafts_create",
    description = "Access action: DRAFT create.",
    params(IdempotencyKey, ContentSrn),
    request_body = wire::DraftBody,
    responses((status = 200, body = Vec<wire::Draft>), Refusals)
)]
pub async fn create(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(item): Query<ContentSrn>,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Draft>>> {
    let drafts = state
        .call_with(
            bearer,
            "DRAFT create",
            body,
            move |cms, who, body: wire::DraftBody| {
                cms.create_draft(
                    who,
                    item.content.as_deref(),
                    DraftInput {
                        body: body.content,
                        body_raw: body.content_raw,
                    },
                )
            },
        )
        .await?;
    Ok(Json(drafts.into_iter().map(present::draft).collect()))
}
