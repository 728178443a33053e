//! `/v3/search`: content, authors or tags by keywords.

use axum::extract::State;
use copydesk_core::search::SearchQuery;
use copydesk_wire as wire;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Bearer, ListParams, Query, QueryShape};
use crate::openapi::Refusals;
use crate::present;

/// What a search looks for, besides paging and order.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchParams {
    /// content, author or tag
    #[param(required = true, value_type = String)]
    r#type: Option<String>,
    /// Words that must all appear
    keywords: Option<String>,
    /// `keywords` as some clients spell it (`keywords` wins when both come).
    #[param(ignore)]
    keyword: Option<String>,
    /// A tag UUID or slug (content)
    tag: Option<String>,
    /// An author UUID (content)
    author: Option<String>,
}

impl QueryShape for SearchParams {}

impl From<SearchParams> for SearchQuery {
    fn from(params: SearchParams) -> Self {
        Self {
            record_type: params.r#type,
            keywords: params.keywords.or(params.keyword),
            tag: params.tag,
            author: params.author,
        }
    }
}

#[utoipa::path(
    get,
    path = "/v3/search",
    tag = "search",
    operation_id = "search_search",
    description = "Access action: the list action of the type searched: CONTENT list, AUTHOR list or TAG list.",
    params(SearchParams, ListParams),
    responses((status = 200, body = wire::Envelope<wire::SearchHit>), Refusals)
)]
pub async fn search(
    State(state): State<AppState>,
    bearer: Bearer,
    Query(search): Query<SearchParams>,
    Query(list): Query<ListParams>,
) -> ApiResult<axum::response::Response> {
    let search = SearchQuery::from(search);
    let page = state
        .call(bearer, move |cms, who| {
            cms.search(who, &search, &list.into())
        })
        .await?;
    Ok(crate::json_text(present::rendered_page(
        page.map(present::search_hit),
    )))
}
