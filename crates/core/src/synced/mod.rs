//! What sync knows about each record type it carries, behind one trait, so
//! that the replica's side of sync (`replica.rs`) and the engine treat every
//! type alike: a record is a JSON object of strings, references written as
//! the remote's UUIDs.
//!
//! Each type is one module here implementing [`SyncedType`];
//! [`RecordType::synced`] is the one exhaustive `match` that hands it out, so
//! a new [`RecordType`] variant does not compile until it is given one (or
//! is said not to travel).
//!
//! Two families: records that change (authors, tags, content, containers,
//! assignments, print documents, attachments) merge field by field; records
//! that are only ever added (note comments, assignment comments, drafts,
//! workflows, issues) are created once and then left alone.

mod assignment;
mod assignment_comment;
mod attachment;
mod author;
mod container;
mod content;
mod draft;
mod issue;
mod local;
mod note_comment;
mod print_document;
mod tag;
mod workflow;

use crate::db::Transaction;
use serde_json::{Map, Value};

use crate::error::{CoreError, Result};
pub use crate::record_type::RecordType;
use crate::store::uploads::WrittenFiles;

pub use local::FieldReader;
pub(crate) use local::local_of;

/// A record's synced fields, each a string.
pub type Fields = Map<String, Value>;

/// Where a record type is read and sent on the remote `/v3` service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteAccess {
    /// At `/v3/{path}/{uuid}`: listed, created, updated and deleted there.
    Own,
    /// A content item's attachment: read from the item, sent to `/v3/attachment/{content}`.
    ContentAttachment,
    /// A note in the thread `/v3/note-comment/{reference}`.
    NoteThread,
    /// A comment in `/v3/assignment-comment/{assignment}`.
    AssignmentComments,
    /// A draft in `/v3/draft?content={srn}` of a content item.
    ContentDrafts,
}

impl RemoteAccess {
    /// The type of the record one of this access is read through (`None`:
    /// read at its own address). Without that record here, it cannot be
    /// written here either.
    pub fn parent_type(self) -> Option<RecordType> {
        match self {
            Self::Own => None,
            Self::ContentAttachment | Self::NoteThread | Self::ContentDrafts => {
                Some(RecordType::Content)
            }
            Self::AssignmentComments => Some(RecordType::Assignment),
        }
    }
}

/// Everything sync needs to know about one record type.
pub trait SyncedType: Sync {
    /// The type this describes.
    fn record_type(&self) -> RecordType;

    /// The local table its records live in.
    fn table(&self) -> &'static str;

    /// The fields sync carries, as both sides name them. List fields hold
    /// JSON arrays of the remote's UUIDs; a reference holds one.
    fn fields(&self) -> &'static [&'static str];

    /// Where the remote reads and takes it.
    fn remote_access(&self) -> RemoteAccess {
        RemoteAccess::Own
    }

    /// Whether its records are only ever added, never changed through the API.
    fn append_only(&self) -> bool {
        false
    }

    /// The field naming the record it is read through (its thread, its
    /// assignment, its content item), for a type not at its own address.
    fn parent_field(&self) -> Option<&'static str> {
        None
    }

    /// The query finding, from a record's UUID, the UUID of the record it is
    /// read through (the change feed names it beside each change).
    fn parent_query(&self) -> Option<&'static str> {
        None
    }

    /// The records a record refers to, as `(type, remote UUID)`: they must be
    /// here before it is written, and on the remote before it is sent.
    fn references(&self, _fields: &Fields) -> Vec<(RecordType, String)> {
        Vec::new()
    }

    /// Rich-text fields merged paragraph by paragraph: `(HTML, Draft.js raw)` pairs.
    fn rich_text(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// The query finding, from a record's UUID, what a person calls it (a
    /// headline, a name, a label; for a record of a story, the story's
    /// headline) and the UUID of the story it belongs to, if any.
    fn label_query(&self) -> &'static str;

    /// The fields that find, among the remote's records, one a create whose
    /// answer was lost made (empty: such a create is never doubled).
    fn identifying(&self) -> &'static [&'static str];

    /// The field a full listing is ordered by, oldest change first.
    fn list_order(&self) -> &'static str {
        "modified_at"
    }

    /// The synced fields of a record as the remote's answer shows it.
    fn fields_of_answer(&self, record: &Value) -> Fields {
        plain_fields(self.fields(), record)
    }

    /// Fields sent as JSON arrays in a request body.
    fn list_fields(&self) -> &'static [&'static str] {
        &[]
    }

    /// Fields sent as `null` in a request body when they are empty.
    fn nullable_fields(&self) -> &'static [&'static str] {
        &[]
    }

    /// Fields that never go into a request body (the remote sets them).
    fn unsent_fields(&self) -> &'static [&'static str] {
        &[]
    }

    /// The request body that sends these fields (see [`body_of`]).
    fn request_body(&self, fields: &Fields) -> Value {
        body_of(self, fields)
    }

    /// The record's synced fields now (`None`: not here).
    fn read(&self, reader: &mut FieldReader<'_, '_>, uuid: &str) -> Result<Option<Fields>>;

    /// Writes pulled fields into the local record with `uuid`, creating it when missing.
    fn write(
        &self,
        tx: &Transaction<'_>,
        uuid: &str,
        fields: &Fields,
        files: Option<&WrittenFiles>,
    ) -> Result<Written>;

    /// Removes the local record with `uuid` (what depends on it goes with it).
    fn delete(&self, tx: &Transaction<'_>, uuid: &str) -> Result<()> {
        let sql = format!("DELETE FROM {} WHERE uuid = ?1", self.table());
        tx.prepare_cached(&sql)?.execute([uuid])?;
        Ok(())
    }
}

/// What sync does with each record type: a trait of the service's own, as
/// the type itself is the wire crate's.
pub trait TypeSynced: Copy {
    /// What sync does with this type; `None` for a type that does not travel.
    fn synced(self) -> Option<&'static dyn SyncedType>;

    /// What sync does with this type, or an error naming it when it does not travel.
    fn carried(self) -> Result<&'static dyn SyncedType>;

    /// Whether sync carries this type.
    fn is_synced(self) -> bool {
        self.synced().is_some()
    }

    /// Whether it is read through another record rather than at its own address.
    fn read_through(self) -> bool {
        self.synced()
            .is_some_and(|t| t.remote_access() != RemoteAccess::Own)
    }

    /// Whether its records are only ever added.
    fn append_only(self) -> bool {
        self.synced().is_some_and(|t| t.append_only())
    }
}

impl TypeSynced for RecordType {
    fn synced(self) -> Option<&'static dyn SyncedType> {
        match self {
            Self::Author => Some(&author::Author),
            Self::Tag => Some(&tag::Tag),
            Self::Content => Some(&content::Content),
            Self::Assignment => Some(&assignment::Assignment),
            Self::Container => Some(&container::Container),
            Self::Workflow => Some(&workflow::Workflow),
            Self::Issue => Some(&issue::Issue),
            Self::PrintDocument => Some(&print_document::PrintDocument),
            Self::Attachment => Some(&attachment::Attachment),
            Self::NoteComment => Some(&note_comment::NoteComment),
            Self::AssignmentComment => Some(&assignment_comment::AssignmentComment),
            Self::Draft => Some(&draft::Draft),
            // Each server keeps its own users, versions, exports, locks and
            // section settings: logged for the change feed, never synced.
            Self::User
            | Self::Version
            | Self::Export
            | Self::LockRequest
            | Self::WorkflowSection => None,
        }
    }

    fn carried(self) -> Result<&'static dyn SyncedType> {
        self.synced()
            .ok_or_else(|| CoreError::Internal(format!("sync does not carry {self} records")))
    }
}

/// The types sync carries, in the order a page of remote changes is applied.
pub fn synced_types() -> impl Iterator<Item = &'static dyn SyncedType> {
    RecordType::ALL.iter().filter_map(|kind| kind.synced())
}

/// What writing a pulled record did.
pub struct Written {
    /// The local record the remote one is (its own UUID unless it was already here under another).
    pub uuid: String,
    /// Attachment files replaced, to remove after commit.
    pub old_salt: Option<String>,
}

impl Written {
    /// The record was written under the UUID it came with.
    pub(crate) fn same(uuid: &str) -> Self {
        Self {
            uuid: uuid.to_owned(),
            old_salt: None,
        }
    }
}

/// A field's value as text (a missing or `null` value is empty).
pub fn field_text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// JSON text written the same way on both sides (keys sorted), empty for none.
pub fn canonical_json(raw: Option<&str>) -> String {
    match raw.map(serde_json::from_str::<Value>) {
        Some(Ok(Value::Null)) | None => String::new(),
        Some(Ok(value)) => value.to_string(),
        Some(Err(_)) => raw.unwrap_or_default().to_owned(),
    }
}

/// The named fields of a remote answer, each as text.
fn plain_fields(names: &[&str], record: &Value) -> Fields {
    names
        .iter()
        .map(|name| {
            (
                (*name).to_owned(),
                Value::String(field_text(record.get(*name))),
            )
        })
        .collect()
}

/// A list of remote UUIDs (or another key) from an answer's embedded records, as a list field.
fn embedded_list(record: &Value, field: &str, key: &str, except: &str) -> Value {
    let items: Vec<Value> = record
        .get(field)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|item| field_text(item.get(key)))
                .filter(|uuid| uuid != except)
                .map(Value::String)
                .collect()
        })
        .unwrap_or_default();
    Value::String(Value::Array(items).to_string())
}

/// One reference field's record, unless empty (or a thread's `root`).
fn one_reference(kind: RecordType, fields: &Fields, field: &str) -> Vec<(RecordType, String)> {
    let value = field_text(fields.get(field));
    if value.is_empty() || value == "root" {
        Vec::new()
    } else {
        vec![(kind, value)]
    }
}

/// A list field's records.
fn list_references(kind: RecordType, fields: &Fields, field: &str) -> Vec<(RecordType, String)> {
    serde_json::from_str::<Vec<String>>(&field_text(fields.get(field)))
        .unwrap_or_default()
        .into_iter()
        .map(|uuid| (kind, uuid))
        .collect()
}

/// The request body for a record's fields: lists as arrays, empty dates and references as `null`.
pub fn body_of(kind: &(impl SyncedType + ?Sized), fields: &Fields) -> Value {
    let mut body = serde_json::Map::new();
    for (name, value) in fields {
        let name = name.as_str();
        if kind.unsent_fields().contains(&name) {
            continue;
        }
        let text = field_text(Some(value));
        let value = if kind.list_fields().contains(&name) {
            serde_json::from_str(&text).unwrap_or(Value::Array(Vec::new()))
        } else if text.is_empty() && kind.nullable_fields().contains(&name) {
            Value::Null
        } else {
            Value::String(text)
        };
        body.insert(name.to_owned(), value);
    }
    Value::Object(body)
}

/// Fields from `(name, text)` pairs.
fn fields_from<const N: usize>(pairs: [(&str, String); N]) -> Fields {
    pairs
        .into_iter()
        .map(|(name, value)| (name.to_owned(), Value::String(value)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{RecordType, RemoteAccess, TypeSynced as _, synced_types};

    #[test]
    fn types_are_applied_after_what_they_refer_to() {
        let order: Vec<RecordType> = synced_types().map(|t| t.record_type()).collect();
        assert_eq!(order.len(), 12);
        for kind in synced_types() {
            assert!(kind.record_type().synced().is_some());
            let fields = kind
                .fields()
                .iter()
                .map(|f| ((*f).to_owned(), serde_json::Value::String("[\"x\"]".into())))
                .collect();
            for (referred, _) in kind.references(&fields) {
                assert!(
                    referred <= kind.record_type(),
                    "{} refers to {referred}, applied after it",
                    kind.record_type()
                );
            }
        }
    }

    #[test]
    fn read_through_types_name_their_parent() {
        for kind in synced_types() {
            assert_eq!(
                kind.remote_access() != RemoteAccess::Own,
                kind.parent_field().is_some(),
                "{}",
                kind.record_type()
            );
        }
    }
}
