//! `/v3/workflow`, `/v3/workflow-section` and `/v3/issue`: the records print documents and exports refer to.

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::planning::{IssueInput, SectionInput, WorkflowInput};
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, QueryPairs, RawJson};
use crate::present;

pub async fn list_workflows(
    State(state): State<AppState>,
    bearer: Bearer,
    query: QueryPairs,
) -> ApiResult<Json<wire::Envelope<wire::Workflow>>> {
    let page = state
        .call(bearer, move |cms, who| {
            cms.list_workflows(who, &query.list())
        })
        .await?;
    Ok(Json(present::page(page, present::workflow)))
}

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

pub async fn create_workflow(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Workflow>>> {
    let workflow = state
        .call_with(
            bearer,
            "WORKFLOW create",
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

pub async fn list_sections(
    State(state): State<AppState>,
    bearer: Bearer,
    query: QueryPairs,
) -> ApiResult<Json<wire::Envelope<wire::WorkflowSection>>> {
    let page = state
        .call(bearer, move |cms, who| {
            cms.list_sections(who, &query.list())
        })
        .await?;
    Ok(Json(present::page(page, present::workflow_section)))
}

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

pub async fn create_section(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::WorkflowSection>>> {
    let section = state
        .call_with(
            bearer,
            "WORKFLOWSECTION create",
            body,
            |cms, who, body: wire::WorkflowSectionBody| {
                cms.create_section(
                    who,
                    SectionInput {
                        name: body.name,
                        slug: body.slug,
                        workflow_id: body.workflow_id.map(|r| r.0),
                    },
                )
            },
        )
        .await?;
    Ok(Json(vec![present::workflow_section(section)]))
}

pub async fn list_issues(
    State(state): State<AppState>,
    bearer: Bearer,
    query: QueryPairs,
) -> ApiResult<Json<wire::Envelope<wire::Issue>>> {
    let page = state
        .call(bearer, move |cms, who| cms.list_issues(who, &query.list()))
        .await?;
    Ok(Json(present::page(page, present::issue)))
}

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

pub async fn create_issue(
    State(state): State<AppState>,
    bearer: Bearer,
    body: RawJson,
) -> ApiResult<Json<Vec<wire::Issue>>> {
    let issue = state
        .call_with(
            bearer,
            "ISSUE create",
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
