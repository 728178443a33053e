//! Assignments as sync carries them, with the content item each became.

use crate::db::{OptionalExtension as _, Transaction, params};
use serde_json::Value;

use super::local::{FieldReader, local_id, upsert};
use super::{
    Fields, RecordType, SyncedType, Written, field_text, fields_from, one_reference, plain_fields,
};
use crate::clock;
use crate::error::Result;
use crate::store::uploads::WrittenFiles;

pub(super) struct Assignment;

impl SyncedType for Assignment {
    fn record_type(&self) -> RecordType {
        RecordType::Assignment
    }

    fn table(&self) -> &'static str {
        "assignments"
    }

    fn fields(&self) -> &'static [&'static str] {
        &["title", "description", "due_at", "content_id"]
    }

    fn references(&self, fields: &Fields) -> Vec<(RecordType, String)> {
        one_reference(RecordType::Content, fields, "content_id")
    }

    fn label_query(&self) -> &'static str {
        "SELECT a.title, c.uuid FROM assignments a LEFT JOIN content c ON c.id = a.content_id WHERE a.uuid = ?1"
    }

    fn identifying(&self) -> &'static [&'static str] {
        &["title", "description"]
    }

    /// The content item by UUID (the answer's `content_id` is the remote's own number).
    fn fields_of_answer(&self, record: &Value) -> Fields {
        let mut fields = plain_fields(self.fields(), record);
        fields.insert(
            "content_id".into(),
            Value::String(field_text(record.get("content_uuid"))),
        );
        fields
    }

    fn nullable_fields(&self) -> &'static [&'static str] {
        &["due_at", "content_id"]
    }

    fn read(&self, reader: &mut FieldReader<'_, '_>, uuid: &str) -> Result<Option<Fields>> {
        let row: Option<(String, String, Option<String>, Option<String>)> = reader
            .tx
            .prepare_cached(
                "SELECT a.title, a.description, a.due_at, c.uuid FROM assignments a
                 LEFT JOIN content c ON c.id = a.content_id WHERE a.uuid = ?1",
            )?
            .query_row([uuid], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })
            .optional()?;
        let Some((title, description, due_at, content)) = row else {
            return Ok(None);
        };
        let content = reader.remote_of_optional(RecordType::Content, content)?;
        Ok(Some(fields_from([
            ("title", title),
            ("description", description),
            ("due_at", due_at.unwrap_or_default()),
            ("content_id", content),
        ])))
    }

    fn write(
        &self,
        tx: &Transaction<'_>,
        uuid: &str,
        fields: &Fields,
        _files: Option<&WrittenFiles>,
    ) -> Result<Written> {
        let get = |name: &str| field_text(fields.get(name));
        let content = local_id(tx, RecordType::Content, &get("content_id"))?;
        let due = Some(get("due_at")).filter(|d| !d.is_empty());
        upsert(
            tx,
            "UPDATE assignments SET title = ?2, description = ?3, due_at = ?4, content_id = ?5, modified_at = ?6
             WHERE uuid = ?1",
            "INSERT INTO assignments (uuid, title, description, due_at, content_id, created_at, modified_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
            params![uuid, get("title"), get("description"), due, content, clock::now()],
        )?;
        let id: i64 = tx
            .prepare_cached("SELECT id FROM assignments WHERE uuid = ?1")?
            .query_row([uuid], |row| row.get(0))?;
        tx.prepare_cached(
            "UPDATE content SET assignment_id = NULL WHERE assignment_id = ?1 AND id IS DISTINCT FROM ?2",
        )?
        .execute(params![id, content])?;
        if let Some(content) = content {
            tx.prepare_cached("UPDATE content SET assignment_id = ?2 WHERE id = ?1")?
                .execute(params![content, id])?;
        }
        Ok(Written::same(uuid))
    }
}
