//! Assignment comments as sync carries them: added once, never changed.

use crate::db::{OptionalExtension as _, Transaction, params};

use super::local::{FieldReader, exists, local_id};
use super::{
    Fields, RecordType, RemoteAccess, SyncedType, Written, field_text, fields_from, one_reference,
};
use crate::clock;
use crate::error::Result;
use crate::store::uploads::WrittenFiles;

pub(super) struct AssignmentComment;

impl SyncedType for AssignmentComment {
    fn record_type(&self) -> RecordType {
        RecordType::AssignmentComment
    }

    fn table(&self) -> &'static str {
        "assignment_comments"
    }

    fn fields(&self) -> &'static [&'static str] {
        &["comment", "assignment"]
    }

    fn remote_access(&self) -> RemoteAccess {
        RemoteAccess::AssignmentComments
    }

    fn append_only(&self) -> bool {
        true
    }

    fn parent_field(&self) -> Option<&'static str> {
        Some("assignment")
    }

    fn parent_query(&self) -> Option<&'static str> {
        Some(
            "SELECT a.uuid FROM assignment_comments x JOIN assignments a ON a.id = x.assignment_id WHERE x.uuid = ?1",
        )
    }

    fn references(&self, fields: &Fields) -> Vec<(RecordType, String)> {
        one_reference(RecordType::Assignment, fields, "assignment")
    }

    fn label_query(&self) -> &'static str {
        "SELECT a.title, c.uuid FROM assignment_comments x JOIN assignments a ON a.id = x.assignment_id LEFT JOIN content c ON c.id = a.content_id WHERE x.uuid = ?1"
    }

    fn identifying(&self) -> &'static [&'static str] {
        &["comment"]
    }

    fn read(&self, reader: &mut FieldReader<'_, '_>, uuid: &str) -> Result<Option<Fields>> {
        let row: Option<(String, String)> = reader
            .tx
            .prepare_cached(
                "SELECT x.comment, a.uuid FROM assignment_comments x JOIN assignments a ON a.id = x.assignment_id
                 WHERE x.uuid = ?1",
            )?
            .query_row([uuid], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?;
        let Some((comment, assignment)) = row else {
            return Ok(None);
        };
        let assignment = reader.remote_of(RecordType::Assignment, &assignment)?;
        Ok(Some(fields_from([
            ("comment", comment),
            ("assignment", assignment),
        ])))
    }

    fn write(
        &self,
        tx: &Transaction<'_>,
        uuid: &str,
        fields: &Fields,
        _files: Option<&WrittenFiles>,
    ) -> Result<Written> {
        if !exists(tx, "assignment_comments", uuid)?
            && let Some(assignment) = local_id(
                tx,
                RecordType::Assignment,
                &field_text(fields.get("assignment")),
            )?
        {
            tx.prepare_cached(
                "INSERT INTO assignment_comments (uuid, assignment_id, comment, created_at) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                uuid,
                assignment,
                field_text(fields.get("comment")),
                clock::now()
            ])?;
        }
        Ok(Written::same(uuid))
    }
}
