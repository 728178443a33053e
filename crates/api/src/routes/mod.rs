//! The route table: one module per resource of the `/v3` service, each handler documented for OpenAPI.

mod assignments;
mod attachments;
mod authors;
mod changes;
mod comments;
mod containers;
mod content;
mod drafts;
mod exports;
mod files;
mod locks;
mod planning;
mod presence;
mod print_documents;
mod search;
mod sign_in;
mod sync;
mod tags;
mod token;
mod ui;
mod users;
mod versions;

use axum::Router;
use axum::routing::get;
use utoipa::OpenApi as _;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::openapi::ApiDoc;

/// Every documented `/v3` route, and the document generated from them.
pub(crate) fn documented() -> (Router<AppState>, utoipa::openapi::OpenApi) {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(token::refresh))
        .routes(routes!(sign_in::sign_in))
        .routes(routes!(sign_in::sign_out))
        .routes(routes!(authors::list, authors::create))
        .routes(routes!(authors::get, authors::update, authors::delete))
        .routes(routes!(content::list, content::create))
        .routes(routes!(content::get, content::update, content::delete))
        .routes(routes!(versions::list))
        .routes(routes!(versions::get, versions::restore))
        .routes(routes!(drafts::last, drafts::create))
        .routes(routes!(drafts::merged))
        .routes(routes!(drafts::others))
        .routes(routes!(attachments::update))
        .routes(routes!(attachments::upload))
        .routes(routes!(locks::create))
        .routes(routes!(locks::get, locks::delete))
        .routes(routes!(comments::notes, comments::create_note))
        .routes(routes!(comments::story_notes))
        .routes(routes!(
            comments::assignment_comments,
            comments::create_assignment_comment
        ))
        .routes(routes!(assignments::list, assignments::create))
        .routes(routes!(
            assignments::get,
            assignments::update,
            assignments::delete
        ))
        .routes(routes!(containers::list, containers::create))
        .routes(routes!(
            containers::get,
            containers::update,
            containers::delete
        ))
        .routes(routes!(users::list))
        .routes(routes!(users::get))
        .routes(routes!(users::me))
        .routes(routes!(tags::list, tags::create))
        .routes(routes!(tags::get, tags::update, tags::delete))
        .routes(routes!(search::search))
        .routes(routes!(changes::since))
        .routes(routes!(changes::stream))
        .routes(routes!(presence::list))
        .routes(routes!(presence::announce, presence::leave))
        .routes(routes!(sync::status))
        .routes(routes!(sync::conflicts))
        .routes(routes!(sync::attention))
        .routes(routes!(sync::waiting))
        .routes(routes!(sync::resolve))
        .routes(routes!(planning::list_workflows, planning::create_workflow))
        .routes(routes!(planning::get_workflow))
        .routes(routes!(planning::list_sections, planning::create_section))
        .routes(routes!(planning::get_section))
        .routes(routes!(planning::list_issues, planning::create_issue))
        .routes(routes!(planning::get_issue))
        .routes(routes!(print_documents::list, print_documents::create))
        .routes(routes!(print_documents::get, print_documents::update))
        .routes(routes!(print_documents::lock, print_documents::unlock))
        .routes(routes!(exports::get, exports::update))
        .routes(routes!(exports::dump))
        .routes(routes!(exports::push))
        .routes(routes!(exports::pull))
        .routes(routes!(exports::lock, exports::unlock))
        .split_for_parts()
}

/// Routes outside the documented `/v3` surface: the attachment files and the web UI.
pub(crate) fn undocumented() -> Router<AppState> {
    Router::new()
        .route("/files/{salt}/{name}", get(files::serve))
        .route("/", get(ui::index))
        .route("/assets/{*path}", get(ui::asset))
}
