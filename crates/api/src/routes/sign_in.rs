//! `POST /v3/sign-in`: a person signs in with a name and password or a
//! one-time link, and their browser gets a key pair of its own;
//! `POST /v3/sign-out` gives that key pair up again.

use std::net::{IpAddr, SocketAddr};

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
/// own server does not ask: only its window reaches it). Behind a reverse
/// proxy the server was told to trust (`Options::trusted_proxies`), the
/// address that proxy forwarded in `X-Forwarded-For`.
pub struct ClientAddress(Option<String>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let Some(ConnectInfo(peer)) = parts.extensions.get::<ConnectInfo<SocketAddr>>() else {
            return Ok(Self(None));
        };
        let trusted = parts
            .extensions
            .get::<crate::TrustedProxies>()
            .map_or(&[][..], |proxies| &proxies.0[..]);
        let forwarded = parts
            .headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|value| value.to_str().ok());
        Ok(Self(Some(
            client_address(peer.ip(), trusted, forwarded).to_string(),
        )))
    }
}

/// Who sent a request that reached the server from `peer`: `peer` itself
/// unless it is a trusted proxy; then, walking `X-Forwarded-For` from its
/// end (the hop nearest the server), the first address that is not a
/// trusted proxy. Only trusted proxies' words are taken: what a client put
/// in the header itself sits left of the address its proxy added, and is
/// never reached while that address is not trusted. An entry that is not
/// an address ends the walk at the proxy that passed it on.
pub(crate) fn client_address<'h>(
    peer: IpAddr,
    trusted: &[IpAddr],
    forwarded: impl DoubleEndedIterator<Item = &'h str>,
) -> IpAddr {
    let trusted_one = |address: &IpAddr| trusted.contains(&address.to_canonical());
    let mut client = peer.to_canonical();
    if !trusted_one(&client) {
        return client;
    }
    let hops = forwarded.rev().flat_map(|value| value.rsplit(','));
    for hop in hops {
        let Ok(address) = hop.trim().parse::<IpAddr>() else {
            break;
        };
        client = address.to_canonical();
        if !trusted_one(&client) {
            break;
        }
    }
    client
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

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    use super::client_address;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[test]
    fn a_client_is_its_peer_unless_the_peer_is_a_trusted_proxy() {
        let proxy = [ip("10.0.0.2")];
        // Not trusted: whatever it says in the header is not taken.
        assert_eq!(
            client_address(ip("203.0.113.9"), &proxy, ["198.51.100.1"].into_iter()),
            ip("203.0.113.9")
        );
        assert_eq!(
            client_address(ip("10.0.0.2"), &[], ["198.51.100.1"].into_iter()),
            ip("10.0.0.2")
        );
        // Trusted: the address it forwarded, the last in the header.
        assert_eq!(
            client_address(ip("10.0.0.2"), &proxy, ["198.51.100.1"].into_iter()),
            ip("198.51.100.1")
        );
        // Trusted but nothing forwarded: the proxy itself.
        assert_eq!(
            client_address(ip("10.0.0.2"), &proxy, std::iter::empty()),
            ip("10.0.0.2")
        );
    }

    #[test]
    fn what_a_client_writes_in_the_header_itself_is_not_taken() {
        let proxy = [ip("10.0.0.2")];
        // The client sent "X-Forwarded-For: 192.0.2.1"; its proxy added the
        // address it saw: the last one counts.
        let sent = ["192.0.2.1, 198.51.100.7"];
        assert_eq!(
            client_address(ip("10.0.0.2"), &proxy, sent.into_iter()),
            ip("198.51.100.7")
        );
        // Two trusted proxies in a row, the header over two lines.
        let proxies = [ip("10.0.0.2"), ip("10.0.0.3")];
        let sent = ["192.0.2.1, 198.51.100.7", "10.0.0.3"];
        assert_eq!(
            client_address(ip("10.0.0.2"), &proxies, sent.into_iter()),
            ip("198.51.100.7")
        );
        // Garbage ends the walk at the proxy that passed it on.
        let sent = ["192.0.2.1, not-an-address, 10.0.0.3"];
        assert_eq!(
            client_address(ip("10.0.0.2"), &proxies, sent.into_iter()),
            ip("10.0.0.3")
        );
    }

    #[test]
    fn an_ipv4_address_mapped_into_ipv6_is_the_same_address() {
        let proxy = [ip("127.0.0.1")];
        assert_eq!(
            client_address(ip("::ffff:127.0.0.1"), &proxy, ["198.51.100.1"].into_iter()),
            ip("198.51.100.1")
        );
    }
}
