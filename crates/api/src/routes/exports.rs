//! `/v3/export`: the print side of a content item, its push, pull and notice lock, and its print formats.

use axum::extract::{Path, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use copydesk_core::access::Action;
use copydesk_core::exports::{ExportFormat, ExportInput};
use copydesk_wire as wire;

use crate::error::ApiResult;
use crate::extract::{Bearer, RawJson};
use crate::openapi::{ContentUuid, IdempotencyKey, Refusals};
use crate::{AppState, ContentAnswer};

#[utoipa::path(
    get,
    path = "/v3/export/{uuid}",
    tag = "export",
    operation_id = "exports_get",
    description = "Access action: EXPORT get.",
    params(ContentUuid),
    responses((status = 200, body = wire::Content), Refusals)
)]
pub async fn get(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<ContentAnswer> {
    let item = state
        .call_content(bearer, move |cms, who| cms.get_export(who, &uuid))
        .await?;
    Ok(item)
}

#[utoipa::path(
    put,
    path = "/v3/export/{uuid}",
    tag = "export",
    operation_id = "exports_update",
    description = "Access action: EXPORT update.",
    params(IdempotencyKey, ContentUuid),
    request_body = wire::ExportBody,
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
            Action::ExportUpdate,
            body,
            move |cms, who, body: wire::ExportBody| {
                let text = |r: Option<Option<wire::Reference>>| r.map(|inner| inner.map(|r| r.0));
                cms.update_export(
                    who,
                    &uuid,
                    ExportInput {
                        workflow_id: text(body.workflow_id),
                        assignee_id: text(body.assignee_id),
                        issue_id: text(body.issue_id),
                        workflow_section_id: text(body.workflow_section_id),
                        body: body.content,
                    },
                )
            },
        )
        .await?;
    Ok(item)
}

#[utoipa::path(
    put,
    path = "/v3/export/push/{uuid}",
    tag = "export",
    operation_id = "exports_push",
    description = "Access action: EXPORT push.",
    params(IdempotencyKey, ContentUuid),
    responses((status = 200, body = wire::Content), Refusals)
)]
pub async fn push(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<ContentAnswer> {
    let item = state
        .call_content(bearer, move |cms, who| cms.push_export(who, &uuid))
        .await?;
    Ok(item)
}

#[utoipa::path(
    put,
    path = "/v3/export/pull/{uuid}",
    tag = "export",
    operation_id = "exports_pull",
    description = "Access action: EXPORT pull.",
    params(IdempotencyKey, ContentUuid),
    responses((status = 200, body = wire::Content), Refusals)
)]
pub async fn pull(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<ContentAnswer> {
    let item = state
        .call_content(bearer, move |cms, who| cms.pull_export(who, &uuid))
        .await?;
    Ok(item)
}

#[utoipa::path(
    put,
    path = "/v3/export/lock/{uuid}",
    tag = "export",
    operation_id = "exports_lock",
    description = "Access action: EXPORT lock.",
    params(IdempotencyKey, ContentUuid),
    responses((status = 200, body = wire::Content), Refusals)
)]
pub async fn lock(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<ContentAnswer> {
    let item = state
        .call_content(bearer, move |cms, who| {
            cms.set_export_lock(who, &uuid, true)
        })
        .await?;
    Ok(item)
}

#[utoipa::path(
    delete,
    path = "/v3/export/lock/{uuid}",
    tag = "export",
    operation_id = "exports_unlock",
    description = "Access action: EXPORT lock.",
    params(IdempotencyKey, ContentUuid),
    responses((status = 200, body = wire::Content), Refusals)
)]
pub async fn unlock(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<ContentAnswer> {
    let item = state
        .call_content(bearer, move |cms, who| {
            cms.set_export_lock(who, &uuid, false)
        })
        .await?;
    Ok(item)
}

/// The media type of each print format.
fn media_type(format: ExportFormat) -> &'static str {
    match format {
        ExportFormat::Icml => "application/vnd.adobe.incopy-icml+xml; charset=utf-8",
        ExportFormat::Html => "text/html; charset=utf-8",
        ExportFormat::Text => "text/plain; charset=utf-8",
    }
}

#[utoipa::path(
    get,
    path = "/v3/export/{uuid}/as/{format}",
    tag = "export",
    operation_id = "exports_dump",
    description = "Access action: EXPORT dump.",
    params(ContentUuid, ("format" = String, Path, description = "icml, html or text")),
    responses((status = 200, description = "The export in the chosen format", content((String = "application/vnd.adobe.incopy-icml+xml"), (String = "text/html"), (String = "text/plain"))), Refusals)
)]
pub async fn dump(
    State(state): State<AppState>,
    bearer: Bearer,
    Path((uuid, format)): Path<(String, String)>,
) -> ApiResult<Response> {
    let dump = state
        .call(bearer, move |cms, who| cms.dump_export(who, &uuid, &format))
        .await?;
    let disposition = format!(
        "inline; filename=\"{}\"",
        dump.file_name.replace(['"', '\\'], "")
    );
    Ok((
        [
            (CONTENT_TYPE, media_type(dump.format).to_owned()),
            (CONTENT_DISPOSITION, disposition),
        ],
        dump.body,
    )
        .into_response())
}
