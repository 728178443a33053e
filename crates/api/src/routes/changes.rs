//! `/v3/changes`: the change feed a sync client pulls from (a Copydesk extension).

use axum::Json;
use axum::extract::State;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, QueryPairs};
use crate::openapi::Refusals;

#[utoipa::path(
    get,
    path = "/v3/changes",
    tag = "changes",
    operation_id = "changes_since",
    description = "Access action: CHANGES list. Every record changed after the cursor `since`, once, at its latest change, oldest first; deletes included.",
    params(
        ("since" = Option<u64>, Query, description = "The cursor: the `last` of the previous page (0 or absent: from the start)"),
        ("limit" = Option<u64>, Query, description = "At most this many records (default 500, at most 1000)")
    ),
    responses((status = 200, body = wire::ChangeFeed), Refusals)
)]
pub async fn since(
    State(state): State<AppState>,
    bearer: Bearer,
    query: QueryPairs,
) -> ApiResult<Json<wire::ChangeFeed>> {
    let feed = state
        .call(bearer, move |cms, who| {
            cms.changes_since(who, query.get("since"), query.get("limit"))
        })
        .await?;
    Ok(Json(wire::ChangeFeed {
        items: feed
            .items
            .into_iter()
            .map(|c| wire::Change {
                seq: c.seq.to_string(),
                record_type: c.record_type,
                uuid: c.uuid,
                operation: c.operation,
                changed_at: c.changed_at,
                parent: c.parent,
            })
            .collect(),
        since: feed.since.to_string(),
        last: feed.last.to_string(),
        more: feed.more,
    }))
}
