//! Reading and writing synced records in the local store, with references
//! mapped between local UUIDs and the remote's.

use super::TypeSynced as _;
use crate::db::{OptionalExtension as _, Transaction, params};
use serde_json::Value;

use super::{Fields, RecordType};
use crate::error::Result;

/// Reads fields, mapping local references to the remote's UUIDs and noting
/// whether any refers to a record the remote does not have yet.
pub struct FieldReader<'a, 'tx> {
    pub(super) tx: &'a Transaction<'tx>,
    /// A reference points at a record made here and not yet sent.
    pub unsent_reference: bool,
}

impl<'a, 'tx> FieldReader<'a, 'tx> {
    pub fn new(tx: &'a Transaction<'tx>) -> Self {
        Self {
            tx,
            unsent_reference: false,
        }
    }

    /// The record's synced fields now (`None`: not here).
    pub fn fields(&mut self, record_type: RecordType, uuid: &str) -> Result<Option<Fields>> {
        record_type.carried()?.read(self, uuid)
    }

    /// The remote UUID of a local record (its own UUID when it came from the remote).
    pub(super) fn remote_of(&mut self, record_type: RecordType, uuid: &str) -> Result<String> {
        let mapped: Option<String> = self
            .tx
            .prepare_cached(
                "SELECT remote_uuid FROM sync_records WHERE record_type = ?1 AND uuid = ?2",
            )?
            .query_row(params![record_type, uuid], |row| row.get(0))
            .optional()?;
        match mapped {
            Some(remote) => Ok(remote),
            None => {
                self.unsent_reference = true;
                Ok(uuid.to_owned())
            }
        }
    }

    /// A local reference as the remote knows it, or empty for none.
    pub(super) fn remote_of_optional(
        &mut self,
        record_type: RecordType,
        uuid: Option<String>,
    ) -> Result<String> {
        match uuid {
            Some(uuid) => self.remote_of(record_type, &uuid),
            None => Ok(String::new()),
        }
    }

    /// A list field of local UUIDs as the remote's.
    pub(super) fn remote_list(
        &mut self,
        record_type: RecordType,
        local: Vec<String>,
    ) -> Result<Value> {
        let mut remote = Vec::with_capacity(local.len());
        for uuid in local {
            remote.push(Value::String(self.remote_of(record_type, &uuid)?));
        }
        Ok(Value::String(Value::Array(remote).to_string()))
    }

    /// The first column of every row `sql` finds for the row id `id`.
    pub(super) fn uuids(&self, sql: &str, id: i64) -> Result<Vec<String>> {
        let mut stmt = self.tx.prepare_cached(sql)?;
        let rows = stmt.query_map([id], |row| row.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// The local UUID of a remote record (the remote's UUID when it is not mapped).
pub(crate) fn local_of(
    tx: &Transaction<'_>,
    record_type: RecordType,
    remote_uuid: &str,
) -> Result<String> {
    Ok(tx
        .prepare_cached(
            "SELECT uuid FROM sync_records WHERE record_type = ?1 AND remote_uuid = ?2",
        )?
        .query_row(params![record_type, remote_uuid], |row| row.get(0))
        .optional()?
        .unwrap_or_else(|| remote_uuid.to_owned()))
}

/// The local row id of a remote record, if it is here.
pub(super) fn local_id(
    tx: &Transaction<'_>,
    record_type: RecordType,
    remote_uuid: &str,
) -> Result<Option<i64>> {
    if remote_uuid.is_empty() {
        return Ok(None);
    }
    let local = local_of(tx, record_type, remote_uuid)?;
    let sql = format!(
        "SELECT id FROM {} WHERE uuid = ?1",
        record_type.carried()?.table()
    );
    Ok(tx
        .prepare_cached(&sql)?
        .query_row([local], |row| row.get(0))
        .optional()?)
}

/// The local row ids of a remote list field's records (records not here are left out).
pub(super) fn local_ids(
    tx: &Transaction<'_>,
    record_type: RecordType,
    list: &str,
) -> Result<Vec<i64>> {
    let remote: Vec<String> = serde_json::from_str(list).unwrap_or_default();
    let mut ids = Vec::with_capacity(remote.len());
    for remote_uuid in remote {
        if let Some(id) = local_id(tx, record_type, &remote_uuid)?
            && !ids.contains(&id)
        {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// Updates the row with `uuid` by `update`, or inserts it by `insert` when
/// there is none; both take the same parameters.
pub(super) fn upsert(
    tx: &Transaction<'_>,
    update: &str,
    insert: &str,
    values: &[&dyn crate::db::ToSql],
) -> Result<()> {
    if tx.prepare_cached(update)?.execute(values)? == 0 {
        tx.prepare_cached(insert)?.execute(values)?;
    }
    Ok(())
}

/// Whether a row with `uuid` is in `table`.
pub(super) fn exists(tx: &Transaction<'_>, table: &str, uuid: &str) -> Result<bool> {
    let sql = format!("SELECT EXISTS (SELECT 1 FROM {table} WHERE uuid = ?1)");
    Ok(tx
        .prepare_cached(&sql)?
        .query_row([uuid], |row| row.get(0))?)
}

/// A text value.
pub(super) fn text(value: impl Into<String>) -> Value {
    Value::String(value.into())
}
