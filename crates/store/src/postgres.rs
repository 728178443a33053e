//! The store on PostgreSQL: one database that several central-server nodes share.
//!
//! Writes run side by side on every node. A write that declares what it
//! is about ([`begin_beside`]: one story, a tracking label, an idempotency
//! key) holds [`WRITE_LOCK`] shared and a transaction-scoped advisory lock
//! per claim, so two writes about one thing take turns and writes about
//! different things do not wait for each other, nor for each other's
//! commits. Any other write ([`begin_write`]) holds [`WRITE_LOCK`]
//! exclusive: it runs alone in the cluster, as every write did on SQLite's
//! single writer, so each rule it checks before it writes holds with no
//! change to the rule.
//!
//! Since writes commit out of order, the change log's rows are numbered
//! after they commit ([`number_changes`], migration 0026): a reader never
//! meets a `seq` below one it has read that becomes visible later.
//! Reads take no lock and run at `REPEATABLE READ`, one snapshot each, on
//! any node.

use super::migrations;
use super::pool::Pool;
use crate::db::{PgConnection, PgTransaction, Transaction, claim_key};
use crate::error::{Result, StoreError};

/// The advisory lock every write holds until it commits ("Copydesk" in
/// ASCII): shared by writes beside others, exclusive for the rest.
pub(super) const WRITE_LOCK: i64 = 0x436f_7079_6465_736b;
/// The advisory lock a node holds while it migrates, so that nodes starting
/// together apply each migration once.
const MIGRATION_LOCK: i64 = WRITE_LOCK + 1;
/// The advisory lock `change_log_number()` holds while it numbers rows
/// (written into migration 0026).
#[cfg(test)]
const NUMBERING_LOCK: i64 = WRITE_LOCK + 2;

/// The statement each write that runs alone starts with.
pub(super) const TAKE_WRITE_LOCK: &str = "SELECT pg_advisory_xact_lock(4859226189633778539)";

/// Begins a write that runs alone: its transaction first takes [`WRITE_LOCK`].
pub(super) fn begin_write(conn: &mut PgConnection) -> crate::db::Result<PgTransaction<'_>> {
    conn.write(TAKE_WRITE_LOCK, false)
}

/// Begins a write beside others: [`WRITE_LOCK`] shared, then one
/// advisory lock per claim, lowest key first (so two writes that share
/// claims never wait for each other in a circle), in one round trip.
pub(super) fn begin_beside<'c>(
    conn: &'c mut PgConnection,
    claims: &[&str],
) -> crate::db::Result<PgTransaction<'c>> {
    let mut keys: Vec<i64> = claims.iter().map(|claim| claim_key(claim)).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut first = format!("SELECT pg_advisory_xact_lock_shared({WRITE_LOCK});");
    for key in keys {
        first.push_str(&format!("SELECT pg_advisory_xact_lock({key});"));
    }
    conn.write(&first, true)
}

/// Begins a write beside others that makes one story alone (see
/// `Store::write_making_story`): it claims nothing, and its queues'
/// triggers stand aside.
pub(super) fn begin_making_story(conn: &mut PgConnection) -> crate::db::Result<PgTransaction<'_>> {
    conn.write_making_story(&format!(
        "SELECT pg_advisory_xact_lock_shared({WRITE_LOCK});"
    ))
}

/// How long a read of the feed waits for the writes that were running
/// when it was asked for to end, so that it sees every change committed
/// before it (a write's own, just acknowledged, behind an older write of
/// another client): a write lasts milliseconds. A longer one (an import)
/// holds the feed back until it ends, and the read answers without it.
const FEED_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Numbers the change-log rows whose writes can no longer be joined by an
/// older one (migration 0026's `change_log_number()`), once every write
/// running when it was called has ended (or after [`FEED_WAIT`]), in a
/// transaction of its own. Each statement reads a snapshot of its own
/// (read committed).
pub(super) fn number_changes(pool: &Pool<PgConnection>) -> Result<()> {
    // A numbering that cannot have its locks at once (an import holds the
    // change log; another numbering waits on one) is left to a later read:
    // this read answers with what is numbered, which is only less fresh.
    in_transaction(
        pool,
        |conn| conn.write("SET LOCAL lock_timeout = '250ms'", false),
        |tx| {
            let called: i64 = tx
                .prepare_cached("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint")?
                .query_row([], |row| row.get(0))?;
            let waited = std::time::Instant::now();
            let mut passed = tx.prepare_cached(
                "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint >= ?1",
            )?;
            while !passed.query_row([called], |row| row.get::<_, bool>(0))?
                && waited.elapsed() < FEED_WAIT
            {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            drop(passed);
            let numbered = tx
                .prepare_cached("SELECT change_log_number()")?
                .query_row([], |row| row.get::<_, i64>(0));
            match numbered {
                Ok(_) => Ok(tx.commit()?),
                Err(err) if err.is_lock_timeout() => Ok(()),
                Err(err) => Err(StoreError::from(err)),
            }
        },
    )
}

/// Begins a transaction on a pooled connection with `begin` and runs
/// `work` in it. A connection that cannot even begin because the database
/// is out of reach (after a failover, every pooled connection leads to the
/// lost primary) is closed with every idle one, and the transaction is
/// begun once more on a new connection: nothing had run yet. A failure
/// once `work` has started is never retried here.
pub(super) fn in_transaction<T, E: From<StoreError>>(
    pool: &Pool<PgConnection>,
    begin: impl Fn(&mut PgConnection) -> crate::db::Result<PgTransaction<'_>>,
    work: impl FnOnce(Transaction<'_>) -> Result<T, E>,
) -> Result<T, E> {
    let mut work = Some(work);
    let mut retried = false;
    loop {
        let mut conn = pool.take().map_err(E::from)?;
        let failed = match begin(conn.conn_mut()) {
            Ok(tx) => {
                let Some(work) = work.take() else {
                    break Err(StoreError::Internal("a transaction ran twice".into()).into());
                };
                break work(Transaction::from_postgres(tx));
            }
            Err(err) => err,
        };
        if retried || !failed.is_unavailable() {
            break Err(StoreError::from(failed).into());
        }
        retried = true;
        conn.discard();
        pool.discard_idle();
    }
}

/// Runs `work`, one statement, on a pooled connection outside any
/// transaction. Nothing begins before it that could find a connection to a
/// lost primary, so a statement that finds one is run once more on a new
/// connection, as [`in_transaction`] begins once more: it only read.
pub(super) fn statement<T>(
    pool: &Pool<PgConnection>,
    work: impl Fn(&Transaction<'_>) -> crate::db::Result<T>,
) -> Result<T> {
    let mut retried = false;
    loop {
        let mut conn = pool.take()?;
        let read = work(&Transaction::from_postgres(conn.conn_mut().statement()));
        match read {
            Err(err) if !retried && err.is_unavailable() => {
                retried = true;
                conn.discard();
                pool.discard_idle();
            }
            read => break Ok(read?),
        }
    }
}

/// What every connection of a node sets first. JIT compiling is off: it
/// pays for itself on long analytic queries, while a node's statements
/// last milliseconds, and a list or search over a large archive crosses
/// `jit_above_cost` and would compile code for every run (tens of
/// milliseconds and more, in the backend, on every node).
const SESSION_SETTINGS: &str = "SET jit = off";

/// Connects to `url` (a libpq connection string or URL), checks the
/// database and applies any pending migration; the pool of up to
/// `connections` connections.
pub(super) fn open(url: &str, connections: usize) -> Result<Pool<PgConnection>> {
    let connector = super::postgres_tls::connector(url)?;
    let connect_client = move || -> std::result::Result<postgres::Client, postgres::Error> {
        let mut client = connector.config.connect(connector.tls.clone())?;
        client.batch_execute(SESSION_SETTINGS)?;
        Ok(client)
    };
    let mut first = PgConnection::new(connect_client().map_err(connection_failed)?);
    // Later connections (the pool growing, or reconnecting after a
    // failover) fail as any database failure does while serving.
    let connect = move || -> Result<PgConnection> {
        let client = connect_client().map_err(crate::db::Error::from)?;
        Ok(PgConnection::new(client))
    };
    migrate(&mut first)?;
    Ok(Pool::new(
        Some(first),
        connections,
        Box::new(connect),
        |conn| !conn.client().is_closed(),
    ))
}

/// A node's first connection, or `check`'s, that could not be made: a
/// passing outage stays one (the caller may try again); anything else (a
/// certificate not trusted, a password refused) is the setup's, and says
/// so with PostgreSQL's or the TLS check's words.
fn connection_failed(err: postgres::Error) -> StoreError {
    let err = crate::db::Error::from(err);
    if err.is_unavailable() {
        err.into()
    } else {
        StoreError::invalid(format!("the connection to PostgreSQL failed: {err}"))
    }
}

/// Applies the PostgreSQL migrations not yet applied, each in its own
/// transaction, under a session lock that other nodes wait on.
fn migrate(conn: &mut PgConnection) -> Result<()> {
    let client = conn.client();
    let db = |err: postgres::Error| StoreError::from(crate::db::Error::from(err));
    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .map_err(db)?;
    let applied = (|| -> Result<()> {
        client
            .batch_execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (
                     version    BIGINT PRIMARY KEY,
                     name       TEXT NOT NULL,
                     applied_at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')
                 )",
            )
            .map_err(db)?;
        let current: i64 = client
            .query_one(
                "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
                &[],
            )
            .map_err(db)?
            .get(0);
        for (index, (name, sql)) in migrations::POSTGRES.iter().enumerate() {
            let number = i64::try_from(index + 1)
                .map_err(|_| StoreError::Internal("too many migrations".into()))?;
            if number <= current {
                continue;
            }
            let mut tx = client.transaction().map_err(db)?;
            tx.batch_execute(sql)
                .map_err(|err| StoreError::Internal(format!("migration {name}: {err}")))?;
            tx.execute(
                "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                &[&number, name],
            )
            .map_err(db)?;
            tx.commit().map_err(db)?;
            tracing::info!(migration = name, "applied migration");
        }
        let newest = i64::try_from(migrations::POSTGRES.len()).unwrap_or(i64::MAX);
        if current > newest {
            return Err(StoreError::Internal(format!(
                "the database has schema {current}, newer than this program knows ({newest})"
            )));
        }
        Ok(())
    })();
    client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
        .map_err(db)?;
    applied
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_write_lock_statement_names_the_write_lock() {
        assert!(TAKE_WRITE_LOCK.contains(&WRITE_LOCK.to_string()));
        let numbering = migrations::POSTGRES
            .iter()
            .find(|(name, _)| name.starts_with("0026_"))
            .map(|(_, sql)| *sql)
            .unwrap_or_default();
        assert!(numbering.contains(&format!("pg_advisory_xact_lock({NUMBERING_LOCK})")));
    }

    #[test]
    fn a_claim_has_one_key_on_every_node() {
        // Fixed values: a key that changed between builds would let two
        // nodes of different versions write one story at once.
        assert_eq!(claim_key(""), -3_750_763_034_362_895_579);
        assert_eq!(claim_key("content a"), claim_key("content a"));
        assert_ne!(claim_key("content a"), claim_key("content b"));
    }
}

/// What `check` found in a PostgreSQL database: problems (the database is
/// damaged) and notes (what could not be checked, and why).
#[derive(Debug, Default)]
pub struct CheckReport {
    pub problems: Vec<String>,
    pub notes: Vec<String>,
}

/// Reads the whole database as `check` does on SQLite: every table's every
/// page (a sequential scan; PostgreSQL verifies each page's checksum as it
/// reads it when the cluster has them), every B-tree index with `amcheck`
/// when the extension is installed, and every attachment's file. Only
/// reads, so it is safe beside running nodes.
pub fn full_check(url: &str) -> Result<CheckReport> {
    let connector = super::postgres_tls::connector(url)?;
    let mut client = connector
        .config
        .connect(connector.tls)
        .map_err(connection_failed)?;
    let mut report = CheckReport::default();
    let failed = |err: postgres::Error| {
        err.as_db_error()
            .map_or_else(|| err.to_string(), |db| db.message().to_owned())
    };
    client
        .batch_execute(
            "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off",
        )
        .map_err(crate::db::Error::from)?;
    let tables: Vec<String> = client
        .query(
            "SELECT table_name::text FROM information_schema.tables
             WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
            &[],
        )
        .map_err(crate::db::Error::from)?
        .iter()
        .map(|row| row.get(0))
        .collect();
    for table in &tables {
        // Every column of every row, so values stored out of line are read too.
        if let Err(err) = client.query_one(
            &format!("SELECT COUNT(*), SUM(length(t::text)) FROM {table} t"),
            &[],
        ) {
            report.problems.push(format!("{table}: {}", failed(err)));
        }
    }
    let checksums: String = client
        .query_one("SHOW data_checksums", &[])
        .map_err(crate::db::Error::from)?
        .get(0);
    if checksums != "on" {
        report.notes.push(
            "the cluster has no page checksums (initdb --data-checksums): a damaged page that still parses goes unnoticed".into(),
        );
    }
    let amcheck = client
        .query_opt("SELECT 1 FROM pg_extension WHERE extname = 'amcheck'", &[])
        .map_err(crate::db::Error::from)?
        .is_some();
    if amcheck {
        let indexes = client
            .query(
                "SELECT c.oid, c.relname::text FROM pg_index i
                 JOIN pg_class c ON c.oid = i.indexrelid
                 JOIN pg_am am ON am.oid = c.relam
                 WHERE am.amname = 'btree' AND c.relnamespace = current_schema()::regnamespace",
                &[],
            )
            .map_err(crate::db::Error::from)?;
        for index in indexes {
            let (oid, name): (postgres::types::Oid, String) = (index.get(0), index.get(1));
            if let Err(err) =
                client.execute("SELECT bt_index_check($1::oid::regclass, true)", &[&oid])
            {
                report
                    .problems
                    .push(format!("index {name}: {}", failed(err)));
            }
        }
    } else {
        report.notes.push(
            "indexes were not verified: the amcheck extension is not installed (CREATE EXTENSION amcheck)".into(),
        );
    }
    let without_files = client
        .query(
            "SELECT a.uuid FROM attachments a WHERE NOT EXISTS (
                 SELECT 1 FROM attachment_files f WHERE f.salt = a.salt AND f.name LIKE 'original.%')",
            &[],
        )
        .map_err(crate::db::Error::from)?;
    for row in without_files {
        let uuid: String = row.get(0);
        report
            .problems
            .push(format!("attachment {uuid} has no file in attachment_files"));
    }
    Ok(report)
}
