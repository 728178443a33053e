//! Paths as existing clients of the hosted service write them (`/v3/workflow//`, `/v3/content/{uuid}/`), made plain before routing.

use axum::extract::Request;
use axum::http::Uri;
use axum::middleware::Next;
use axum::response::Response;

/// The `/v3` path with repeated slashes made one and a trailing one dropped;
/// `None` when it is plain already (or not under `/v3`).
fn normalized(path: &str) -> Option<String> {
    if !path.starts_with("/v3") || !(path.contains("//") || path.len() > 1 && path.ends_with('/')) {
        return None;
    }
    let mut plain = String::with_capacity(path.len());
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        plain.push('/');
        plain.push_str(segment);
    }
    (plain != path).then_some(plain)
}

/// Rewrites the request's path before the router sees it.
pub async fn layer(mut request: Request, next: Next) -> Response {
    if let Some(path) = normalized(request.uri().path()) {
        let with_query = match request.uri().query() {
            Some(query) => format!("{path}?{query}"),
            None => path,
        };
        let mut parts = request.uri().clone().into_parts();
        if let Ok(path_and_query) = with_query.parse() {
            parts.path_and_query = Some(path_and_query);
            if let Ok(uri) = Uri::from_parts(parts) {
                *request.uri_mut() = uri;
            }
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::normalized;

    #[test]
    fn repeated_and_trailing_slashes_go() {
        assert_eq!(
            normalized("/v3/workflow//").as_deref(),
            Some("/v3/workflow")
        );
        assert_eq!(
            normalized("/v3/content/abc/").as_deref(),
            Some("/v3/content/abc")
        );
        assert_eq!(normalized("/v3//content").as_deref(), Some("/v3/content"));
        assert_eq!(normalized("/v3/content"), None);
        assert_eq!(normalized("/"), None);
        assert_eq!(normalized("/assets//x.js"), None, "only the /v3 service");
    }
}
