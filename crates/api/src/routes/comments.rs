//! `/v3/note-comment` (threads on notes) and `/v3/assignment-comment` (flat threads on assignments).

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::access::Action;
use copydesk_core::comments::NoteCommentInput;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, RawJson};
use crate::openapi::{IdempotencyKey, RecordUuid, Refusals};
use crate::present;

#[utoipa::path(
    get,
    path = "/v3/note-comment/{uuid}",
    tag = "note-comment",
    operation_id = "comments_notes",
    description = "Access action: NOTECOMMENT get.",
    params(("uuid" = String, Path, description = "The thread's reference: the UUID of the content item or note it belongs to")),
    responses((status = 200, body = wire::Items<wire::NoteComment>), Refusals)
)]
pub async fn notes(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(reference): Path<String>,
) -> ApiResult<Json<wire::Items<wire::NoteComment>>> {
    let notes = state
        .call(bearer, move |cms, who| cms.note_comments(who, &reference))
        .await?;
    Ok(Json(wire::Items {
        items: notes.into_iter().map(present::note_comment).collect(),
    }))
}

#[utoipa::path(
    get,
    path = "/v3/content/{uuid}/notes",
    tag = "note-comment",
    operation_id = "content_notes",
    description = "Access action: CONTENT get. A Copydesk extension: the story's in-content notes: those on its words first, in the order they stand, `open` or `resolved` (a resolved note stays on its words, hidden from the page); then those whose words were deleted (`words_deleted`), the most recently seen first; each with the words it is or was last on.",
    params(RecordUuid),
    responses((status = 200, body = wire::Items<wire::StoryNote>), Refusals)
)]
pub async fn story_notes(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<wire::Items<wire::StoryNote>>> {
    let notes = state
        .call(bearer, move |cms, who| cms.story_notes(who, &uuid))
        .await?;
    Ok(Json(wire::Items {
        items: notes.into_iter().map(present::story_note).collect(),
    }))
}

#[utoipa::path(
    post,
    path = "/v3/note-comment/{uuid}",
    tag = "note-comment",
    operation_id = "comments_create_note",
    description = "Access action: NOTECOMMENT create.",
    params(IdempotencyKey, ("uuid" = String, Path, description = "`root` to start a thread, or the UUID of the comment this one answers")),
    request_body = wire::NoteCommentBody,
    responses((status = 200, body = wire::Items<wire::NoteComment>), Refusals)
)]
pub async fn create_note(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(parent): Path<String>,
    body: RawJson,
) -> ApiResult<Json<wire::Items<wire::NoteComment>>> {
    let notes = state
        .call_with(
            bearer,
            Action::NoteCommentCreate,
            body,
            move |cms, who, body: wire::NoteCommentBody| {
                cms.create_note_comment(
                    who,
                    &parent,
                    NoteCommentInput {
                        comment: body.comment,
                        version: body.version.map(|v| v.0),
                        reference: body.reference,
                        draft_uuid: body.draft_uuid,
                    },
                )
            },
        )
        .await?;
    Ok(Json(wire::Items {
        items: notes.into_iter().map(present::note_comment).collect(),
    }))
}

#[utoipa::path(
    get,
    path = "/v3/assignment-comment/{uuid}",
    tag = "assignment-comment",
    operation_id = "comments_assignment_comments",
    description = "Access action: ASSIGNMENTCOMMENT list.",
    params(("uuid" = String, Path, description = "The assignment's UUID")),
    responses((status = 200, body = wire::Items<wire::AssignmentComment>), Refusals)
)]
pub async fn assignment_comments(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<wire::Items<wire::AssignmentComment>>> {
    let comments = state
        .call(bearer, move |cms, who| cms.assignment_comments(who, &uuid))
        .await?;
    Ok(Json(wire::Items {
        items: comments
            .into_iter()
            .map(present::assignment_comment)
            .collect(),
    }))
}

#[utoipa::path(
    post,
    path = "/v3/assignment-comment/{uuid}",
    tag = "assignment-comment",
    operation_id = "comments_create_assignment_comment",
    description = "Access action: ASSIGNMENTCOMMENT create.",
    params(IdempotencyKey, ("uuid" = String, Path, description = "The assignment's UUID")),
    request_body = wire::AssignmentCommentBody,
    responses((status = 200, body = wire::AssignmentComment), Refusals)
)]
pub async fn create_assignment_comment(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    body: RawJson,
) -> ApiResult<Json<wire::AssignmentComment>> {
    let comment = state
        .call_with(
            bearer,
            Action::AssignmentCommentCreate,
            body,
            move |cms, who, body: wire::AssignmentCommentBody| {
                cms.create_assignment_comment(who, &uuid, body.comment.as_deref())
            },
        )
        .await?;
    Ok(Json(present::assignment_comment(comment)))
}
