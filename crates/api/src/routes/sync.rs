//! `/v3/sync/...`: a replica's sync state and its conflicts (local-only endpoints the contract names).

use axum::Json;
use axum::extract::{Path, State};
use copydesk_core::access::Action;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, RawJson};
use crate::openapi::Refusals;

#[utoipa::path(
    get,
    path = "/v3/sync/status",
    tag = "sync",
    operation_id = "sync_status",
    description = "Access action: SYNC get. Online or not, the last good sync, why the last round failed (when it did), the counts of pending changes, conflicts and changes needing attention, and what is not synced because the key may not read it (by type, with the missing action).",
    responses((status = 200, body = wire::SyncStatus), Refusals)
)]
pub async fn status(
    State(state): State<AppState>,
    bearer: Bearer,
) -> ApiResult<Json<wire::SyncStatus>> {
    let status = state.call(bearer, |cms, who| cms.sync_status(who)).await?;
    Ok(Json(wire::SyncStatus {
        remote: status.remote,
        online: status.online,
        offline_reason: status.offline.as_ref().and_then(|why| why.reason.clone()),
        certificate_untrusted: status.offline.is_some_and(|why| why.certificate_untrusted),
        last_sync_at: status.last_sync_at,
        last_error_at: status.last_error.as_ref().map(|(_, at)| at.clone()),
        last_error: status.last_error.map(|(error, _)| error),
        not_readable: status
            .not_readable
            .into_iter()
            .map(|n| wire::NotReadable {
                record_type: n.record_type.to_string(),
                label: n.record_type.plural().to_owned(),
                action: n.action,
                count: n.count.map(|count| count.to_string()),
            })
            .collect(),
        pending: status.pending.to_string(),
        conflicts: status.conflicts.to_string(),
        needs_attention: status.needs_attention.to_string(),
        syncing: status.progress.is_some(),
        live: status.live,
        progress_pulled: status.progress.map_or(0, |p| p.pulled).to_string(),
        progress_pushed: status.progress.map_or(0, |p| p.pushed).to_string(),
    }))
}

#[utoipa::path(
    get,
    path = "/v3/sync/attention",
    tag = "sync",
    operation_id = "sync_attention",
    description = "Access action: SYNC get. The changes the central server refused, with its reason; the edits are kept.",
    responses((status = 200, body = wire::Items<wire::NeedsAttention>), Refusals)
)]
pub async fn attention(
    State(state): State<AppState>,
    bearer: Bearer,
) -> ApiResult<Json<wire::Items<wire::NeedsAttention>>> {
    let items = state
        .call(bearer, |cms, who| cms.sync_attention(who))
        .await?;
    Ok(Json(wire::Items {
        items: items
            .into_iter()
            .map(|a| wire::NeedsAttention {
                record_type: a.record_type.to_string(),
                uuid: a.uuid,
                srn: a.srn,
                record: label(a.record),
                error: a.error,
                attempts: a.attempts.to_string(),
                since: a.since,
            })
            .collect(),
    }))
}

/// A record's label on the wire.
fn label(record: copydesk_core::replica::RecordLabel) -> wire::RecordLabel {
    wire::RecordLabel {
        record_type: record.record_type.to_string(),
        uuid: record.uuid,
        headline: record.headline,
        story_uuid: record.story,
    }
}

#[utoipa::path(
    get,
    path = "/v3/sync/waiting",
    tag = "sync",
    operation_id = "sync_waiting",
    description = "Access action: SYNC get. The changes made here that wait to go to the central server, each record once, oldest first, with its headline or name and the story it belongs to.",
    responses((status = 200, body = wire::Items<wire::WaitingChange>), Refusals)
)]
pub async fn waiting(
    State(state): State<AppState>,
    bearer: Bearer,
) -> ApiResult<Json<wire::Items<wire::WaitingChange>>> {
    let items = state.call(bearer, |cms, who| cms.sync_waiting(who)).await?;
    Ok(Json(wire::Items {
        items: items
            .into_iter()
            .map(|w| wire::WaitingChange {
                srn: w.srn,
                record: label(w.record),
                operation: w.operation,
                attempts: w.attempts.to_string(),
                last_error: w.last_error,
                since: w.since,
            })
            .collect(),
    }))
}

#[utoipa::path(
    get,
    path = "/v3/sync/conflicts",
    tag = "sync",
    operation_id = "sync_conflicts",
    description = "Access action: SYNC get. The conflicts still to settle, oldest first.",
    responses((status = 200, body = wire::Items<wire::SyncConflict>), Refusals)
)]
pub async fn conflicts(
    State(state): State<AppState>,
    bearer: Bearer,
) -> ApiResult<Json<wire::Items<wire::SyncConflict>>> {
    let conflicts = state
        .call(bearer, |cms, who| cms.sync_conflicts(who))
        .await?;
    Ok(Json(wire::Items {
        items: conflicts
            .into_iter()
            .map(|c| wire::SyncConflict {
                uuid: c.uuid,
                srn: c.srn,
                record: label(c.record),
                field: c.field,
                mine: c.mine,
                theirs: c.theirs,
                created_at: c.created_at,
                block: c.block.map(|b| wire::ConflictBlock {
                    position: b.position.to_string(),
                    before: b.before,
                    after: b.after,
                }),
            })
            .collect(),
    }))
}

#[utoipa::path(
    post,
    path = "/v3/sync/conflicts/{uuid}/resolve",
    tag = "sync",
    operation_id = "sync_resolve",
    description = "Access action: SYNC resolve. Settles a conflict: keep theirs (as it is), mine, or an edited text (`keep: edited` with `text`); mine and an edited text are written back as a local edit, which the next sync sends. For a paragraph conflict, only that paragraph changes.",
    params(("uuid" = String, Path, description = "The conflict's UUID")),
    request_body = wire::ResolveBody,
    responses((status = 200, body = wire::Message), Refusals)
)]
pub async fn resolve(
    State(state): State<AppState>,
    bearer: Bearer,
    Path(uuid): Path<String>,
    body: RawJson,
) -> ApiResult<Json<wire::Message>> {
    state
        .call_with(
            bearer,
            Action::SyncResolve,
            body,
            move |cms, who, body: wire::ResolveBody| {
                cms.resolve_conflict(who, &uuid, body.keep.as_deref(), body.text.as_deref())
            },
        )
        .await?;
    Ok(Json(wire::Message {
        message: "ok".into(),
    }))
}
