//! Print documents as sync carries them, with their workflow and issue.

use crate::db::{OptionalExtension as _, Transaction, params};
use serde_json::Value;

use super::local::{FieldReader, local_id, upsert};
use super::{
    Fields, RecordType, SyncedType, Written, body_of, field_text, fields_from, one_reference,
    plain_fields,
};
use crate::clock;
use crate::error::Result;
use crate::store::uploads::WrittenFiles;

pub(super) struct PrintDocument;

/// A stored document's label, tracking label, workflow, issue and typed label.
type StoredDocument = (String, String, Option<String>, Option<String>, String);

impl SyncedType for PrintDocument {
    fn record_type(&self) -> RecordType {
        RecordType::PrintDocument
    }

    fn table(&self) -> &'static str {
        "print_documents"
    }

    fn fields(&self) -> &'static [&'static str] {
        &[
            "label",
            "tracking_label",
            "tracking_path",
            "workflow_id",
            "issue_id",
        ]
    }

    fn references(&self, fields: &Fields) -> Vec<(RecordType, String)> {
        [
            one_reference(RecordType::Workflow, fields, "workflow_id"),
            one_reference(RecordType::Issue, fields, "issue_id"),
        ]
        .concat()
    }

    fn label_query(&self) -> &'static str {
        "SELECT CASE WHEN label <> '' THEN label ELSE tracking_label END, NULL FROM print_documents WHERE uuid = ?1"
    }

    fn identifying(&self) -> &'static [&'static str] {
        &["tracking_label"]
    }

    /// References by UUID, from the embedded records (the numeric ids are the remote's own).
    fn fields_of_answer(&self, record: &Value) -> Fields {
        let mut fields = plain_fields(self.fields(), record);
        for (field, embedded) in [("workflow_id", "workflow"), ("issue_id", "issue")] {
            let uuid = record
                .get(embedded)
                .map(|e| field_text(e.get("uuid")))
                .unwrap_or_default();
            fields.insert(field.into(), Value::String(uuid));
        }
        fields
    }

    fn nullable_fields(&self) -> &'static [&'static str] {
        &["workflow_id", "issue_id"]
    }

    fn unsent_fields(&self) -> &'static [&'static str] {
        &["tracking_path"]
    }

    /// The label as typed goes as `tracking_label` (the remote normalises it
    /// to the same key), so the remote keeps it as typed too.
    fn request_body(&self, fields: &Fields) -> Value {
        let mut body = body_of(self, fields);
        let typed = field_text(fields.get("tracking_path"));
        if !typed.is_empty() {
            body["tracking_label"] = Value::String(typed);
        }
        body
    }

    fn read(&self, reader: &mut FieldReader<'_, '_>, uuid: &str) -> Result<Option<Fields>> {
        let row: Option<StoredDocument> = reader
            .tx
            .prepare_cached(
                "SELECT d.label, d.tracking_label, w.uuid, i.uuid, d.tracking_path FROM print_documents d
                 LEFT JOIN workflows w ON w.id = d.workflow_id LEFT JOIN issues i ON i.id = d.issue_id
                 WHERE d.uuid = ?1",
            )?
            .query_row([uuid], |row| {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                ))
            })
            .optional()?;
        let Some((label, tracking_label, workflow, issue, tracking_path)) = row else {
            return Ok(None);
        };
        let workflow = reader.remote_of_optional(RecordType::Workflow, workflow)?;
        let issue = reader.remote_of_optional(RecordType::Issue, issue)?;
        Ok(Some(fields_from([
            ("label", label),
            ("tracking_label", tracking_label),
            ("tracking_path", tracking_path),
            ("workflow_id", workflow),
            ("issue_id", issue),
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
        let workflow = local_id(tx, RecordType::Workflow, &get("workflow_id"))?.unwrap_or(0);
        let issue = local_id(tx, RecordType::Issue, &get("issue_id"))?.unwrap_or(0);
        upsert(
            tx,
            // A plain remote keeps no typed label: the one here stays.
            "UPDATE print_documents SET label = ?2, tracking_label = ?3, workflow_id = ?4, issue_id = ?5,
             modified_at = ?6, tracking_path = CASE WHEN ?7 = '' THEN tracking_path ELSE ?7 END WHERE uuid = ?1",
            "INSERT INTO print_documents (uuid, label, tracking_label, workflow_id, issue_id, created_at, modified_at,
             tracking_path) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7)",
            params![
                uuid,
                get("label"),
                get("tracking_label"),
                workflow,
                issue,
                clock::now(),
                get("tracking_path")
            ],
        )?;
        Ok(Written::same(uuid))
    }
}
