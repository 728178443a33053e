//! Note comments as sync carries them: added to a thread once, with the
//! note they answer, and never changed.

use super::TypeSynced as _;
use crate::db::{OptionalExtension as _, Transaction, params};

use super::local::{FieldReader, exists, local_id, local_of};
use super::{
    Fields, RecordType, RemoteAccess, SyncedType, Written, field_text, fields_from, one_reference,
};
use crate::clock;
use crate::error::Result;
use crate::store::uploads::WrittenFiles;

pub(super) struct NoteComment;

impl SyncedType for NoteComment {
    fn record_type(&self) -> RecordType {
        RecordType::NoteComment
    }

    fn table(&self) -> &'static str {
        "note_comments"
    }

    fn fields(&self) -> &'static [&'static str] {
        &["comment", "reference", "parent", "draft_uuid"]
    }

    fn remote_access(&self) -> RemoteAccess {
        RemoteAccess::NoteThread
    }

    fn append_only(&self) -> bool {
        true
    }

    fn parent_field(&self) -> Option<&'static str> {
        Some("reference")
    }

    fn parent_query(&self) -> Option<&'static str> {
        Some("SELECT reference FROM note_comments WHERE uuid = ?1")
    }

    fn references(&self, fields: &Fields) -> Vec<(RecordType, String)> {
        [
            one_reference(RecordType::Content, fields, "reference"),
            one_reference(RecordType::NoteComment, fields, "parent"),
        ]
        .concat()
    }

    fn label_query(&self) -> &'static str {
        "SELECT c.title, c.uuid FROM note_comments n LEFT JOIN content c ON c.uuid = n.reference WHERE n.uuid = ?1"
    }

    fn identifying(&self) -> &'static [&'static str] {
        &["comment", "parent"]
    }

    fn read(&self, reader: &mut FieldReader<'_, '_>, uuid: &str) -> Result<Option<Fields>> {
        let row: Option<(String, String, String, i64)> = reader
            .tx
            .prepare_cached(
                "SELECT comment, reference, draft_uuid, parent_id FROM note_comments WHERE uuid = ?1",
            )?
            .query_row([uuid], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })
            .optional()?;
        let Some((comment, reference, draft_uuid, parent_id)) = row else {
            return Ok(None);
        };
        let reference = reference_of_note(reader, &reference)?;
        let parent = if parent_id == 0 {
            "root".to_owned()
        } else {
            let parent: String = reader
                .tx
                .prepare_cached("SELECT uuid FROM note_comments WHERE id = ?1")?
                .query_row([parent_id], |row| row.get(0))?;
            reader.remote_of(RecordType::NoteComment, &parent)?
        };
        Ok(Some(fields_from([
            ("comment", comment),
            ("reference", reference),
            ("parent", parent),
            ("draft_uuid", draft_uuid),
        ])))
    }

    fn write(
        &self,
        tx: &Transaction<'_>,
        uuid: &str,
        fields: &Fields,
        _files: Option<&WrittenFiles>,
    ) -> Result<Written> {
        if exists(tx, "note_comments", uuid)? {
            return Ok(Written::same(uuid));
        }
        let get = |name: &str| field_text(fields.get(name));
        let reference = get("reference");
        let reference = match local_id(tx, RecordType::Content, &reference)? {
            Some(_) => local_of(tx, RecordType::Content, &reference)?,
            None => local_of(tx, RecordType::NoteComment, &reference)?,
        };
        let parent = match get("parent").as_str() {
            "root" | "" => 0,
            parent => local_id(tx, RecordType::NoteComment, parent)?.unwrap_or(0),
        };
        tx.prepare_cached(
            "INSERT INTO note_comments (uuid, reference, comment, version, draft_uuid, parent_id, created_at)
             VALUES (?1, ?2, ?3, COALESCE((SELECT version FROM content WHERE uuid = ?2), 0), ?4, ?5, ?6)",
        )?
        .execute(params![
            uuid,
            reference,
            get("comment"),
            get("draft_uuid"),
            parent,
            clock::now()
        ])?;
        Ok(Written::same(uuid))
    }
}

/// A note thread's reference as the remote knows it: a content item's or
/// a note's remote UUID, anything else as written.
fn reference_of_note(reader: &mut FieldReader<'_, '_>, reference: &str) -> Result<String> {
    for kind in [RecordType::Content, RecordType::NoteComment] {
        if exists(reader.tx, kind.carried()?.table(), reference)? {
            return reader.remote_of(kind, reference);
        }
    }
    Ok(reference.to_owned())
}
