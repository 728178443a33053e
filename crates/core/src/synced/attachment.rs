//! Attachments as sync carries them: a content item's file, by name and
//! SHA-256, with its angle and preview settings; the file itself travels
//! beside the fields.

use crate::db::{OptionalExtension as _, Transaction, params};

use super::local::{FieldReader, local_id};
use super::{
    Fields, RecordType, RemoteAccess, SyncedType, Written, canonical_json, field_text, fields_from,
    one_reference,
};
use crate::error::Result;
use crate::store::uploads::WrittenFiles;

pub(super) struct Attachment;

impl SyncedType for Attachment {
    fn record_type(&self) -> RecordType {
        RecordType::Attachment
    }

    fn table(&self) -> &'static str {
        "attachments"
    }

    fn fields(&self) -> &'static [&'static str] {
        &["content", "name", "sha256", "angle", "metadata"]
    }

    fn remote_access(&self) -> RemoteAccess {
        RemoteAccess::ContentAttachment
    }

    fn parent_field(&self) -> Option<&'static str> {
        Some("content")
    }

    fn parent_query(&self) -> Option<&'static str> {
        Some(
            "SELECT c.uuid FROM attachments a JOIN content c ON c.id = a.content_id WHERE a.uuid = ?1",
        )
    }

    fn references(&self, fields: &Fields) -> Vec<(RecordType, String)> {
        one_reference(RecordType::Content, fields, "content")
    }

    /// An attachment is its content item's: sending it again replaces, never doubles.
    fn label_query(&self) -> &'static str {
        "SELECT c.title, c.uuid FROM attachments a JOIN content c ON c.id = a.content_id WHERE a.uuid = ?1"
    }

    fn identifying(&self) -> &'static [&'static str] {
        &[]
    }

    fn read(&self, reader: &mut FieldReader<'_, '_>, uuid: &str) -> Result<Option<Fields>> {
        let row: Option<(String, String, String, i64, Option<String>, String)> = reader
            .tx
            .prepare_cached(
                "SELECT a.base_name, a.extension, a.sha256, a.angle, a.metadata, c.uuid FROM attachments a
                 JOIN content c ON c.id = a.content_id WHERE a.uuid = ?1",
            )?
            .query_row([uuid], |row| {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                    row.get(5)?,
                ))
            })
            .optional()?;
        let Some((base_name, extension, sha256, angle, metadata, content)) = row else {
            return Ok(None);
        };
        let content = reader.remote_of(RecordType::Content, &content)?;
        Ok(Some(fields_from([
            ("content", content),
            ("name", format!("{base_name}.{extension}")),
            ("sha256", sha256),
            ("angle", angle.to_string()),
            ("metadata", canonical_json(metadata.as_deref())),
        ])))
    }

    /// Writes a pulled attachment: its files (already written, when they
    /// changed) and its settings; the salt of replaced files is removed after commit.
    fn write(
        &self,
        tx: &Transaction<'_>,
        uuid: &str,
        fields: &Fields,
        files: Option<&WrittenFiles>,
    ) -> Result<Written> {
        let get = |name: &str| field_text(fields.get(name));
        let Some(content_id) = local_id(tx, RecordType::Content, &get("content"))? else {
            return Ok(Written::same(uuid));
        };
        let angle: i64 = get("angle").parse().unwrap_or(0);
        let existing: Option<String> = tx
            .prepare_cached("SELECT uuid FROM attachments WHERE content_id = ?1")?
            .query_row([content_id], |row| row.get(0))
            .optional()?;
        let mut old_salt = None;
        if let Some(files) = files {
            old_salt = crate::attachments::record_files(tx, content_id, files, 0, Some(uuid))?;
        } else if existing.is_none() {
            // No file came (it could not be read): nothing to show without it.
            return Ok(Written::same(uuid));
        }
        let metadata = Some(get("metadata")).filter(|m| !m.is_empty());
        tx.prepare_cached(
            "UPDATE attachments SET angle = ?2, metadata = ?3 WHERE content_id = ?1",
        )?
        .execute(params![content_id, angle, metadata])?;
        Ok(Written {
            uuid: existing.unwrap_or_else(|| uuid.to_owned()),
            old_salt,
        })
    }

    fn delete(&self, tx: &Transaction<'_>, uuid: &str) -> Result<()> {
        tx.prepare_cached(
            "UPDATE content SET has_attachment = 0 WHERE id = (SELECT content_id FROM attachments WHERE uuid = ?1)",
        )?
        .execute([uuid])?;
        tx.prepare_cached("DELETE FROM attachments WHERE uuid = ?1")?
            .execute([uuid])?;
        Ok(())
    }
}
