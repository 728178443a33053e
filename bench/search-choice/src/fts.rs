//! The SQLite FTS5 candidate: the index, its vocabulary table, and the early-stopping plans Copydesk intends.
//!
//! Two contentless FTS5 tables as Copydesk keeps them (only the index, no
//! second copy of the text): `content_search` (title, body, filters) and the
//! headline-only `content_headline` (title, filters), both with rowid = story
//! id, and `search_terms`, every distinct token, through which a half-typed
//! last word is expanded into an `OR` of whole terms instead of FTS5's `w*`,
//! which merges the doclists of every matching term before the first row.
//!
//! Relevance: the stories with every word in the title (from
//! `content_headline`) newest first, then, if the page is not full, the other
//! hits from `content_search` newest first. Newest first: `content_search`
//! newest first. Both stop after the page. The count walks `content_search`
//! newest first for at most 1,001 rows: fewer is the exact count, else it is
//! estimated from how far back the 1,000th hit lies.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};

use crate::corpus::{Stories, Vocabulary, tag_term};
use crate::query::{Answer, HitCount, PAGE, Query};

/// The database file inside `--dir`.
pub const DB_FILE: &str = "fts5.db";
/// Stories inserted per transaction.
const BATCH: usize = 5000;
/// Rows walked for the count: one more than the hits counted exactly.
const COUNT_WALK: usize = 1001;
/// The most whole terms a half-typed word is expanded to; past that it is
/// searched as `w*`.
const MAX_EXPANSION: usize = 64;
/// What reads ask SQLite to map of the file: 16 GiB, more than the file.
const READ_MMAP_BYTES: i64 = 16 << 30;

const SCHEMA: &str = "
    CREATE VIRTUAL TABLE content_search USING fts5(
        title, body, filters,
        content = '',
        contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE content_headline USING fts5(
        title, filters,
        content = '',
        contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE TABLE search_terms (term TEXT PRIMARY KEY) WITHOUT ROWID;
    CREATE TABLE bench_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
";

/// How the index was built, kept in the database so a later run reports it.
#[derive(Clone, Debug)]
pub struct BuildInfo {
    pub stories: u64,
    /// From the first insert to the end of `optimize` and the checkpoint.
    pub build_secs: f64,
    /// Of that, the time spent generating the stories.
    pub generate_secs: f64,
    /// Of that, the two `optimize` commands and the checkpoint.
    pub optimize_secs: f64,
    /// Pages of each table and its shadow tables, in bytes, from `dbstat`.
    pub table_bytes: Vec<(String, u64)>,
    /// The database file, in bytes.
    pub file_bytes: u64,
    /// Whether this run built the index (false: reused from an earlier run).
    pub built_now: bool,
}

/// The index in `dir`, reused when an earlier run finished building it for
/// the same number of stories, else built anew.
pub fn ensure(dir: &Path, stories: u64, vocabulary: &Vocabulary) -> Result<BuildInfo> {
    let path = dir.join(DB_FILE);
    if path.exists()
        && let Some(info) = read_build_info(&path)?
        && info.stories == stories
    {
        return Ok(info);
    }
    for suffix in ["", "-wal", "-shm"] {
        let file = dir.join(format!("{DB_FILE}{suffix}"));
        if file.exists() {
            std::fs::remove_file(&file).with_context(|| format!("removing {}", file.display()))?;
        }
    }
    build(&path, stories, vocabulary)
}

fn read_build_info(path: &Path) -> Result<Option<BuildInfo>> {
    let conn = Connection::open(path)?;
    let has_meta: bool = conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_schema WHERE name = 'bench_meta'",
        [],
        |row| row.get(0),
    )?;
    if !has_meta {
        return Ok(None);
    }
    let get = |key: &str| -> Result<Option<String>> {
        Ok(conn
            .query_row(
                "SELECT value FROM bench_meta WHERE key = ?1",
                [key],
                |row| row.get(0),
            )
            .optional()?)
    };
    if get("complete")?.as_deref() != Some("1") {
        return Ok(None);
    }
    let number = |key: &str| -> Result<f64> {
        get(key)?
            .with_context(|| format!("bench_meta has no {key}"))?
            .parse::<f64>()
            .with_context(|| format!("bench_meta {key}"))
    };
    let mut table_bytes = Vec::new();
    let mut stmt = conn.prepare(
        "SELECT substr(key, 6), value FROM bench_meta WHERE key LIKE 'size:%' ORDER BY key",
    )?;
    let rows = stmt.query_map([], |row| {
        Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
    })?;
    for row in rows {
        let (name, value) = row?;
        table_bytes.push((name, value.parse()?));
    }
    Ok(Some(BuildInfo {
        stories: number("stories")? as u64,
        build_secs: number("build_secs")?,
        generate_secs: number("generate_secs")?,
        optimize_secs: number("optimize_secs")?,
        table_bytes,
        file_bytes: std::fs::metadata(path)?.len(),
        built_now: false,
    }))
}

fn build(path: &Path, stories: u64, vocabulary: &Vocabulary) -> Result<BuildInfo> {
    let mut conn = Connection::open(path)?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        bail!("journal_mode is {mode}, not wal");
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "cache_size", -65536)?;
    conn.execute_batch(SCHEMA)?;

    let started = Instant::now();
    let mut generating = Duration::ZERO;
    let mut generator = Stories::new(vocabulary, stories);
    let mut done: u64 = 0;
    let mut batch_terms: HashSet<String> = HashSet::new();
    loop {
        let tx = conn.transaction()?;
        let mut in_batch = 0;
        {
            let mut insert_search = tx.prepare_cached(
                "INSERT INTO content_search (rowid, title, body, filters) VALUES (?1, ?2, ?3, ?4)",
            )?;
            let mut insert_headline = tx.prepare_cached(
                "INSERT INTO content_headline (rowid, title, filters) VALUES (?1, ?2, ?3)",
            )?;
            let mut insert_term =
                tx.prepare_cached("INSERT OR IGNORE INTO search_terms (term) VALUES (?1)")?;
            batch_terms.clear();
            while in_batch < BATCH {
                let generated = Instant::now();
                let Some(story) = generator.next() else { break };
                generating += generated.elapsed();
                let filters = story.filters();
                let id = i64::try_from(story.id)?;
                insert_search.execute(params![id, story.title, story.body, filters])?;
                insert_headline.execute(params![id, story.title, filters])?;
                for token in story
                    .title
                    .split(' ')
                    .chain(story.body.split(' '))
                    .chain(filters.split(' '))
                {
                    if !batch_terms.contains(token) {
                        batch_terms.insert(token.to_owned());
                    }
                }
                in_batch += 1;
            }
            for term in &batch_terms {
                insert_term.execute([term])?;
            }
        }
        tx.commit()?;
        done += in_batch as u64;
        if done.is_multiple_of(100_000) && in_batch > 0 {
            eprintln!(
                "  fts5: {done} stories indexed, {:.0} s",
                started.elapsed().as_secs_f64()
            );
        }
        if in_batch < BATCH {
            break;
        }
    }

    let optimizing = Instant::now();
    conn.execute(
        "INSERT INTO content_search (content_search) VALUES ('optimize')",
        [],
    )?;
    conn.execute(
        "INSERT INTO content_headline (content_headline) VALUES ('optimize')",
        [],
    )?;
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    let optimize_secs = optimizing.elapsed().as_secs_f64();
    let build_secs = started.elapsed().as_secs_f64();

    // Sizes of each table with its shadow tables (dbstat reads every page:
    // done once here and kept).
    let mut table_bytes: Vec<(String, u64)> = Vec::new();
    {
        let mut stmt = conn.prepare(
            "SELECT CASE
                 WHEN name LIKE 'content_search%' THEN 'content_search'
                 WHEN name LIKE 'content_headline%' THEN 'content_headline'
                 WHEN name = 'search_terms' THEN 'search_terms'
                 ELSE 'other' END AS tbl,
                 sum(pgsize)
             FROM dbstat GROUP BY tbl ORDER BY tbl",
        )?;
        let rows = stmt.query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
        })?;
        for row in rows {
            let (name, bytes) = row?;
            table_bytes.push((name, u64::try_from(bytes)?));
        }
    }

    let tx = conn.transaction()?;
    {
        let mut put =
            tx.prepare("INSERT OR REPLACE INTO bench_meta (key, value) VALUES (?1, ?2)")?;
        put.execute(params!["stories", stories.to_string()])?;
        put.execute(params!["build_secs", build_secs.to_string()])?;
        put.execute(params![
            "generate_secs",
            generating.as_secs_f64().to_string()
        ])?;
        put.execute(params!["optimize_secs", optimize_secs.to_string()])?;
        for (name, bytes) in &table_bytes {
            put.execute(params![format!("size:{name}"), bytes.to_string()])?;
        }
        put.execute(params!["complete", "1"])?;
    }
    tx.commit()?;
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    drop(conn);

    Ok(BuildInfo {
        stories,
        build_secs,
        generate_secs: generating.as_secs_f64(),
        optimize_secs,
        table_bytes,
        file_bytes: std::fs::metadata(path)?.len(),
        built_now: true,
    })
}

/// A read connection to the index, opened once before timing.
pub struct Fts {
    conn: Connection,
    /// The oldest and newest story ids, for the count's estimate.
    min_id: i64,
    max_id: i64,
    /// What `PRAGMA mmap_size` reports after asking for 16 GiB.
    pub mmap_bytes: i64,
    pub sqlite_version: String,
}

impl Fts {
    pub fn open(dir: &Path) -> Result<Fts> {
        let conn = Connection::open(dir.join(DB_FILE))?;
        conn.pragma_update(None, "mmap_size", READ_MMAP_BYTES)?;
        let mmap_bytes: i64 = conn.query_row("PRAGMA mmap_size", [], |row| row.get(0))?;
        let stories: i64 = conn
            .query_row(
                "SELECT value FROM bench_meta WHERE key = 'stories'",
                [],
                |row| row.get::<_, String>(0),
            )?
            .parse()?;
        let sqlite_version: String =
            conn.query_row("SELECT sqlite_version()", [], |row| row.get(0))?;
        Ok(Fts {
            conn,
            min_id: 1,
            max_id: stories,
            mmap_bytes,
            sqlite_version,
        })
    }

    /// The FTS5 query: every whole word, the half-typed last word expanded
    /// through `search_terms`, and the tag's filter term, all required.
    fn match_expression(&self, query: &Query) -> Result<String> {
        let mut parts: Vec<String> = query.words.iter().map(|word| quoted(word)).collect();
        if let Some(prefix) = &query.prefix {
            let mut stmt = self.conn.prepare_cached(
                "SELECT term FROM search_terms WHERE term >= ?1 AND term < ?2 ORDER BY term LIMIT ?3",
            )?;
            let upper = format!("{prefix}\u{10FFFF}");
            let terms = stmt
                .query_map(params![prefix, upper, (MAX_EXPANSION + 1) as i64], |row| {
                    row.get::<_, String>(0)
                })?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            parts.push(match terms.len() {
                0 => format!("{}*", quoted(prefix)),
                1 => quoted(&terms[0]),
                n if n <= MAX_EXPANSION => {
                    let alternatives: Vec<String> = terms.iter().map(|term| quoted(term)).collect();
                    format!("({})", alternatives.join(" OR "))
                }
                _ => format!("{}*", quoted(prefix)),
            });
        }
        if let Some(tag) = query.tag {
            parts.push(quoted(&tag_term(tag)));
        }
        Ok(parts.join(" AND "))
    }

    /// Up to `limit` hits of `table` newest first.
    fn newest_rows(&self, table: &str, expression: &str, limit: usize) -> Result<Vec<i64>> {
        let sql = format!(
            "SELECT rowid FROM {table} WHERE {table} MATCH ?1 ORDER BY rowid DESC LIMIT ?2"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt
            .query_map(params![expression, limit as i64], |row| {
                row.get::<_, i64>(0)
            })?
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        Ok(rows)
    }

    /// The count from a walk of at most `COUNT_WALK` hits newest first.
    fn count_from_walk(&self, walk: &[i64]) -> HitCount {
        if walk.len() < COUNT_WALK {
            return HitCount::Exact(walk.len() as u64);
        }
        let thousandth = walk[COUNT_WALK - 2];
        let span = (self.max_id - self.min_id + 1) as f64;
        let reach = (self.max_id - thousandth + 1) as f64;
        HitCount::Estimated((1000.0 * span / reach).round() as u64)
    }

    /// The first page by relevance: headline hits newest first, then body
    /// hits newest first; with the count when asked, whose walk also gives
    /// the body hits.
    pub fn relevance(&self, query: &Query, with_count: bool) -> Result<Answer> {
        let expression = self.match_expression(query)?;
        let headline = self.newest_rows("content_headline", &expression, PAGE)?;
        let mut ids: Vec<u64> = headline.iter().map(|&id| id as u64).collect();
        let skipped = headline.len();
        let mut count = None;
        if with_count {
            // The walk is the first rows of the same newest-first pass the
            // body hits come from; with fewer than a page of headline hits
            // (at most 19 skipped), its 1,001 rows always fill the page.
            let walk = self.newest_rows("content_search", &expression, COUNT_WALK)?;
            if ids.len() < PAGE {
                fill_skipping(&mut ids, &walk, &headline);
            }
            count = Some(self.count_from_walk(&walk));
        } else if ids.len() < PAGE {
            // The rest of the page, plus the headline hits the walk meets
            // again and skips.
            let wanted = PAGE - skipped;
            let body = self.newest_rows("content_search", &expression, wanted + skipped)?;
            fill_skipping(&mut ids, &body, &headline);
        }
        Ok(Answer { ids, count })
    }

    /// The first page newest first; with the count when asked, the page
    /// being the first rows of the count's walk.
    pub fn newest(&self, query: &Query, with_count: bool) -> Result<Answer> {
        let expression = self.match_expression(query)?;
        if with_count {
            let walk = self.newest_rows("content_search", &expression, COUNT_WALK)?;
            let ids = walk.iter().take(PAGE).map(|&id| id as u64).collect();
            Ok(Answer {
                ids,
                count: Some(self.count_from_walk(&walk)),
            })
        } else {
            let rows = self.newest_rows("content_search", &expression, PAGE)?;
            Ok(Answer {
                ids: rows.into_iter().map(|id| id as u64).collect(),
                count: None,
            })
        }
    }
}

/// Appends `rows` to the page, skipping the headline hits already on it,
/// until the page is full.
fn fill_skipping(ids: &mut Vec<u64>, rows: &[i64], headline: &[i64]) {
    for &row in rows {
        if ids.len() >= PAGE {
            break;
        }
        if !headline.contains(&row) {
            ids.push(row as u64);
        }
    }
}

/// An FTS5 string: the term in double quotes, so no word is read as an
/// operator.
fn quoted(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}
