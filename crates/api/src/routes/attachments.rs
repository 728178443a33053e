//! `PUT /v3/attachment/{content uuid}`: replace the file, turn the preview, or set its metadata.

use axum::Extension;
use axum::body::Body;
use axum::extract::{Path, State};
use copydesk_core::CoreError;
use copydesk_core::access::Action;
use copydesk_core::attachments::{AttachmentChange, Upload};
use copydesk_wire as wire;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::BodyLimit;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Bearer, Query, QueryShape, RawJson};
use crate::openapi::{ContentUuid, IdempotencyKey, Refusals, UploadRefusals};
use crate::{AppState, ContentAnswer};

/// Exactly one kind of change per request, as the spec says.
fn change(body: wire::AttachmentBody) -> copydesk_core::Result<AttachmentChange> {
    let replace = body.name.is_some() || body.file.is_some();
    let kinds = [replace, body.angle.is_some(), body.metadata.is_some()]
        .iter()
        .filter(|k| **k)
        .count();
    if kinds != 1 {
        return Err(CoreError::invalid(
            "send exactly one change: a new file (name and file), an angle, or metadata",
        ));
    }
    if replace {
        let name = body.name.ok_or_else(|| CoreError::required("name"))?;
        let file = body.file.ok_or_else(|| CoreError::required("file"))?;
        return Ok(AttachmentChange::Replace(Upload {
            name,
            file_base64: file,
        }));
    }
    if let Some(angle) = body.angle {
        return Ok(AttachmentChange::Angle(angle.0.to_string()));
    }
    Ok(AttachmentChange::Metadata(
        body.metadata.unwrap_or_default(),
    ))
}

#[utoipa::path(
    put,
    path = "/v3/attachment/{uuid}",
    tag = "attachment",
    operation_id = "attachments_update",
    description = "Access action: ATTACHMENT update.",
    params(IdempotencyKey, ContentUuid),
    request_body = wire::AttachmentBody,
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
            Action::AttachmentUpdate,
            body,
            move |cms, who, body| cms.update_attachment(who, &uuid, change(body)?),
        )
        .await?;
    Ok(item)
}

/// What a raw upload says of its file.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UploadQuery {
    /// The file's name, with its extension
    #[param(required = true, value_type = String)]
    name: Option<String>,
}

impl QueryShape for UploadQuery {}

#[utoipa::path(
    put,
    path = "/v3/attachment/{uuid}/file",
    tag = "attachment",
    operation_id = "attachments_upload",
    description = "Access action: ATTACHMENT update. A Copydesk extension: the item's new master file as the raw request body, streamed to disk (no base64).",
    params(IdempotencyKey, ContentUuid, UploadQuery),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 200, body = wire::Content), Refusals, UploadRefusals)
)]
pub async fn upload(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    Query(query): Query<UploadQuery>,
    Extension(limit): Extension<BodyLimit>,
    body: Body,
) -> ApiResult<ContentAnswer> {
    let name = query.name;
    // Only the last step writes; it alone carries an idempotency key.
    let checking = Bearer {
        credential: bearer.credential.clone(),
        keyed: None,
    };
    let incoming = state
        .call(checking, move |cms, who| {
            cms.begin_attachment_upload(who, &uuid, name.as_deref())
        })
        .await?;
    // The body goes to disk from here, on the async workers: a slow client
    // holds no blocking thread while it sends.
    receive(body, &incoming.path(), limit.0).await?;
    let item = state
        .call_content(bearer, move |cms, who| {
            cms.finish_attachment_upload(who, incoming)
        })
        .await?;
    Ok(item)
}

/// Writes a request body to `path`, refusing more than `limit` bytes.
async fn receive(body: Body, path: &std::path::Path, limit: usize) -> ApiResult<()> {
    use futures_util::StreamExt as _;
    use tokio::io::AsyncWriteExt as _;
    let mut file = tokio::fs::File::create(path)
        .await
        .map_err(CoreError::from)?;
    let mut stream = body.into_data_stream();
    let mut size: usize = 0;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|err| ApiError::unreadable_body(&err, limit))?;
        size += chunk.len();
        if size > limit {
            return Err(ApiError::TooLarge { limit });
        }
        file.write_all(&chunk).await.map_err(CoreError::from)?;
    }
    file.flush().await.map_err(CoreError::from)?;
    Ok(())
}
