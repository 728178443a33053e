//! The `Idempotency-Key` layer: a write repeated with the same key gets the first answer and applies nothing twice.
//!
//! The layer fingerprints the request, answers repeats from what is kept, and
//! marks new keyed writes so that the handler's use case records the key in
//! its own transaction (see `AppState::run_as`); after a successful answer it
//! keeps that answer for repeats.

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use copydesk_core::CoreError;
use copydesk_core::idempotency::{KeyState, StoredReply, parse_key};
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::extract::{KeyedWrite, credential};
use crate::{AppState, BodyLimit};

pub const HEADER: &str = "idempotency-key";
/// Set on an answer replayed from a kept one.
pub const REPLAYED: &str = "idempotent-replayed";
/// The largest answer kept for repeats.
const MAX_KEPT_ANSWER: usize = 16 * 1024 * 1024;

fn fingerprint(method: &Method, path: &str, body: &[u8]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(method.as_str().as_bytes());
    hasher.update(b"\n");
    hasher.update(path.as_bytes());
    hasher.update(b"\n");
    hasher.update(body);
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn replay(reply: StoredReply) -> Response {
    let mut response = Response::new(Body::from(reply.body));
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::OK);
    if let Ok(value) = HeaderValue::from_str(&reply.content_type) {
        response.headers_mut().insert(CONTENT_TYPE, value);
    }
    response
        .headers_mut()
        .insert(REPLAYED, HeaderValue::from_static("true"));
    response
}

pub async fn layer(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let is_write = matches!(
        *request.method(),
        Method::POST | Method::PUT | Method::DELETE | Method::PATCH
    );
    let Some(raw_key) = request.headers().get(HEADER).cloned() else {
        return next.run(request).await;
    };
    if !is_write {
        return next.run(request).await;
    }
    let key = match raw_key
        .to_str()
        .map_err(|_| CoreError::invalid_field("Idempotency-Key", "not ASCII"))
        .and_then(parse_key)
    {
        Ok(key) => key,
        Err(err) => return ApiError::from(err).into_response(),
    };
    let limit = request
        .extensions()
        .get::<BodyLimit>()
        .map_or(crate::DEFAULT_BODY_LIMIT, |l| l.0);
    let (parts, body) = request.into_parts();
    let bytes = match to_bytes(body, limit).await {
        Ok(bytes) => bytes,
        Err(err) => return ApiError::unreadable_body(&err, limit).into_response(),
    };
    let path = parts
        .uri
        .path_and_query()
        .map_or_else(|| parts.uri.path().to_owned(), |p| p.as_str().to_owned());
    let hash = fingerprint(&parts.method, &path, &bytes);

    let cms = std::sync::Arc::clone(&state.cms);
    let token = credential(&parts.headers);
    let (lookup_key, lookup_hash) = (key.clone(), hash.clone());
    let looked = tokio::task::spawn_blocking(move || {
        let who = cms.authenticate(token.as_ref())?;
        let found = cms.idempotency_state(&who, &lookup_key, &lookup_hash)?;
        Ok::<_, CoreError>((who, found))
    })
    .await;
    let (who, found) = match looked {
        Ok(Ok(found)) => found,
        Ok(Err(err)) => return ApiError::from(err).into_response(),
        Err(err) => return ApiError::Core(CoreError::Internal(err.to_string())).into_response(),
    };
    match found {
        KeyState::Answered(reply) => return replay(reply),
        KeyState::AppliedUnanswered => {
            return ApiError::Core(CoreError::Conflict {
                message: "a request with this Idempotency-Key was applied, but its answer is not kept yet; read the record instead".into(),
                field: Some("Idempotency-Key".into()),
            })
            .into_response();
        }
        KeyState::New => {}
    }

    let mut request = Request::from_parts(parts, Body::from(bytes));
    request.extensions_mut().insert(KeyedWrite {
        key: key.clone(),
        hash,
    });
    // The keyed write and the keeping of its answer run to the end even when
    // the client goes away meanwhile: that is when its repeat will need them.
    let kept = tokio::spawn(async move { finish(state, who, key, next.run(request).await).await });
    match kept.await {
        Ok(response) => response,
        Err(err) => ApiError::Core(CoreError::Internal(err.to_string())).into_response(),
    }
}

/// Keeps the answer of a successful keyed write for its repeats.
async fn finish(
    state: AppState,
    who: std::sync::Arc<copydesk_core::access::Principal>,
    key: String,
    response: Response,
) -> Response {
    if !response.status().is_success() {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = to_bytes(body, MAX_KEPT_ANSWER).await else {
        return ApiError::Core(CoreError::Internal("an answer too large to keep".into()))
            .into_response();
    };
    let reply = StoredReply {
        status: parts.status.as_u16(),
        content_type: parts
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("application/json")
            .to_owned(),
        body: bytes.to_vec(),
    };
    let cms = std::sync::Arc::clone(&state.cms);
    let kept = tokio::task::spawn_blocking(move || cms.keep_reply(&who, &key, &reply)).await;
    if !matches!(kept, Ok(Ok(()))) {
        tracing::warn!("could not keep the answer of a keyed write");
    }
    Response::from_parts(parts, Body::from(bytes))
}

#[cfg(test)]
mod tests {
    use super::fingerprint;
    use axum::http::Method;

    #[test]
    fn fingerprints_tell_requests_apart() {
        let a = fingerprint(&Method::POST, "/v3/tag", b"{\"name\":\"a\"}");
        assert_eq!(
            a,
            fingerprint(&Method::POST, "/v3/tag", b"{\"name\":\"a\"}")
        );
        assert_ne!(
            a,
            fingerprint(&Method::POST, "/v3/tag", b"{\"name\":\"b\"}")
        );
        assert_ne!(a, fingerprint(&Method::PUT, "/v3/tag", b"{\"name\":\"a\"}"));
        assert_ne!(
            a,
            fingerprint(&Method::POST, "/v3/author", b"{\"name\":\"a\"}")
        );
    }
}
