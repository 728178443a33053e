//! `/v3/workflow`, `/v3/workflow-section` and `/v3/issue`: the records print documents and exports refer to.

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::access::Action;
use copydesk_core::planning::{IssueInput, SectionInput, WorkflowInput};
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, ListParams, Query, RawJson};
use crate::openapi::{IdempotencyKey, RecordUuid, Refusals};
use crate::present;

#[utoipa::path(
    get,
    path = "/v3/workflow",
    tag = "workflow",
    operation_id = "planning_list_workflows",
    description = "Access action: WORKFLOW list.",
    params(ListParams),
    responses((status = 200, body = wire::Envelope<wire::Workflow>), Refusals)
)]
pub async fn list_workflows(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(list): Query<ListParams>,
) -> ApiResult<Json<wire::Envelope<wire::Workflow>>> {
    let page = state
        .call(bearer, move |cms, who| {
            cms.list_workflows(who, &list.into())
        })
        .await?;
    Ok(Json(present::page(page, present::workflow)))
}

#[utoipa::path(
    get,
    path = "/v3/workflow/{uuid}",
    tag = "workflow",
    operation_id = "planning_get_workflow",
    description = "Access action: WORKFLOW get.",
    params(RecordUuid),
    responses((status = 200, body = Vec<wire::Workflow>), Refusals)
)]
pub async fn get_workflow(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<Vec<wire::Workflow>>> {
    let workflow = state
        .call(bearer, move |cms, who| cms.get_workflow(who, &uuid))
        .await?;
    Ok(Json(vec![present::workflow(workflow)]))
}

#[utoipa::path(
    post,
    path = "/v3/workflow",
    tag = "workflow",
    operation_id = "planning_create_workflow",
    description = "Access action: WORKFLOW create.",
    request_body = wire::WorkflowBody,
    params(IdempotencyKey),
    responses((status = 200, body = Vec<wire::Workflow>), Refusals)
)]
pub async fn create_workflow(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Workflow>>> {
    let workflow = state
        .call_with(
            bearer,
            Action::WorkflowCreate,
            body,
            |cms, who, body: wire::WorkflowBody| {
                cms.create_workflow(
                    who,
                    WorkflowInput {
                        slug: body.slug,
                        name: body.name,
                        status: body.status.map(|v| v.0),
                        is_web: body.is_web.map(|f| f.0),
                        is_print: body.is_print.map(|f| f.0),
                        priority: body.priority.map(|v| v.0),
                        is_content: body.is_content.map(|f| f.0),
                        is_assignment: body.is_assignment.map(|f| f.0),
                    },
                )
            },
        )
        .await?;
    Ok(Json(vec![present::workflow(workflow)]))
}

#[utoipa::path(
    get,
    path = "/v3/workflow-section",
    tag = "workflow-section",
    operation_id = "planning_list_sections",
    description = "Access action: WORKFLOWSECTION list.",
    params(ListParams),
    responses((status = 200, body = wire::Envelope<wire::WorkflowSection>), Refusals)
)]
pub async fn list_sections(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(list): Query<ListParams>,
) -> ApiResult<Json<wire::Envelope<wire::WorkflowSection>>> {
    let page = state
        .call(bearer, move |cms, who| cms.list_sections(who, &list.into()))
        .await?;
    Ok(Json(present::page(page, present::workflow_section)))
}

#[utoipa::path(
    get,
    path = "/v3/workflow-section/{uuid}",
    tag = "workflow-section",
    operation_id = "planning_get_section",
    description = "Access action: WORKFLOWSECTION get.",
    params(RecordUuid),
    responses((status = 200, body = Vec<wire::WorkflowSection>), Refusals)
)]
pub async fn get_section(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<Vec<wire::WorkflowSection>>> {
    let section = state
        .call(bearer, move |cms, who| cms.get_section(who, &uuid))
        .await?;
    Ok(Json(vec![present::workflow_section(section)]))
}

#[utoipa::path(
    post,
    path = "/v3/workflow-section",
    tag = "workflow-section",
    operation_id = "planning_create_section",
    description = "Access action: WORKFLOWSECTION create.",
    request_body = wire::WorkflowSectionBody,
    params(IdempotencyKey),
    responses((status = 200, body = Vec<wire::WorkflowSection>), Refusals)
)]
pub async fn create_section(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::WorkflowSection>>> {
    let section = state
        .call_with(
            bearer,
            Action::WorkflowSectionCreate,
            body,
            |cms, who, body: wire::WorkflowSectionBody| {
                cms.create_section(
                    who,
                    SectionInput {
                        name: body.name,
                        slug: body.slug,
                        workflow_id: body.workflow_id.map(|r| r.0),
                        is_print: body.is_print.map(|f| f.0),
                        is_web: body.is_web.map(|f| f.0),
                    },
                )
            },
        )
        .await?;
    Ok(Json(vec![present::workflow_section(section)]))
}

#[utoipa::path(
    get,
    path = "/v3/issue",
    tag = "issue",
    operation_id = "planning_list_issues",
    description = "Access action: ISSUE list.",
    params(ListParams),
    responses((status = 200, body = wire::Envelope<wire::Issue>), Refusals)
)]
pub async fn list_issues(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(list): Query<ListParams>,
) -> ApiResult<Json<wire::Envelope<wire::Issue>>> {
    let page = state
        .call(bearer, move |cms, who| cms.list_issues(who, &list.into()))
        .await?;
    Ok(Json(present::page(page, present::issue)))
}

#[utoipa::path(
    get,
    path = "/v3/issue/{uuid}",
    tag = "issue",
    operation_id = "planning_get_issue",
    description = "Access action: ISSUE get.",
    params(RecordUuid),
    responses((status = 200, body = Vec<wire::Issue>), Refusals)
)]
pub async fn get_issue(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<Vec<wire::Issue>>> {
    let issue = state
        .call(bearer, move |cms, who| cms.get_issue(who, &uuid))
        .await?;
    Ok(Json(vec![present::issue(issue)]))
}

#[utoipa::path(
    post,
    path = "/v3/issue",
    tag = "issue",
    operation_id = "planning_create_issue",
    description = "Access action: ISSUE create.",
    request_body = wire::IssueBody,
    params(IdempotencyKey),
    responses((status = 200, body = Vec<wire::Issue>), Refusals)
)]
pub async fn create_issue(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Issue>>> {
    let issue = state
        .call_with(
            bearer,
            Action::IssueCreate,
            body,
            |cms, who, body: wire::IssueBody| {
                cms.create_issue(
                    who,
                    IssueInput {
                        label: body.label,
                        description: body.description,
                        status: body.status.map(|v| v.0),
                        published_at: body.published_at,
                        decorated_label: body.decorated_label,
                    },
                )
            },
        )
        .await?;
    Ok(Json(vec![present::issue(issue)]))
}
