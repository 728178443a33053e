//! Attachment files at their public and original URLs: no token, the random salt in the path is the secret.
//!
//! A user's file shares the UI's origin, so it must never run as a page of
//! it: every answer carries `X-Content-Type-Options: nosniff` and a
//! sandboxing CSP, and anything that is not a decoded raster image is served
//! as a download (`Content-Disposition: attachment`). Images still display
//! inline.

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use tower::ServiceExt as _;
use tower_http::services::ServeFile;

use crate::AppState;
use crate::error::{ApiError, ApiResult};

/// No script, no plugin, no form, no same-origin rights, even if a browser
/// were made to render the file as a document.
const FILE_CSP: &str = "default-src 'none'; sandbox";

pub async fn serve(
    State(state): State<AppState>,
    Path((salt, name)): Path<(String, String)>,
    request: Request,
) -> ApiResult<Response> {
    let cms = std::sync::Arc::clone(&state.cms);
    let lookup_name = name.clone();
    let found = tokio::task::spawn_blocking(move || cms.attachment_file(&salt, &lookup_name))
        .await
        .map_err(|err| ApiError::Core(copydesk_core::CoreError::Internal(err.to_string())))??;
    let Some(file) = found else {
        return Err(ApiError::NoRoute(format!("there is no file {name} here")));
    };
    let (parts, _) = request.into_parts();
    let request = Request::from_parts(parts, Body::empty());
    let mut response = match ServeFile::new(&file.path).oneshot(request).await {
        Ok(response) => response.map(Body::new).into_response(),
        Err(err) => {
            return Err(ApiError::Core(copydesk_core::CoreError::Internal(
                err.to_string(),
            )));
        }
    };
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(FILE_CSP),
    );
    if !file.displays_inline {
        let disposition = HeaderValue::from_str(&download_disposition(&file.download_name))
            .unwrap_or(HeaderValue::from_static("attachment"));
        headers.insert(header::CONTENT_DISPOSITION, disposition);
    }
    Ok(response)
}

/// `attachment` with the file's name (RFC 6266): an ASCII fallback, and the
/// exact name percent-encoded for browsers that read `filename*`.
fn download_disposition(name: &str) -> String {
    let fallback: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded: String = name
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("attachment; filename=\"{fallback}\"; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::download_disposition;

    #[test]
    fn a_download_names_its_file_safely() {
        assert_eq!(
            download_disposition("e.html"),
            "attachment; filename=\"e.html\"; filename*=UTF-8''e.html"
        );
        assert_eq!(
            download_disposition("Reporter \"notes\" é.pdf"),
            "attachment; filename=\"Reporter _notes_ _.pdf\"; filename*=UTF-8''Reporter%20%22notes%22%20%C3%A9.pdf"
        );
    }
}
