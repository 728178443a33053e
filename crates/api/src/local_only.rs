//! The guard of a desktop app's own server: only the app's window may call it.
//!
//! The server listens on loopback, but any web page the person opens could
//! still send requests there. So a request must name this server in `Host`
//! (which a page on another site cannot forge into a loopback name and port,
//! defeating DNS rebinding), and an `Origin`, when the browser sends one,
//! must be the app's own; the per-launch token is checked by `/v3` itself.
//! The app's window is another origin than the server, so the allowed origins
//! get CORS answers, preflights included.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// Who may call a desktop app's server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalOnly {
    /// The port the server listens on (loopback).
    pub port: u16,
    /// The origins of the app's own pages (for example `tauri://localhost`).
    pub origins: Vec<String>,
}

impl LocalOnly {
    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
            return false;
        };
        host == format!("127.0.0.1:{}", self.port) || host == format!("localhost:{}", self.port)
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        origin == format!("http://127.0.0.1:{}", self.port)
            || origin == format!("http://localhost:{}", self.port)
            || self.origins.iter().any(|o| o == origin)
    }
}

pub async fn layer(State(guard): State<LocalOnly>, request: Request, next: Next) -> Response {
    if !guard.host_allowed(request.headers()) {
        return ApiError::ForeignCaller(
            "this is a desktop app's own server; only the app may call it".into(),
        )
        .into_response();
    }
    let origin = request
        .headers()
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .map(str::to_owned);
    if let Some(origin) = &origin
        && !guard.origin_allowed(origin)
    {
        return ApiError::ForeignCaller(format!(
            "requests from {origin} are refused: only the app's own window may call this server"
        ))
        .into_response();
    }
    let preflight = request.method() == Method::OPTIONS;
    let mut response = if preflight {
        StatusCode::NO_CONTENT.into_response()
    } else {
        next.run(request).await
    };
    if let Some(origin) = origin
        && let Ok(value) = HeaderValue::from_str(&origin)
    {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
        headers.insert(header::VARY, HeaderValue::from_static("Origin"));
        if preflight {
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static("GET, POST, PUT, DELETE"),
            );
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                HeaderValue::from_static("authorization, content-type, idempotency-key"),
            );
            headers.insert(
                header::ACCESS_CONTROL_MAX_AGE,
                HeaderValue::from_static("600"),
            );
        }
    }
    response.map(Body::new)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use axum::http::Request as HttpRequest;
    use tower::ServiceExt as _;

    use super::*;

    async fn answer(
        guarded: axum::Router,
        method: Method,
        host: &str,
        origin: Option<&str>,
    ) -> Response {
        let mut request = HttpRequest::builder()
            .method(method)
            .uri("/v3/author")
            .header(header::HOST, host);
        if let Some(origin) = origin {
            request = request.header(header::ORIGIN, origin);
        }
        guarded
            .oneshot(request.body(Body::empty()).expect("a request"))
            .await
            .expect("an answer")
    }

    async fn code(response: Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .expect("a body");
        let body: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
        body["code"].as_str().unwrap_or_default().to_owned()
    }

    #[tokio::test]
    async fn only_the_apps_own_window_gets_through() {
        let dir = tempfile::tempdir().expect("a folder");
        let cms = Arc::new(copydesk_core::Cms::open(dir.path(), "test").expect("a store"));
        let guarded = crate::router(
            cms,
            crate::Options {
                local_only: Some(LocalOnly {
                    port: 4567,
                    origins: vec!["tauri://localhost".into()],
                }),
                ..crate::Options::default()
            },
        );
        // Another host name (DNS rebinding) or another page's origin: refused.
        let wrong_host = answer(guarded.clone(), Method::GET, "evil.example:4567", None).await;
        assert_eq!(wrong_host.status(), StatusCode::FORBIDDEN);
        assert_eq!(code(wrong_host).await, "foreign_origin");
        let wrong_origin = answer(
            guarded.clone(),
            Method::GET,
            "127.0.0.1:4567",
            Some("https://evil.example"),
        )
        .await;
        assert_eq!(wrong_origin.status(), StatusCode::FORBIDDEN);
        assert_eq!(code(wrong_origin).await, "foreign_origin");
        // The app's window passes the guard (and then needs the token), with CORS.
        let own = answer(
            guarded.clone(),
            Method::GET,
            "127.0.0.1:4567",
            Some("tauri://localhost"),
        )
        .await;
        assert_eq!(
            own.headers()
                .get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
                .map(|v| v.as_bytes().to_vec()),
            Some(b"tauri://localhost".to_vec())
        );
        assert_eq!(code(own).await, "token_missing");
        let preflight = answer(
            guarded,
            Method::OPTIONS,
            "localhost:4567",
            Some("tauri://localhost"),
        )
        .await;
        assert_eq!(preflight.status(), StatusCode::NO_CONTENT);
        assert!(
            preflight
                .headers()
                .contains_key(header::ACCESS_CONTROL_ALLOW_HEADERS)
        );
    }
}
