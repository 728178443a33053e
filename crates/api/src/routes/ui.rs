//! The web UI at `/`: the built `ui/` (embedded in release builds, read from
//! `ui/dist` in debug builds), so a browser pointed at the server gets the desk.

use axum::body::Body;
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

#[derive(rust_embed::RustEmbed)]
#[folder = "../../ui/dist"]
#[allow_missing = true]
struct Built;

/// What the UI's page may load and run: only this server's own files, so a
/// story or a comment can never bring in a script.
const POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
    img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

fn file(path: &str) -> Response {
    match Built::get(path) {
        Some(found) => {
            let mut response = Response::new(Body::from(found.data.into_owned()));
            let kind = found.metadata.mimetype();
            if let Ok(value) = HeaderValue::from_str(kind) {
                response.headers_mut().insert(header::CONTENT_TYPE, value);
            }
            response
                .headers_mut()
                .insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
            response
        }
        None if path == "index.html" => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "The web UI is not built. Run `npm ci && npm run build` in ui/, then start the server again.",
        )
            .into_response(),
        None => ApiError::NoRoute(format!("there is no file /{path} here")).into_response(),
    }
}

pub async fn index() -> Response {
    file("index.html")
}

pub async fn asset(Path(path): Path<String>) -> Response {
    file(&format!("assets/{path}"))
}
