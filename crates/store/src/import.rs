//! Moves a SQLite central server into an empty PostgreSQL database, row for
//! row, so that its replicas keep syncing as if nothing had happened.
//!
//! Each table streams in through `COPY`, in one transaction with the rest.
//! Every table both engines share is copied with its ids as they are: UUIDs,
//! version numbers, comments, tombstones and the change log's `seq`, which
//! is the cursor a replica pulls from. The change-log triggers are switched
//! off while the rows go in (the copied log is the log), then each identity
//! continues above the highest id copied. The attachment files go into
//! `attachment_files`. One transaction: an import that fails leaves the
//! database as empty as it found it. The search index is built afterwards,
//! in batches, from the copied stories.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;

use crate::db::{Dialect, Transaction, Value, params};
use crate::error::{Result, StoreError};

use super::Store;

/// Tables that are not copied: the migrations applied (PostgreSQL keeps its
/// own), the search index (built again from the copied stories, as each
/// engine indexes in its own way) and the files (read from the directory).
const NOT_COPIED: &[&str] = &[
    "schema_migrations",
    "content_search",
    "content_search_pending",
    "attachment_files",
];

/// Columns only PostgreSQL has, which take their defaults: a change's
/// place in writing order and its transaction (migration 0026; every
/// copied change keeps its `seq`).
const POSTGRES_ONLY: &[(&str, &str)] = &[("change_log", "written"), ("change_log", "xact")];

/// What an import moved.
#[derive(Debug, Default)]
pub struct ImportReport {
    /// Rows copied, by table.
    pub rows: BTreeMap<String, u64>,
    /// Attachment files copied into the database.
    pub files: u64,
    /// Attachments whose files were not in the source's files directory.
    pub missing_files: Vec<String>,
    /// Stories indexed for search afterwards.
    pub indexed: usize,
}

/// Copies everything in `from` (SQLite) into `to` (PostgreSQL, empty).
pub fn import_sqlite(from: &Store, to: &Store) -> Result<ImportReport> {
    if from.dialect() != Dialect::Sqlite || to.dialect() != Dialect::Postgres {
        return Err(StoreError::invalid(
            "an import reads a SQLite data directory into a PostgreSQL database",
        ));
    }
    let mut report = from.read(|src| {
        to.write(|dst| {
            refuse_unless_empty(dst)?;
            let tables = tables_in_dependency_order(dst)?;
            // What migrating alone wrote (settings, seeds) gives way to the
            // source's rows; children before parents.
            for table in tables.iter().rev() {
                dst.execute(&format!("ALTER TABLE {table} DISABLE TRIGGER USER"), [])?;
                dst.execute(&format!("DELETE FROM {table}"), [])?;
            }
            let mut report = ImportReport::default();
            for table in &tables {
                let copied = copy_table(src, dst, table)?;
                report.rows.insert(table.clone(), copied);
            }
            for table in &tables {
                dst.execute(&format!("ALTER TABLE {table} ENABLE TRIGGER USER"), [])?;
                continue_identities(dst, table)?;
            }
            copy_files(from, src, dst, &mut report)?;
            Ok::<_, StoreError>(report)
        })
    })?;
    report.indexed = to.rebuild_search_index()?;
    // Planned from statistics from the first request on, not once
    // autovacuum gets round to a million new rows.
    to.vacuum_analyze()?;
    Ok(report)
}

/// An import never mixes two newsrooms' data: the target holds no person,
/// story or change yet (a database `serve` or `key create` only migrated).
fn refuse_unless_empty(dst: &Transaction<'_>) -> Result<()> {
    for table in ["users", "content", "change_log"] {
        let any = dst
            .prepare(&format!("SELECT 1 FROM {table} LIMIT 1"))?
            .exists([])?;
        if any {
            return Err(StoreError::Conflict {
                message: format!(
                    "the PostgreSQL database already holds data ({table} is not empty); \
                     an import goes into a new, empty database"
                ),
                field: None,
            });
        }
    }
    Ok(())
}

/// The target's tables, each after every table it refers to.
fn tables_in_dependency_order(dst: &Transaction<'_>) -> Result<Vec<String>> {
    let names: Vec<String> = dst
        .prepare(
            "SELECT table_name::text FROM information_schema.tables
             WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
             ORDER BY table_name",
        )?
        .query_map([], |row| row.get(0))?
        .collect::<crate::db::Result<_>>()?;
    let references: Vec<(String, String)> = dst
        .prepare(
            "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint
             WHERE contype = 'f' AND connamespace = current_schema()::regnamespace",
        )?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<crate::db::Result<_>>()?;
    let mut ordered: Vec<String> = Vec::new();
    let mut placed: BTreeSet<String> = BTreeSet::new();
    let wanted: Vec<String> = names
        .into_iter()
        .filter(|name| !NOT_COPIED.contains(&name.as_str()))
        .collect();
    while ordered.len() < wanted.len() {
        let before = ordered.len();
        for name in &wanted {
            let ready = !placed.contains(name)
                && references
                    .iter()
                    .filter(|(from, to)| from == name && to != name)
                    .all(|(_, to)| placed.contains(to) || !wanted.contains(to));
            if ready {
                placed.insert(name.clone());
                ordered.push(name.clone());
            }
        }
        if ordered.len() == before {
            return Err(StoreError::Internal(
                "the tables refer to each other in a cycle".into(),
            ));
        }
    }
    Ok(ordered)
}

/// Copies one table's rows; the columns are the target's, each of which the
/// source must have (both are at the same migration).
fn copy_table(src: &Transaction<'_>, dst: &Transaction<'_>, table: &str) -> Result<u64> {
    let columns: Vec<String> = dst
        .prepare(
            "SELECT column_name::text FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = ?1
             ORDER BY ordinal_position",
        )?
        .query_map([table], |row| row.get(0))?
        .collect::<crate::db::Result<_>>()?;
    let source_columns: BTreeSet<String> = src
        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))?
        .query_map([], |row| row.get(0))?
        .collect::<crate::db::Result<_>>()?;
    if source_columns.is_empty() {
        return Err(StoreError::Internal(format!(
            "the SQLite database has no table {table}"
        )));
    }
    let columns: Vec<String> = columns
        .into_iter()
        .filter(|c| !POSTGRES_ONLY.contains(&(table, c.as_str())))
        .collect();
    if let Some(missing) = columns.iter().find(|c| !source_columns.contains(*c)) {
        return Err(StoreError::Internal(format!(
            "the SQLite table {table} has no column {missing}"
        )));
    }
    let list = columns.join(", ");
    let mut select = src.prepare(&format!("SELECT {list} FROM {table}"))?;
    let width = columns.len();
    let rows = select.query_map([], |row| {
        (0..width)
            .map(|i| row.get::<_, Value>(i))
            .collect::<crate::db::Result<Vec<Value>>>()
    })?;
    let target = dst
        .postgres()
        .ok_or_else(|| StoreError::Internal("an import writes to PostgreSQL".into()))?;
    // A failed read of the source stops the stream; it is kept here, as
    // the stream's own error can only say that it stopped.
    let mut failed = None;
    let copied = target.copy_in(&format!("COPY {table} ({list}) FROM STDIN"), |out| {
        for row in rows {
            let row = match row {
                Ok(row) => row,
                Err(err) => {
                    failed = Some(err);
                    return Err(std::io::Error::other("the source could not be read"));
                }
            };
            copy_line(out, &row)?;
        }
        Ok(())
    });
    if let Some(err) = failed {
        return Err(err.into());
    }
    Ok(copied?)
}

/// One row in `COPY`'s text format: tab-separated, `\N` for NULL, bytes
/// as `bytea` hex. Text holding NUL is refused, as on every write.
fn copy_line(out: &mut dyn Write, row: &[Value]) -> std::io::Result<()> {
    for (i, value) in row.iter().enumerate() {
        if i > 0 {
            out.write_all(b"\t")?;
        }
        match value {
            Value::Null => out.write_all(b"\\N")?,
            Value::Integer(n) => write!(out, "{n}")?,
            Value::Real(r) if r.is_nan() => out.write_all(b"NaN")?,
            Value::Real(r) if r.is_infinite() => {
                out.write_all(if *r > 0.0 { b"Infinity" } else { b"-Infinity" })?;
            }
            Value::Real(r) => write!(out, "{r}")?,
            Value::Text(text) => {
                if text.contains('\0') {
                    return Err(std::io::Error::other(
                        crate::db::Error::NulInText.to_string(),
                    ));
                }
                let mut start = 0;
                for (at, byte) in text.bytes().enumerate() {
                    let escaped: &[u8] = match byte {
                        b'\\' => b"\\\\",
                        b'\t' => b"\\t",
                        b'\n' => b"\\n",
                        b'\r' => b"\\r",
                        _ => continue,
                    };
                    out.write_all(&text.as_bytes()[start..at])?;
                    out.write_all(escaped)?;
                    start = at + 1;
                }
                out.write_all(&text.as_bytes()[start..])?;
            }
            Value::Blob(bytes) => {
                out.write_all(b"\\\\x")?;
                for byte in bytes {
                    write!(out, "{byte:02x}")?;
                }
            }
        }
    }
    out.write_all(b"\n")
}

/// Makes each identity column of `table` continue above its highest copied
/// value, so the next story, comment or change gets a new id.
fn continue_identities(dst: &Transaction<'_>, table: &str) -> Result<()> {
    let identities: Vec<String> = dst
        .prepare(
            "SELECT column_name::text FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = ?1 AND is_identity = 'YES'",
        )?
        .query_map([table], |row| row.get(0))?
        .collect::<crate::db::Result<_>>()?;
    for column in identities {
        let highest: Option<i64> = dst
            .prepare(&format!("SELECT MAX({column}) FROM {table}"))?
            .query_row([], |row| row.get(0))?;
        if let Some(highest) = highest {
            dst.prepare(&format!(
                "SELECT setval(pg_get_serial_sequence('{table}', '{column}'), ?1)"
            ))?
            .query_row([highest], |_| Ok(()))?;
        }
    }
    Ok(())
}

/// Puts every attachment's files into `attachment_files`, as a write on
/// PostgreSQL does.
fn copy_files(
    from: &Store,
    src: &Transaction<'_>,
    dst: &Transaction<'_>,
    report: &mut ImportReport,
) -> Result<()> {
    let attachments: Vec<(String, String, String)> = src
        .prepare("SELECT salt, extension, preview_extension FROM attachments ORDER BY id")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<crate::db::Result<_>>()?;
    let mut insert =
        dst.prepare("INSERT INTO attachment_files (salt, name, bytes) VALUES (?1, ?2, ?3)")?;
    for (salt, extension, preview_extension) in attachments {
        let dir = from.files_dir().join(&salt);
        let original_name = format!("original.{extension}");
        let Some(original) = read_if_there(&dir.join(&original_name))? else {
            report.missing_files.push(salt);
            continue;
        };
        let public_name = format!("public.{preview_extension}");
        if let Some(public) = read_if_there(&dir.join(&public_name))?
            && public != original
        {
            insert.execute(params![salt, public_name, public])?;
            report.files += 1;
        }
        insert.execute(params![salt, original_name, original])?;
        report.files += 1;
    }
    Ok(())
}

fn read_if_there(path: &std::path::Path) -> Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(err.into()),
    }
}
