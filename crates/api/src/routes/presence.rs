//! `/v3/presence`: who is in which story, and where (a Copydesk extension; never stored, see the core's `presence`).

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::access::Action;
use copydesk_core::presence::{PresenceInput, Present};
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, RawJson};
use crate::openapi::{RecordUuid, Refusals};
use crate::present;

fn items(list: Vec<Present>) -> Json<wire::Items<wire::Presence>> {
    Json(wire::Items {
        items: list
            .into_iter()
            .map(|p| present::presence(p, true))
            .collect(),
    })
}

#[utoipa::path(
    put,
    path = "/v3/presence/{uuid}",
    tag = "presence",
    operation_id = "presence_announce",
    description = "Access action: CONTENT get. The caller is in this story, with the cursor in `block` (a Draft.js block key), `editing` or only reading. Say it again every 10 s or so while the story is open: after 30 s without a word the caller is no longer listed. Answers who else is in the story. Never stored or synced; each change goes to change streams as a `presence` event.",
    params(RecordUuid),
    request_body = wire::PresenceBody,
    responses((status = 200, body = wire::Items<wire::Presence>), Refusals)
)]
pub async fn announce(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    body: RawJson,
) -> ApiResult<Json<wire::Items<wire::Presence>>> {
    let others = state
        .call_with(
            bearer,
            Action::ContentGet,
            body,
            move |cms, who, body: wire::PresenceBody| {
                cms.announce_presence(
                    who,
                    &uuid,
                    PresenceInput {
                        block: body.block,
                        editing: body.editing.map(|flag| flag.0),
                    },
                )
            },
        )
        .await?;
    Ok(items(others))
}

#[utoipa::path(
    delete,
    path = "/v3/presence/{uuid}",
    tag = "presence",
    operation_id = "presence_leave",
    description = "Access action: CONTENT get. The caller left this story.",
    params(RecordUuid),
    responses((status = 200, body = wire::Message), Refusals)
)]
pub async fn leave(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
) -> ApiResult<Json<wire::Message>> {
    state
        .call(bearer, move |cms, who| cms.leave_presence(who, &uuid))
        .await?;
    Ok(Json(wire::Message {
        message: "ok".to_owned(),
    }))
}

#[utoipa::path(
    get,
    path = "/v3/presence",
    tag = "presence",
    operation_id = "presence_list",
    description = "Access action: CONTENT get. Everyone in a story now, by story.",
    responses((status = 200, body = wire::Items<wire::Presence>), Refusals)
)]
pub async fn list(
    State(state): State<AppState>,
    bearer: Bearer,
) -> ApiResult<Json<wire::Items<wire::Presence>>> {
    let all = state.call(bearer, |cms, who| cms.presence(who)).await?;
    Ok(items(all))
}
