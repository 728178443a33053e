//! Content items as sync carries them: their fields, bylines, tags and URLs;
//! the body and abstract merge paragraph by paragraph.

use crate::db::{OptionalExtension as _, Transaction, params};
use serde_json::Value;

use super::local::{FieldReader, local_ids, text};
use super::{
    Fields, RecordType, SyncedType, Written, embedded_list, field_text, list_references,
    plain_fields,
};
use crate::clock;
use crate::error::Result;
use crate::records::new_uuid;
use crate::slug::Slug;
use crate::store::uploads::WrittenFiles;

pub(super) struct Content;

impl SyncedType for Content {
    fn record_type(&self) -> RecordType {
        RecordType::Content
    }

    fn table(&self) -> &'static str {
        "content"
    }

    fn fields(&self) -> &'static [&'static str] {
        &[
            "title",
            "slug",
            "type",
            "weight",
            "abstract",
            "abstract_raw",
            "content",
            "content_raw",
            "published_at",
            "state",
            "authors",
            "tags",
            "urls",
        ]
    }

    fn references(&self, fields: &Fields) -> Vec<(RecordType, String)> {
        [
            list_references(RecordType::Author, fields, "authors"),
            list_references(RecordType::Tag, fields, "tags"),
        ]
        .concat()
    }

    fn rich_text(&self) -> &'static [(&'static str, &'static str)] {
        &[("content", "content_raw"), ("abstract", "abstract_raw")]
    }

    fn label_query(&self) -> &'static str {
        "SELECT title, uuid FROM content WHERE uuid = ?1"
    }

    fn identifying(&self) -> &'static [&'static str] {
        &["title", "slug", "type", "content"]
    }

    fn fields_of_answer(&self, record: &Value) -> Fields {
        let mut fields = plain_fields(self.fields(), record);
        fields.insert(
            "authors".into(),
            embedded_list(record, "authors", "uuid", ""),
        );
        fields.insert("tags".into(), embedded_list(record, "tags", "uuid", ""));
        fields.insert("urls".into(), embedded_list(record, "urls", "url", ""));
        fields
    }

    fn list_fields(&self) -> &'static [&'static str] {
        &["authors", "tags", "urls"]
    }

    fn nullable_fields(&self) -> &'static [&'static str] {
        &["published_at"]
    }

    fn read(&self, reader: &mut FieldReader<'_, '_>, uuid: &str) -> Result<Option<Fields>> {
        let row = reader
            .tx
            .prepare_cached(
                "SELECT id, title, slug, type, weight, abstract, abstract_raw, content, content_raw, published_at, state
                 FROM content WHERE uuid = ?1",
            )?
            .query_row([uuid], |row| {
                let mut f = Fields::new();
                for (i, name) in ["title", "slug", "type"].iter().enumerate() {
                    f.insert((*name).into(), text(row.get::<_, String>(i + 1)?));
                }
                f.insert("weight".into(), text(row.get::<_, i64>(4)?.to_string()));
                for (i, name) in ["abstract", "abstract_raw", "content", "content_raw"]
                    .iter()
                    .enumerate()
                {
                    f.insert((*name).into(), text(row.get::<_, String>(i + 5)?));
                }
                f.insert(
                    "published_at".into(),
                    text(row.get::<_, Option<String>>(9)?.unwrap_or_default()),
                );
                f.insert("state".into(), text(row.get::<_, i64>(10)?.to_string()));
                Ok((row.get::<_, i64>(0)?, f))
            })
            .optional()?;
        let Some((id, mut fields)) = row else {
            return Ok(None);
        };
        let authors = reader.uuids(
            "SELECT a.uuid FROM content_authors l JOIN authors a ON a.id = l.author_id WHERE l.content_id = +?1 ORDER BY l.position",
            id,
        )?;
        let tags = reader.uuids(
            "SELECT t.uuid FROM content_tags l JOIN tags t ON t.id = l.tag_id WHERE l.content_id = +?1 ORDER BY l.position",
            id,
        )?;
        let urls = reader.uuids(
            "SELECT path FROM content_urls WHERE content_id = +?1 ORDER BY position",
            id,
        )?;
        fields.insert(
            "authors".into(),
            reader.remote_list(RecordType::Author, authors)?,
        );
        fields.insert("tags".into(), reader.remote_list(RecordType::Tag, tags)?);
        fields.insert(
            "urls".into(),
            text(Value::Array(urls.into_iter().map(Value::String).collect()).to_string()),
        );
        Ok(Some(fields))
    }

    /// Writes pulled content fields, with its links, as the item's next local version.
    fn write(
        &self,
        tx: &Transaction<'_>,
        uuid: &str,
        fields: &Fields,
        _files: Option<&WrittenFiles>,
    ) -> Result<Written> {
        let now = clock::now();
        let get = |name: &str| field_text(fields.get(name));
        let number = |name: &str| get(name).parse::<i64>().unwrap_or(0);
        let title = get("title");
        let slug = Slug::parse_or_make(Some(&get("slug")), &title).into_string();
        let content_type = match get("type").as_str() {
            t @ ("article" | "post" | "media" | "page") => t.to_owned(),
            _ => "article".to_owned(),
        };
        let published = Some(get("published_at")).filter(|p| !p.is_empty());
        let values = params![
            uuid,
            title,
            slug,
            content_type,
            number("weight"),
            get("abstract"),
            get("abstract_raw"),
            get("content"),
            get("content_raw"),
            published,
            number("state"),
            now
        ];
        let changed = tx
            .prepare_cached(
                "UPDATE content SET title = ?2, slug = ?3, type = ?4, weight = ?5, abstract = ?6, abstract_raw = ?7,
                 content = ?8, content_raw = ?9, published_at = ?10, state = ?11, version = version + 1, modified_at = ?12
                 WHERE uuid = ?1",
            )?
            .execute(values)?;
        if changed == 0 {
            tx.prepare_cached(
                "INSERT INTO content (uuid, title, slug, type, version, weight, abstract, abstract_raw, content, content_raw,
                 published_at, state, created_at, modified_at) VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)",
            )?
            .execute(values)?;
        }
        let id: i64 = tx
            .prepare_cached("SELECT id FROM content WHERE uuid = ?1")?
            .query_row([uuid], |row| row.get(0))?;
        let authors = local_ids(tx, RecordType::Author, &get("authors"))?;
        let tags = local_ids(tx, RecordType::Tag, &get("tags"))?;
        tx.replace_links("content_authors", "author_id", id, &authors)?;
        tx.replace_links("content_tags", "tag_id", id, &tags)?;
        let urls: Vec<String> = serde_json::from_str(&get("urls")).unwrap_or_default();
        tx.prepare_cached("DELETE FROM content_urls WHERE content_id = ?1")?
            .execute([id])?;
        for (position, path) in urls.iter().enumerate() {
            tx.prepare_cached(
                "INSERT INTO content_urls (uuid, content_id, path, position, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![new_uuid(), id, path, position as i64, now])?;
        }
        // The pulled state is part of the item's local history, with the
        // authors and tags just written from the pulled fields (every content
        // answer embeds them); the remote's own versions stay on the remote.
        let new_id = tx.prepare_cached(
            "INSERT INTO versions (uuid, content_id, version, title, slug, type, weight, abstract, abstract_raw, content,
             content_raw, published_at, state, workflow_id, dominant_attachment_id, user_id, created_at, modified_at)
             SELECT ?2, id, version, title, slug, type, weight, abstract, abstract_raw, content, content_raw,
             published_at, state, workflow_id, dominant_attachment_id, NULL, modified_at, modified_at
             FROM content WHERE id = ?1 RETURNING id",
        )?
        .insert(params![id, new_uuid()])?;
        crate::versions::snapshot_links(tx, new_id)?;
        Ok(Written::same(uuid))
    }
}
