//! What handlers take from a request: the bearer token, the query string (typed), and a JSON body,
//! each failing with the contract's error rather than axum's plain-text rejections.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE};
use axum::http::request::Parts;
use copydesk_core::access::Credential;
use copydesk_core::paging::ListQuery;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use utoipa::IntoParams;

use crate::error::ApiError;

/// The caller: the credential of `Authorization` (if any), and the
/// idempotency key of a keyed write (set by the idempotency layer).
#[derive(Clone)]
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
        let decoded = |text: &str| {
            base64::engine::general_purpose::STANDARD
                .decode(text)
                .ok()
                .and_then(|decoded| String::from_utf8(decoded).ok())
        };
        let text = decoded(rest)
            // The WordPress plugin writes the colon after the base64:
            // `"Basic " . base64_encode($private_key) . ":"`.
            .or_else(|| rest.strip_suffix(':').and_then(decoded))
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

/// A query string read into `T`, as `/v3` has always read its parameters:
/// the first value of a repeated name wins, an empty value is a value
/// (`keywords=` reads as `Some("")`), names `T` does not know are ignored,
/// and a name `T` lists in [`QueryShape::LISTS`] collects every value of
/// `name` and `name[]`, in order, each split at commas (`type[]=a&type=b,c`).
///
/// Fields are read as text and checked by the use case, so a query string
/// never fails to read: a wrong value is refused by the service with the
/// parameter named, as any other input.
pub struct Query<T>(pub T);

/// The typed shape of an operation's query string (see [`Query`]).
pub trait QueryShape: DeserializeOwned {
    /// Names whose values form one list.
    const LISTS: &'static [&'static str] = &[];
}

impl<T: QueryShape> Query<T> {
    /// Reads `query` (the part of a URI after `?`, percent-encoded).
    pub fn parse(query: &str) -> Result<T, ApiError> {
        let mut names: Vec<(String, Vec<String>)> = Vec::new();
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            let list = T::LISTS
                .iter()
                .find(|name| key == **name || key.strip_suffix("[]") == Some(**name));
            let (name, values) = match list {
                Some(name) => (
                    (*name).to_owned(),
                    value.split(',').map(str::to_owned).collect(),
                ),
                None => (key.into_owned(), vec![value.into_owned()]),
            };
            match names.iter_mut().find(|(known, _)| *known == name) {
                Some((_, known)) => known.extend(values),
                None => names.push((name, values)),
            }
        }
        let map = serde::de::value::MapDeserializer::new(
            names
                .into_iter()
                .map(|(name, values)| (name, Values(values))),
        );
        T::deserialize(map).map_err(|err: serde::de::value::Error| ApiError::BadBody {
            message: format!("the query string could not be read: {err}"),
            field: None,
        })
    }
}

impl<S: Send + Sync, T: QueryShape> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Self::parse(parts.uri.query().unwrap_or("")).map(Self)
    }
}

/// Every value one name of a query string carried: a single value reads
/// the first, a list reads them all.
struct Values(Vec<String>);

impl<'de> serde::de::IntoDeserializer<'de, serde::de::value::Error> for Values {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> serde::Deserializer<'de> for Values {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_string(self.0.into_iter().next().unwrap_or_default())
    }

    fn deserialize_option<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_seq<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_seq(serde::de::value::SeqDeserializer::new(self.0.into_iter()))
    }

    fn deserialize_ignored_any<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct tuple tuple_struct map
        struct enum identifier
    }
}

/// The paging and order every list takes.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// Page number, from 1.
    #[param(value_type = Option<u64>)]
    pub page: Option<String>,
    /// Page size (default 50; more than 500 is served as 500).
    #[param(value_type = Option<u64>)]
    pub per_page: Option<String>,
    /// A field of the record to order by. A search of content, and the
    /// content list with `keywords`, also take `relevance` (the search's
    /// default): the words in the headline first, then as a phrase, then
    /// whole, the newest first among equals. Their count is then exact up
    /// to 1,000 hits and estimated beyond (`total_items_estimated`).
    pub order: Option<String>,
    /// `asc` or `desc` (default).
    pub dir: Option<String>,
}

impl QueryShape for ListParams {}

impl From<ListParams> for ListQuery {
    fn from(params: ListParams) -> Self {
        Self {
            page: params.page,
            per_page: params.per_page,
            order: params.order,
            dir: params.dir,
        }
    }
}

/// The content item an operation is about, by its SRN (versions, drafts).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ContentSrn {
    /// The content item's SRN
    #[param(required = true, value_type = String)]
    pub content: Option<String>,
}

impl QueryShape for ContentSrn {}

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
    use serde::Deserialize;

    use super::{ListParams, Query, QueryShape, is_json};

    #[derive(Debug, Deserialize)]
    struct Shape {
        keywords: Option<String>,
        keyword: Option<String>,
        #[serde(default)]
        r#type: Vec<String>,
    }

    impl QueryShape for Shape {
        const LISTS: &'static [&'static str] = &["type"];
    }

    #[test]
    fn queries_read_as_they_always_have() {
        let read =
            Query::<Shape>::parse("keywords=a%20b&keywords=c&keyword=&other=1").expect("reads");
        assert_eq!(
            read.keywords.as_deref(),
            Some("a b"),
            "the first of a repeat"
        );
        assert_eq!(
            read.keyword.as_deref(),
            Some(""),
            "an empty value is a value"
        );
        assert!(read.r#type.is_empty());

        let read =
            Query::<Shape>::parse("type[]=blog&type=manual,gallery&type%5B%5D=").expect("reads");
        assert_eq!(read.r#type, ["blog", "manual", "gallery", ""], "in order");
        assert_eq!(read.keywords, None);

        let list =
            Query::<ListParams>::parse("page=2&per_page=&page=9&dir=asc&order").expect("reads");
        assert_eq!(list.page.as_deref(), Some("2"));
        assert_eq!(list.per_page.as_deref(), Some(""));
        assert_eq!(
            list.order.as_deref(),
            Some(""),
            "a name without = is an empty value"
        );
        assert_eq!(list.dir.as_deref(), Some("asc"));
        let none = Query::<ListParams>::parse("").expect("reads");
        assert!(none.page.is_none() && none.per_page.is_none() && none.order.is_none());
    }

    #[test]
    fn json_media_types() {
        assert!(is_json("application/json"));
        assert!(is_json("Application/JSON; charset=utf-8"));
        assert!(is_json("application/merge-patch+json"));
        assert!(!is_json("text/plain"));
        assert!(!is_json("application/x-www-form-urlencoded"));
    }
}
