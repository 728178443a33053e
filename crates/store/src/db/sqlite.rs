//! How the SQL layer's values cross into and out of rusqlite.

use rusqlite::types::{ToSqlOutput, ValueRef as SqliteValueRef};

use super::{Error, Result, ToSql, ValueRef};

/// A statement's parameters as rusqlite binds them.
pub(super) fn bind<'p>(values: &'p [&'p dyn ToSql]) -> impl rusqlite::Params + 'p {
    rusqlite::params_from_iter(values.iter().map(|value| Bound(*value)))
}

struct Bound<'p>(&'p dyn ToSql);

impl rusqlite::ToSql for Bound<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        let value = self
            .0
            .to_sql()
            .map_err(|err| rusqlite::Error::ToSqlConversionFailure(Box::new(err)))?;
        Ok(ToSqlOutput::Borrowed(match value {
            ValueRef::Null => SqliteValueRef::Null,
            ValueRef::Integer(i) => SqliteValueRef::Integer(i),
            ValueRef::Real(r) => SqliteValueRef::Real(r),
            ValueRef::Text(t) => SqliteValueRef::Text(t.as_bytes()),
            ValueRef::Blob(b) => SqliteValueRef::Blob(b),
        }))
    }
}

/// A column's value as the SQL layer reads it.
pub(super) fn value_ref(value: SqliteValueRef<'_>) -> Result<ValueRef<'_>> {
    Ok(match value {
        SqliteValueRef::Null => ValueRef::Null,
        SqliteValueRef::Integer(i) => ValueRef::Integer(i),
        SqliteValueRef::Real(r) => ValueRef::Real(r),
        SqliteValueRef::Text(t) => {
            ValueRef::Text(std::str::from_utf8(t).map_err(Error::conversion)?)
        }
        SqliteValueRef::Blob(b) => ValueRef::Blob(b),
    })
}
