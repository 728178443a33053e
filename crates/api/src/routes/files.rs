//! Attachment files at their public and original URLs: no token, the random salt in the path is the secret.

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Response};
use tower::ServiceExt as _;
use tower_http::services::ServeFile;

use crate::AppState;
use crate::error::{ApiError, ApiResult};

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
    let Some((path, _extension)) = found else {
        return Err(ApiError::NoRoute(format!("there is no file {name} here")));
    };
    let (parts, _) = request.into_parts();
    let request = Request::from_parts(parts, Body::empty());
    match ServeFile::new(path).oneshot(request).await {
        Ok(response) => Ok(response.map(Body::new).into_response()),
        Err(err) => Err(ApiError::Core(copydesk_core::CoreError::Internal(
            err.to_string(),
        ))),
    }
}
