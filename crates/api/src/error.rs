//! The one place where a failure becomes the contract's JSON error and status code.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use copydesk_core::{CoreError, TokenProblem};
use copydesk_wire::{ErrorBody, ErrorCode};

/// Everything a request can fail with: the service's errors and the HTTP layer's own.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error(transparent)]
    Core(#[from] CoreError),
    #[error("{message}")]
    BadBody {
        message: String,
        field: Option<String>,
    },
    #[error("send the body as JSON, with Content-Type: application/json")]
    UnsupportedMediaType,
    #[error("the body is larger than this server accepts ({limit} bytes)")]
    TooLarge { limit: usize },
    #[error("{0}")]
    NoRoute(String),
    /// A request to a desktop app's own server from somewhere else (another
    /// `Host` or `Origin`): no web page may reach it.
    #[error("{0}")]
    ForeignCaller(String),
    /// More of something than the server takes at once (uploads in flight):
    /// 429, with how long to wait.
    #[error("{message}")]
    Busy {
        message: String,
        retry_after_secs: u64,
    },
    /// The client stopped sending its body for too long.
    #[error("{0}")]
    Timeout(String),
}

impl ApiError {
    /// A request body that could not be read: the client stalled past the
    /// idle timeout (408), sent more than `limit` (413), or broke off (400).
    pub fn unreadable_body(err: &(dyn std::error::Error + 'static), limit: usize) -> Self {
        let mut cause = Some(err);
        while let Some(current) = cause {
            if current.is::<tower_http::timeout::TimeoutError>() {
                return Self::Timeout(
                    "the request body stalled: nothing arrived for too long".to_owned(),
                );
            }
            if current.is::<http_body_util::LengthLimitError>() {
                return Self::TooLarge { limit };
            }
            cause = current.source();
        }
        Self::BadBody {
            message: format!("the body could not be read: {err}"),
            field: None,
        }
    }

    fn status_and_code(&self) -> (StatusCode, ErrorCode) {
        match self {
            Self::Core(err) => match err {
                CoreError::Invalid { .. } => (StatusCode::BAD_REQUEST, ErrorCode::InvalidRequest),
                CoreError::NotFound { .. } => (StatusCode::NOT_FOUND, ErrorCode::NotFound),
                CoreError::Forbidden { .. } => {
                    (StatusCode::UNAUTHORIZED, ErrorCode::ForbiddenAction)
                }
                CoreError::Token(TokenProblem::Missing) => {
                    (StatusCode::FORBIDDEN, ErrorCode::TokenMissing)
                }
                CoreError::Token(TokenProblem::Invalid | TokenProblem::NotYetValid) => {
                    (StatusCode::FORBIDDEN, ErrorCode::TokenInvalid)
                }
                CoreError::Token(TokenProblem::Expired) => {
                    (StatusCode::FORBIDDEN, ErrorCode::TokenExpired)
                }
                CoreError::SignInRefused(_) => (StatusCode::UNAUTHORIZED, ErrorCode::SignInRefused),
                CoreError::TooManyAttempts { .. } => {
                    (StatusCode::TOO_MANY_REQUESTS, ErrorCode::TooManyRequests)
                }
                CoreError::Locked(_) => (StatusCode::CONFLICT, ErrorCode::Locked),
                CoreError::Conflict { .. } => (StatusCode::CONFLICT, ErrorCode::Conflict),
                CoreError::TooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::TooLarge),
                CoreError::Offline(_) => (StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Offline),
                CoreError::Damaged(_) => {
                    (StatusCode::SERVICE_UNAVAILABLE, ErrorCode::DatabaseDamaged)
                }
                CoreError::Unavailable(_) | CoreError::Checking => (
                    StatusCode::SERVICE_UNAVAILABLE,
                    ErrorCode::DatabaseUnavailable,
                ),
                CoreError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal),
            },
            Self::BadBody { .. } => (StatusCode::BAD_REQUEST, ErrorCode::InvalidRequest),
            Self::UnsupportedMediaType => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ErrorCode::UnsupportedMediaType,
            ),
            Self::TooLarge { .. } => (StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::TooLarge),
            Self::NoRoute(_) => (StatusCode::NOT_FOUND, ErrorCode::NotFound),
            Self::ForeignCaller(_) => (StatusCode::FORBIDDEN, ErrorCode::ForeignOrigin),
            Self::Busy { .. } => (StatusCode::TOO_MANY_REQUESTS, ErrorCode::TooManyRequests),
            Self::Timeout(_) => (StatusCode::REQUEST_TIMEOUT, ErrorCode::Timeout),
        }
    }

    fn field(&self) -> Option<String> {
        match self {
            Self::Core(
                CoreError::Invalid { field, .. }
                | CoreError::NotFound { field, .. }
                | CoreError::Conflict { field, .. },
            )
            | Self::BadBody { field, .. } => field.clone(),
            _ => None,
        }
    }

    pub fn body(&self) -> (StatusCode, ErrorBody) {
        let (status, code) = self.status_and_code();
        let error = if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(error = %self, "request failed");
            "something went wrong on the server; the log has the details".to_owned()
        } else {
            self.to_string()
        };
        (
            status,
            ErrorBody {
                error,
                code,
                field: self.field(),
            },
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, body) = self.body();
        let mut response = (status, axum::Json(body)).into_response();
        if let Self::Busy {
            retry_after_secs, ..
        }
        | Self::Core(CoreError::TooManyAttempts {
            retry_after_secs, ..
        }) = self
        {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(retry_after_secs),
            );
        }
        if let Self::Core(CoreError::Unavailable(_)) = self {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(DATABASE_RETRY_AFTER_SECS),
            );
        }
        if let Self::Core(CoreError::Checking) = self {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(CHECK_RETRY_AFTER_SECS),
            );
        }
        response
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

/// How long a caller is asked to wait when the database cannot be reached:
/// a PostgreSQL failover or restart takes seconds.
const DATABASE_RETRY_AFTER_SECS: u64 = 2;

/// How long a caller is asked to wait while the database is checked after
/// a start: a large archive's check takes a minute or two.
const CHECK_RETRY_AFTER_SECS: u64 = 10;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_during_the_start_check_is_asked_to_come_back_later() {
        let response = ApiError::Core(CoreError::Checking).into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            response.headers()[axum::http::header::RETRY_AFTER],
            CHECK_RETRY_AFTER_SECS.to_string().as_str()
        );
        let (_, body) = ApiError::Core(CoreError::Checking).body();
        assert_eq!(body.code, ErrorCode::DatabaseUnavailable);
        assert!(
            body.error.contains("checking its database"),
            "{}",
            body.error
        );
    }
}
