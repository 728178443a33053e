//! How the SQL layer runs on PostgreSQL: placeholders, values and rows.
//!
//! PostgreSQL types every parameter from where it stands in the statement,
//! where SQLite takes any value anywhere; a value is therefore sent as the
//! type PostgreSQL asks for (an integer as `int4`, `int8`, `bool` or text),
//! and read back as one of SQLite's five storage classes. Rows are read
//! whole and then mapped, so a use case may run another query while it maps
//! one (the connection is not lent to an open cursor).

use std::cell::RefCell;
use std::collections::HashMap;
use std::error::Error as StdError;
use std::sync::Arc;

use bytes::{BufMut as _, BytesMut};
use postgres::types::{IsNull, Type, to_sql_checked};

use super::{Error, Result, ToSql, Value, ValueRef};
use crate::story_text::StoryText;

type BoxError = Box<dyn StdError + Sync + Send>;

impl From<postgres::Error> for Error {
    fn from(err: postgres::Error) -> Self {
        Self::Postgres(err)
    }
}

/// A claim's advisory lock key: FNV-1a over its bytes, the same on every
/// node and every build. Two claims that share a key only take turns.
pub(crate) fn claim_key(claim: &str) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in claim.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    i64::from_ne_bytes(hash.to_ne_bytes())
}

/// A prepared statement with its columns' names, kept per connection.
#[derive(Clone)]
pub(super) struct Prepared {
    statement: postgres::Statement,
    names: Arc<[String]>,
}

/// One connection and the statements prepared on it (they live as long as
/// the connection, across transactions).
pub struct PgConnection {
    client: postgres::Client,
    prepared: HashMap<String, Prepared>,
}

impl PgConnection {
    pub fn new(client: postgres::Client) -> Self {
        Self {
            client,
            prepared: HashMap::new(),
        }
    }

    pub fn client(&mut self) -> &mut postgres::Client {
        &mut self.client
    }

    /// A read: one snapshot for the whole transaction, as a SQLite reader has.
    pub fn read(&mut self) -> Result<PgTransaction<'_>> {
        self.begin(
            "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY",
            false,
        )
    }

    /// A read of one statement, outside any transaction: the statement is
    /// its own snapshot, and no `BEGIN` or `ROLLBACK` goes to the server.
    pub fn statement(&mut self) -> PgTransaction<'_> {
        let Self { client, prepared } = self;
        PgTransaction {
            client: RefCell::new(Some(client)),
            open: false,
            prepared: RefCell::new(prepared),
            beside: false,
            made_alone: RefCell::default(),
            deferred: RefCell::default(),
        }
    }

    /// A write that first runs `first` (the locks it takes). Each later
    /// statement sees every write committed before it (read committed), so
    /// once the locks are held the transaction sees all the writes that
    /// came before it. `beside`: other writes may run at the same time.
    pub fn write(&mut self, first: &str, beside: bool) -> Result<PgTransaction<'_>> {
        self.begin(
            &format!("START TRANSACTION ISOLATION LEVEL READ COMMITTED;{first}"),
            beside,
        )
    }

    /// A write beside others, begun as [`PgConnection::write`] with `first`,
    /// that makes one story and nothing else, and renders and indexes it
    /// itself: the queues' triggers leave its rows be (migration 0028), and
    /// it must declare the story (`Transaction::declare_made_alone`) before
    /// it commits.
    pub fn write_making_story(&mut self, first: &str) -> Result<PgTransaction<'_>> {
        let tx = self.write(
            &format!("{first}SET LOCAL {MADE_ALONE_SETTING} = 'on'"),
            true,
        )?;
        tx.made_alone.replace(MadeAlone::Announced);
        Ok(tx)
    }

    /// Opens a transaction with `begin` (its `START TRANSACTION` and what
    /// follows it), sent in one round trip: a query of several statements
    /// that opens a transaction leaves it open after them.
    fn begin(&mut self, begin: &str, beside: bool) -> Result<PgTransaction<'_>> {
        let Self { client, prepared } = self;
        if let Err(err) = client.batch_execute(begin) {
            // A lock refused after the transaction opened leaves it open
            // and failed; the connection goes back to the pool without it.
            let _ = client.batch_execute("ROLLBACK");
            return Err(err.into());
        }
        Ok(PgTransaction {
            client: RefCell::new(Some(client)),
            open: true,
            prepared: RefCell::new(prepared),
            beside,
            made_alone: RefCell::default(),
            deferred: RefCell::default(),
        })
    }
}

/// An open transaction on one connection (or, from
/// [`PgConnection::statement`], none: each statement commits itself).
/// Dropped without a commit, it is rolled back.
pub struct PgTransaction<'c> {
    client: RefCell<Option<&'c mut postgres::Client>>,
    /// A `START TRANSACTION` was sent, so a `COMMIT` or `ROLLBACK` ends it.
    open: bool,
    prepared: RefCell<&'c mut HashMap<String, Prepared>>,
    /// Other writes may run beside this one (`Store::write_beside`).
    beside: bool,
    /// The one story this write made and changed, and its text until the
    /// search index takes it (see `Transaction::declare_made_alone`).
    made_alone: RefCell<MadeAlone>,
    /// Writes sent with the commit, values written in (see
    /// `Transaction::execute_or_defer`).
    deferred: RefCell<String>,
}

/// What a write begun to make a story alone declared it made
/// (`Transaction::declare_made_alone`).
#[derive(Default)]
enum MadeAlone {
    /// Not begun to make a story alone: the triggers queue what it writes.
    #[default]
    Queued,
    /// Begun to make a story alone, which it has not declared yet.
    Announced,
    /// One story, and its text until the search index takes it.
    One(i64, Option<Box<StoryText>>),
    /// More than one, which the triggers did not queue: the write fails.
    Several,
}

/// The setting that tells the queues' triggers that this transaction
/// renders and indexes the one story it makes itself (migration 0028).
const MADE_ALONE_SETTING: &str = "copydesk.story_made_alone";

/// The queues a story made alone never enters (debug builds, which the
/// suites run, check at its commit that the transaction queued nothing).
const QUEUES: [&str; 2] = ["content_render_pending", "content_search_pending"];

/// What a statement needs from the transaction it runs in (the
/// transaction's connection lifetime erased).
pub(super) trait Run {
    fn prepare(&self, sql: &str, cache: bool) -> Result<Prepared>;
    fn rows(&self, prepared: &Prepared, params: &[&dyn ToSql]) -> Result<Vec<Vec<Value>>>;
    fn execute(&self, prepared: &Prepared, params: &[&dyn ToSql]) -> Result<usize>;
}

impl PgTransaction<'_> {
    fn with<T>(&self, work: impl FnOnce(&mut postgres::Client) -> Result<T>) -> Result<T> {
        let mut client = self.client.borrow_mut();
        let client = client
            .as_mut()
            .ok_or_else(|| Error::Conversion("the transaction has ended".into()))?;
        work(client)
    }

    /// Sends `end` (ending in `COMMIT` or `ROLLBACK`) if a transaction is
    /// open; rolls it back if `end` fails before its end.
    fn end(&self, end: &str) -> Result<()> {
        match self.client.borrow_mut().take() {
            Some(client) if self.open => client.batch_execute(end).map_err(|err| {
                let _ = client.batch_execute("ROLLBACK");
                err.into()
            }),
            _ => Ok(()),
        }
    }

    /// Commits, with the writes kept for the commit (see
    /// [`PgTransaction::defer`]) in the same round trip. A write begun to
    /// make a story alone that made none, or several, is rolled back: the
    /// triggers queued none of them to be rendered or indexed.
    pub fn commit(self) -> Result<()> {
        let mut end = std::mem::take(&mut *self.deferred.borrow_mut());
        match std::mem::take(&mut *self.made_alone.borrow_mut()) {
            MadeAlone::Queued => {}
            MadeAlone::One(id, _) if cfg!(debug_assertions) => self.check_made_alone(id)?,
            MadeAlone::One(..) => {}
            MadeAlone::Announced | MadeAlone::Several => {
                self.end("ROLLBACK")?;
                return Err(Error::BrokenRule(
                    "a write begun to make one story alone did not make exactly one",
                ));
            }
        }
        end.push_str("COMMIT");
        self.end(&end)
    }

    pub fn rollback(self) -> Result<()> {
        self.end("ROLLBACK")
    }

    /// In debug builds, before the commit of a write that made the story
    /// `id` alone: the triggers it stood aside queued nothing, and it wrote
    /// no row of another story, whose rendered answer and index they would
    /// have refreshed.
    fn check_made_alone(&self, id: i64) -> Result<()> {
        let mine = "xmin = pg_current_xact_id()::xid";
        let counts: Vec<(&str, String)> = QUEUES
            .iter()
            .map(|queue| (*queue, format!("FROM {queue} WHERE {mine}")))
            .chain([
                (
                    "content",
                    format!("FROM content WHERE {mine} AND id <> {id}"),
                ),
                (
                    "versions",
                    format!("FROM versions WHERE {mine} AND content_id <> {id}"),
                ),
                (
                    "audit",
                    format!("FROM audit WHERE {mine} AND content_id <> {id}"),
                ),
            ])
            .collect();
        let sql = counts
            .iter()
            .map(|(_, rows)| format!("(SELECT count(*) {rows})"))
            .collect::<Vec<_>>()
            .join(", ");
        let row = self.with(|client| Ok(client.query_one(&format!("SELECT {sql}"), &[])?))?;
        for (column, (table, _)) in counts.iter().enumerate() {
            let found: i64 = row.get(column);
            assert_eq!(
                found, 0,
                "a write that made story {id} alone wrote in {table}"
            );
        }
        Ok(())
    }

    pub fn batch_execute(&self, sql: &str) -> Result<()> {
        self.with(|tx| Ok(tx.batch_execute(sql)?))
    }

    /// Runs `statement` (a `COPY … FROM STDIN`), handing `write` the stream
    /// its rows go into; how many rows the server took.
    pub fn copy_in(
        &self,
        statement: &str,
        write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> Result<u64> {
        self.with(|tx| {
            let mut writer = tx.copy_in(statement)?;
            let mut buffered = std::io::BufWriter::with_capacity(1 << 20, &mut writer);
            write(&mut buffered)
                .and_then(|()| std::io::Write::flush(&mut buffered))
                .map_err(|err| Error::Conversion(format!("copying rows: {err}")))?;
            drop(buffered);
            Ok(writer.finish()?)
        })
    }

    /// Whether other writes may run beside this one.
    pub fn is_beside(&self) -> bool {
        self.beside
    }

    /// See `Transaction::declare_made_alone`: a second story declared makes
    /// the write fail; in a write not begun to make one, the declaration is
    /// not needed (its story is queued).
    pub(crate) fn declare_made_alone(&self, id: i64, text: StoryText) {
        let mut made = self.made_alone.borrow_mut();
        *made = match std::mem::take(&mut *made) {
            MadeAlone::Queued => MadeAlone::Queued,
            MadeAlone::Announced => MadeAlone::One(id, Some(Box::new(text))),
            MadeAlone::One(..) | MadeAlone::Several => MadeAlone::Several,
        };
    }

    /// The story made alone, if one was declared.
    pub(crate) fn made_alone_id(&self) -> Option<i64> {
        match *self.made_alone.borrow() {
            MadeAlone::One(id, _) => Some(id),
            _ => None,
        }
    }

    /// Keeps `sql` with `params` to be sent with the commit, if a story is
    /// made alone here; says whether it did.
    pub(crate) fn defer(&self, sql: &str, params: &[&dyn ToSql]) -> Result<bool> {
        if self.made_alone_id().is_none() {
            return Ok(false);
        }
        let mut deferred = self.deferred.borrow_mut();
        deferred.push_str(&with_literals(&numbered_placeholders(sql), params)?);
        deferred.push(';');
        Ok(true)
    }

    /// The text of the story made alone, once.
    pub(crate) fn take_made_alone_text(&self) -> Option<(i64, StoryText)> {
        match &mut *self.made_alone.borrow_mut() {
            MadeAlone::One(id, text) => Some((*id, *text.take()?)),
            _ => None,
        }
    }
}

impl Drop for PgTransaction<'_> {
    fn drop(&mut self) {
        // A failure already reported; a connection that cannot even roll
        // back is closed, and the pool does not hand it out again.
        let _ = self.end("ROLLBACK");
    }
}

impl Run for PgTransaction<'_> {
    fn prepare(&self, sql: &str, cache: bool) -> Result<Prepared> {
        if let Some(found) = self.prepared.borrow().get(sql) {
            return Ok(found.clone());
        }
        let statement = self.with(|tx| Ok(tx.prepare(&numbered_placeholders(sql))?))?;
        let names: Arc<[String]> = statement
            .columns()
            .iter()
            .map(|column| column.name().to_owned())
            .collect();
        let prepared = Prepared { statement, names };
        if cache {
            self.prepared
                .borrow_mut()
                .insert(sql.to_owned(), prepared.clone());
        }
        Ok(prepared)
    }

    fn rows(&self, prepared: &Prepared, params: &[&dyn ToSql]) -> Result<Vec<Vec<Value>>> {
        let values = owned(params)?;
        let bound: Vec<&(dyn postgres::types::ToSql + Sync)> = values
            .iter()
            .map(|v| v as &(dyn postgres::types::ToSql + Sync))
            .collect();
        let rows = self.with(|tx| Ok(tx.query(&prepared.statement, &bound)?))?;
        rows.iter()
            .map(|row| {
                (0..row.len())
                    .map(|i| row.try_get::<_, Value>(i).map_err(Error::from))
                    .collect()
            })
            .collect()
    }

    fn execute(&self, prepared: &Prepared, params: &[&dyn ToSql]) -> Result<usize> {
        let values = owned(params)?;
        let bound: Vec<&(dyn postgres::types::ToSql + Sync)> = values
            .iter()
            .map(|v| v as &(dyn postgres::types::ToSql + Sync))
            .collect();
        let changed = self.with(|tx| Ok(tx.execute(&prepared.statement, &bound)?))?;
        usize::try_from(changed).map_err(Error::conversion)
    }
}

impl Prepared {
    pub(super) fn names(&self) -> Arc<[String]> {
        Arc::clone(&self.names)
    }
}

fn owned(params: &[&dyn ToSql]) -> Result<Vec<Value>> {
    params
        .iter()
        .map(|param| {
            Ok(match param.to_sql()? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(i) => Value::Integer(i),
                ValueRef::Real(r) => Value::Real(r),
                ValueRef::Text(t) => Value::Text(t.to_owned()),
                ValueRef::Blob(b) => Value::Blob(b.to_vec()),
            })
        })
        .collect()
}

/// `sql` (numbered `$N` placeholders) with each placeholder outside a
/// quoted string replaced by its value as a literal: text escaped as libpq
/// escapes it (`postgres-protocol`), which holds whatever
/// `standard_conforming_strings` says.
fn with_literals(sql: &str, params: &[&dyn ToSql]) -> Result<String> {
    let literal = |n: usize| -> Result<String> {
        let param = params
            .get(n.wrapping_sub(1))
            .ok_or_else(|| Error::Conversion(format!("no value for ${n}")))?;
        Ok(match param.to_sql()? {
            ValueRef::Null => "NULL".to_owned(),
            ValueRef::Integer(i) => i.to_string(),
            ValueRef::Real(r) if r.is_finite() => format!("{r:?}::float8"),
            ValueRef::Text(t) => postgres_protocol::escape::escape_literal(t),
            ValueRef::Real(_) | ValueRef::Blob(_) => {
                return Err(Error::Conversion(format!(
                    "${n} cannot be written as a literal"
                )));
            }
        })
    };
    let mut out = String::with_capacity(sql.len() + 64);
    let mut chars = sql.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), _) => {
                out.push(c);
                if c == q {
                    quote = None;
                }
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                out.push(c);
            }
            (None, '$') if chars.peek().is_some_and(char::is_ascii_digit) => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                    digits.push(d);
                    chars.next();
                }
                out.push_str(&literal(digits.parse().map_err(Error::conversion)?)?);
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// SQLite's `?1`, `+?1` and `?` placeholders as PostgreSQL's `$1`; quoted
/// text and names are left alone. The `+` before a placeholder is SQLite's
/// planner hint (see `store.rs`) and means nothing to PostgreSQL.
pub(crate) fn numbered_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut chars = sql.chars().peekable();
    let mut next_bare = 1;
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                out.push(c);
            }
            '+' if chars.peek() == Some(&'?') => {}
            '?' => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                    digits.push(d);
                    chars.next();
                }
                out.push('$');
                if digits.is_empty() {
                    out.push_str(&next_bare.to_string());
                    next_bare += 1;
                } else {
                    out.push_str(&digits);
                }
            }
            c => out.push(c),
        }
    }
    out
}

impl postgres::types::ToSql for Value {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> std::result::Result<IsNull, BoxError> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Integer(i) => match *ty {
                Type::INT8 => put(*i, ty, out),
                Type::INT4 => put(i32::try_from(*i)?, ty, out),
                Type::INT2 => put(i16::try_from(*i)?, ty, out),
                Type::BOOL => put(*i != 0, ty, out),
                Type::FLOAT8 => put(*i as f64, ty, out),
                Type::FLOAT4 => put(*i as f32, ty, out),
                _ if is_text(ty) => put(i.to_string().as_str(), ty, out),
                _ => Err(format!("an integer cannot be sent as {ty}").into()),
            },
            Value::Real(r) => match *ty {
                Type::FLOAT8 => put(*r, ty, out),
                Type::FLOAT4 => put(*r as f32, ty, out),
                _ if is_text(ty) => put(r.to_string().as_str(), ty, out),
                _ => Err(format!("a number cannot be sent as {ty}").into()),
            },
            Value::Text(t) => match *ty {
                Type::INT8 => put(t.parse::<i64>()?, ty, out),
                Type::INT4 => put(t.parse::<i32>()?, ty, out),
                Type::JSON => {
                    out.put_slice(t.as_bytes());
                    Ok(IsNull::No)
                }
                Type::JSONB => {
                    out.put_u8(1);
                    out.put_slice(t.as_bytes());
                    Ok(IsNull::No)
                }
                _ if is_text(ty) => put(t.as_str(), ty, out),
                _ => Err(format!("text cannot be sent as {ty}").into()),
            },
            Value::Blob(b) => match *ty {
                Type::BYTEA => put(b.as_slice(), ty, out),
                _ => Err(format!("bytes cannot be sent as {ty}").into()),
            },
        }
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// Writes `value` as PostgreSQL's binary form of `ty`.
fn put<T: postgres::types::ToSql>(
    value: T,
    ty: &Type,
    out: &mut BytesMut,
) -> std::result::Result<IsNull, BoxError> {
    value.to_sql(ty, out)
}

fn is_text(ty: &Type) -> bool {
    matches!(
        *ty,
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN
    )
}

impl<'a> postgres::types::FromSql<'a> for Value {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> std::result::Result<Self, BoxError> {
        Ok(match *ty {
            Type::INT8 => Value::Integer(i64::from_sql(ty, raw)?),
            Type::INT4 => Value::Integer(i32::from_sql(ty, raw)?.into()),
            Type::INT2 => Value::Integer(i16::from_sql(ty, raw)?.into()),
            Type::BOOL => Value::Integer(bool::from_sql(ty, raw)?.into()),
            Type::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
            Type::FLOAT4 => Value::Real(f32::from_sql(ty, raw)?.into()),
            Type::BYTEA => Value::Blob(raw.to_vec()),
            Type::JSON => Value::Text(std::str::from_utf8(raw)?.to_owned()),
            Type::JSONB => {
                Value::Text(std::str::from_utf8(raw.get(1..).unwrap_or_default())?.to_owned())
            }
            _ if is_text(ty) => Value::Text(String::from_sql(ty, raw)?),
            _ => return Err(format!("a column of type {ty} cannot be read").into()),
        })
    }

    fn from_sql_null(_ty: &Type) -> std::result::Result<Self, BoxError> {
        Ok(Value::Null)
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::numbered_placeholders;

    #[test]
    fn placeholders_become_numbered_outside_quotes() {
        assert_eq!(
            numbered_placeholders(
                "SELECT a FROM t WHERE b = +?2 AND c = ?1 AND d = '?' AND \"?x\" = ?"
            ),
            "SELECT a FROM t WHERE b = $2 AND c = $1 AND d = '?' AND \"?x\" = $1"
        );
        assert_eq!(
            numbered_placeholders("VALUES (?, ?, ?10)"),
            "VALUES ($1, $2, $10)"
        );
    }
}
