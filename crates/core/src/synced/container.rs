//! Containers as sync carries them: their fields, the content they pick (in
//! order), their tags, and a gallery's placeholder.

use crate::db::{OptionalExtension as _, Transaction, params};
use serde_json::Value;

use super::local::{FieldReader, local_id, local_ids, text};
use super::{
    Fields, RecordType, SyncedType, Written, embedded_list, field_text, fields_from,
    list_references, one_reference, plain_fields,
};
use crate::clock;
use crate::error::Result;
use crate::slug::Slug;
use crate::store::uploads::WrittenFiles;

pub(super) struct Container;

impl SyncedType for Container {
    fn record_type(&self) -> RecordType {
        RecordType::Container
    }

    fn table(&self) -> &'static str {
        "containers"
    }

    fn fields(&self) -> &'static [&'static str] {
        &[
            "title",
            "slug",
            "description",
            "type",
            "published_at",
            "content",
            "tags",
            "placeholder",
        ]
    }

    fn references(&self, fields: &Fields) -> Vec<(RecordType, String)> {
        [
            list_references(RecordType::Content, fields, "content"),
            list_references(RecordType::Tag, fields, "tags"),
            one_reference(RecordType::Content, fields, "placeholder"),
        ]
        .concat()
    }

    fn label_query(&self) -> &'static str {
        "SELECT title, NULL FROM containers WHERE uuid = ?1"
    }

    fn identifying(&self) -> &'static [&'static str] {
        &["title", "slug", "type"]
    }

    fn fields_of_answer(&self, record: &Value) -> Fields {
        let mut fields = plain_fields(self.fields(), record);
        let placeholder = placeholder_of(record);
        fields.insert(
            "content".into(),
            embedded_list(record, "content", "uuid", &placeholder),
        );
        fields.insert("tags".into(), embedded_list(record, "tags", "uuid", ""));
        fields.insert("placeholder".into(), Value::String(placeholder));
        fields
    }

    fn list_fields(&self) -> &'static [&'static str] {
        &["content", "tags"]
    }

    fn nullable_fields(&self) -> &'static [&'static str] {
        &["published_at"]
    }

    /// A gallery's placeholder is made by the server with it.
    fn unsent_fields(&self) -> &'static [&'static str] {
        &["placeholder"]
    }

    fn read(&self, reader: &mut FieldReader<'_, '_>, uuid: &str) -> Result<Option<Fields>> {
        let row = reader
            .tx
            .prepare_cached(
                "SELECT k.id, k.title, k.slug, k.description, k.type, k.published_at, p.uuid
                 FROM containers k LEFT JOIN content p ON p.id = k.placeholder_id WHERE k.uuid = ?1",
            )?
            .query_row([uuid], |row| {
                let fields = fields_from([
                    ("title", row.get(1)?),
                    ("slug", row.get(2)?),
                    ("description", row.get(3)?),
                    ("type", row.get(4)?),
                    ("published_at", row.get::<_, Option<String>>(5)?.unwrap_or_default()),
                ]);
                Ok((row.get::<_, i64>(0)?, fields, row.get::<_, Option<String>>(6)?))
            })
            .optional()?;
        let Some((id, mut fields, placeholder)) = row else {
            return Ok(None);
        };
        // The gallery's placeholder belongs to it: it is not picked content.
        let content = reader.uuids(
            "SELECT c.uuid FROM container_content l JOIN content c ON c.id = l.content_id
             JOIN containers k ON k.id = l.container_id
             WHERE l.container_id = +?1 AND c.id IS NOT k.placeholder_id ORDER BY l.position",
            id,
        )?;
        let tags = reader.uuids(
            "SELECT t.uuid FROM container_tags l JOIN tags t ON t.id = l.tag_id WHERE l.container_id = +?1 ORDER BY l.position",
            id,
        )?;
        fields.insert(
            "content".into(),
            reader.remote_list(RecordType::Content, content)?,
        );
        fields.insert("tags".into(), reader.remote_list(RecordType::Tag, tags)?);
        let placeholder = match placeholder {
            // A placeholder is made by whichever side makes the gallery: it is
            // never waited for.
            Some(local) => {
                let before = reader.unsent_reference;
                let remote = reader.remote_of(RecordType::Content, &local)?;
                reader.unsent_reference = before;
                remote
            }
            None => String::new(),
        };
        fields.insert("placeholder".into(), text(placeholder));
        Ok(Some(fields))
    }

    fn write(
        &self,
        tx: &Transaction<'_>,
        uuid: &str,
        fields: &Fields,
        _files: Option<&WrittenFiles>,
    ) -> Result<Written> {
        let now = clock::now();
        let get = |name: &str| field_text(fields.get(name));
        let title = get("title");
        let slug = Slug::parse_or_make(Some(&get("slug")), &title).into_string();
        let kind = match get("type").as_str() {
            t @ ("automatic" | "manual" | "blog" | "gallery") => t.to_owned(),
            _ => "manual".to_owned(),
        };
        let published = Some(get("published_at")).filter(|p| !p.is_empty());
        let placeholder = local_id(tx, RecordType::Content, &get("placeholder"))?;
        let values = params![
            uuid,
            title,
            slug,
            get("description"),
            kind,
            published,
            placeholder,
            now
        ];
        let changed = tx
            .prepare_cached(
                "UPDATE containers SET title = ?2, slug = ?3, description = ?4, type = ?5, published_at = ?6,
                 placeholder_id = ?7, modified_at = ?8 WHERE uuid = ?1",
            )?
            .execute(values)?;
        if changed == 0 {
            tx.prepare_cached(
                "INSERT INTO containers (uuid, title, slug, description, type, published_at, placeholder_id, created_at, modified_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
            )?
            .execute(values)?;
        }
        let id: i64 = tx
            .prepare_cached("SELECT id FROM containers WHERE uuid = ?1")?
            .query_row([uuid], |row| row.get(0))?;
        let mut content = placeholder.into_iter().collect::<Vec<_>>();
        for picked in local_ids(tx, RecordType::Content, &get("content"))? {
            if !content.contains(&picked) {
                content.push(picked);
            }
        }
        let tags = local_ids(tx, RecordType::Tag, &get("tags"))?;
        tx.replace_links("container_content", "content_id", id, &content)?;
        tx.replace_links("container_tags", "tag_id", id, &tags)?;
        Ok(Written::same(uuid))
    }
}

/// A gallery's placeholder: named by a Copydesk server, otherwise the media item it lists first.
fn placeholder_of(container: &Value) -> String {
    let named = field_text(container.get("placeholder"));
    if !named.is_empty() || container.get("placeholder").is_some() {
        return named;
    }
    let first = container.get("content").and_then(|c| c.get(0));
    match first {
        Some(item) if container["type"] == "gallery" && item["type"] == "media" => {
            field_text(item.get("uuid"))
        }
        _ => String::new(),
    }
}
