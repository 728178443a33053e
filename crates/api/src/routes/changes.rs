//! `/v3/changes`: the change feed a sync client pulls from (a Copydesk extension).

use axum::Json;
use axum::extract::State;
use copydesk_wire as wire;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, Query, QueryShape};
use crate::openapi::Refusals;

/// Where a page of the change feed starts, and how long it is.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ChangesQuery {
    /// The cursor: the `last` of the previous page (0 or absent: from the start)
    #[param(value_type = Option<u64>)]
    since: Option<String>,
    /// At most this many records (default 500, at most 1000)
    #[param(value_type = Option<u64>)]
    limit: Option<String>,
}

impl QueryShape for ChangesQuery {}

#[utoipa::path(
    get,
    path = "/v3/changes",
    tag = "changes",
    operation_id = "changes_since",
    description = "Access action: CHANGES list. Every record changed after the cursor `since`, once, at its latest change, oldest first; deletes included.",
    params(ChangesQuery),
    responses((status = 200, body = wire::ChangeFeed), Refusals)
)]
pub async fn since(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(query): Query<ChangesQuery>,
) -> ApiResult<Json<wire::ChangeFeed>> {
    let feed = state
        .call(bearer, move |cms, who| {
            cms.changes_since(who, query.since.as_deref(), query.limit.as_deref())
        })
        .await?;
    Ok(Json(wire::ChangeFeed {
        items: feed
            .items
            .into_iter()
            .map(|c| wire::Change {
                seq: c.seq.to_string(),
                record_type: c.record_type.to_string(),
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
