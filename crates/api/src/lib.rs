//! The `/v3` service over HTTP: routes per resource, the bearer token, and the one error mapping.
//!
//! Handlers are thin: they read the request, run one use case of
//! `copydesk-core` on a blocking thread (the store is synchronous SQLite), and
//! present its record in the wire shape.

pub mod change_stream;
pub mod error;
pub mod extract;
mod idempotency;
mod local_only;
pub mod openapi;
mod paths;
pub mod present;
mod routes;
pub mod serve;
mod slots;
pub mod stop;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{Method, Uri};
use copydesk_core::access::Principal;
use copydesk_core::content_rendered::RenderedContent;
use copydesk_core::{Cms, CoreError};
use tower_http::catch_panic::CatchPanicLayer;

use crate::error::{ApiError, ApiResult};
use crate::extract::{Bearer, RawJson};
pub use crate::local_only::LocalOnly;
use serde::de::DeserializeOwned;

/// The default largest request body: 64 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 64 * 1024 * 1024;

/// How long, by default, a client may pause while sending a body before it
/// is cut off (408): a stalled client must not hold a connection and its
/// work forever.
pub const BODY_IDLE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The largest body this server reads, as handlers see it in request extensions.
#[derive(Debug, Clone, Copy)]
pub struct BodyLimit(pub usize);

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub cms: Arc<Cms>,
    /// The uploads in flight (see `slots`).
    uploads: slots::Slots,
    /// The change streams open (see `change_stream`).
    streams: slots::Slots,
    /// The change log's newest position, watched for the streams.
    head: change_stream::Head,
}

impl AppState {
    /// Authenticates the caller and runs `work` as them on a blocking thread.
    /// A keyed write (`Idempotency-Key`) records its key in the write's own transaction.
    pub(crate) async fn run_as<T: Send + 'static>(
        &self,
        bearer: Bearer,
        work: impl FnOnce(&Cms, &Principal) -> ApiResult<T> + Send + 'static,
    ) -> ApiResult<T> {
        let cms = Arc::clone(&self.cms);
        tokio::task::spawn_blocking(move || run_now(&cms, &bearer, work))
            .await
            .map_err(|err| {
                ApiError::Core(CoreError::Internal(format!("a request task failed: {err}")))
            })?
    }

    /// Runs one use case as the caller.
    pub(crate) async fn call<T: Send + 'static>(
        &self,
        bearer: Bearer,
        work: impl FnOnce(&Cms, &Principal) -> copydesk_core::Result<T> + Send + 'static,
    ) -> ApiResult<T> {
        self.run_as(bearer, move |cms, who| Ok(work(cms, who)?))
            .await
    }

    /// Like [`AppState::call`] for an operation that answers one content
    /// item, shaped as the caller's key asks ([`ContentAnswer`]).
    pub(crate) async fn call_content<C: ContentResult>(
        &self,
        bearer: Bearer,
        work: impl FnOnce(&Cms, &Principal) -> copydesk_core::Result<C> + Send + 'static,
    ) -> ApiResult<ContentAnswer> {
        let (item, as_array) = self
            .call(bearer, move |cms, who| {
                Ok((work(cms, who)?, who.content_as_array))
            })
            .await?;
        Ok(ContentAnswer {
            content: item.into_body(),
            as_array,
        })
    }

    /// One content item's kept answer, for the caller. The token check and
    /// the read share one read transaction. On SQLite they run here, on the
    /// request's own thread: it is one indexed read, and handing it to a
    /// blocking thread would cost more than the read. PostgreSQL's client
    /// blocks on its own runtime, which cannot run inside this one, so
    /// there the read goes to a blocking thread like every other use case.
    pub(crate) async fn read_content(
        &self,
        bearer: Bearer,
        uuid: String,
    ) -> ApiResult<ContentAnswer> {
        if !self.cms.store().is_postgres() {
            return self.read_rendered_content(&bearer, &uuid);
        }
        let state = self.clone();
        tokio::task::spawn_blocking(move || state.read_rendered_content(&bearer, &uuid))
            .await
            .map_err(|err| {
                ApiError::Core(CoreError::Internal(format!("a request task failed: {err}")))
            })?
    }

    fn read_rendered_content(&self, bearer: &Bearer, uuid: &str) -> ApiResult<ContentAnswer> {
        let (item, who) = self
            .cms
            .get_content_rendered_as(bearer.credential.as_ref(), uuid)?;
        Ok(ContentAnswer {
            content: AnswerBody::Rendered(item.0),
            as_array: who.content_as_array,
        })
    }

    /// [`AppState::call_with`] for an operation that answers one content
    /// item (a record to present, or the text the core kept).
    pub(crate) async fn call_with_content<B, C>(
        &self,
        bearer: Bearer,
        action: copydesk_core::access::Action,
        body: RawJson,
        work: impl FnOnce(&Cms, &Principal, B) -> copydesk_core::Result<C> + Send + 'static,
    ) -> ApiResult<ContentAnswer>
    where
        B: DeserializeOwned,
        C: ContentResult,
    {
        let (item, as_array) = self
            .call_with(bearer, action, body, move |cms, who, body| {
                Ok((work(cms, who, body)?, who.content_as_array))
            })
            .await?;
        Ok(ContentAnswer {
            content: item.into_body(),
            as_array,
        })
    }

    /// Like [`AppState::call`] for an operation with a JSON body: the token and
    /// `action` are checked before the body is parsed.
    pub(crate) async fn call_with<B, T>(
        &self,
        bearer: Bearer,
        action: copydesk_core::access::Action,
        body: RawJson,
        work: impl FnOnce(&Cms, &Principal, B) -> copydesk_core::Result<T> + Send + 'static,
    ) -> ApiResult<T>
    where
        B: DeserializeOwned,
        T: Send + 'static,
    {
        self.run_as(bearer, move |cms, who| {
            who.require(action)?;
            let parsed = body.parse::<B>()?;
            Ok(work(cms, who, parsed)?)
        })
        .await
    }
}

/// Authenticates the caller and runs `work` as them.
fn run_now<T>(
    cms: &Cms,
    bearer: &Bearer,
    work: impl FnOnce(&Cms, &Principal) -> ApiResult<T>,
) -> ApiResult<T> {
    let who = cms.authenticate(bearer.credential.as_ref())?;
    match &bearer.keyed {
        Some(keyed) => {
            cms.applying_once(&who, &keyed.key, &keyed.hash, || work(cms, &who))
                .0
        }
        None => work(cms, &who),
    }
}

/// One content item as an answer: an object, as the specification has it,
/// or for a key made with `--content-as-array` a one-element array, as some
/// clients of the hosted service read it.
pub struct ContentAnswer {
    content: AnswerBody,
    as_array: bool,
}

/// The item, as a record to serialise or as the text the core kept.
enum AnswerBody {
    Item(Box<copydesk_wire::Content>),
    Rendered(String),
}

/// What a use case answering one content item gives back.
pub(crate) trait ContentResult: Send + 'static {
    fn into_body(self) -> AnswerBody;
}

impl ContentResult for copydesk_core::content::ContentItem {
    fn into_body(self) -> AnswerBody {
        AnswerBody::Item(Box::new(present::content(self)))
    }
}

impl ContentResult for RenderedContent {
    fn into_body(self) -> AnswerBody {
        AnswerBody::Rendered(self.0)
    }
}

impl axum::response::IntoResponse for ContentAnswer {
    fn into_response(self) -> axum::response::Response {
        match (self.content, self.as_array) {
            (AnswerBody::Item(item), true) => axum::Json(vec![item]).into_response(),
            (AnswerBody::Item(item), false) => axum::Json(item).into_response(),
            (AnswerBody::Rendered(text), true) => json_text(format!("[{text}]")),
            (AnswerBody::Rendered(text), false) => json_text(text),
        }
    }
}

/// A JSON answer already written out.
pub(crate) fn json_text(text: String) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    (
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json"),
        )],
        text,
    )
        .into_response()
}

/// The name of the content renderer's output, for answers kept in the
/// database: change `CONTENT_FORMAT` whenever `present::content` answers
/// differently (the package version changes it on every release too).
const CONTENT_FORMAT: &str = concat!("content/1/", env!("CARGO_PKG_VERSION"));

/// Hands the core the renderer of content answers it keeps ([`router`]
/// does it; a program writing through the core without serving calls it
/// so that what it writes is kept rendered too). With
/// `COPYDESK_CHECK_RENDERED=1` (the test suites set it) every kept answer
/// served is compared with a fresh one.
pub fn keep_rendered_content(cms: &Cms) {
    let check = std::env::var("COPYDESK_CHECK_RENDERED").is_ok_and(|v| v == "1");
    cms.render_content_with(
        CONTENT_FORMAT,
        Arc::new(|item| {
            serde_json::to_string(&present::content(item))
                .unwrap_or_else(|err| format!("{{\"error\":\"{err}\"}}"))
        }),
        check,
    );
}

/// How a server is set up.
#[derive(Debug, Clone)]
pub struct Options {
    /// The largest request body, in bytes.
    pub body_limit: usize,
    /// Serve only what the hosted service offers: no change feed,
    /// no idempotency keys (to test clients against a plain remote).
    pub plain: bool,
    /// A desktop app's own server: only the app's window may call it.
    pub local_only: Option<LocalOnly>,
    /// How long a client may pause while sending a body.
    pub body_idle_timeout: std::time::Duration,
    /// Reverse proxies whose `X-Forwarded-For` names the client: sign-in
    /// counts failures by that address instead of the proxy's own.
    pub trusted_proxies: Vec<std::net::IpAddr>,
}

/// `Options::trusted_proxies`, as handlers read them (IPv4 addresses mapped
/// into IPv6 made plain).
#[derive(Clone)]
pub(crate) struct TrustedProxies(pub(crate) Arc<[std::net::IpAddr]>);

impl Default for Options {
    fn default() -> Self {
        Self {
            body_limit: DEFAULT_BODY_LIMIT,
            plain: false,
            local_only: None,
            body_idle_timeout: BODY_IDLE_TIMEOUT,
            trusted_proxies: Vec::new(),
        }
    }
}

/// The whole HTTP surface: `/v3` and the attachment files.
pub fn router(cms: Arc<Cms>, options: Options) -> Router {
    keep_rendered_content(&cms);
    let body_limit = options.body_limit;
    let state = AppState {
        cms,
        uploads: slots::Slots::uploads(),
        streams: slots::Slots::streams(),
        head: change_stream::Head::default(),
    };
    let (documented, document) = routes::documented();
    let document = Arc::new(document);
    let mut app = documented
        .merge(routes::undocumented())
        .route(
            "/v3/openapi.json",
            axum::routing::get(move || {
                let document = Arc::clone(&document);
                async move { axum::Json(document.as_ref().clone()) }
            }),
        )
        .fallback(no_route)
        .method_not_allowed_fallback(no_route);
    if options.plain {
        app = app.layer(axum::middleware::from_fn(plain_only));
    } else {
        app = app.layer(axum::middleware::from_fn_with_state(
            state.clone(),
            idempotency::layer,
        ));
    }
    // Outside the idempotency layer, which reads a keyed body whole: an
    // upload past the cap is refused before any of its body is read.
    app = app.layer(axum::middleware::from_fn_with_state(
        state.clone(),
        slots::layer,
    ));
    if let Some(guard) = options.local_only {
        app = app.layer(axum::middleware::from_fn_with_state(
            guard,
            local_only::layer,
        ));
    }
    let service = app
        .with_state(state)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
            options.body_idle_timeout,
        ))
        .layer(axum::Extension(BodyLimit(body_limit)))
        .layer(axum::Extension(TrustedProxies(
            options
                .trusted_proxies
                .iter()
                .map(std::net::IpAddr::to_canonical)
                .collect(),
        )))
        .layer(CatchPanicLayer::custom(
            |_panic: Box<dyn std::any::Any + Send>| {
                use axum::response::IntoResponse as _;
                ApiError::Core(CoreError::Internal("a handler panicked".into())).into_response()
            },
        ));
    // Paths are made plain before any route is matched, so the rewrite sits
    // in front of the whole router.
    Router::new()
        .fallback_service(service)
        .layer(axum::middleware::from_fn(paths::layer))
}

/// A plain server has no change feed or stream; idempotency keys are simply not looked at.
async fn plain_only(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    if matches!(request.uri().path(), "/v3/changes" | "/v3/changes/stream") {
        return no_route(request.method().clone(), request.uri().clone())
            .await
            .into_response();
    }
    next.run(request).await
}

async fn no_route(method: Method, uri: Uri) -> ApiError {
    ApiError::NoRoute(format!("there is no operation {method} {}", uri.path()))
}

/// The OpenAPI document of every `/v3` operation, as `/v3/openapi.json` serves it.
pub fn openapi_document() -> utoipa::openapi::OpenApi {
    routes::documented().1
}
