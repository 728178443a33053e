//! The access actions the service checks, `<RESOURCE> <action>` as the specification names them: one closed list, for the service, its HTTP layer and (through the OpenAPI document) the UI.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// An access action, named on the wire as the specification names it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
pub enum Action {
    #[serde(rename = "AUTHOR list")]
    AuthorList,
    #[serde(rename = "AUTHOR get")]
    AuthorGet,
    #[serde(rename = "AUTHOR create")]
    AuthorCreate,
    #[serde(rename = "AUTHOR update")]
    AuthorUpdate,
    #[serde(rename = "AUTHOR delete")]
    AuthorDelete,
    #[serde(rename = "CONTENT list")]
    ContentList,
    #[serde(rename = "CONTENT get")]
    ContentGet,
    #[serde(rename = "CONTENT create")]
    ContentCreate,
    #[serde(rename = "CONTENT update")]
    ContentUpdate,
    #[serde(rename = "CONTENT delete")]
    ContentDelete,
    #[serde(rename = "CONTENT publish")]
    ContentPublish,
    #[serde(rename = "CONTENT type_article")]
    ContentTypeArticle,
    #[serde(rename = "CONTENT type_post")]
    ContentTypePost,
    #[serde(rename = "CONTENT type_media")]
    ContentTypeMedia,
    #[serde(rename = "CONTENT type_page")]
    ContentTypePage,
    #[serde(rename = "VERSION list")]
    VersionList,
    #[serde(rename = "VERSION get")]
    VersionGet,
    #[serde(rename = "VERSION restore")]
    VersionRestore,
    #[serde(rename = "DRAFT list")]
    DraftList,
    #[serde(rename = "DRAFT create")]
    DraftCreate,
    #[serde(rename = "ATTACHMENT update")]
    AttachmentUpdate,
    #[serde(rename = "CONTAINER list")]
    ContainerList,
    #[serde(rename = "CONTAINER get")]
    ContainerGet,
    #[serde(rename = "CONTAINER create")]
    ContainerCreate,
    #[serde(rename = "CONTAINER update")]
    ContainerUpdate,
    #[serde(rename = "CONTAINER delete")]
    ContainerDelete,
    #[serde(rename = "USER list")]
    UserList,
    #[serde(rename = "USER get")]
    UserGet,
    #[serde(rename = "TAG list")]
    TagList,
    #[serde(rename = "TAG get")]
    TagGet,
    #[serde(rename = "TAG create")]
    TagCreate,
    #[serde(rename = "TAG update")]
    TagUpdate,
    #[serde(rename = "TAG delete")]
    TagDelete,
    #[serde(rename = "LOCKREQUEST get")]
    LockRequestGet,
    #[serde(rename = "LOCKREQUEST create")]
    LockRequestCreate,
    #[serde(rename = "LOCKREQUEST delete")]
    LockRequestDelete,
    #[serde(rename = "NOTECOMMENT get")]
    NoteCommentGet,
    #[serde(rename = "NOTECOMMENT create")]
    NoteCommentCreate,
    #[serde(rename = "ASSIGNMENT list")]
    AssignmentList,
    #[serde(rename = "ASSIGNMENT get")]
    AssignmentGet,
    #[serde(rename = "ASSIGNMENT create")]
    AssignmentCreate,
    #[serde(rename = "ASSIGNMENT update")]
    AssignmentUpdate,
    #[serde(rename = "ASSIGNMENT delete")]
    AssignmentDelete,
    #[serde(rename = "ASSIGNMENTCOMMENT list")]
    AssignmentCommentList,
    #[serde(rename = "ASSIGNMENTCOMMENT create")]
    AssignmentCommentCreate,
    #[serde(rename = "EXPORT get")]
    ExportGet,
    #[serde(rename = "EXPORT dump")]
    ExportDump,
    #[serde(rename = "EXPORT update")]
    ExportUpdate,
    #[serde(rename = "EXPORT push")]
    ExportPush,
    #[serde(rename = "EXPORT pull")]
    ExportPull,
    #[serde(rename = "EXPORT lock")]
    ExportLock,
    #[serde(rename = "PRINTDOCUMENT get")]
    PrintDocumentGet,
    #[serde(rename = "PRINTDOCUMENT create")]
    PrintDocumentCreate,
    #[serde(rename = "PRINTDOCUMENT update")]
    PrintDocumentUpdate,
    #[serde(rename = "PRINTDOCUMENT passThruLock")]
    PrintDocumentPassThruLock,
    #[serde(rename = "WORKFLOW list")]
    WorkflowList,
    #[serde(rename = "WORKFLOW get")]
    WorkflowGet,
    #[serde(rename = "WORKFLOW create")]
    WorkflowCreate,
    #[serde(rename = "WORKFLOWSECTION list")]
    WorkflowSectionList,
    #[serde(rename = "WORKFLOWSECTION get")]
    WorkflowSectionGet,
    #[serde(rename = "WORKFLOWSECTION create")]
    WorkflowSectionCreate,
    #[serde(rename = "ISSUE list")]
    IssueList,
    #[serde(rename = "ISSUE get")]
    IssueGet,
    #[serde(rename = "ISSUE create")]
    IssueCreate,
    #[serde(rename = "CHANGES list")]
    ChangesList,
    #[serde(rename = "SYNC get")]
    SyncGet,
    #[serde(rename = "SYNC resolve")]
    SyncResolve,
}

impl Action {
    /// Every action, in the specification's order.
    pub const ALL: &'static [Action] = &[
        Action::AuthorList,
        Action::AuthorGet,
        Action::AuthorCreate,
        Action::AuthorUpdate,
        Action::AuthorDelete,
        Action::ContentList,
        Action::ContentGet,
        Action::ContentCreate,
        Action::ContentUpdate,
        Action::ContentDelete,
        Action::ContentPublish,
        Action::ContentTypeArticle,
        Action::ContentTypePost,
        Action::ContentTypeMedia,
        Action::ContentTypePage,
        Action::VersionList,
        Action::VersionGet,
        Action::VersionRestore,
        Action::DraftList,
        Action::DraftCreate,
        Action::AttachmentUpdate,
        Action::ContainerList,
        Action::ContainerGet,
        Action::ContainerCreate,
        Action::ContainerUpdate,
        Action::ContainerDelete,
        Action::UserList,
        Action::UserGet,
        Action::TagList,
        Action::TagGet,
        Action::TagCreate,
        Action::TagUpdate,
        Action::TagDelete,
        Action::LockRequestGet,
        Action::LockRequestCreate,
        Action::LockRequestDelete,
        Action::NoteCommentGet,
        Action::NoteCommentCreate,
        Action::AssignmentList,
        Action::AssignmentGet,
        Action::AssignmentCreate,
        Action::AssignmentUpdate,
        Action::AssignmentDelete,
        Action::AssignmentCommentList,
        Action::AssignmentCommentCreate,
        Action::ExportGet,
        Action::ExportDump,
        Action::ExportUpdate,
        Action::ExportPush,
        Action::ExportPull,
        Action::ExportLock,
        Action::PrintDocumentGet,
        Action::PrintDocumentCreate,
        Action::PrintDocumentUpdate,
        Action::PrintDocumentPassThruLock,
        Action::WorkflowList,
        Action::WorkflowGet,
        Action::WorkflowCreate,
        Action::WorkflowSectionList,
        Action::WorkflowSectionGet,
        Action::WorkflowSectionCreate,
        Action::IssueList,
        Action::IssueGet,
        Action::IssueCreate,
        Action::ChangesList,
        Action::SyncGet,
        Action::SyncResolve,
    ];

    /// Its name, as the wire and the stored grants write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::AuthorList => "AUTHOR list",
            Action::AuthorGet => "AUTHOR get",
            Action::AuthorCreate => "AUTHOR create",
            Action::AuthorUpdate => "AUTHOR update",
            Action::AuthorDelete => "AUTHOR delete",
            Action::ContentList => "CONTENT list",
            Action::ContentGet => "CONTENT get",
            Action::ContentCreate => "CONTENT create",
            Action::ContentUpdate => "CONTENT update",
            Action::ContentDelete => "CONTENT delete",
            Action::ContentPublish => "CONTENT publish",
            Action::ContentTypeArticle => "CONTENT type_article",
            Action::ContentTypePost => "CONTENT type_post",
            Action::ContentTypeMedia => "CONTENT type_media",
            Action::ContentTypePage => "CONTENT type_page",
            Action::VersionList => "VERSION list",
            Action::VersionGet => "VERSION get",
            Action::VersionRestore => "VERSION restore",
            Action::DraftList => "DRAFT list",
            Action::DraftCreate => "DRAFT create",
            Action::AttachmentUpdate => "ATTACHMENT update",
            Action::ContainerList => "CONTAINER list",
            Action::ContainerGet => "CONTAINER get",
            Action::ContainerCreate => "CONTAINER create",
            Action::ContainerUpdate => "CONTAINER update",
            Action::ContainerDelete => "CONTAINER delete",
            Action::UserList => "USER list",
            Action::UserGet => "USER get",
            Action::TagList => "TAG list",
            Action::TagGet => "TAG get",
            Action::TagCreate => "TAG create",
            Action::TagUpdate => "TAG update",
            Action::TagDelete => "TAG delete",
            Action::LockRequestGet => "LOCKREQUEST get",
            Action::LockRequestCreate => "LOCKREQUEST create",
            Action::LockRequestDelete => "LOCKREQUEST delete",
            Action::NoteCommentGet => "NOTECOMMENT get",
            Action::NoteCommentCreate => "NOTECOMMENT create",
            Action::AssignmentList => "ASSIGNMENT list",
            Action::AssignmentGet => "ASSIGNMENT get",
            Action::AssignmentCreate => "ASSIGNMENT create",
            Action::AssignmentUpdate => "ASSIGNMENT update",
            Action::AssignmentDelete => "ASSIGNMENT delete",
            Action::AssignmentCommentList => "ASSIGNMENTCOMMENT list",
            Action::AssignmentCommentCreate => "ASSIGNMENTCOMMENT create",
            Action::ExportGet => "EXPORT get",
            Action::ExportDump => "EXPORT dump",
            Action::ExportUpdate => "EXPORT update",
            Action::ExportPush => "EXPORT push",
            Action::ExportPull => "EXPORT pull",
            Action::ExportLock => "EXPORT lock",
            Action::PrintDocumentGet => "PRINTDOCUMENT get",
            Action::PrintDocumentCreate => "PRINTDOCUMENT create",
            Action::PrintDocumentUpdate => "PRINTDOCUMENT update",
            Action::PrintDocumentPassThruLock => "PRINTDOCUMENT passThruLock",
            Action::WorkflowList => "WORKFLOW list",
            Action::WorkflowGet => "WORKFLOW get",
            Action::WorkflowCreate => "WORKFLOW create",
            Action::WorkflowSectionList => "WORKFLOWSECTION list",
            Action::WorkflowSectionGet => "WORKFLOWSECTION get",
            Action::WorkflowSectionCreate => "WORKFLOWSECTION create",
            Action::IssueList => "ISSUE list",
            Action::IssueGet => "ISSUE get",
            Action::IssueCreate => "ISSUE create",
            Action::ChangesList => "CHANGES list",
            Action::SyncGet => "SYNC get",
            Action::SyncResolve => "SYNC resolve",
        }
    }
}

impl Action {
    /// The action named `name`; `None` for a name this service does not check.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|action| action.as_str() == name)
    }

    /// The resource it acts on: `CONTENT` of `CONTENT get`.
    pub fn resource(self) -> &'static str {
        self.as_str()
            .split_once(' ')
            .map_or(self.as_str(), |(resource, _)| resource)
    }

    /// What it does: `get` of `CONTENT get`.
    pub fn verb(self) -> &'static str {
        self.as_str().split_once(' ').map_or("", |(_, verb)| verb)
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_is_named_as_it_is_written_on_the_wire() {
        for action in Action::ALL {
            assert_eq!(Action::named(action.as_str()), Some(*action));
            assert_eq!(
                serde_json::to_value(action).ok(),
                Some(serde_json::Value::String(action.as_str().to_owned()))
            );
        }
        assert_eq!(Action::ContentGet.resource(), "CONTENT");
        assert_eq!(Action::PrintDocumentPassThruLock.verb(), "passThruLock");
        assert_eq!(Action::named("CONTENT steal"), None);
    }
}
