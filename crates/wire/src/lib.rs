//! The JSON shapes of the `/v3` service: numbers as strings, booleans as booleans, `null` for absent.
//!
//! No logic and no IO: the HTTP layer fills these from the service's records,
//! and a sync client reads them back from a remote.

mod action;
pub mod clock;
mod field_error;
pub mod input;
pub mod paging;
pub mod record_type;
pub mod srn;

pub use action::Action;
pub use field_error::FieldError;
pub use record_type::RecordType;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

pub use input::*;

/// The envelope of every list (`items` plus paging numbers, as integers).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct Envelope<T> {
    #[schema(schema_with = items_of::<T>)]
    pub items: Vec<T>,
    pub first: u64,
    pub before: u64,
    pub current: u64,
    pub last: u64,
    pub next: u64,
    pub total_pages: u64,
    pub total_items: u64,
    pub limit: u64,
    /// Present and `true` when `total_items` (and with it `total_pages`
    /// and `last`) is an estimate: a search with more hits than it counts
    /// one by one, or on PostgreSQL a list of more than 10,000 matches. A
    /// full page then always has a next one. An extension; absent whenever
    /// the count is exact.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub total_items_estimated: bool,
}

/// Lists that carry only `items` (comments).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct Items<T> {
    #[schema(schema_with = items_of::<T>)]
    pub items: Vec<T>,
}

/// A list's `items` in the document: an array of references to the item's
/// schema, defined once, rather than a copy of it in every list.
fn items_of<T: ToSchema>() -> utoipa::openapi::schema::Array {
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(utoipa::openapi::Ref::from_schema_name(T::name()))
        .build()
}

/// The answer of a successful DELETE.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Message {
    pub message: String,
}

/// Every error: a sentence for a person and a code for a program.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct ErrorBody {
    /// What went wrong, in words for a person.
    pub error: String,
    /// What went wrong, for a program to branch on.
    pub code: ErrorCode,
    /// The input at fault (a body field, a query parameter or a header), when one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// The code of an error answer: the one list of them. Each is written as
/// its snake_case name (`invalid_request`, `token_expired`, ...); a client
/// branches on it, never on the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// 400: malformed JSON, a wrong type, a missing or bad field or parameter (`field` names it).
    InvalidRequest,
    /// 401: the caller's token is good, but its user lacks the operation's access action.
    ForbiddenAction,
    /// 401: signing in failed: a name and password that do not match, or a
    /// sign-in link that is unknown, expired or used (the message says which).
    SignInRefused,
    /// 403: no token (no `Authorization: Bearer` nor Basic credential).
    TokenMissing,
    /// 403: a malformed or badly signed token, an unknown key, or one not valid yet.
    TokenInvalid,
    /// 403: the token's `exp` has passed.
    TokenExpired,
    /// 403: a request to a desktop app's own server from another `Host` or `Origin`.
    ForeignOrigin,
    /// 404: an unknown UUID, SRN, reference or path.
    NotFound,
    /// 408: the client stopped sending its body for too long.
    Timeout,
    /// 409: someone else holds the item's exclusive lock (or the print document's lock).
    Locked,
    /// 409: a unique value is taken, the record changed meanwhile, or a
    /// repeated idempotency key met a write still in flight.
    Conflict,
    /// 413: the body or the uploaded image is larger than the server takes.
    TooLarge,
    /// 415: the body is not JSON.
    UnsupportedMediaType,
    /// 429: the server, or this key, already has as many uploads in flight as
    /// it takes; or too many sign-ins failed for a name or from an address.
    TooManyRequests,
    /// 500: a failure on the server's side; its log has the details.
    Internal,
    /// 503: a replica needs its central server for this (a lock) and cannot reach it.
    Offline,
    /// 503: the server's database is damaged and takes no more changes.
    DatabaseDamaged,
    /// 503: the server cannot reach its database just now (a PostgreSQL
    /// server restarting or failing over); try again after `Retry-After`.
    DatabaseUnavailable,
}

impl ErrorCode {
    /// Every code, in the order of their statuses.
    pub const ALL: [Self; 18] = [
        Self::InvalidRequest,
        Self::ForbiddenAction,
        Self::SignInRefused,
        Self::TokenMissing,
        Self::TokenInvalid,
        Self::TokenExpired,
        Self::ForeignOrigin,
        Self::NotFound,
        Self::Timeout,
        Self::Locked,
        Self::Conflict,
        Self::TooLarge,
        Self::UnsupportedMediaType,
        Self::TooManyRequests,
        Self::Internal,
        Self::Offline,
        Self::DatabaseDamaged,
        Self::DatabaseUnavailable,
    ];

    /// The code as the wire writes it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidRequest => "invalid_request",
            Self::ForbiddenAction => "forbidden_action",
            Self::SignInRefused => "sign_in_refused",
            Self::TokenMissing => "token_missing",
            Self::TokenInvalid => "token_invalid",
            Self::TokenExpired => "token_expired",
            Self::ForeignOrigin => "foreign_origin",
            Self::NotFound => "not_found",
            Self::Timeout => "timeout",
            Self::Locked => "locked",
            Self::Conflict => "conflict",
            Self::TooLarge => "too_large",
            Self::UnsupportedMediaType => "unsupported_media_type",
            Self::TooManyRequests => "too_many_requests",
            Self::Internal => "internal",
            Self::Offline => "offline",
            Self::DatabaseDamaged => "database_damaged",
            Self::DatabaseUnavailable => "database_unavailable",
        }
    }

    /// The code the wire text names, if it is one of these.
    pub fn from_wire(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|code| code.as_str() == text)
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Token {
    pub token: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct User {
    pub id: String,
    pub uuid: String,
    pub name: String,
    pub slug: String,
    pub email: String,
    pub is_vendor: String,
    pub srn: String,
    /// Shown only where comments embed the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
}

/// The caller of `GET /v3/me`, with the roles and access actions they hold.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Me {
    pub user: User,
    pub roles: Vec<String>,
    pub actions: Vec<Action>,
}

/// The body of `POST /v3/sign-in`: a name and password, or a sign-in link's token.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct SignIn {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// The token of a link `copydesk-server user link` printed (after `#/sign-in/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

/// A sign-in that worked: a new key pair for this browser, and its user.
/// Tokens are signed with it as with any key pair.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct SignedIn {
    pub public_key: String,
    pub private_key: String,
    /// What the key pair is listed as under its user (`key list`).
    pub label: String,
    pub user: User,
}

/// A sign-out that worked: the key pair that signed the request is revoked,
/// and every token signed with it is refused from now on.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct SignedOut {
    /// The public key of the revoked key pair.
    pub revoked: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Author {
    pub id: String,
    pub uuid: String,
    pub slug: String,
    pub name: String,
    pub email: String,
    pub tagline: String,
    pub description: String,
    pub status: String,
    pub created_at: String,
    pub modified_at: String,
    pub srn: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Tag {
    pub id: String,
    pub uuid: String,
    pub name: String,
    pub slug: String,
    pub created_at: String,
    pub modified_at: String,
    pub srn: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Url {
    pub id: String,
    pub uuid: String,
    pub url: String,
    pub content_id: String,
    pub created_at: String,
}

/// A version as a content item lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct VersionSummary {
    pub id: String,
    pub uuid: String,
    pub version: String,
    pub user_id: Option<String>,
    pub created_at: String,
    pub srn: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct AuditEntry {
    pub id: String,
    pub uuid: String,
    pub action: String,
    pub detail: String,
    pub user_id: Option<String>,
    pub user_name: Option<String>,
    pub created_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct Attachment {
    pub id: String,
    pub uuid: String,
    pub base_name: String,
    pub salt: Option<String>,
    pub extension: String,
    pub parent_id: Option<String>,
    pub content_id: String,
    pub height: String,
    pub width: String,
    pub size_name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub preview_extension: String,
    pub container_id: Option<String>,
    pub angle: String,
    /// The master file's size in bytes.
    pub size: String,
    /// The master file's SHA-256, hex: the same file need not be sent again.
    pub sha256: String,
    pub metadata: Option<Value>,
    pub srn: String,
    pub public_url: String,
    pub original_url: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct Content {
    pub id: String,
    pub uuid: String,
    pub title: String,
    pub slug: String,
    #[serde(rename = "type")]
    pub content_type: String,
    pub version: String,
    pub weight: String,
    #[serde(rename = "abstract")]
    pub abstract_text: String,
    pub abstract_raw: String,
    pub content: String,
    pub content_raw: String,
    pub created_at: String,
    pub modified_at: String,
    pub published_at: Option<String>,
    pub state: String,
    pub url_id: Option<String>,
    pub user_id: Option<String>,
    pub assignment_id: Option<String>,
    pub title_url: String,
    pub workflow_id: String,
    pub dominant_attachment_id: Option<String>,
    pub has_attachment: String,
    pub container_id: Option<String>,
    pub srn: String,
    pub ssts_path: String,
    /// The print side of the item (an [`Export`]); `{}` when it has none.
    #[schema(value_type = Object)]
    pub export: Value,
    pub authors: Vec<Author>,
    pub tags: Vec<Tag>,
    pub urls: Vec<Url>,
    pub lock: bool,
    /// Who holds the exclusive lock, and since when (a Copydesk addition; `null` when free).
    #[serde(default)]
    pub lock_request: Option<LockRequest>,
    pub versions: Vec<VersionSummary>,
    pub audit: Vec<AuditEntry>,
    /// The lead photo: the media item whose attachment is the dominant one
    /// (its UUID, file, caption and authors), or null; as the hosted
    /// service's clients read it.
    #[serde(
        rename = "dominantAttachment",
        default,
        deserialize_with = "lead_photo_if_readable"
    )]
    pub dominant_attachment: Option<LeadPhoto>,
    pub attachment: Option<Attachment>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Version {
    pub id: String,
    pub uuid: String,
    pub slug: String,
    #[serde(rename = "type")]
    pub content_type: String,
    pub version: String,
    pub weight: String,
    #[serde(rename = "abstract")]
    pub abstract_text: String,
    pub abstract_raw: String,
    pub content: String,
    pub content_raw: String,
    pub created_at: String,
    pub modified_at: String,
    pub published_at: Option<String>,
    pub state: String,
    pub url_id: Option<String>,
    pub content_id: String,
    pub user_id: Option<String>,
    pub title_url: String,
    pub workflow_id: String,
    pub title: String,
    pub dominant_attachment_id: Option<String>,
    pub srn: String,
    pub user: Option<User>,
    /// The item's authors when this version was saved, embedded as the content
    /// item embeds them (a Copydesk addition to the specification's Version).
    #[serde(default)]
    pub authors: Vec<Author>,
    /// The item's tags when this version was saved, embedded as the content
    /// item embeds them (a Copydesk addition to the specification's Version).
    #[serde(default)]
    pub tags: Vec<Tag>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Draft {
    pub id: String,
    pub uuid: String,
    pub content: String,
    pub content_raw: String,
    pub version: String,
    pub created_at: String,
    pub user_id: Option<String>,
    /// The rest of the editor's form typed with this body (a Copydesk
    /// addition to the specification's Draft); `null` for a body alone.
    #[serde(default)]
    pub fields: Option<DraftFields>,
    /// Its writer saved a version of the item since, so it is no longer
    /// unsaved text (a Copydesk addition).
    #[serde(default)]
    pub saved: bool,
    /// Who wrote it: embedded where the draft is another person's
    /// (`GET /v3/draft/others`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<User>,
}

/// The fields of a story's form a draft holds besides its body. A field
/// left out is one the draft does not hold (the story's own stands).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct DraftFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slug: Option<String>,
    #[serde(default, rename = "abstract", skip_serializing_if = "Option::is_none")]
    pub abstract_text: Option<String>,
    /// Author UUIDs, in byline order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authors: Option<Vec<String>>,
    /// Tag UUIDs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// URL paths, one per entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urls: Option<Vec<String>>,
    /// The lead photo: a media item's UUID, or `null` when taken off.
    #[serde(
        default,
        rename = "dominantAttachment",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::input::nullable"
    )]
    #[schema(value_type = Option<String>)]
    pub dominant_attachment: Option<Option<String>>,
    /// The form's Published box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<bool>,
}

/// The last draft of an item carried onto its current version
/// (`GET /v3/draft/merged`, a Copydesk extension).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct MergedDraft {
    /// The draft as it was saved.
    pub draft: Draft,
    /// The item's version now, which `content` is based on.
    pub version: String,
    /// The draft merged onto that version, as HTML and Draft.js raw content.
    pub content: String,
    pub content_raw: String,
    /// The draft's other fields merged onto that version likewise (those it held).
    pub fields: Option<DraftFields>,
    /// Paragraphs of the body both changed in the same words: the version's
    /// wording is in `content`, the draft's is here.
    pub conflicts: Vec<TextConflict>,
    /// Other fields (or paragraphs of the abstract) both changed
    /// differently: the version's value is in `fields`, the draft's here.
    #[serde(default)]
    pub field_conflicts: Vec<FieldConflict>,
}

/// A field of a story both sides changed differently.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct FieldConflict {
    /// As the content item names it: `title`, `slug`, `abstract`, `authors`,
    /// `tags`, `dominantAttachment`, `published_at`, `type`, `weight`, `state`.
    pub field: String,
    /// This side's value (the draft's or the save's).
    pub mine: String,
    /// The other side's, which the merged story holds.
    pub theirs: String,
}

/// One paragraph two texts changed in the same words.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct TextConflict {
    /// Its index among the merged text's paragraphs, from 0.
    pub position: String,
    /// This side's paragraph (the draft's), as HTML.
    pub mine: String,
    /// The other side's, which the merged text holds.
    pub theirs: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// Another server's `dominantAttachment` may be shaped otherwise (the
/// hosted service's carries fields of its own): a client reads what it can
/// and never fails on it.
fn lead_photo_if_readable<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<LeadPhoto>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).ok())
}

/// The media item a story leads with (`dominantAttachment`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct LeadPhoto {
    /// The media item's UUID (fetch it as a content item).
    pub uuid: String,
    pub srn: String,
    pub title: String,
    /// The caption: the media item's body.
    pub content: String,
    pub authors: Vec<Author>,
    pub attachment: Attachment,
}

/// A content item as a container lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct ContainedContent {
    pub id: String,
    pub uuid: String,
    pub title: String,
    pub slug: String,
    #[serde(rename = "type")]
    pub content_type: String,
    pub version: String,
    pub published_at: Option<String>,
    pub modified_at: String,
    pub srn: String,
    pub attachment: Option<Attachment>,
    pub urls: Vec<Url>,
    pub lock: bool,
    pub container_id: String,
    pub assignment_id: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct Container {
    pub id: String,
    pub uuid: String,
    pub title: String,
    pub slug: String,
    pub description: String,
    #[serde(rename = "type")]
    pub container_type: String,
    pub created_at: String,
    pub modified_at: String,
    pub sort_order: Option<String>,
    pub published_at: Option<String>,
    pub srn: String,
    pub lock: bool,
    pub content: Vec<ContainedContent>,
    pub tags: Vec<Tag>,
    /// A gallery's media placeholder (the UUID of the item it made), listed first in `content`.
    #[serde(default)]
    pub placeholder: Option<String>,
}

/// One search result: the record of the type searched (a content item, an
/// author or a tag). Documented as an object: the three shapes overlap.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum SearchHit {
    Content(Box<Content>),
    Author(Author),
    Tag(Tag),
}

impl utoipa::PartialSchema for SearchHit {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::SchemaType::new(
                utoipa::openapi::schema::Type::Object,
            ))
            .description(Some(
                "A content item, an author or a tag, as the search type asks",
            ))
            .into()
    }
}

impl ToSchema for SearchHit {}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct LockRequest {
    pub id: String,
    pub uuid: String,
    /// The SRN of the locked item.
    pub srn: String,
    pub user_id: String,
    pub state: String,
    pub created_at: String,
    pub modified_at: String,
    pub user: Option<User>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct NoteComment {
    pub id: String,
    pub uuid: String,
    pub reference: String,
    pub user_id: Option<String>,
    pub comment: String,
    pub created_at: String,
    pub version: String,
    pub draft_uuid: String,
    pub parent_id: String,
    pub user: Option<User>,
}

/// An in-content note of a story (`GET /v3/content/{uuid}/notes`, a
/// Copydesk extension): its thread is `/v3/note-comment/{uuid}`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct StoryNote {
    /// The note's UUID, the reference of its thread.
    pub uuid: String,
    /// The words it is on, or was last on.
    pub words: String,
    /// `open` (on its words), `resolved` (on its words, hidden from the
    /// page) or `words_deleted` (its words are no longer in the story).
    pub state: String,
    /// The last version that had it on its words.
    pub version: String,
}

/// Someone in a story (`/v3/presence`, and `presence` events on the
/// change stream; a Copydesk extension).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Presence {
    /// The story's UUID.
    pub content: String,
    pub user_uuid: String,
    pub name: String,
    /// The Draft.js key of the block their cursor is in.
    pub block: Option<String>,
    pub editing: bool,
    /// When they came into the story.
    pub since: String,
    /// `false` in the event of their leaving (or their time running out).
    pub here: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct AssignmentComment {
    pub id: String,
    pub uuid: String,
    pub user_id: Option<String>,
    pub assignment_id: String,
    pub comment: String,
    pub created_at: String,
    pub user: Option<User>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Assignment {
    pub id: String,
    pub uuid: String,
    pub title: String,
    pub description: String,
    pub due_at: Option<String>,
    pub assignee_id: Option<String>,
    pub content_id: Option<String>,
    /// The UUID of the content item `content_id` names.
    #[serde(default)]
    pub content_uuid: Option<String>,
    pub user_id: Option<String>,
    pub created_at: String,
    pub modified_at: String,
    pub srn: String,
    pub assignee: Option<User>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Issue {
    pub id: String,
    pub uuid: String,
    pub label: String,
    pub description: String,
    pub status: String,
    pub created_at: String,
    pub modified_at: String,
    pub published_at: Option<String>,
    pub srn: String,
    pub decorated_label: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Workflow {
    pub id: String,
    pub uuid: String,
    pub slug: String,
    pub name: String,
    pub status: String,
    pub is_web: String,
    pub is_print: String,
    pub priority: String,
    pub is_content: String,
    pub is_assignment: String,
    pub srn: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct WorkflowSection {
    pub id: String,
    pub uuid: String,
    pub workflow_id: Option<String>,
    pub name: String,
    pub slug: String,
    pub created_at: String,
    pub modified_at: String,
    pub srn: String,
    /// For print pages (a print plugin keeps only these): `"1"` or `"0"`,
    /// as the workflow's flags are written.
    pub is_print: String,
    /// For the web: `"1"` or `"0"`.
    pub is_web: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct PrintDocument {
    pub id: String,
    pub uuid: String,
    pub label: String,
    /// The tracking label with every character but letters and digits
    /// removed, as the specification defines it: the document's unique key.
    pub tracking_label: String,
    /// The tracking label as it was typed (a path and file name), to show.
    pub tracking_path: String,
    pub issue_id: String,
    pub workflow_id: String,
    pub print_locked: String,
    /// The UUID of the user who has the document out.
    pub print_locked_user: Option<String>,
    pub created_at: String,
    pub modified_at: String,
    pub assignee_id: String,
    pub workflow_section_id: String,
    pub issue: Option<Issue>,
    pub workflow: Option<Workflow>,
    /// Who created, changed, locked, unlocked, took over or forced the lock, and when.
    pub audit: Vec<AuditEntry>,
}

/// The print side of a content item, as its `export` field shows it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Export {
    pub id: String,
    pub uuid: String,
    pub content_id: String,
    pub workflow_id: String,
    pub assignee_id: String,
    pub issue_id: String,
    pub workflow_section_id: String,
    pub content: String,
    pub version: String,
    pub created_at: String,
    pub modified_at: String,
    pub user_id: Option<String>,
    /// The user who last changed the export.
    pub user: Option<User>,
    /// Who works on the print side, as a notice; `null` when nobody said so.
    pub lock: Option<ExportLock>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct ExportLock {
    pub user_id: String,
    pub user: Option<User>,
    pub locked_at: Option<String>,
}

/// One entry of the change feed: a record and the latest thing that happened to it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct Change {
    pub seq: String,
    pub record_type: String,
    pub uuid: String,
    /// `create`, `update` or `delete`.
    pub operation: String,
    pub changed_at: String,
    /// The record it is read through: a note comment's thread reference, an
    /// assignment comment's assignment, a draft's or an attachment's content item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

/// A page of the change feed.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct ChangeFeed {
    pub items: Vec<Change>,
    /// The cursor this page starts after.
    pub since: String,
    /// The cursor to ask with next.
    pub last: String,
    /// Whether more changes wait after `last`.
    pub more: bool,
}

/// `GET /v3/sync/status`: a replica's sync state.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct SyncStatus {
    /// The central server this replica syncs with (`null`: none, it is its own source of truth).
    #[serde(default)]
    pub remote: Option<String>,
    pub online: bool,
    /// When the last round did not reach the central server: why, in words.
    #[serde(default)]
    pub offline_reason: Option<String>,
    /// When the last round did not reach it because this copy does not
    /// trust its certificate (the newsroom's authority is not installed
    /// here, a network in between intercepts HTTPS, or the certificate is
    /// out of date, or this computer's clock): a person must look.
    #[serde(default)]
    pub certificate_untrusted: bool,
    /// When the last round that succeeded ended: the last good sync (`null`: none yet).
    pub last_sync_at: Option<String>,
    /// Why the last round failed, whatever the reason (the server not
    /// reached, a refusal, a page this copy could not keep), in words;
    /// `null` when it succeeded. A failed round is never a good sync.
    #[serde(default)]
    pub last_error: Option<String>,
    /// When that round failed.
    #[serde(default)]
    pub last_error_at: Option<String>,
    /// What this replica does not receive because its key may not read it,
    /// one entry per type and missing action; empty when it receives everything.
    #[serde(default)]
    pub not_readable: Vec<NotReadable>,
    pub pending: String,
    pub conflicts: String,
    pub needs_attention: String,
    /// Whether a sync round is running in this process now.
    #[serde(default)]
    pub syncing: bool,
    /// Whether this process listens to the central server's change stream
    /// now (the desktop app, `serve --remote`): the desk's changes arrive
    /// as they are made, not at the next round.
    #[serde(default)]
    pub live: bool,
    /// While syncing: changes brought in and sent so far this round.
    #[serde(default)]
    pub progress_pulled: String,
    #[serde(default)]
    pub progress_pushed: String,
}

/// Records of one type a replica does not receive: its key lacks the
/// action the central server named. They are tried again each round and
/// arrive once the key may read them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct NotReadable {
    /// `print_document`, `content`, ...
    pub record_type: String,
    /// What a person calls several of them: `print documents`.
    pub label: String,
    /// The access action the key lacks: `PRINTDOCUMENT create`.
    pub action: String,
    /// How many records are not synced; `null` when the server would not
    /// even list the type (a plain remote), so the count is unknown.
    pub count: Option<String>,
}

/// What a person calls a synced record, and the story it belongs to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct RecordLabel {
    /// `content`, `author`, `note_comment`, ...
    pub record_type: String,
    pub uuid: String,
    /// Its headline, name or label; for a record of a story (its draft, a
    /// note, its attachment), the story's headline; empty when it is gone.
    pub headline: String,
    /// The story it is or belongs to, to open it; null for none.
    pub story_uuid: Option<String>,
}

/// A local change waiting to go to the central server.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct WaitingChange {
    pub srn: String,
    pub record: RecordLabel,
    /// `create`, `update` or `delete`: the latest change made here.
    pub operation: String,
    /// How often sending it failed for a passing reason.
    pub attempts: String,
    /// The last such reason, or null.
    pub last_error: Option<String>,
    pub since: String,
}

/// A change the central server refused, set aside with the edit kept.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct NeedsAttention {
    pub record_type: String,
    pub uuid: String,
    pub srn: String,
    pub record: RecordLabel,
    /// Why the server refused it.
    pub error: String,
    pub attempts: String,
    pub since: String,
}

/// A conflict sync found: one field changed on both sides (or an edit
/// against a delete); for a story's body or abstract, one paragraph of it,
/// with `mine` and `theirs` that paragraph's HTML.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct SyncConflict {
    pub uuid: String,
    /// The record's SRN.
    pub srn: String,
    /// The record, as a person calls it.
    pub record: RecordLabel,
    pub field: String,
    pub mine: String,
    pub theirs: String,
    pub created_at: String,
    /// Where the paragraph stands, when the conflict is one paragraph; else null.
    pub block: Option<ConflictBlock>,
}

/// Where a conflicting paragraph stands in the merged text.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct ConflictBlock {
    /// Its index among the text's paragraphs, from 0.
    pub position: String,
    /// The merged text of the paragraph before it, and after it (null at the edges).
    pub before: Option<String>,
    pub after: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::{ErrorBody, ErrorCode};

    #[test]
    fn error_codes_are_written_as_their_names() {
        for code in ErrorCode::ALL {
            let written = serde_json::to_value(code).expect("serialises");
            assert_eq!(written, code.as_str(), "{code:?}");
            let read: ErrorCode = serde_json::from_value(written).expect("reads back");
            assert_eq!(read, code);
            assert_eq!(ErrorCode::from_wire(code.as_str()), Some(code));
            assert_eq!(code.to_string(), code.as_str());
        }
        let mut names: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ErrorCode::ALL.len(), "every code once");
        assert_eq!(ErrorCode::from_wire("teapot"), None);
    }

    #[test]
    fn an_error_body_is_the_contract_shape() {
        let body = ErrorBody {
            error: "no such item".into(),
            code: ErrorCode::NotFound,
            field: None,
        };
        assert_eq!(
            serde_json::to_string(&body).expect("serialises"),
            r#"{"error":"no such item","code":"not_found"}"#
        );
    }
}
