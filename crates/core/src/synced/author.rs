//! Authors as sync carries them: a byline, merged field by field.

use crate::db::{OptionalExtension as _, Transaction, params};

use super::local::{FieldReader, text, upsert};
use super::{Fields, RecordType, SyncedType, Written, field_text};
use crate::clock;
use crate::error::Result;
use crate::slug::Slug;
use crate::store::uploads::WrittenFiles;

pub(super) struct Author;

impl SyncedType for Author {
    fn record_type(&self) -> RecordType {
        RecordType::Author
    }

    fn table(&self) -> &'static str {
        "authors"
    }

    fn fields(&self) -> &'static [&'static str] {
        &["slug", "name", "email", "tagline", "description", "status"]
    }

    fn label_query(&self) -> &'static str {
        "SELECT name, NULL FROM authors WHERE uuid = ?1"
    }

    fn identifying(&self) -> &'static [&'static str] {
        &["name", "slug", "email"]
    }

    fn read(&self, reader: &mut FieldReader<'_, '_>, uuid: &str) -> Result<Option<Fields>> {
        Ok(reader
            .tx
            .prepare_cached(
                "SELECT slug, name, email, tagline, description, status FROM authors WHERE uuid = ?1",
            )?
            .query_row([uuid], |row| {
                let mut f = Fields::new();
                for (i, name) in ["slug", "name", "email", "tagline", "description"]
                    .iter()
                    .enumerate()
                {
                    f.insert((*name).into(), text(row.get::<_, String>(i)?));
                }
                f.insert("status".into(), text(row.get::<_, i64>(5)?.to_string()));
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
        let get = |name: &str| field_text(fields.get(name));
        let name = get("name");
        let slug = Slug::parse_or_make(Some(&get("slug")), &name).into_string();
        let status: i64 = get("status").parse().unwrap_or(1);
        upsert(
            tx,
            "UPDATE authors SET slug = ?2, name = ?3, email = ?4, tagline = ?5, description = ?6, status = ?7,
             modified_at = ?8 WHERE uuid = ?1",
            "INSERT INTO authors (uuid, slug, name, email, tagline, description, status, created_at, modified_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
            params![
                uuid,
                slug,
                name,
                get("email"),
                get("tagline"),
                get("description"),
                status,
                clock::now()
            ],
        )?;
        Ok(Written::same(uuid))
    }
}
