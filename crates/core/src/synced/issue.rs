//! Print issues as sync carries them: made once, never changed through the API.

use crate::db::{OptionalExtension as _, Transaction, params};

use super::local::{FieldReader, upsert};
use super::{Fields, RecordType, SyncedType, Written, field_text, fields_from};
use crate::clock;
use crate::error::Result;
use crate::store::uploads::WrittenFiles;

pub(super) struct Issue;

impl SyncedType for Issue {
    fn record_type(&self) -> RecordType {
        RecordType::Issue
    }

    fn table(&self) -> &'static str {
        "issues"
    }

    fn fields(&self) -> &'static [&'static str] {
        &[
            "label",
            "description",
            "status",
            "published_at",
            "decorated_label",
        ]
    }

    /// Workflows and issues have no update endpoint.
    fn append_only(&self) -> bool {
        true
    }

    fn label_query(&self) -> &'static str {
        "SELECT label, NULL FROM issues WHERE uuid = ?1"
    }

    fn identifying(&self) -> &'static [&'static str] {
        &["label", "decorated_label"]
    }

    fn nullable_fields(&self) -> &'static [&'static str] {
        &["published_at"]
    }

    fn read(&self, reader: &mut FieldReader<'_, '_>, uuid: &str) -> Result<Option<Fields>> {
        Ok(reader
            .tx
            .prepare_cached(
                "SELECT label, description, status, published_at, decorated_label FROM issues WHERE uuid = ?1",
            )?
            .query_row([uuid], |row| {
                Ok(fields_from([
                    ("label", row.get(0)?),
                    ("description", row.get(1)?),
                    ("status", row.get::<_, i64>(2)?.to_string()),
                    ("published_at", row.get::<_, Option<String>>(3)?.unwrap_or_default()),
                    ("decorated_label", row.get(4)?),
                ]))
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
        let published = Some(get("published_at")).filter(|p| !p.is_empty());
        let status: i64 = get("status").parse().unwrap_or(1);
        upsert(
            tx,
            "UPDATE issues SET label = ?2, description = ?3, status = ?4, published_at = ?5, decorated_label = ?6,
             modified_at = ?7 WHERE uuid = ?1",
            "INSERT INTO issues (uuid, label, description, status, published_at, decorated_label, created_at,
             modified_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
            params![
                uuid,
                get("label"),
                get("description"),
                status,
                published,
                get("decorated_label"),
                clock::now()
            ],
        )?;
        Ok(Written::same(uuid))
    }
}
