//! Workflows as sync carries them: made once, never changed through the API.

use crate::db::{OptionalExtension as _, Transaction, params};

use super::local::{FieldReader, text, upsert};
use super::{Fields, RecordType, SyncedType, Written, field_text};
use crate::clock;
use crate::error::Result;
use crate::store::uploads::WrittenFiles;

pub(super) struct Workflow;

/// The workflow's numeric settings, in the order the store reads them.
const NUMBERS: [&str; 6] = [
    "status",
    "is_web",
    "is_print",
    "priority",
    "is_content",
    "is_assignment",
];

impl SyncedType for Workflow {
    fn record_type(&self) -> RecordType {
        RecordType::Workflow
    }

    fn table(&self) -> &'static str {
        "workflows"
    }

    fn fields(&self) -> &'static [&'static str] {
        &[
            "slug",
            "name",
            "status",
            "is_web",
            "is_print",
            "priority",
            "is_content",
            "is_assignment",
        ]
    }

    /// Workflows and issues have no update endpoint.
    fn append_only(&self) -> bool {
        true
    }

    fn label_query(&self) -> &'static str {
        "SELECT name, NULL FROM workflows WHERE uuid = ?1"
    }

    fn identifying(&self) -> &'static [&'static str] {
        &["slug", "name"]
    }

    /// Workflows keep no modification time; their order of creation does.
    fn list_order(&self) -> &'static str {
        "id"
    }

    fn read(&self, reader: &mut FieldReader<'_, '_>, uuid: &str) -> Result<Option<Fields>> {
        Ok(reader
            .tx
            .prepare_cached(
                "SELECT slug, name, status, is_web, is_print, priority, is_content, is_assignment FROM workflows
                 WHERE uuid = ?1",
            )?
            .query_row([uuid], |row| {
                let mut f = Fields::new();
                f.insert("slug".into(), text(row.get::<_, String>(0)?));
                f.insert("name".into(), text(row.get::<_, String>(1)?));
                for (i, name) in NUMBERS.iter().enumerate() {
                    f.insert((*name).into(), text(row.get::<_, i64>(i + 2)?.to_string()));
                }
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
        let number = |name: &str| get(name).parse::<i64>().unwrap_or(0);
        upsert(
            tx,
            "UPDATE workflows SET slug = ?2, name = ?3, status = ?4, is_web = ?5, is_print = ?6, priority = ?7,
             is_content = ?8, is_assignment = ?9, modified_at = ?10 WHERE uuid = ?1",
            "INSERT INTO workflows (uuid, slug, name, status, is_web, is_print, priority, is_content, is_assignment,
             created_at, modified_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
            params![
                uuid,
                get("slug"),
                get("name"),
                number("status"),
                number("is_web"),
                number("is_print"),
                number("priority"),
                number("is_content"),
                number("is_assignment"),
                clock::now()
            ],
        )?;
        Ok(Written::same(uuid))
    }
}
