//! `/v3/draft`: each person's autosaved drafts of an item, and the others' unsaved ones.

use axum::Json;
use axum::extract::State;
use copydesk_core::access::Action;
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
    description = "Access action: DRAFT list. The caller's own last draft of the item (a draft is one person's; another's is never answered as one's own), with the rest of the form it was typed with in `fields` and whether its writer saved a version since in `saved`.",
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
    description = "Access action: DRAFT list. A Copydesk extension: the caller's last draft of the item merged paragraph by paragraph and word by word onto the item's current version, when someone saved a newer version since the draft was made (the draft's own version is the base). 404 when there is no draft; 409 when the draft's version is no longer kept.",
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
    get,
    path = "/v3/draft/others",
    tag = "draft",
    operation_id = "drafts_others",
    description = "Access action: DRAFT list. A Copydesk extension: the last unsaved draft of each other person who typed in the item (none once they saved a version since), newest first, each with its writer embedded as `user`: an editor shows that someone else has unsaved text in the story.",
    params(ContentSrn),
    responses((status = 200, body = Vec<wire::Draft>), Refusals)
)]
pub async fn others(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(item): Query<ContentSrn>,
) -> ApiResult<Json<Vec<wire::Draft>>> {
    let drafts = state
        .call(bearer, move |cms, who| {
            cms.others_drafts(who, item.content.as_deref())
        })
        .await?;
    Ok(Json(drafts.into_iter().map(present::draft).collect()))
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
            Action::DraftCreate,
            body,
            move |cms, who, body: wire::DraftBody| {
                cms.create_draft(
                    who,
                    item.content.as_deref(),
                    DraftInput {
                        body: body.content,
                        body_raw: body.content_raw,
                        fields: body.fields.map(present::draft_fields_sent),
                        version: body.version.map(|v| v.0),
                    },
                )
            },
        )
        .await?;
    Ok(Json(drafts.into_iter().map(present::draft).collect()))
}
