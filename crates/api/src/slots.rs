//! Caps on what holds a connection open, in total and per key (file uploads in flight, open change streams), so that slow or many of them cannot take the server.
//!
//! An upload (`PUT /v3/attachment/{uuid}/file`, or the same file as base64
//! in `PUT /v3/attachment/{uuid}`) holds a connection, a file
//! being written and, for an image, memory to decode it. Past the cap the
//! request is answered at once with 429 and `Retry-After`, before its body
//! is read.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use copydesk_core::CoreError;

use crate::AppState;
use crate::error::ApiError;
use crate::extract::credential;

/// Uploads the whole server takes at once.
pub const TOTAL_UPLOADS: usize = 64;
/// Uploads one key takes at once: a photographer's batch, a replica's push.
pub const UPLOADS_PER_KEY: usize = 8;
/// What a refused upload or stream is told to wait, in seconds.
pub const RETRY_AFTER_SECS: u64 = 5;

/// Change streams (`GET /v3/changes/stream`) the whole server keeps open.
pub const TOTAL_STREAMS: usize = 5_000;
/// Change streams one key keeps open: a journalist's windows and a replica.
pub const STREAMS_PER_KEY: usize = 16;

/// Things of one kind held open, counted in total and per key.
#[derive(Clone)]
pub struct Slots {
    counts: Arc<Mutex<Counts>>,
    limits: Limits,
}

/// How many of a kind the server takes, and what they are called.
#[derive(Clone, Copy)]
struct Limits {
    total: usize,
    per_key: usize,
    /// As in "this key already has 8 {noun}".
    noun: &'static str,
}

#[derive(Default)]
struct Counts {
    total: usize,
    per_key: HashMap<String, usize>,
}

/// One place, given back when dropped.
pub struct Slot {
    slots: Slots,
    key: String,
}

impl Slots {
    /// File uploads in flight.
    pub fn uploads() -> Self {
        Self::of(TOTAL_UPLOADS, UPLOADS_PER_KEY, "uploads in flight")
    }

    /// Open change streams.
    pub fn streams() -> Self {
        Self::of(TOTAL_STREAMS, STREAMS_PER_KEY, "change streams open")
    }

    fn of(total: usize, per_key: usize, noun: &'static str) -> Self {
        Self {
            counts: Arc::default(),
            limits: Limits {
                total,
                per_key,
                noun,
            },
        }
    }

    /// A place for one more by `key`, or 429 when there is none.
    pub fn take(&self, key: &str) -> Result<Slot, ApiError> {
        let Limits {
            total,
            per_key,
            noun,
        } = self.limits;
        let mut counts = self
            .counts
            .lock()
            .map_err(|_| CoreError::Internal(format!("the counts of {noun} were poisoned")))?;
        let of_key = counts.per_key.get(key).copied().unwrap_or(0);
        if of_key >= per_key {
            return Err(ApiError::Busy {
                message: format!(
                    "this key already has {per_key} {noun}, the most one key may; try again when one has finished"
                ),
                retry_after_secs: RETRY_AFTER_SECS,
            });
        }
        if counts.total >= total {
            return Err(ApiError::Busy {
                message: format!(
                    "the server has {total} {noun} already, the most it takes at once; try again shortly"
                ),
                retry_after_secs: RETRY_AFTER_SECS,
            });
        }
        counts.total += 1;
        *counts.per_key.entry(key.to_owned()).or_default() += 1;
        Ok(Slot {
            slots: self.clone(),
            key: key.to_owned(),
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Ok(mut counts) = self.slots.counts.lock() {
            counts.total = counts.total.saturating_sub(1);
            if let Some(of_key) = counts.per_key.get_mut(&self.key) {
                *of_key -= 1;
                if *of_key == 0 {
                    counts.per_key.remove(&self.key);
                }
            }
        }
    }
}

/// A new file for an item: streamed (`PUT /v3/attachment/{uuid}/file`) or
/// as base64 in JSON (`PUT /v3/attachment/{uuid}`, up to the body limit in memory).
fn is_upload(request: &Request) -> bool {
    request.method() == Method::PUT
        && request
            .uri()
            .path()
            .strip_prefix("/v3/attachment/")
            .map(|rest| rest.strip_suffix("/file").unwrap_or(rest))
            .is_some_and(|uuid| !uuid.is_empty() && !uuid.contains('/'))
}

/// Holds an upload's slot from before its body is read until it is answered.
/// The caller is authenticated here, since slots are counted per key.
pub async fn layer(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if !is_upload(&request) {
        return next.run(request).await;
    }
    let response = admitted(state, request, next).await;
    if response.status().is_success() {
        response
    } else {
        closing(response)
    }
}

async fn admitted(state: AppState, request: Request, next: Next) -> Response {
    let token = credential(request.headers());
    let cms = Arc::clone(&state.cms);
    let who = match tokio::task::spawn_blocking(move || cms.authenticate(token.as_ref())).await {
        Ok(Ok(who)) => who,
        Ok(Err(err)) => return ApiError::from(err).into_response(),
        Err(err) => return ApiError::Core(CoreError::Internal(err.to_string())).into_response(),
    };
    let slot = match state.uploads.take(&who.public_key) {
        Ok(slot) => slot,
        Err(err) => return err.into_response(),
    };
    let response = next.run(request).await;
    drop(slot);
    response
}

/// A refused upload's body may be left unread on the connection, so the
/// connection ends with the answer: said, so that no client sends its next
/// request down a connection the server is closing.
fn closing(mut response: Response) -> Response {
    response.headers_mut().insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_raw_upload_takes_a_slot() {
        let request = |method: Method, path: &str| {
            Request::builder()
                .method(method)
                .uri(path)
                .body(axum::body::Body::empty())
                .expect("a request")
        };
        assert!(is_upload(&request(Method::PUT, "/v3/attachment/abc/file")));
        assert!(is_upload(&request(
            Method::PUT,
            "/v3/attachment/abc/file?name=a.png"
        )));
        assert!(!is_upload(&request(Method::GET, "/v3/attachment/abc/file")));
        assert!(is_upload(&request(Method::PUT, "/v3/attachment/abc")));
        assert!(!is_upload(&request(
            Method::PUT,
            "/v3/attachment/abc/other"
        )));
        assert!(!is_upload(&request(Method::PUT, "/v3/attachment//file")));
        assert!(!is_upload(&request(Method::PUT, "/v3/attachment/a/b/file")));
    }

    #[test]
    fn slots_are_capped_per_key_and_in_total_and_come_back() {
        let slots = Slots::uploads();
        let first_key: Vec<Slot> = (0..UPLOADS_PER_KEY)
            .map(|_| slots.take("a").expect("a slot"))
            .collect();
        assert!(matches!(slots.take("a"), Err(ApiError::Busy { .. })));
        let mut others = Vec::new();
        for i in 0..(TOTAL_UPLOADS - UPLOADS_PER_KEY) {
            others.push(slots.take(&format!("key {}", i % 7)).expect("a slot"));
        }
        assert!(matches!(slots.take("b"), Err(ApiError::Busy { .. })));
        drop(first_key);
        assert!(
            slots.take("b").is_ok(),
            "a finished upload gives its slot back"
        );
    }
}
