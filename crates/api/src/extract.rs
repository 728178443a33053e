//! What handlers take from a request: the bearer token, the query string, and a JSON body,
//! each failing with the contract's error rather than axum's plain-text rejections.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE};
use axum::http::request::Parts;
use copydesk_core::access::Credential;
use copydesk_core::paging::ListQuery;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// The caller: the credential of `Authorization` (if any), and the
/// idempotency key of a keyed write (set by the idempotency layer).
pub struct Bearer {
    pub credential: Option<Credential>,
    pub keyed: Option<KeyedWrite>,
}

/// A write sent with an `Idempotency-Key`, with the fingerprint of the request.
#[derive(Debug, Clone)]
pub struct KeyedWrite {
    pub key: String,
    pub hash: String,
}

/// The credential of a request's headers: `Bearer <token>`, or `Basic`
/// with the private key as the user name and no password (as some clients
/// of the hosted service send it). Never logged.
pub fn credential(headers: &axum::http::HeaderMap) -> Option<Credential> {
    use base64::Engine as _;
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, rest) = value.trim().split_once(' ')?;
    let rest = rest.trim();
    if rest.is_empty() {
        return None;
    }
    if scheme.eq_ignore_ascii_case("bearer") {
        return Some(Credential::Token(rest.to_owned()));
    }
    if scheme.eq_ignore_ascii_case("basic") {
        // A malformed Basic header is still a credential: refused as invalid, not as missing.
        let text = base64::engine::general_purpose::STANDARD
            .decode(rest)
            .ok()
            .and_then(|decoded| String::from_utf8(decoded).ok())
            .unwrap_or_default();
        let private_key = text.split_once(':').map_or(text.as_str(), |(user, _)| user);
        return Some(Credential::PrivateKey(private_key.to_owned()));
    }
    None
}

impl<S: Send + Sync> FromRequestParts<S> for Bearer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self {
            credential: credential(&parts.headers),
            keyed: parts.extensions.get::<KeyedWrite>().cloned(),
        })
    }
}

/// The query string as name-value pairs, repeated names kept (`type[]=a&type[]=b`).
pub struct QueryPairs(pub Vec<(String, String)>);

impl QueryPairs {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `name` or `name[]`.
    pub fn all(&self, name: &str) -> Vec<String> {
        let bracketed = format!("{name}[]");
        self.0
            .iter()
            .filter(|(k, _)| k == name || *k == bracketed)
            .flat_map(|(_, v)| v.split(',').map(str::to_owned).collect::<Vec<_>>())
            .collect()
    }

    pub fn list(&self) -> ListQuery {
        ListQuery {
            page: self.get("page").map(str::to_owned),
            per_page: self.get("per_page").map(str::to_owned),
            order: self.get("order").map(str::to_owned),
            dir: self.get("dir").map(str::to_owned),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for QueryPairs {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or("");
        Ok(Self(
            form_urlencoded::parse(query.as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        ))
    }
}

/// A request body, read but not yet parsed: the caller's token and access
/// action are checked first, so a refused caller learns nothing from the body.
pub struct RawJson {
    content_type: Option<String>,
    bytes: Bytes,
}

fn is_json(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

impl RawJson {
    /// Like [`RawJson::parse`], for an operation whose body may be left out.
    pub fn parse_optional<T: DeserializeOwned + Default>(&self) -> Result<T, ApiError> {
        if self.bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(T::default());
        }
        self.parse()
    }

    /// Deserialises the body into `T`; a wrong type names the field at fault.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        match &self.content_type {
            Some(content_type) if !is_json(content_type) => {
                return Err(ApiError::UnsupportedMediaType);
            }
            None if self.bytes.iter().all(u8::is_ascii_whitespace) => {
                return Err(ApiError::BadBody {
                    message: "this operation needs a JSON body".into(),
                    field: None,
                });
            }
            None => return Err(ApiError::UnsupportedMediaType),
            Some(_) => {}
        }
        let mut deserializer = serde_json::Deserializer::from_slice(&self.bytes);
        let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
            let path = err.path().to_string();
            let inner = err.into_inner();
            let field = (path != "." && !path.is_empty()).then(|| path.clone());
            let message = if inner.is_syntax() || inner.is_eof() {
                format!("the body is not valid JSON: {inner}")
            } else if let Some(field) = &field {
                format!("\"{field}\" has the wrong type: {inner}")
            } else {
                format!("the body has the wrong shape: {inner}")
            };
            ApiError::BadBody {
                message,
                field: if inner.is_syntax() || inner.is_eof() {
                    None
                } else {
                    field
                },
            }
        })?;
        deserializer.end().map_err(|err| ApiError::BadBody {
            message: format!("the body is not valid JSON: {err}"),
            field: None,
        })?;
        Ok(value)
    }
}

impl<S: Send + Sync> FromRequest<S> for RawJson {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let content_type = req
            .headers()
            .get(CONTENT_TYPE)
            .map(|value| value.to_str().unwrap_or("invalid").to_owned());
        let limit = req
            .extensions()
            .get::<crate::BodyLimit>()
            .map_or(0, |l| l.0);
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::TooLarge { limit }
            } else {
                ApiError::unreadable_body(&rejection, limit)
            }
        })?;
        Ok(Self {
            content_type,
            bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::is_json;

    #[test]
    fn json_media_types() {
        assert!(is_json("application/json"));
        assert!(is_json("Application/JSON; charset=utf-8"));
        assert!(is_json("application/merge-patch+json"));
        assert!(!is_json("text/plain"));
        assert!(!is_json("application/x-www-form-urlencoded"));
    }
}
