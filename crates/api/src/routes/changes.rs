//! `/v3/changes`: the change feed a sync client pulls from, and its stream of events (Copydesk extensions).

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use copydesk_core::CoreError;
use copydesk_core::access::Action;
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

/// Where a change stream starts, when no `Last-Event-ID` says.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// Start after this position of the feed (an event's id); absent: only changes from now on
    #[param(value_type = Option<u64>)]
    since: Option<String>,
}

impl QueryShape for StreamQuery {}

/// The position a stream resumes after: `Last-Event-ID`, else `since`.
fn resume_after(headers: &HeaderMap, since: Option<String>) -> Result<Option<i64>, CoreError> {
    let sent = headers
        .get("last-event-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
        .or(since)
        .filter(|value| !value.trim().is_empty());
    sent.map(|value| {
        value
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|seq| *seq >= 0)
            .ok_or_else(|| {
                CoreError::invalid_field(
                    "since",
                    "\"since\" (or Last-Event-ID) must be the id of an event this stream sent: a whole number, 0 or more",
                )
            })
    })
    .transpose()
}

#[utoipa::path(
    get,
    path = "/v3/changes/stream",
    tag = "changes",
    operation_id = "changes_stream",
    description = "Access action: CHANGES list. Server-Sent Events (`text/event-stream`): one `change` event per change-feed entry as it is written, its `seq` the event id and its data the entry as `GET /v3/changes` gives it; only changes of records the caller may read. Resumes after `Last-Event-ID` (or `since`); without either, starts with the changes made from now on. A comment line every 15 s while idle. The stream ends when the caller's token expires or its key is revoked: reconnect with a fresh token and the last id seen. At most 16 open streams per key (429 past it).",
    params(StreamQuery, ("Last-Event-ID" = Option<String>, Header, description = "The id of the last event received: the stream resumes after it")),
    responses((status = 200, content_type = "text/event-stream", body = String, description = "`id: <seq>`, `event: change`, `data: <a change, as JSON>`"), Refusals)
)]
pub async fn stream(
    State(state): State<AppState>,
    bearer: Bearer,
    headers: HeaderMap,
    stopping: Option<axum::Extension<crate::change_stream::Stopping>>,
    Query(query): Query<StreamQuery>,
) -> ApiResult<axum::response::Response> {
    let resume = resume_after(&headers, query.since)?;
    let (key, cursor) = state
        .call(bearer.clone(), move |cms, who| {
            who.require(Action::ChangesList)?;
            let cursor = match resume {
                Some(seq) => seq,
                None => cms.change_head()?,
            };
            Ok((who.public_key.clone(), cursor))
        })
        .await?;
    let slot = state.streams.take(&key)?;
    let stopping = stopping.map(|axum::Extension(stopping)| stopping);
    let mut response =
        crate::change_stream::open(state, bearer, cursor, slot, stopping).into_response();
    // nginx passes each event on at once, whatever its own buffering setting.
    response.headers_mut().insert(
        "x-accel-buffering",
        axum::http::HeaderValue::from_static("no"),
    );
    Ok(response)
}
