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

/// Where the client signs in from, as sign-in counts its failures: its IP
/// address (an IPv6 one by its /64, the block one machine is given), when
/// the server knows it (the desktop app's own server does not ask: only
/// its window reaches it). Behind a reverse proxy the server was told to
/// trust (`Options::trusted_proxies`), the address that proxy forwarded in
/// `X-Forwarded-For`.
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
            .map(axum::http::HeaderValue::as_bytes);
        Ok(Self(Some(counted_as(client_address(
            peer.ip(),
            trusted,
            forwarded,
        )))))
    }
}

/// Who sent a request that reached the server from `peer`: `peer` itself
/// unless it is a trusted proxy; then, walking `X-Forwarded-For` from its
/// end (the hop nearest the server), the first address that is not a
/// trusted proxy. Only trusted proxies' words are taken: what a client put
/// in the header itself sits left of the address its proxy added, and is
/// never reached while that address is not trusted. An entry that is not
/// an address ends the walk at the proxy that passed it on; an address
/// with a port is taken as the address. `trusted` holds canonical
/// addresses (the router makes them so).
pub(crate) fn client_address<'h>(
    peer: IpAddr,
    trusted: &[IpAddr],
    forwarded: impl DoubleEndedIterator<Item = &'h [u8]>,
) -> IpAddr {
    let trusted_one = |address: &IpAddr| trusted.contains(address);
    let mut client = peer.to_canonical();
    if !trusted_one(&client) {
        return client;
    }
    let hops = forwarded
        .rev()
        .flat_map(|value| value.rsplit(|byte| *byte == b','));
    for hop in hops {
        let Some(address) = std::str::from_utf8(hop)
            .ok()
            .map(str::trim)
            .and_then(|hop| {
                hop.parse::<IpAddr>()
                    .or_else(|_| hop.parse::<SocketAddr>().map(|with_port| with_port.ip()))
                    .ok()
            })
        else {
            break;
        };
        client = address.to_canonical();
        if !trusted_one(&client) {
            break;
        }
    }
    client
}

/// What failures are counted under for `client`: an IPv4 address as it
/// is; an IPv6 one by its /64, since one machine is given a whole /64 and
/// may pick a new address in it for every attempt.
fn counted_as(client: IpAddr) -> String {
    match client {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let mut segments = v6.segments();
            segments[4..].fill(0);
            format!("{}/64", std::net::Ipv6Addr::from(segments))
        }
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

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    use super::{client_address, counted_as};

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    /// The client of a request from `peer` with these `X-Forwarded-For` lines.
    fn client(peer: &str, trusted: &[IpAddr], lines: &[&[u8]]) -> IpAddr {
        client_address(ip(peer), trusted, lines.iter().copied())
    }

    #[test]
    fn a_client_is_its_peer_unless_the_peer_is_a_trusted_proxy() {
        let proxy = [ip("10.0.0.2")];
        // Not trusted: whatever it says in the header is not taken.
        assert_eq!(
            client("203.0.113.9", &proxy, &[b"198.51.100.1"]),
            ip("203.0.113.9")
        );
        assert_eq!(client("10.0.0.2", &[], &[b"198.51.100.1"]), ip("10.0.0.2"));
        // Trusted: the address it forwarded, the last in the header.
        assert_eq!(
            client("10.0.0.2", &proxy, &[b"198.51.100.1"]),
            ip("198.51.100.1")
        );
        // Trusted but nothing forwarded: the proxy itself.
        assert_eq!(client("10.0.0.2", &proxy, &[]), ip("10.0.0.2"));
    }

    #[test]
    fn what_a_client_writes_in_the_header_itself_is_not_taken() {
        let proxy = [ip("10.0.0.2")];
        // The client sent "X-Forwarded-For: 192.0.2.1"; its proxy added the
        // address it saw: the last one counts.
        let sent: &[&[u8]] = &[b"192.0.2.1, 198.51.100.7"];
        assert_eq!(client("10.0.0.2", &proxy, sent), ip("198.51.100.7"));
        // Two trusted proxies in a row, the header over two lines.
        let proxies = [ip("10.0.0.2"), ip("10.0.0.3")];
        let sent: &[&[u8]] = &[b"192.0.2.1, 198.51.100.7", b"10.0.0.3"];
        assert_eq!(client("10.0.0.2", &proxies, sent), ip("198.51.100.7"));
        // Garbage ends the walk at the proxy that passed it on.
        let sent: &[&[u8]] = &[b"192.0.2.1, not-an-address, 10.0.0.3"];
        assert_eq!(client("10.0.0.2", &proxies, sent), ip("10.0.0.3"));
        // So do bytes that are not text, on the line the proxy added to.
        let sent: &[&[u8]] = &[b"\xff, 198.51.100.7"];
        assert_eq!(client("10.0.0.2", &proxy, sent), ip("198.51.100.7"));
        let sent: &[&[u8]] = &[b"198.51.100.7, \xff"];
        assert_eq!(client("10.0.0.2", &proxy, sent), ip("10.0.0.2"));
        // An address with its port, as some proxies write it.
        let sent: &[&[u8]] = &[b"198.51.100.7:53211"];
        assert_eq!(client("10.0.0.2", &proxy, sent), ip("198.51.100.7"));
        let sent: &[&[u8]] = &[b"[2001:db8::7]:53211"];
        assert_eq!(client("10.0.0.2", &proxy, sent), ip("2001:db8::7"));
    }

    #[test]
    fn an_ipv4_address_mapped_into_ipv6_is_the_same_address() {
        let proxy = [ip("127.0.0.1")];
        assert_eq!(
            client("::ffff:127.0.0.1", &proxy, &[b"198.51.100.1"]),
            ip("198.51.100.1")
        );
        assert_eq!(
            counted_as(ip("::ffff:198.51.100.1").to_canonical()),
            "198.51.100.1"
        );
    }

    #[test]
    fn an_ipv6_client_is_counted_by_its_64_block() {
        assert_eq!(
            counted_as(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd")),
            "2001:db8:1:2::/64"
        );
        assert_eq!(
            counted_as(ip("2001:db8:1:2::1")),
            counted_as(ip("2001:db8:1:2:ffff::9")),
            "one machine's addresses share one allowance"
        );
        assert_ne!(
            counted_as(ip("2001:db8:1:2::1")),
            counted_as(ip("2001:db8:1:3::1"))
        );
        assert_eq!(counted_as(ip("198.51.100.1")), "198.51.100.1");
    }
}
