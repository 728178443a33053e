//! `/v3/print-document`: tracked print documents and their non-exclusive lock.

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::access::Action;
use copydesk_core::print_documents::PrintDocumentInput;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, ListParams, Query, RawJson};
use crate::openapi::{IdempotencyKey, RecordUuid, Refusals};
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

#[utoipa::path(
    get,
    path = "/v3/print-document",
    tag = "print-document",
    operation_id = "print_documents_list",
    description = "Access action: PRINTDOCUMENT get.",
    params(ListParams),
    responses((status = 200, body = wire::Envelope<wire::PrintDocument>), Refusals)
)]
pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(list): Query<ListParams>,
) -> ApiResult<Json<wire::Envelope<wire::PrintDocument>>> {
    let page = state
        .call(bearer, move |cms, who| {
            cms.list_print_documents(who, &list.into())
        })
        .await?;
    Ok(Json(present::page(page, present::print_document)))
}

#[utoipa::path(
    get,
    path = "/v3/print-document/{identifier}",
    tag = "print-document",
    operation_id = "print_documents_get",
    description = "Access action: PRINTDOCUMENT create (as the specification states).",
    params(("identifier" = String, Path, description = "A print document's UUID or tracking label")),
    responses((status = 200, body = Vec<wire::PrintDocument>), Refusals)
)]
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

#[utoipa::path(
    post,
    path = "/v3/print-document",
    tag = "print-document",
    operation_id = "print_documents_create",
    description = "Access action: PRINTDOCUMENT create.",
    request_body = wire::PrintDocumentBody,
    params(IdempotencyKey),
    responses((status = 200, body = Vec<wire::PrintDocument>), Refusals)
)]
pub async fn create(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::PrintDocument>>> {
    let doc = state
        .call_with(
            bearer,
            Action::PrintDocumentCreate,
            body,
            |cms, who, body| cms.create_print_document(who, input(body)),
        )
        .await?;
    Ok(Json(vec![present::print_document(doc)]))
}

#[utoipa::path(
    put,
    path = "/v3/print-document/{identifier}",
    tag = "print-document",
    operation_id = "print_documents_update",
    description = "Access action: PRINTDOCUMENT update.",
    params(IdempotencyKey, ("identifier" = String, Path, description = "The print document's UUID")),
    request_body = wire::PrintDocumentBody,
    responses((status = 200, body = Vec<wire::PrintDocument>), Refusals)
)]
pub async fn update(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::PrintDocument>>> {
    let doc = state
        .call_with(
            bearer,
            Action::PrintDocumentUpdate,
            body,
            move |cms, who, body| cms.update_print_document(who, &uuid, input(body)),
        )
        .await?;
    Ok(Json(vec![present::print_document(doc)]))
}

#[utoipa::path(
    post,
    path = "/v3/print-document/{uuid}/lock",
    tag = "print-document",
    operation_id = "print_documents_lock",
    description = "Access action: PRINTDOCUMENT update; PRINTDOCUMENT passThruLock to lock on behalf of another user or to take over another user's lock.",
    params(IdempotencyKey, RecordUuid),
    request_body = wire::PrintLockBody,
    responses((status = 200, body = wire::PrintDocument), Refusals)
)]
pub async fn lock(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    body: RawJson,
) -> ApiResult<Json<wire::PrintDocument>> {
    let doc = state
        .run_as(bearer, move |cms, who| {
            who.require(Action::PrintDocumentUpdate)?;
            let body: wire::PrintLockBody = body.parse_optional()?;
            Ok(cms.lock_print_document(who, &uuid, body.on_behalf_of.as_deref())?)
        })
        .await?;
    Ok(Json(present::print_document(doc)))
}

#[utoipa::path(
    delete,
    path = "/v3/print-document/{uuid}/lock",
    tag = "print-document",
    operation_id = "print_documents_unlock",
    description = "Access action: PRINTDOCUMENT update; PRINTDOCUMENT passThruLock to remove another user's lock.",
    params(IdempotencyKey, RecordUuid),
    responses((status = 200, body = wire::PrintDocument), Refusals)
)]
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
