//! One way for the use cases to speak SQL, whichever engine holds the data.
//!
//! Every use case takes a [`Transaction`] and runs the same SQL text on
//! SQLite (the desktop's replica, a small newsroom's central server) and on
//! PostgreSQL (a central server on several nodes). The calls mirror
//! rusqlite's (`prepare_cached`, `query_row`, `query_map`, `execute`,
//! `optional`), so a use case reads like plain rusqlite code; values cross
//! as the five SQLite storage classes ([`ValueRef`]), which each engine
//! binds and reads in its own way. What the engines do differently lives
//! in [`Dialect`], never in a use case's `if`.
//!
//! SQL is written with SQLite's numbered placeholders (`?1`, or `+?1`
//! where SQLite's planner needs the hint, see `store.rs`); the PostgreSQL
//! side rewrites them to `$1` once per statement text.

mod pages;
mod postgres;
mod sqlite;

use std::collections::HashMap;
use std::error::Error as StdError;
use std::fmt;
use std::sync::Arc;

pub use pages::{fetch_page, fetch_page_by, fetch_page_choosing};
pub(crate) use postgres::claim_key;
pub use postgres::{PgConnection, PgTransaction};

/// What a query can fail with.
#[derive(Debug)]
pub enum Error {
    /// `query_row` found no row (see [`OptionalExtension::optional`]).
    NoRows,
    /// A value could not be converted to or from what the query holds.
    Conversion(String),
    /// Text holding the NUL character, which PostgreSQL cannot store: it is
    /// refused on both engines alike.
    NulInText,
    /// A write broke a rule of the transaction it ran in (a fault of the
    /// code that wrote it, not of its input); the rule it broke.
    BrokenRule(&'static str),
    /// The engine refused the statement or lost the connection.
    Sqlite(rusqlite::Error),
    Postgres(::postgres::Error),
}

impl Error {
    /// A value that does not convert (bad JSON in a column, a number out of range).
    pub fn conversion(err: impl fmt::Display) -> Self {
        Self::Conversion(err.to_string())
    }

    /// Whether the engine reports the stored data itself damaged.
    pub fn is_damage(&self) -> bool {
        match self {
            Self::Sqlite(err) => matches!(
                err.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
            ),
            Self::Postgres(err) => err.code().is_some_and(|code| {
                *code == ::postgres::error::SqlState::DATA_CORRUPTED
                    || *code == ::postgres::error::SqlState::INDEX_CORRUPTED
            }),
            _ => false,
        }
    }

    /// Whether the database could not be reached or does not take this
    /// work now, rather than refusing the work itself: the connection was
    /// lost or refused (its cause is the socket's), the server shuts down,
    /// starts up or recovers (class 08, `57P01`..`57P03`), has no
    /// connection to spare (`53300`), or it is a standby that takes no
    /// writes (`25006`).
    pub fn is_unavailable(&self) -> bool {
        use ::postgres::error::SqlState;
        let Self::Postgres(err) = self else {
            return false;
        };
        if err.is_closed() {
            return true;
        }
        match err.code() {
            Some(code) => {
                code.code().starts_with("08")
                    || [
                        SqlState::ADMIN_SHUTDOWN,
                        SqlState::CRASH_SHUTDOWN,
                        SqlState::CANNOT_CONNECT_NOW,
                        SqlState::TOO_MANY_CONNECTIONS,
                        SqlState::READ_ONLY_SQL_TRANSACTION,
                    ]
                    .contains(code)
            }
            // A TLS handshake refused (a certificate not trusted) comes as
            // an I/O error too, but it is the setup's fault, not a passing
            // outage: trying again does not help.
            None => StdError::source(err).is_some_and(|cause| {
                cause.is::<std::io::Error>() && crate::causes::tls_error(cause).is_none()
            }),
        }
    }

    /// Whether a lock was not had within the transaction's `lock_timeout`.
    pub fn is_lock_timeout(&self) -> bool {
        matches!(self, Self::Postgres(err)
            if err.code() == Some(&::postgres::error::SqlState::LOCK_NOT_AVAILABLE))
    }

    /// The constraint a write broke, when it broke a unique one.
    pub fn unique_violation(&self) -> Option<&str> {
        match self {
            Self::Sqlite(rusqlite::Error::SqliteFailure(failure, message))
                if failure.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                    || failure.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
            {
                Some(message.as_deref().unwrap_or(""))
            }
            Self::Postgres(err) => err
                .as_db_error()
                .filter(|db| *db.code() == ::postgres::error::SqlState::UNIQUE_VIOLATION)
                .map(|db| db.constraint().unwrap_or("")),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoRows => f.write_str("the query returned no row"),
            Self::Conversion(message) => write!(f, "a value does not convert: {message}"),
            Self::NulInText => f.write_str("text may not hold the NUL character (U+0000)"),
            Self::BrokenRule(rule) => f.write_str(rule),
            Self::Sqlite(err) => err.fmt(f),
            Self::Postgres(err) => match err.as_db_error() {
                Some(db) => write!(f, "{}: {}", db.code().code(), db.message()),
                // rust-postgres says only what failed ("error performing
                // TLS handshake"); its causes say why.
                None => f.write_str(&crate::causes::with_causes(err)),
            },
        }
    }
}

impl std::error::Error for Error {}

impl From<rusqlite::Error> for Error {
    fn from(err: rusqlite::Error) -> Self {
        match err {
            rusqlite::Error::QueryReturnedNoRows => Self::NoRows,
            rusqlite::Error::ToSqlConversionFailure(inner) => match inner.downcast::<Self>() {
                Ok(ours) => *ours,
                Err(other) => Self::Sqlite(rusqlite::Error::ToSqlConversionFailure(other)),
            },
            err => Self::Sqlite(err),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Turns "no row" into `None`, as rusqlite's extension of the same name.
pub trait OptionalExtension<T> {
    fn optional(self) -> Result<Option<T>>;
}

impl<T> OptionalExtension<T> for Result<T> {
    fn optional(self) -> Result<Option<T>> {
        match self {
            Ok(value) => Ok(Some(value)),
            Err(Error::NoRows) => Ok(None),
            Err(err) => Err(err),
        }
    }
}

/// A value as it crosses to or from the database: SQLite's storage classes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValueRef<'a> {
    Null,
    Integer(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
}

/// An owned [`ValueRef`]: a row read from an engine that does not lend its
/// rows out.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl Value {
    pub fn as_ref(&self) -> ValueRef<'_> {
        match self {
            Self::Null => ValueRef::Null,
            Self::Integer(i) => ValueRef::Integer(*i),
            Self::Real(r) => ValueRef::Real(*r),
            Self::Text(t) => ValueRef::Text(t),
            Self::Blob(b) => ValueRef::Blob(b),
        }
    }
}

/// A Rust value a statement can take as a parameter.
pub trait ToSql {
    fn to_sql(&self) -> Result<ValueRef<'_>>;
}

/// A Rust value a column can be read into.
pub trait FromSql: Sized {
    fn from_sql(value: ValueRef<'_>) -> Result<Self>;
}

fn wrong_type<T>(value: ValueRef<'_>, wanted: &str) -> Result<T> {
    Err(Error::Conversion(format!(
        "expected {wanted}, found {value:?}"
    )))
}

macro_rules! integer_to_and_from_sql {
    ($($t:ty),*) => {$(
        impl ToSql for $t {
            fn to_sql(&self) -> Result<ValueRef<'_>> {
                i64::try_from(*self).map(ValueRef::Integer).map_err(Error::conversion)
            }
        }
        impl FromSql for $t {
            fn from_sql(value: ValueRef<'_>) -> Result<Self> {
                match value {
                    ValueRef::Integer(i) => <$t>::try_from(i).map_err(Error::conversion),
                    other => wrong_type(other, "an integer"),
                }
            }
        }
    )*};
}
integer_to_and_from_sql!(i64, i32, i16, u8, u16, u32, u64, usize);

impl ToSql for bool {
    fn to_sql(&self) -> Result<ValueRef<'_>> {
        Ok(ValueRef::Integer(i64::from(*self)))
    }
}

impl FromSql for bool {
    fn from_sql(value: ValueRef<'_>) -> Result<Self> {
        match value {
            ValueRef::Integer(i) => Ok(i != 0),
            other => wrong_type(other, "a 0 or 1"),
        }
    }
}

impl ToSql for f64 {
    fn to_sql(&self) -> Result<ValueRef<'_>> {
        Ok(ValueRef::Real(*self))
    }
}

impl FromSql for f64 {
    fn from_sql(value: ValueRef<'_>) -> Result<Self> {
        match value {
            ValueRef::Real(r) => Ok(r),
            ValueRef::Integer(i) => Ok(i as f64),
            other => wrong_type(other, "a number"),
        }
    }
}

impl ToSql for str {
    fn to_sql(&self) -> Result<ValueRef<'_>> {
        if self.contains('\0') {
            return Err(Error::NulInText);
        }
        Ok(ValueRef::Text(self))
    }
}

impl ToSql for String {
    fn to_sql(&self) -> Result<ValueRef<'_>> {
        self.as_str().to_sql()
    }
}

impl FromSql for String {
    fn from_sql(value: ValueRef<'_>) -> Result<Self> {
        match value {
            ValueRef::Text(t) => Ok(t.to_owned()),
            other => wrong_type(other, "text"),
        }
    }
}

impl ToSql for [u8] {
    fn to_sql(&self) -> Result<ValueRef<'_>> {
        Ok(ValueRef::Blob(self))
    }
}

impl ToSql for Vec<u8> {
    fn to_sql(&self) -> Result<ValueRef<'_>> {
        Ok(ValueRef::Blob(self))
    }
}

impl FromSql for Vec<u8> {
    fn from_sql(value: ValueRef<'_>) -> Result<Self> {
        match value {
            ValueRef::Blob(b) => Ok(b.to_vec()),
            other => wrong_type(other, "bytes"),
        }
    }
}

impl<T: ToSql> ToSql for Option<T> {
    fn to_sql(&self) -> Result<ValueRef<'_>> {
        match self {
            Some(value) => value.to_sql(),
            None => Ok(ValueRef::Null),
        }
    }
}

impl<T: FromSql> FromSql for Option<T> {
    fn from_sql(value: ValueRef<'_>) -> Result<Self> {
        match value {
            ValueRef::Null => Ok(None),
            value => T::from_sql(value).map(Some),
        }
    }
}

impl<T: ToSql + ?Sized> ToSql for &T {
    fn to_sql(&self) -> Result<ValueRef<'_>> {
        (**self).to_sql()
    }
}

impl<T: ToSql + ?Sized> ToSql for Box<T> {
    fn to_sql(&self) -> Result<ValueRef<'_>> {
        (**self).to_sql()
    }
}

/// A record type is stored by its wire name.
impl ToSql for copydesk_wire::RecordType {
    fn to_sql(&self) -> Result<ValueRef<'_>> {
        Ok(ValueRef::Text(self.as_str()))
    }
}

impl FromSql for copydesk_wire::RecordType {
    fn from_sql(value: ValueRef<'_>) -> Result<Self> {
        String::from_sql(value)?.parse().map_err(Error::conversion)
    }
}

impl FromSql for Value {
    fn from_sql(value: ValueRef<'_>) -> Result<Self> {
        Ok(match value {
            ValueRef::Null => Self::Null,
            ValueRef::Integer(i) => Self::Integer(i),
            ValueRef::Real(r) => Self::Real(r),
            ValueRef::Text(t) => Self::Text(t.to_owned()),
            ValueRef::Blob(b) => Self::Blob(b.to_vec()),
        })
    }
}

impl ToSql for Value {
    fn to_sql(&self) -> Result<ValueRef<'_>> {
        Ok(self.as_ref())
    }
}

/// A statement's parameters: `params![a, b]`, `[a, b]` (one type), `[]`,
/// or a slice of `&dyn ToSql` built at run time.
pub trait Params {
    fn values(&self) -> Vec<&dyn ToSql>;
}

impl Params for &[&dyn ToSql] {
    fn values(&self) -> Vec<&dyn ToSql> {
        self.to_vec()
    }
}

impl Params for &Vec<&dyn ToSql> {
    fn values(&self) -> Vec<&dyn ToSql> {
        self.to_vec()
    }
}

impl Params for [&dyn ToSql; 0] {
    fn values(&self) -> Vec<&dyn ToSql> {
        Vec::new()
    }
}

macro_rules! array_params {
    ($($n:literal),*) => {$(
        impl<T: ToSql> Params for [T; $n] {
            fn values(&self) -> Vec<&dyn ToSql> {
                self.iter().map(|v| v as &dyn ToSql).collect()
            }
        }
    )*};
}
array_params!(1, 2, 3, 4, 5, 6, 7, 8);

/// `params![a, b, c]`: parameters of mixed types, as rusqlite's macro.
#[macro_export]
macro_rules! params {
    () => {
        &[] as &[&dyn $crate::db::ToSql]
    };
    ($($param:expr),+ $(,)?) => {
        &[$(&$param as &dyn $crate::db::ToSql),+] as &[&dyn $crate::db::ToSql]
    };
}
pub use crate::params;

/// Row ids as a JSON array, for `IN (SELECT value FROM json_each(?1))`: one
/// prepared statement serves any number of ids.
pub fn id_array(ids: impl IntoIterator<Item = i64>) -> String {
    let mut out = String::from("[");
    for (i, id) in ids.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&id.to_string());
    }
    out.push(']');
    out
}

/// How many rows [`Transaction::count_rows`] counts exactly on PostgreSQL.
pub const EXACT_COUNT: u64 = 10_000;

/// At most one row per owner, of rows grouped by [`Transaction::query_grouped`].
pub fn one_per_owner<T>(grouped: HashMap<i64, Vec<T>>) -> HashMap<i64, T> {
    grouped
        .into_iter()
        .filter_map(|(owner, mut rows)| rows.pop().map(|row| (owner, row)))
        .collect()
}

/// Which column of a row: by position or by name.
pub trait RowIndex {
    fn position(&self, names: &dyn Fn(&str) -> Option<usize>) -> Result<usize>;
}

impl RowIndex for usize {
    fn position(&self, _names: &dyn Fn(&str) -> Option<usize>) -> Result<usize> {
        Ok(*self)
    }
}

impl RowIndex for &str {
    fn position(&self, names: &dyn Fn(&str) -> Option<usize>) -> Result<usize> {
        names(self).ok_or_else(|| Error::Conversion(format!("no column named {self}")))
    }
}

/// One row of a result.
pub struct Row<'r>(RowSource<'r>);

enum RowSource<'r> {
    Sqlite(&'r rusqlite::Row<'r>),
    Owned(&'r [Value], &'r [String]),
}

impl Row<'_> {
    /// The value of one column, converted.
    pub fn get<I: RowIndex, T: FromSql>(&self, index: I) -> Result<T> {
        match &self.0 {
            RowSource::Sqlite(row) => {
                let position = index.position(&|name| row.as_ref().column_index(name).ok())?;
                T::from_sql(sqlite::value_ref(row.get_ref(position)?)?)
            }
            RowSource::Owned(values, names) => {
                let position = index.position(&|name| names.iter().position(|n| n == name))?;
                let value = values
                    .get(position)
                    .ok_or_else(|| Error::Conversion(format!("no column {position}")))?;
                T::from_sql(value.as_ref())
            }
        }
    }
}

/// The rows of a query, each mapped as it is read.
pub struct MappedRows<'s, F> {
    source: RowsSource<'s>,
    map: F,
}

enum RowsSource<'s> {
    Sqlite(rusqlite::Rows<'s>),
    Owned(std::vec::IntoIter<Vec<Value>>, Arc<[String]>),
}

impl<T, F: FnMut(&Row<'_>) -> Result<T>> Iterator for MappedRows<'_, F> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        let Self { source, map } = self;
        match source {
            RowsSource::Sqlite(rows) => match rows.next() {
                Ok(Some(row)) => Some(map(&Row(RowSource::Sqlite(row)))),
                Ok(None) => None,
                Err(err) => Some(Err(err.into())),
            },
            RowsSource::Owned(rows, names) => {
                let values = rows.next()?;
                Some(map(&Row(RowSource::Owned(&values, names))))
            }
        }
    }
}

/// A prepared statement.
pub struct Statement<'t>(StatementSource<'t>);

enum StatementSource<'t> {
    SqliteCached(rusqlite::CachedStatement<'t>),
    Sqlite(rusqlite::Statement<'t>),
    Postgres(&'t (dyn postgres::Run + 't), postgres::Prepared),
}

impl<'t> Statement<'t> {
    /// Runs the statement; returns how many rows it changed.
    pub fn execute(&mut self, params: impl Params) -> Result<usize> {
        let values = params.values();
        match &mut self.0 {
            StatementSource::SqliteCached(stmt) => Ok(stmt.execute(sqlite::bind(&values))?),
            StatementSource::Sqlite(stmt) => Ok(stmt.execute(sqlite::bind(&values))?),
            StatementSource::Postgres(run, prepared) => run.execute(prepared, &values),
        }
    }

    /// The first row, mapped; [`Error::NoRows`] when there is none.
    pub fn query_row<T>(
        &mut self,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        let values = params.values();
        let mut rows = match &mut self.0 {
            StatementSource::SqliteCached(stmt) => stmt.query(sqlite::bind(&values))?,
            StatementSource::Sqlite(stmt) => stmt.query(sqlite::bind(&values))?,
            StatementSource::Postgres(run, prepared) => {
                let rows = run.rows(prepared, &values)?;
                let names = prepared.names();
                return match rows.first() {
                    Some(first) => map(&Row(RowSource::Owned(first, &names))),
                    None => Err(Error::NoRows),
                };
            }
        };
        match rows.next()? {
            Some(row) => map(&Row(RowSource::Sqlite(row))),
            None => Err(Error::NoRows),
        }
    }

    /// Every row, mapped as the iterator reaches it.
    pub fn query_map<T, F: FnMut(&Row<'_>) -> Result<T>>(
        &mut self,
        params: impl Params,
        map: F,
    ) -> Result<MappedRows<'_, F>> {
        let values = params.values();
        let source = match &mut self.0 {
            StatementSource::SqliteCached(stmt) => {
                RowsSource::Sqlite(stmt.query(sqlite::bind(&values))?)
            }
            StatementSource::Sqlite(stmt) => RowsSource::Sqlite(stmt.query(sqlite::bind(&values))?),
            StatementSource::Postgres(run, prepared) => {
                RowsSource::Owned(run.rows(prepared, &values)?.into_iter(), prepared.names())
            }
        };
        Ok(MappedRows { source, map })
    }

    /// Runs an `INSERT … RETURNING id`; the new row's id.
    pub fn insert(&mut self, params: impl Params) -> Result<i64> {
        self.query_row(params, |row| row.get(0))
    }

    /// Whether the query returns any row.
    pub fn exists(&mut self, params: impl Params) -> Result<bool> {
        self.query_row(params, |_| Ok(()))
            .optional()
            .map(|found| found.is_some())
    }
}

/// What differs between the engines in the SQL a use case writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// One transaction: every use case runs inside exactly one.
pub struct Transaction<'c>(TransactionSource<'c>);

enum TransactionSource<'c> {
    Sqlite(SqliteScope<'c>),
    Postgres(PgTransaction<'c>),
}

/// Where a SQLite use case runs: its own transaction, or its own savepoint
/// in a transaction that a group of writes shares (see `store/group.rs`).
/// Either reads and writes as the connection.
enum SqliteScope<'c> {
    Transaction(rusqlite::Transaction<'c>),
    /// The first write of a group: committing it leaves the transaction
    /// open for the group's later writes.
    OpensGroup(rusqlite::Transaction<'c>),
    Savepoint(rusqlite::Savepoint<'c>),
}

impl std::ops::Deref for SqliteScope<'_> {
    type Target = rusqlite::Connection;

    fn deref(&self) -> &rusqlite::Connection {
        match self {
            Self::Transaction(tx) | Self::OpensGroup(tx) => tx,
            Self::Savepoint(savepoint) => savepoint,
        }
    }
}

impl<'c> Transaction<'c> {
    pub(crate) fn from_sqlite(tx: rusqlite::Transaction<'c>) -> Self {
        Self(TransactionSource::Sqlite(SqliteScope::Transaction(tx)))
    }

    /// The first write of a group of writes that share one transaction:
    /// committing it leaves the transaction open for the others (the group
    /// commits it), and dropping it uncommitted rolls it back.
    pub(crate) fn opening_group(tx: rusqlite::Transaction<'c>) -> Self {
        Self(TransactionSource::Sqlite(SqliteScope::OpensGroup(tx)))
    }

    /// A write inside a transaction shared with other writes: committing it
    /// releases its savepoint, and dropping it uncommitted rolls back to it.
    pub(crate) fn from_savepoint(savepoint: rusqlite::Savepoint<'c>) -> Self {
        Self(TransactionSource::Sqlite(SqliteScope::Savepoint(savepoint)))
    }

    pub(crate) fn from_postgres(tx: PgTransaction<'c>) -> Self {
        Self(TransactionSource::Postgres(tx))
    }

    pub(crate) fn commit(self) -> Result<()> {
        match self.0 {
            TransactionSource::Sqlite(SqliteScope::Transaction(tx)) => Ok(tx.commit()?),
            TransactionSource::Sqlite(SqliteScope::OpensGroup(mut tx)) => {
                tx.set_drop_behavior(rusqlite::DropBehavior::Ignore);
                Ok(())
            }
            TransactionSource::Sqlite(SqliteScope::Savepoint(savepoint)) => Ok(savepoint.commit()?),
            TransactionSource::Postgres(tx) => tx.commit(),
        }
    }

    /// Ends a read: nothing was written, so nothing is kept or lost.
    pub(crate) fn finish(self) -> Result<()> {
        match self.0 {
            TransactionSource::Sqlite(
                SqliteScope::Transaction(tx) | SqliteScope::OpensGroup(tx),
            ) => Ok(tx.finish()?),
            TransactionSource::Sqlite(SqliteScope::Savepoint(savepoint)) => Ok(savepoint.finish()?),
            TransactionSource::Postgres(tx) => tx.rollback(),
        }
    }

    /// A condition that keeps, of a queue table's rows (`FROM` one table
    /// only), those this transaction queued itself when other writes run
    /// beside it: their queued rows are theirs to take, and a row left
    /// over from before is taken by a write that runs alone. Every row
    /// otherwise.
    pub fn queued_here(&self) -> &'static str {
        match &self.0 {
            TransactionSource::Postgres(tx) if tx.is_beside() => "xmin = pg_current_xact_id()::xid",
            _ => "true",
        }
    }

    /// Declares that this write, begun to make one story alone
    /// (`Store::write_making_story`), made story `id` with these fields as
    /// stored (title, abstract, body, slug). On PostgreSQL, where every
    /// statement is a round trip, the triggers queued nothing of it: the
    /// story is rendered and indexed from what the write holds, its kept
    /// answer and search row written in the commit's round trip. SQLite
    /// reads its queues as before (a read there costs no more than the
    /// note). A second declaration makes the write fail.
    pub fn declare_made_alone(&self, id: i64, fields: [&str; 4]) {
        if let TransactionSource::Postgres(tx) = &self.0 {
            tx.declare_made_alone(id, crate::story_text::StoryText::unlinked(fields));
        }
    }

    /// The story this write [declared](Transaction::declare_made_alone) it made alone.
    pub fn made_alone(&self) -> Option<i64> {
        match &self.0 {
            TransactionSource::Postgres(tx) => tx.made_alone_id(),
            TransactionSource::Sqlite(_) => None,
        }
    }

    /// Runs a write whose rows this transaction does not read again: now,
    /// or, on PostgreSQL while a story made alone is written (see
    /// [`Transaction::declare_made_alone`]), in the commit's round trip,
    /// its values written into the text as escaped literals.
    pub fn execute_or_defer(&self, sql: &str, params: &[&dyn ToSql]) -> Result<()> {
        if let TransactionSource::Postgres(tx) = &self.0
            && tx.defer(sql, params)?
        {
            return Ok(());
        }
        self.prepare_cached(sql)?.execute(params)?;
        Ok(())
    }

    /// The story made alone and its text, for the search index, once.
    pub(crate) fn take_made_alone_text(&self) -> Option<(i64, crate::story_text::StoryText)> {
        match &self.0 {
            TransactionSource::Postgres(tx) => tx.take_made_alone_text(),
            TransactionSource::Sqlite(_) => None,
        }
    }

    /// A condition that keeps, of a queue table's rows, those this very
    /// transaction queued, on PostgreSQL even when it runs alone: for the
    /// search index's flush before every commit, which must not take a
    /// whole archive's queue (a rebuild's) into one transaction. SQLite's
    /// writer queues and flushes in one group: every row.
    pub fn queued_by_itself(&self) -> &'static str {
        match &self.0 {
            TransactionSource::Postgres(_) => "xmin = pg_current_xact_id()::xid",
            TransactionSource::Sqlite(_) => "true",
        }
    }

    /// Waits until no other write holds `claim`, then holds it to the end of
    /// this transaction, when it runs beside other writes (see
    /// `Store::write_beside`; a write that runs alone holds everything). A
    /// write claims this way only what it learns inside the transaction
    /// (the row of a story named by its UUID), before it writes anything
    /// or reads what the claim covers, and at most once: two writes that each held one claim
    /// and waited for the other's would wait for ever.
    pub fn claim(&self, claim: &str) -> Result<()> {
        match &self.0 {
            TransactionSource::Postgres(tx) if tx.is_beside() => {
                // Before any write: the change log is numbered in the order
                // transactions got their ids, which a write assigns.
                let key = claim_key(claim);
                let first = self
                    .prepare(&format!(
                        "SELECT pg_advisory_xact_lock({key})::text, \
                         pg_current_xact_id_if_assigned() IS NULL"
                    ))?
                    .query_row([], |row| row.get::<_, bool>(1))?;
                match first {
                    true => Ok(()),
                    false => Err(Error::Conversion(format!(
                        "{claim} was claimed after a write"
                    ))),
                }
            }
            _ => Ok(()),
        }
    }

    /// Which engine this transaction runs on.
    pub fn dialect(&self) -> Dialect {
        match &self.0 {
            TransactionSource::Sqlite(_) => Dialect::Sqlite,
            TransactionSource::Postgres(_) => Dialect::Postgres,
        }
    }

    /// A statement from the connection's cache (prepared on first use).
    pub fn prepare_cached(&self, sql: &str) -> Result<Statement<'_>> {
        match &self.0 {
            TransactionSource::Sqlite(tx) => Ok(Statement(StatementSource::SqliteCached(
                tx.prepare_cached(sql)?,
            ))),
            TransactionSource::Postgres(tx) => Ok(Statement(StatementSource::Postgres(
                tx,
                postgres::Run::prepare(tx, sql, true)?,
            ))),
        }
    }

    /// A statement prepared for this one use (its text varies from call to call).
    pub fn prepare(&self, sql: &str) -> Result<Statement<'_>> {
        match &self.0 {
            TransactionSource::Sqlite(tx) => {
                Ok(Statement(StatementSource::Sqlite(tx.prepare(sql)?)))
            }
            TransactionSource::Postgres(tx) => Ok(Statement(StatementSource::Postgres(
                tx,
                postgres::Run::prepare(tx, sql, false)?,
            ))),
        }
    }

    /// Runs one statement; returns how many rows it changed.
    pub fn execute(&self, sql: &str, params: impl Params) -> Result<usize> {
        self.prepare(sql)?.execute(params)
    }

    /// The first row of one query, mapped.
    pub fn query_row<T>(
        &self,
        sql: &str,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        self.prepare(sql)?.query_row(params, map)
    }

    /// Runs one `INSERT … RETURNING id`; the new row's id.
    pub fn insert(&self, sql: &str, params: impl Params) -> Result<i64> {
        self.prepare(sql)?.insert(params)
    }

    /// Runs `sql` (whose column `owner_column` is the owner's row id) for
    /// the owners in `ids` ([`id_array`]) and groups the rows by owner,
    /// keeping the query's order: one query for a page of owners.
    pub fn query_grouped<T>(
        &self,
        sql: &str,
        ids: &str,
        owner_column: usize,
        mut map: impl FnMut(&Row<'_>) -> Result<T>,
    ) -> Result<HashMap<i64, Vec<T>>> {
        let mut stmt = self.prepare_cached(sql)?;
        let rows = stmt.query_map([ids], |row| {
            Ok((row.get::<_, i64>(owner_column)?, map(row)?))
        })?;
        let mut out: HashMap<i64, Vec<T>> = HashMap::new();
        for row in rows {
            let (owner, item) = row?;
            out.entry(owner).or_default().push(item);
        }
        Ok(out)
    }

    /// Sets the ordered links of `owner_id` in `table` (a link table such
    /// as `content_tags`, whose `column` is the other side) to `ids`; true
    /// when they changed.
    pub fn replace_links(
        &self,
        table: &str,
        column: &str,
        owner_id: i64,
        ids: &[i64],
    ) -> Result<bool> {
        let owner_column = if table.starts_with("container_") {
            "container_id"
        } else {
            "content_id"
        };
        let select =
            format!("SELECT {column} FROM {table} WHERE {owner_column} = +?1 ORDER BY position");
        let old: Vec<i64> = self
            .prepare_cached(&select)?
            .query_map([owner_id], |row| row.get(0))?
            .collect::<Result<_>>()?;
        if old == ids {
            return Ok(false);
        }
        self.prepare_cached(&format!("DELETE FROM {table} WHERE {owner_column} = ?1"))?
            .execute([owner_id])?;
        let insert =
            format!("INSERT INTO {table} ({owner_column}, {column}, position) VALUES (?1, ?2, ?3)");
        for (position, id) in ids.iter().enumerate() {
            self.prepare_cached(&insert)?
                .execute(params![owner_id, id, position as i64])?;
        }
        Ok(true)
    }

    /// The rows of `table` whose ids are `ids`, read as `columns` by `map`,
    /// in the order of `ids` (one query for a ranked page).
    pub fn rows_in_order<R>(
        &self,
        table: &str,
        columns: &str,
        ids: &[i64],
        map: &impl Fn(&Row<'_>) -> Result<R>,
    ) -> Result<Vec<R>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {columns}, {table}.id AS ranked_id FROM {table} \
             WHERE {table}.id IN (SELECT value FROM json_each(?1))"
        );
        let mut by_id: HashMap<i64, R> = self
            .prepare_cached(&sql)?
            .query_map([id_array(ids.iter().copied())], |row| {
                Ok((row.get::<_, i64>("ranked_id")?, map(row)?))
            })?
            .collect::<Result<_>>()?;
        Ok(ids.iter().filter_map(|id| by_id.remove(id)).collect())
    }

    /// The rows of `SELECT … FROM {from}` (`from` taking `args`): exact on
    /// SQLite, and on PostgreSQL exact up to [`EXACT_COUNT`]; beyond, the
    /// planner's estimate (never below the cap), said to be one (`true`).
    /// Counting a million rows there reads them all, a tenth of a second
    /// for every page, where the planner answers from its statistics.
    pub fn count_rows(&self, from: &str, args: &[&dyn ToSql]) -> Result<(u64, bool)> {
        let exact = |sql: &str| -> Result<u64> {
            let rows: i64 = self
                .prepare_cached(sql)?
                .query_row(args, |row| row.get(0))?;
            Ok(u64::try_from(rows).unwrap_or(0))
        };
        if self.dialect() == Dialect::Sqlite {
            return Ok((exact(&format!("SELECT COUNT(*) FROM {from}"))?, false));
        }
        let capped = exact(&format!(
            "SELECT COUNT(*) FROM (SELECT 1 FROM {from} LIMIT {}) capped",
            EXACT_COUNT + 1
        ))?;
        if capped <= EXACT_COUNT {
            return Ok((capped, false));
        }
        let plan: String = self
            .prepare_cached(&format!("EXPLAIN SELECT 1 FROM {from}"))?
            .query_row(args, |row| row.get(0))?;
        let estimate = plan
            .split(" rows=")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|rows| rows.parse::<u64>().ok())
            .unwrap_or(0);
        Ok((estimate.max(capped), true))
    }

    /// PostgreSQL's transaction, for what only it does (`COPY`).
    pub(crate) fn postgres(&self) -> Option<&PgTransaction<'c>> {
        match &self.0 {
            TransactionSource::Postgres(tx) => Some(tx),
            TransactionSource::Sqlite(_) => None,
        }
    }

    /// Runs several statements without parameters.
    pub fn execute_batch(&self, sql: &str) -> Result<()> {
        match &self.0 {
            TransactionSource::Sqlite(tx) => Ok(tx.execute_batch(sql)?),
            TransactionSource::Postgres(tx) => tx.batch_execute(sql),
        }
    }
}
