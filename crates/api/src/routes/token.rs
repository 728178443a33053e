//! `/v3/token/refresh`: a new token for the caller's key pair.

use axum::Json;
use axum::extract::State;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::Bearer;
use crate::openapi::Refusals;

/// How long a refreshed token is valid: one day.
const LIFETIME_SECS: i64 = 24 * 60 * 60;

#[utoipa::path(
    get,
    path = "/v3/token/refresh",
    tag = "token",
    operation_id = "token_refresh",
    description = "Access action: any valid token.",
    responses((status = 200, body = wire::Token), Refusals)
)]
pub async fn refresh(
    State(state): State<AppState>,
    bearer: Bearer,
) -> ApiResult<Json<wire::Token>> {
    let token = state
        .call(bearer, |_, who| who.refreshed_token(LIFETIME_SECS))
        .await?;
    Ok(Json(wire::Token { token }))
}
