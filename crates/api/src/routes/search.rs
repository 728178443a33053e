//! `/v3/search`: content, authors or tags by keywords.

use axum::Json;
use axum::extract::State;
use copydesk_core::search::SearchQuery;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, QueryPairs};
use crate::openapi::{ListParams, Refusals};
use crate::present;

#[utoipa::path(
    get,
    path = "/v3/search",
    tag = "search",
    operation_id = "search_search",
    description = "Access action: the list action of the type searched: CONTENT list, AUTHOR list or TAG list.",
    params(("type" = String, Query, description = "content, author or tag"), ("keywords" = Option<String>, Query, description = "Words that must all appear"), ("tag" = Option<String>, Query, description = "A tag UUID or slug (content)"), ("author" = Option<String>, Query, description = "An author UUID (content)"), ListParams),
    responses((status = 200, body = wire::Envelope<wire::SearchHit>), Refusals)
)]
pub async fn search(
    State(state): State<AppState>,
    bearer: Bearer,
    query: QueryPairs,
) -> ApiResult<Json<wire::Envelope<wire::SearchHit>>> {
    let search = SearchQuery {
        record_type: query.get("type").map(str::to_owned),
        keywords: query
            .get("keywords")
            .or(query.get("keyword"))
            .map(str::to_owned),
        tag: query.get("tag").map(str::to_owned),
        author: query.get("author").map(str::to_owned),
    };
    let page = state
        .call(bearer, move |cms, who| {
            cms.search(who, &search, &query.list())
        })
        .await?;
    Ok(Json(present::page(page, present::search_hit)))
}
