//! Pieces every resource shares: finding a record by UUID, one page of a list,
//! the all-or-nothing delete of several records, and ordered links.

use crate::db::{OptionalExtension as _, Transaction};

use crate::error::{CoreError, Result};
use crate::srn::is_uuid;

/// A table whose records have a public UUID.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Table {
    pub name: &'static str,
    /// How the record is called in messages.
    pub noun: &'static str,
}

impl Table {
    /// The row id of the record with `uuid`, or a 404.
    pub fn id_of(self, tx: &Transaction<'_>, uuid: &str) -> Result<i64> {
        self.try_id_of(tx, uuid)?
            .ok_or_else(|| CoreError::not_found(format!("no {} with UUID {uuid}", self.noun)))
    }

    /// Like [`Table::id_of`] for a UUID sent in the body field `field`.
    pub fn id_of_field(self, tx: &Transaction<'_>, field: &str, uuid: &str) -> Result<i64> {
        self.try_id_of(tx, uuid)?.ok_or_else(|| {
            CoreError::not_found_field(field, format!("no {} with UUID {uuid}", self.noun))
        })
    }

    pub fn try_id_of(self, tx: &Transaction<'_>, uuid: &str) -> Result<Option<i64>> {
        if !is_uuid(uuid) {
            return Ok(None);
        }
        let sql = format!("SELECT id FROM {} WHERE uuid = ?1", self.name);
        Ok(tx
            .prepare_cached(&sql)?
            .query_row([uuid], |row| row.get(0))
            .optional()?)
    }

    /// A reference a client sent in `field`: a numeric id or a UUID; it must exist.
    pub fn id_of_ref(self, tx: &Transaction<'_>, field: &str, raw: &str) -> Result<i64> {
        let raw = raw.trim();
        if let Ok(id) = raw.parse::<i64>() {
            let sql = format!("SELECT id FROM {} WHERE id = ?1", self.name);
            return tx
                .prepare_cached(&sql)?
                .query_row([id], |row| row.get(0))
                .optional()?
                .ok_or_else(|| {
                    CoreError::not_found_field(field, format!("no {} with id {id}", self.noun))
                });
        }
        self.id_of_field(tx, field, raw)
    }

    /// An optional reference sent in `field`: absent, empty, `0` or `null` mean none.
    pub fn optional_ref(
        self,
        tx: &Transaction<'_>,
        field: &str,
        raw: Option<&str>,
    ) -> Result<Option<i64>> {
        match raw.map(str::trim) {
            None | Some("") | Some("0") => Ok(None),
            Some(raw) => self.id_of_ref(tx, field, raw).map(Some),
        }
    }

    /// The id an update leaves in a reference field stored as `0` for none:
    /// `old` when the field was not sent.
    pub fn updated_ref(
        self,
        tx: &Transaction<'_>,
        field: &str,
        sent: &Option<Option<String>>,
        old: i64,
    ) -> Result<i64> {
        match sent {
            None => Ok(old),
            Some(raw) => Ok(self.optional_ref(tx, field, raw.as_deref())?.unwrap_or(0)),
        }
    }

    /// Resolves the comma-separated UUIDs of a DELETE path: every one must exist.
    pub fn ids_of_list(self, tx: &Transaction<'_>, list: &str) -> Result<Vec<i64>> {
        let mut ids = Vec::new();
        for uuid in list.split(',').map(str::trim) {
            let id = self.id_of(tx, uuid)?;
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        Ok(ids)
    }

    pub fn delete(self, tx: &Transaction<'_>, id: i64) -> Result<()> {
        let sql = format!("DELETE FROM {} WHERE id = ?1", self.name);
        tx.prepare_cached(&sql)?.execute([id])?;
        Ok(())
    }
}

/// Resolves body-sent UUIDs of `table` to row ids, keeping their order and dropping repeats.
pub(crate) fn ids_of_field(
    tx: &Transaction<'_>,
    table: Table,
    field: &str,
    uuids: &[String],
) -> Result<Vec<i64>> {
    let mut ids = Vec::with_capacity(uuids.len());
    for uuid in uuids {
        let id = table.id_of_field(tx, field, uuid)?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// Trims a required text field; absent or blank is a 400 naming it.
pub(crate) fn required_text(field: &str, value: Option<&str>) -> Result<String> {
    match value.map(str::trim) {
        Some(text) if !text.is_empty() => Ok(text.to_owned()),
        _ => Err(CoreError::required(field)),
    }
}

/// A new record's UUID: version 7, whose first bits are the time it was
/// made, so that the indexes over UUIDs (every record's own, the change
/// log's) take each new one at their end, on pages a write already holds,
/// instead of on a page of their own anywhere in the index. Within this
/// process they are ordered as made; the rest of their bits are random.
pub(crate) fn new_uuid() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// A look-up by slug or name (any ASCII case) in each dialect: PostgreSQL
/// folds the name sent in the columns' "C" collation, ASCII letters alone,
/// as SQLite's lower() does, whatever the database's locale.
pub(crate) struct BySlugOrName {
    sqlite: &'static str,
    postgres: &'static str,
}

pub(crate) const TAG_BY_SLUG_OR_NAME: BySlugOrName = BySlugOrName {
    sqlite: "SELECT id FROM tags WHERE slug = ?1 OR lower(name) = lower(?1)
     ORDER BY slug = ?1 DESC, id LIMIT 1",
    postgres:
        "SELECT id FROM tags WHERE slug = ?1 OR lower(name) = lower(CAST(?1 AS TEXT) COLLATE \"C\")
     ORDER BY slug = ?1 DESC, id LIMIT 1",
};
pub(crate) const AUTHOR_BY_SLUG_OR_NAME: BySlugOrName = BySlugOrName {
    sqlite: "SELECT id FROM authors WHERE slug = ?1 OR lower(name) = lower(?1)
     ORDER BY slug = ?1 DESC, id LIMIT 1",
    postgres: "SELECT id FROM authors WHERE slug = ?1 OR lower(name) = lower(CAST(?1 AS TEXT) COLLATE \"C\")
     ORDER BY slug = ?1 DESC, id LIMIT 1",
};

/// A tag or author named by its UUID, its slug or its name (any case), as
/// clients of the hosted service pass them; 404 naming the field when there
/// is none.
pub(crate) fn named(
    tx: &crate::db::Transaction<'_>,
    table: Table,
    by_slug_or_name: &BySlugOrName,
    field: &str,
    value: &str,
) -> Result<i64> {
    use crate::db::OptionalExtension as _;
    if let Some(id) = table.try_id_of(tx, value)? {
        return Ok(id);
    }
    let sql = match tx.dialect() {
        crate::db::Dialect::Sqlite => by_slug_or_name.sqlite,
        crate::db::Dialect::Postgres => by_slug_or_name.postgres,
    };
    tx.prepare_cached(sql)?
        .query_row([value], |row| row.get::<_, i64>(0))
        .optional()?
        .ok_or_else(|| CoreError::not_found_field(field, format!("no {field} {value}")))
}

#[cfg(test)]
mod tests {
    use super::new_uuid;

    #[test]
    fn new_uuids_are_version_7_and_sort_as_made() {
        let made: Vec<String> = (0..2_000).map(|_| new_uuid()).collect();
        for uuid in &made {
            let parsed = uuid::Uuid::parse_str(uuid).expect("a UUID");
            assert_eq!(parsed.get_version_num(), 7, "{uuid}");
        }
        let mut sorted = made.clone();
        sorted.sort();
        assert_eq!(
            sorted, made,
            "UUIDs made one after another sort in that order"
        );
        sorted.dedup();
        assert_eq!(sorted.len(), made.len(), "no UUID is made twice");
    }
}
