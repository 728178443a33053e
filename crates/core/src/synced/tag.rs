//! Tags as sync carries them: a name and a slug.

use crate::db::{OptionalExtension as _, Transaction, params};

use super::local::{FieldReader, text, upsert};
use super::{Fields, RecordType, SyncedType, Written, field_text};
use crate::clock;
use crate::error::Result;
use crate::slug::Slug;
use crate::store::uploads::WrittenFiles;

pub(super) struct Tag;

impl SyncedType for Tag {
    fn record_type(&self) -> RecordType {
        RecordType::Tag
    }

    fn table(&self) -> &'static str {
        "tags"
    }

    fn fields(&self) -> &'static [&'static str] {
        &["name", "slug"]
    }

    fn label_query(&self) -> &'static str {
        "SELECT name, NULL FROM tags WHERE uuid = ?1"
    }

    fn identifying(&self) -> &'static [&'static str] {
        &["name", "slug"]
    }

    fn read(&self, reader: &mut FieldReader<'_, '_>, uuid: &str) -> Result<Option<Fields>> {
        Ok(reader
            .tx
            .prepare_cached("SELECT name, slug FROM tags WHERE uuid = ?1")?
            .query_row([uuid], |row| {
                let mut f = Fields::new();
                f.insert("name".into(), text(row.get::<_, String>(0)?));
                f.insert("slug".into(), text(row.get::<_, String>(1)?));
                Ok(f)
            })
            .optional()?)
    }

    fn write(
        &self,
        tx: &Transaction<'_>,
        uuid: &str,
        fields: &Fields,
        _files: Option<&WrittenFiles>,
    ) -> Result<Written> {
        let name = field_text(fields.get("name"));
        let slug = Slug::parse_or_make(Some(&field_text(fields.get("slug"))), &name).into_string();
        upsert(
            tx,
            "UPDATE tags SET name = ?2, slug = ?3, modified_at = ?4 WHERE uuid = ?1",
            "INSERT INTO tags (uuid, name, slug, created_at, modified_at) VALUES (?1, ?2, ?3, ?4, ?4)",
            params![uuid, name, slug, clock::now()],
        )?;
        Ok(Written::same(uuid))
    }
}
