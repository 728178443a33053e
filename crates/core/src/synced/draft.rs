//! Drafts as sync carries them: a content item's saved draft, added once;
//! only the latest pending draft of an item is sent.

use crate::db::{OptionalExtension as _, Transaction, params};

use super::local::{FieldReader, exists, local_id};
use super::{
    Fields, RecordType, RemoteAccess, SyncedType, Written, field_text, fields_from, one_reference,
};
use crate::attachments::WrittenFiles;
use crate::clock;
use crate::error::Result;

pub(super) struct Draft;

impl SyncedType for Draft {
    fn record_type(&self) -> RecordType {
        RecordType::Draft
    }

    fn table(&self) -> &'static str {
        "drafts"
    }

    fn fields(&self) -> &'static [&'static str] {
        &["content", "content_raw", "item"]
    }

    fn remote_access(&self) -> RemoteAccess {
        RemoteAccess::ContentDrafts
    }

    fn append_only(&self) -> bool {
        true
    }

    fn parent_field(&self) -> Option<&'static str> {
        Some("item")
    }

    fn parent_query(&self) -> Option<&'static str> {
        Some("SELECT c.uuid FROM drafts d JOIN content c ON c.id = d.content_id WHERE d.uuid = ?1")
    }

    fn references(&self, fields: &Fields) -> Vec<(RecordType, String)> {
        one_reference(RecordType::Content, fields, "item")
    }

    fn label_query(&self) -> &'static str {
        "SELECT c.title, c.uuid FROM drafts d JOIN content c ON c.id = d.content_id WHERE d.uuid = ?1"
    }

    fn identifying(&self) -> &'static [&'static str] {
        &["content_raw"]
    }

    fn read(&self, reader: &mut FieldReader<'_, '_>, uuid: &str) -> Result<Option<Fields>> {
        let row: Option<(String, String, String)> = reader
            .tx
            .prepare_cached(
                "SELECT d.content, d.content_raw, c.uuid FROM drafts d JOIN content c ON c.id = d.content_id
                 WHERE d.uuid = ?1",
            )?
            .query_row([uuid], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .optional()?;
        let Some((content, content_raw, item)) = row else {
            return Ok(None);
        };
        let item = reader.remote_of(RecordType::Content, &item)?;
        Ok(Some(fields_from([
            ("content", content),
            ("content_raw", content_raw),
            ("item", item),
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
        if !exists(tx, "drafts", uuid)?
            && let Some(content) = local_id(tx, RecordType::Content, &get("item"))?
        {
            tx.prepare_cached(
                "INSERT INTO drafts (uuid, content_id, content, content_raw, version, created_at)
                 SELECT ?1, id, ?2, ?3, version, ?4 FROM content WHERE id = ?5",
            )?
            .execute(params![
                uuid,
                get("content"),
                get("content_raw"),
                clock::now(),
                content
            ])?;
        }
        Ok(Written::same(uuid))
    }
}
