//! `/v3/print-document`: tracked print documents and their non-exclusive lock.

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::print_documents::PrintDocumentInput;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Bearer, QueryPairs, RawJson};
use crate::present;

fn input(body: wire::PrintDocumentBody) -> PrintDocumentInput {
    let text = |r: Option<Option<wire::Reference>>| r.map(|inner| inner.map(|r| r.0));
    PrintDocumentInput {
        label: body.label,
        tracking_label: body.tracking_label,
        workflow_id: text(body.workflow_id),
        issue_id: text(body.issue_id),
        assignee_id: text(body.assignee_id),
        workflow_section_id: text(body.workflow_section_id),
    }
}

pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
    query: QueryPairs,
) -> ApiResult<Json<wire::Envelope<wire::PrintDocument>>> {
    let page = state
        .call(bearer, move |cms, who| {
            cms.list_print_documents(who, &query.list())
        })
        .await?;
    Ok(Json(present::page(page, present::print_document)))
}

pub async fn get(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(identifier): Path<String>,
) -> ApiResult<Json<Vec<wire::PrintDocument>>> {
    let doc = state
        .call(bearer, move |cms, who| {
            cms.get_print_document(who, &identifier)
        })
        .await?;
    Ok(Json(vec![present::print_document(doc)]))
}

pub async fn create(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::PrintDocument>>> {
    let doc = state
        .call_with(bearer, "PRINTDOCUMENT create", body, |cms, who, body| {
            cms.create_print_document(who, input(body))
        })
        .await?;
    Ok(Json(vec![present::print_document(doc)]))
}

pub async fn update(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::PrintDocument>>> {
    let doc = state
        .call_with(
            bearer,
            "PRINTDOCUMENT update",
            body,
            move |cms, who, body| cms.update_print_document(who, &uuid, input(body)),
        )
        .await?;
    Ok(Json(vec![present::print_document(doc)]))
}

pub async fn lock(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    body: RawJson,
) -> ApiResult<Json<wire::PrintDocument>> {
    let cms = std::sync::Arc::clone(&state.cms);
    let doc = tokio::task::spawn_blocking(move || -> ApiResult<_> {
        let who = cms.authenticate(bearer.0.as_deref())?;
        who.require("PRINTDOCUMENT update")?;
        let body: wire::PrintLockBody = body.parse_optional()?;
        Ok(cms.lock_print_document(&who, &uuid, body.on_behalf_of.as_deref())?)
    })
    .await
    .map_err(|err| ApiError::Core(copydesk_core::CoreError::Internal(err.to_string())))??;
    Ok(Json(present::print_document(doc)))
}

pub async fn unlock(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<wire::PrintDocument>> {
    let doc = state
        .call(bearer, move |cms, who| {
            cms.unlock_print_document(who, &uuid)
        })
        .await?;
    Ok(Json(present::print_document(doc)))
}
