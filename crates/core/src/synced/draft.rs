//! Drafts as sync carries them: a content item's saved draft, added once;
//! only the latest pending draft of an item is sent.
//!
//! A draft's other fields travel too, but for those that name records by
//! UUID (authors, tags, the lead photo): a replica's UUIDs are not the
//! server's, so those stay with the copy they were typed on.

use crate::db::{OptionalExtension as _, Transaction, params};

use super::local::{FieldReader, exists, local_id};
use super::{
    Fields, RecordType, RemoteAccess, SyncedType, Written, field_text, fields_from, one_reference,
};
use crate::clock;
use crate::error::Result;
use crate::store::uploads::WrittenFiles;

pub(super) struct Draft;

impl SyncedType for Draft {
    fn record_type(&self) -> RecordType {
        RecordType::Draft
    }

    fn table(&self) -> &'static str {
        "drafts"
    }

    fn fields(&self) -> &'static [&'static str] {
        &["content", "content_raw", "item", "fields"]
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
        let row: Option<(String, String, String, Option<String>)> = reader
            .tx
            .prepare_cached(
                "SELECT d.content, d.content_raw, c.uuid, d.fields FROM drafts d JOIN content c ON c.id = d.content_id
                 WHERE d.uuid = ?1",
            )?
            .query_row([uuid], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })
            .optional()?;
        let Some((content, content_raw, item, form)) = row else {
            return Ok(None);
        };
        let item = reader.remote_of(RecordType::Content, &item)?;
        Ok(Some(fields_from([
            ("content", content),
            ("content_raw", content_raw),
            ("item", item),
            ("fields", portable(form.as_deref())),
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
            let form = Some(portable(Some(&get("fields")))).filter(|f| !f.is_empty());
            tx.prepare_cached(
                "INSERT INTO drafts (uuid, content_id, content, content_raw, version, created_at, fields)
                 SELECT ?1, id, ?2, ?3, version, ?4, ?6 FROM content WHERE id = ?5",
            )?
            .execute(params![
                uuid,
                get("content"),
                get("content_raw"),
                clock::now(),
                content,
                form
            ])?;
            // As a person's own, the last 20 of an item are kept.
            tx.prepare_cached(
                "DELETE FROM drafts WHERE content_id = ?1 AND user_id IS NULL AND id NOT IN
                 (SELECT id FROM drafts WHERE content_id = +?1 AND user_id IS NULL ORDER BY id DESC LIMIT 20)",
            )?
            .execute([content])?;
        }
        Ok(Written::same(uuid))
    }
}

/// The draft fields (a JSON object's text) that mean the same on every
/// copy: those naming no record by UUID. Empty for none.
pub(crate) fn portable(form: Option<&str>) -> String {
    use serde_json::Value;
    let Some(Value::Object(mut fields)) = form
        .filter(|f| !f.is_empty())
        .and_then(|f| serde_json::from_str(f).ok())
    else {
        return String::new();
    };
    // Each in the shape a draft holds it; anything else is left behind.
    fields.retain(|name, value| match name.as_str() {
        "title" | "slug" | "abstract" => value.is_string(),
        "urls" => value
            .as_array()
            .is_some_and(|urls| urls.iter().all(Value::is_string)),
        "published" => value.is_boolean(),
        _ => false,
    });
    if fields.is_empty() {
        String::new()
    } else {
        serde_json::Value::Object(fields).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::portable;

    #[test]
    fn only_fields_that_name_no_record_travel() {
        let form = r#"{"title":"Harbour","authors":["a"],"tags":["t"],"dominantAttachment":"m","urls":["/x"]}"#;
        assert_eq!(portable(Some(form)), r#"{"title":"Harbour","urls":["/x"]}"#);
        assert_eq!(portable(Some(r#"{"authors":["a"]}"#)), "");
        assert_eq!(portable(None), "");
        assert_eq!(portable(Some("not json")), "");
        assert_eq!(
            portable(Some(r#"{"title":5,"urls":[1],"published":true}"#)),
            r#"{"published":true}"#
        );
    }
}
