//! `POST /v3/sign-in`: a person signs in with a name and password or a
//! one-time link, and their browser gets a key pair of its own;
//! `POST /v3/sign-out` gives that key pair up again.

use std::net::SocketAddr;

use axum::Json;
use axum::extract::{ConnectInfo, FromRequestParts, State};
use axum::http::request::Parts;
use copydesk_core::CoreError;
use copydesk_core::sign_in::SignInWith;
use copydesk_wire as wire;

use crate::AppState;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Bearer, RawJson};
use crate::openapi::{Refusals, SignInRefusals};
use crate::present;

/// The client's IP address, when the server knows it (the desktop app's
/// own server does not ask: only its window reaches it).
pub struct ClientAddress(Option<String>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(address)| address.ip().to_string()),
        ))
    }
}

/// What the body asks for: a link, or a name with a password.
fn credentials(body: wire::SignIn) -> ApiResult<SignInWith> {
    if let Some(link) = body.link {
        return Ok(SignInWith::Link(link));
    }
    let name = body.name.filter(|name| !name.trim().is_empty());
    let password = body.password.filter(|password| !password.is_empty());
    match (name, password) {
        (Some(name), Some(password)) => Ok(SignInWith::Password { name, password }),
        (None, _) => Err(CoreError::invalid_field(
            "name",
            "send a \"name\" and a \"password\", or a \"link\"",
        )
        .into()),
        (Some(_), None) => Err(CoreError::required("password").into()),
    }
}

#[utoipa::path(
    post,
    path = "/v3/sign-in",
    tag = "token",
    operation_id = "sign_in",
    description = "Access action: none (signing in); no token is needed. A Copydesk extension: a name and password (set with `copydesk-server user password`), or the token of a one-time link (`copydesk-server user link`), becomes a new key pair for the caller's user, labelled and listed under that user (`key list`) and revocable like any key pair (`key revoke`). Sign tokens with it as with any key pair. A wrong name or password is 401 `sign_in_refused` with the same message whether the name exists or not; an unknown, expired or used link is 401 with its own words. After 5 failed attempts for a name, or 20 from one address, within 15 minutes: 429 `too_many_requests` with `Retry-After`.",
    request_body = wire::SignIn,
    security(()),
    responses((status = 200, body = wire::SignedIn), SignInRefusals)
)]
pub async fn sign_in(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    body: RawJson,
) -> ApiResult<Json<wire::SignedIn>> {
    let with = credentials(body.parse::<wire::SignIn>()?)?;
    let cms = std::sync::Arc::clone(&state.cms);
    let signed_in = tokio::task::spawn_blocking(move || cms.sign_in(&with, address.as_deref()))
        .await
        .map_err(|err| {
            ApiError::Core(CoreError::Internal(format!("a request task failed: {err}")))
        })??;
    Ok(Json(wire::SignedIn {
        public_key: signed_in.key.public_key,
        private_key: signed_in.key.private_key,
        label: signed_in.label,
        user: present::user(signed_in.user),
    }))
}

#[utoipa::path(
    post,
    path = "/v3/sign-out",
    tag = "token",
    operation_id = "sign_out",
    description = "Access action: any valid token (a key may always give itself up). A Copydesk extension: revokes the key pair that signed the request, as `copydesk-server key revoke` would, so every token signed with it, by this browser or by anyone holding a copy, is refused from then on (403 `token_invalid`). The user's other key pairs keep working. Takes no body (an empty JSON object is accepted).",
    responses((status = 200, body = wire::SignedOut), Refusals)
)]
pub async fn sign_out(
    State(state): State<AppState>,
    bearer: Bearer,
) -> ApiResult<Json<wire::SignedOut>> {
    let revoked = state.call(bearer, |cms, who| cms.sign_out(who)).await?;
    Ok(Json(wire::SignedOut { revoked }))
}
