//! The route table: one module per resource of the `/v3` service.

mod assignments;
mod attachments;
mod authors;
mod comments;
mod containers;
mod content;
mod drafts;
mod exports;
mod files;
mod locks;
mod planning;
mod print_documents;
mod search;
mod tags;
mod token;
mod users;
mod versions;

use axum::Router;
use axum::routing::{get, post, put};

use crate::AppState;

pub(crate) fn all() -> Router<AppState> {
    Router::new()
        .route("/v3/token/refresh", get(token::refresh))
        .route("/v3/author", get(authors::list).post(authors::create))
        .route(
            "/v3/author/{uuid}",
            get(authors::get)
                .put(authors::update)
                .delete(authors::delete),
        )
        .route("/v3/content", get(content::list).post(content::create))
        .route(
            "/v3/content/{uuid}",
            get(content::get)
                .put(content::update)
                .delete(content::delete),
        )
        .route("/v3/version", get(versions::list))
        .route(
            "/v3/version/{uuid}",
            get(versions::get).put(versions::restore),
        )
        .route("/v3/draft", get(drafts::last).post(drafts::create))
        .route("/v3/attachment/{uuid}", put(attachments::update))
        .route("/v3/lock-request", post(locks::create))
        .route(
            "/v3/note-comment/{uuid}",
            get(comments::notes).post(comments::create_note),
        )
        .route(
            "/v3/assignment-comment/{uuid}",
            get(comments::assignment_comments).post(comments::create_assignment_comment),
        )
        .route(
            "/v3/assignment",
            get(assignments::list).post(assignments::create),
        )
        .route(
            "/v3/assignment/{uuid}",
            get(assignments::get)
                .put(assignments::update)
                .delete(assignments::delete),
        )
        .route(
            "/v3/lock-request/{uuid}",
            get(locks::get).delete(locks::delete),
        )
        .route(
            "/v3/container",
            get(containers::list).post(containers::create),
        )
        .route(
            "/v3/container/{uuid}",
            get(containers::get)
                .put(containers::update)
                .delete(containers::delete),
        )
        .route("/v3/user", get(users::list))
        .route("/v3/user/{uuid}", get(users::get))
        .route("/v3/tag", get(tags::list).post(tags::create))
        .route(
            "/v3/tag/{uuid}",
            get(tags::get).put(tags::update).delete(tags::delete),
        )
        .route("/v3/search", get(search::search))
        .route(
            "/v3/workflow",
            get(planning::list_workflows).post(planning::create_workflow),
        )
        .route("/v3/workflow/{uuid}", get(planning::get_workflow))
        .route(
            "/v3/workflow-section",
            get(planning::list_sections).post(planning::create_section),
        )
        .route("/v3/workflow-section/{uuid}", get(planning::get_section))
        .route(
            "/v3/issue",
            get(planning::list_issues).post(planning::create_issue),
        )
        .route("/v3/issue/{uuid}", get(planning::get_issue))
        .route(
            "/v3/print-document",
            get(print_documents::list).post(print_documents::create),
        )
        .route(
            "/v3/print-document/{identifier}",
            get(print_documents::get).put(print_documents::update),
        )
        .route(
            "/v3/print-document/{uuid}/lock",
            post(print_documents::lock).delete(print_documents::unlock),
        )
        .route("/v3/export/{uuid}", get(exports::get).put(exports::update))
        .route("/v3/export/{uuid}/as/{format}", get(exports::dump))
        .route("/v3/export/push/{uuid}", put(exports::push))
        .route("/v3/export/pull/{uuid}", put(exports::pull))
        .route(
            "/v3/export/lock/{uuid}",
            put(exports::lock).delete(exports::unlock),
        )
        .route("/files/{salt}/{name}", get(files::serve))
}
