//! A typed client of a remote `/v3` service, authenticated with a key pair, speaking the wire types.
//!
//! Tokens are signed here with the key pair (as the contract describes) and
//! renewed before they expire. Every write can carry an idempotency key, so a
//! retry after a lost answer applies nothing twice on a Copydesk remote.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use copydesk_core::store::causes::{tls_error, with_causes};
use copydesk_wire::{self as wire, ErrorCode};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{RemoteCode, SyncError};
use crate::key::RemoteKey;

/// How long a token this client signs is valid.
const TOKEN_LIFETIME: Duration = Duration::from_secs(3600);
/// Renew a token this long before it expires.
const TOKEN_MARGIN: Duration = Duration::from_secs(300);
/// The longest a change stream is read before it is opened again (the
/// server ends it sooner, when the token it was opened with expires).
const STREAM_LIFETIME: Duration = Duration::from_secs(3600);

/// What the remote offers beyond the plain `/v3` service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// `GET /v3/changes` (a Copydesk server).
    pub change_feed: bool,
}

/// A request that got no answer, with every cause in its words: reqwest's
/// own says only "error sending request", and the cause (a refused
/// connection, a certificate not trusted) is what the operator needs.
fn unreachable(err: reqwest::Error) -> SyncError {
    let words = with_causes(&err);
    let mut cause = std::error::Error::source(&err);
    while let Some(next) = cause {
        if matches!(tls_error(next), Some(rustls::Error::InvalidCertificate(_))) {
            return SyncError::Untrusted(words);
        }
        cause = next.source();
    }
    SyncError::Unreachable(words)
}

pub struct Remote {
    base: String,
    http: reqwest::Client,
    key: RemoteKey,
    token: Mutex<Option<(String, Instant)>>,
}

impl Remote {
    /// A client of the `/v3` service at `base` (for example `http://127.0.0.1:8080`).
    pub fn new(base: &str, key: RemoteKey) -> Result<Self, SyncError> {
        let base = base.trim().trim_end_matches('/').to_owned();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(SyncError::Protocol(format!(
                "{base} is not an http:// or https:// address"
            )));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(120))
            .build()
            .map_err(|err| SyncError::Protocol(err.to_string()))?;
        Ok(Self {
            base,
            http,
            key,
            token: Mutex::new(None),
        })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// Opens the central server's change stream (`GET /v3/changes/stream`),
    /// resuming after `last_event_id` when given: the answer, to be read as
    /// it comes. It stays open until the server ends it (the token it was
    /// opened with expires) or the network drops.
    pub async fn change_stream(
        &self,
        last_event_id: Option<&str>,
    ) -> Result<reqwest::Response, SyncError> {
        let mut request = self
            .http
            .get(format!("{}/v3/changes/stream", self.base))
            .bearer_auth(self.token()?)
            .header("Accept", "text/event-stream")
            // The client's 120 s bound is for answers, not for a stream.
            .timeout(STREAM_LIFETIME);
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        let response = request.send().await.map_err(unreachable)?;
        let status = response.status();
        if !status.is_success() {
            let bytes = response.bytes().await.map_err(unreachable)?;
            return Err(refusal(status, &bytes));
        }
        Ok(response)
    }

    /// A valid token, signed anew when the last one is close to expiring.
    fn token(&self) -> Result<String, SyncError> {
        let mut cached = self
            .token
            .lock()
            .map_err(|_| SyncError::Protocol("the token cache was poisoned".into()))?;
        if let Some((token, expires)) = cached.as_ref()
            && Instant::now() + TOKEN_MARGIN < *expires
        {
            return Ok(token.clone());
        }
        let lifetime = i64::try_from(TOKEN_LIFETIME.as_secs()).unwrap_or(3600);
        let token = copydesk_core::access::mint_token(
            &self.key.public_key,
            &self.key.private_key,
            Some(lifetime),
        )
        .map_err(|err| SyncError::Key(err.to_string()))?;
        *cached = Some((token.clone(), Instant::now() + TOKEN_LIFETIME));
        Ok(token)
    }

    /// Sends one request and reads the JSON answer, or the contract's error.
    pub async fn request<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
        idempotency_key: Option<&str>,
    ) -> Result<T, SyncError> {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(self.token()?);
        if let Some(key) = idempotency_key {
            request = request.header("Idempotency-Key", key);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        self.answer(request, path).await
    }

    /// Sends the file at `path` as the master file of the remote content item
    /// `content`, streamed from disk (`PUT /v3/attachment/{uuid}/file`, a
    /// Copydesk extension); `idempotency_key` makes a retry safe.
    pub async fn upload_file<T: DeserializeOwned>(
        &self,
        content: &str,
        name: &str,
        path: &std::path::Path,
        idempotency_key: &str,
    ) -> Result<T, SyncError> {
        let file = tokio::fs::File::open(path)
            .await
            .map_err(|err| local_file(path, &err))?;
        let size = file.metadata().await.map(|m| m.len()).ok();
        let body = reqwest::Body::wrap_stream(tokio_util::io::ReaderStream::new(file));
        let mut request = self
            .http
            .put(format!("{}/v3/attachment/{content}/file", self.base))
            .query(&[("name", name)])
            .bearer_auth(self.token()?)
            .header("Idempotency-Key", idempotency_key)
            .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
            .body(body);
        if let Some(size) = size {
            request = request.header(reqwest::header::CONTENT_LENGTH, size);
        }
        self.answer(request, "/v3/attachment/{uuid}/file").await
    }

    /// Writes the file at `url` (a path on the remote) to `dest`, streamed.
    pub async fn download(&self, url: &str, dest: &std::path::Path) -> Result<(), SyncError> {
        use tokio::io::AsyncWriteExt as _;
        let address = if url.starts_with("http://") || url.starts_with("https://") {
            url.to_owned()
        } else {
            format!("{}{url}", self.base)
        };
        let mut response = self
            .http
            .get(address)
            .bearer_auth(self.token()?)
            .send()
            .await
            .map_err(unreachable)?;
        if !response.status().is_success() {
            let status = response.status();
            let bytes = response.bytes().await.unwrap_or_default();
            return Err(refusal(status, &bytes));
        }
        let local = |err: std::io::Error| local_file(dest, &err);
        let mut file = tokio::fs::File::create(dest).await.map_err(local)?;
        while let Some(chunk) = response.chunk().await.map_err(unreachable)? {
            file.write_all(&chunk).await.map_err(local)?;
        }
        file.flush().await.map_err(local)?;
        Ok(())
    }

    async fn answer<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
        path: &str,
    ) -> Result<T, SyncError> {
        let response = request.send().await.map_err(unreachable)?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(unreachable)?;
        if status.is_success() {
            return serde_json::from_slice(&bytes)
                .map_err(|err| SyncError::Protocol(format!("{path}: {err}")));
        }
        Err(refusal(status, &bytes))
    }

    pub async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, SyncError> {
        self.request::<(), T>(Method::GET, path, None, None).await
    }

    /// Whether the remote is a Copydesk server with the sync extensions.
    pub async fn capabilities(&self) -> Result<Capabilities, SyncError> {
        match self.get::<wire::ChangeFeed>("/v3/changes?limit=1").await {
            Ok(_) => Ok(Capabilities { change_feed: true }),
            Err(SyncError::Remote { status: 404, .. }) => Ok(Capabilities { change_feed: false }),
            Err(err) => Err(err),
        }
    }

    /// One page of the change feed after `since`.
    pub async fn changes(&self, since: i64, limit: u32) -> Result<wire::ChangeFeed, SyncError> {
        self.get(&format!("/v3/changes?since={since}&limit={limit}"))
            .await
    }

    pub async fn content(&self, uuid: &str) -> Result<wire::Content, SyncError> {
        self.get(&format!("/v3/content/{uuid}")).await
    }

    /// One page of content items in `modified_at` order, oldest first (for a plain remote).
    pub async fn content_page(
        &self,
        page: u64,
        per_page: u64,
    ) -> Result<wire::Envelope<wire::Content>, SyncError> {
        self.get(&format!(
            "/v3/content?order=modified_at&dir=asc&page={page}&per_page={per_page}"
        ))
        .await
    }

    pub async fn author(&self, uuid: &str) -> Result<wire::Author, SyncError> {
        let mut found: Vec<wire::Author> = self.get(&format!("/v3/author/{uuid}")).await?;
        found
            .pop()
            .ok_or_else(|| SyncError::Protocol(format!("author {uuid}: an empty answer")))
    }

    /// Creates a content item; `idempotency_key` makes a retry safe.
    pub async fn create_content(
        &self,
        body: &wire::ContentBody,
        idempotency_key: &str,
    ) -> Result<wire::Content, SyncError> {
        self.request(
            Method::POST,
            "/v3/content",
            Some(body),
            Some(idempotency_key),
        )
        .await
    }

    /// Updates a content item; `idempotency_key` makes a retry safe.
    pub async fn update_content(
        &self,
        uuid: &str,
        body: &wire::ContentBody,
        idempotency_key: &str,
    ) -> Result<wire::Content, SyncError> {
        self.request(
            Method::PUT,
            &format!("/v3/content/{uuid}"),
            Some(body),
            Some(idempotency_key),
        )
        .await
    }
}

/// A file of this copy that could not be read or written: the local store's
/// failure. A missing file will not come back by itself; a full disk may pass.
fn local_file(path: &std::path::Path, err: &std::io::Error) -> SyncError {
    let message = format!("{}: {err}", path.display());
    SyncError::Local(if err.kind() == std::io::ErrorKind::NotFound {
        copydesk_core::CoreError::not_found(message)
    } else {
        copydesk_core::CoreError::Internal(format!("file system: {message}"))
    })
}

/// An error answer as a remote writes it, its code kept as text: a remote
/// may send a code this build does not know.
#[derive(serde::Deserialize)]
struct RemoteRefusal {
    error: String,
    code: String,
    #[serde(default)]
    field: Option<String>,
}

/// The contract's error from an unsuccessful answer (or a plain one when the body is not that shape).
fn refusal(status: StatusCode, body: &[u8]) -> SyncError {
    match serde_json::from_slice::<RemoteRefusal>(body) {
        Ok(error) => SyncError::Remote {
            status: status.as_u16(),
            code: Some(RemoteCode::from_wire(&error.code)),
            message: error.error,
            field: error.field,
        },
        Err(_) => SyncError::Remote {
            status: status.as_u16(),
            code: status
                .is_server_error()
                .then_some(RemoteCode::Known(ErrorCode::Internal)),
            message: String::from_utf8_lossy(body).chars().take(200).collect(),
            field: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_refused_is_found_inside_the_io_errors_that_wrap_it() {
        use std::io::{Error, ErrorKind};
        let refused = rustls::Error::InvalidCertificate(rustls::CertificateError::BadSignature);
        let wrapped = Error::other(Error::new(ErrorKind::InvalidData, refused));
        assert!(matches!(
            tls_error(&wrapped),
            Some(rustls::Error::InvalidCertificate(_))
        ));
        let outage = Error::other(Error::from(ErrorKind::ConnectionRefused));
        assert!(tls_error(&outage).is_none());
    }

    #[test]
    fn refusals_keep_the_contract_code() {
        let err = refusal(
            StatusCode::NOT_FOUND,
            br#"{"error":"no such item","code":"not_found"}"#,
        );
        assert_eq!(err.code(), Some(ErrorCode::NotFound));
        assert!(!err.is_transient());
        let err = refusal(StatusCode::BAD_GATEWAY, b"<html>proxy down</html>");
        assert!(err.is_transient());
        assert_eq!(err.code(), Some(ErrorCode::Internal));
        // A code this build does not know is kept as it came.
        let err = refusal(
            StatusCode::CONFLICT,
            br#"{"error":"not before noon","code":"embargoed","field":"published_at"}"#,
        );
        assert_eq!(err.code(), None);
        assert_eq!(err.raw_code(), Some("embargoed"));
        assert!(
            matches!(&err, SyncError::Remote { field: Some(f), message, .. } if f == "published_at" && message == "not before noon")
        );
        let err = refusal(StatusCode::NOT_FOUND, b"Not Found");
        assert_eq!(err.raw_code(), None);
    }

    #[test]
    fn only_http_addresses() {
        let key = RemoteKey {
            public_key: "p".into(),
            private_key: "s".into(),
        };
        assert!(Remote::new("ftp://x", key.clone()).is_err());
        assert_eq!(
            Remote::new("http://127.0.0.1:1/", key)
                .map(|r| r.base().to_owned())
                .ok()
                .as_deref(),
            Some("http://127.0.0.1:1")
        );
    }
}
