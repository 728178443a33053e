//! The full-text index of content (SQLite FTS5, migration 0013): kept current
//! inside each write's transaction, and turned from what a journalist types
//! into an FTS5 query that cannot be misread as query syntax.

use std::collections::HashSet;

use crate::db::{Dialect, OptionalExtension as _, Transaction, params};

use crate::Store;
use crate::error::{Result, StoreError};

/// The most words one search takes: each word is one more condition per column.
pub const MAX_SEARCH_WORDS: usize = 50;
/// The longest word one search takes, in characters: no title or name holds a longer one.
pub const MAX_SEARCH_WORD_CHARS: usize = 200;

/// The words of a search, refused with the limit named when there are too
/// many or one is too long (SQLite would otherwise fail on the query).
pub fn search_words(keywords: &str) -> Result<Vec<&str>> {
    let words: Vec<&str> = keywords.split_whitespace().collect();
    if words.len() > MAX_SEARCH_WORDS {
        return Err(StoreError::invalid_field(
            "keywords",
            format!(
                "a search takes at most {MAX_SEARCH_WORDS} words; this one has {}",
                words.len()
            ),
        ));
    }
    if let Some(long) = words
        .iter()
        .find(|word| word.chars().count() > MAX_SEARCH_WORD_CHARS)
    {
        return Err(StoreError::invalid_field(
            "keywords",
            format!(
                "a search word may be at most {MAX_SEARCH_WORD_CHARS} characters long; one has {}",
                long.chars().count()
            ),
        ));
    }
    Ok(words)
}

/// A hit's relevance, lower for a better match: BM25 without the weight of
/// each word by how few stories hold it (see `copydesk_search_rank`, which
/// says why), with column weights in the index's column order (title,
/// abstract, body, slug, authors, tags, filters): a word in the headline
/// counts ten times one in the body; the filter terms count for nothing.
const RANK: &str = "copydesk_rank(content_search, 10.0, 4.0, 1.0, 2.0, 3.0, 3.0, 0.0)";

/// [`RANK`] of a headline hit as the headline pass gives it: that pass's
/// column filter hides the matches in the body, which is what a body
/// weighing nothing does (`copydesk_search_rank`'s tests check that the
/// two agree).
const HEADLINE_RANK: &str = "copydesk_rank(content_search, 10.0, 4.0, 0.0, 2.0, 3.0, 3.0, 0.0)";

/// The [`HEADLINE_FIELDS`] as a mask of the index's columns, as
/// `copydesk_in_columns` takes them: title 0, abstract 1, slug 3, authors
/// 4, tags 5.
const HEADLINE_MASK: u64 = 0b11_1011;

/// The columns where a match makes a story a headline hit: everything but
/// the body (and the filter terms).
const HEADLINE_FIELDS: &str = "{title abstract slug authors tags}";

/// The first character of every term of the FTS5 index's `filters` column
/// (migration 0020): a private-use character, which FTS5's `unicode61`
/// tokenizer keeps inside a word, and which is taken out of every other
/// column's text and out of every typed word. So no typed word or
/// half-typed start can match a filter term, and a search needs no column
/// filter to keep its words out of the `filters` column: FTS5 then skips
/// checking the column of every entry of every list it steps through, a
/// fifth of a three-word search's time over a million stories whose index
/// is in many segments (little once they are merged into one).
const FILTER_MARK: char = '\u{E000}';

/// `text` as indexed or searched in the words' columns: without
/// [`FILTER_MARK`], which only the filter terms start with.
fn without_filter_mark(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(FILTER_MARK) {
        std::borrow::Cow::Owned(text.replace(FILTER_MARK, " "))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// A filter term ([`tag_term`], [`author_term`]) as the FTS5 index holds it:
/// [`FILTER_MARK`] in place of its leading `0`.
fn fts5_filter_term(term: &str) -> String {
    format!("{FILTER_MARK}{}", term.strip_prefix('0').unwrap_or(term))
}

/// The term that stands in the index's `filters` column for a story's tag.
fn tag_term(tag_id: i64) -> String {
    format!("0tag{tag_id}")
}

/// The term that stands in the index's `filters` column for a story's author.
fn author_term(author_id: i64) -> String {
    format!("0author{author_id}")
}

/// A search as the index answers it: the words typed, and the tags and
/// authors its hits must have. A tag or author is matched as a term of the
/// hidden `filters` column, so the index intersects it with the words as it
/// does words with each other, instead of every hit being looked up in the
/// story's tags.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchTerms {
    /// The typed words as an FTS5 expression (see [`match_expression`]).
    words: String,
    /// The same words as a PostgreSQL `tsquery` literal (see `search_tsvector`).
    query: String,
    several_words: bool,
    filters: Vec<String>,
}

/// The column of `content_search` that names the story.
pub fn story_column(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Sqlite => "content_search.rowid",
        Dialect::Postgres => "content_search.content_id",
    }
}

impl SearchTerms {
    /// Only stories with this tag.
    pub fn with_tag(mut self, tag_id: i64) -> Self {
        self.filters.push(tag_term(tag_id));
        self
    }

    /// Only stories by this author.
    pub fn with_author(mut self, author_id: i64) -> Self {
        self.filters.push(author_term(author_id));
        self
    }

    /// The FTS5 expression every hit matches. It has no column filter: no
    /// typed word can match a filter term (see [`FILTER_MARK`]).
    pub(crate) fn matching(&self) -> String {
        self.within(None)
    }

    /// The hits with every word in a headline field.
    fn headline(&self) -> String {
        self.within(Some(HEADLINE_FIELDS))
    }

    /// The condition on `content_search` that its row is a hit, and its
    /// parameters, numbered from `first`.
    pub fn condition(&self, dialect: Dialect, first: usize) -> (String, Vec<String>) {
        match dialect {
            Dialect::Sqlite => (
                format!("content_search MATCH ?{first}"),
                vec![self.matching()],
            ),
            Dialect::Postgres => (
                format!(
                    "content_search.document @@ CAST(?{first}::text AS tsquery) \
                     AND content_search.filters @> string_to_array(?{}, ' ')",
                    first + 1
                ),
                vec![self.query.clone(), self.filters.join(" ")],
            ),
        }
    }

    /// The words, in `fields` when given, and the filter terms.
    fn within(&self, fields: Option<&str>) -> String {
        let mut expression = match fields {
            Some(fields) => format!("{fields} : ({})", self.words),
            None => format!("({})", self.words),
        };
        for term in &self.filters {
            expression.push_str(&format!(" AND \"{}\"", fts5_filter_term(term)));
        }
        expression
    }
}

/// The most hits ranked one by one. Ranking costs a few microseconds a hit
/// (it reads each hit's matches and length), so a common word over a million
/// stories (thousands of hits) would take tens of milliseconds to rank
/// whole. A search with no more hits than this is ranked whole; beyond it,
/// the stories with every word in a headline field ([`HEADLINE_FIELDS`])
/// come first (the newest this many of them ranked, then the rest of them
/// newest first), then every other hit, newest first.
const RANKED_AT_MOST: usize = 200;

/// The most hits of a several-word or filtered search that SQLite's first
/// pass scores and places (see [`hits_placed`]), so that a search with more
/// hits than are ranked still intersects its words once. Scoring and
/// placing a hit costs about 1.8 µs over a million stories; intersecting
/// three common words again costs milliseconds.
const PLACED_AT_MOST: usize = 2_000;

/// One page of a search ranked by relevance (see [`RANKED_AT_MOST`]) and
/// the number of hits.
///
/// With several words or a filter, hits are scored in the first pass:
/// intersecting doclists is the costly part, and such a search rarely has
/// many hits. On SQLite that pass also tells each hit's headline score
/// and whether it is a headline hit, so up to [`PLACED_AT_MOST`] hits are
/// put in order from it alone. Otherwise (one word alone, or too many hits)
/// they are listed first without scores: reading one doclist is cheap, and
/// a word alone often has too many hits to score them all.
pub fn ranked_page(
    tx: &Transaction<'_>,
    store: Option<&Store>,
    terms: &SearchTerms,
    offset: usize,
    limit: usize,
) -> Result<(u64, Vec<i64>)> {
    let score_first = terms.several_words || !terms.filters.is_empty();
    // Every hit in order when the first pass can tell it.
    let first_pass = match (score_first, tx.dialect()) {
        (false, _) => None,
        (true, Dialect::Sqlite) => {
            let split = match store {
                Some(store) if terms.several_words => split_point(tx, store)?,
                _ => None,
            };
            let placed = hits_placed_whole(tx, terms, PLACED_AT_MOST + 1, split.as_ref())?;
            (placed.len() <= PLACED_AT_MOST).then(|| placed_order(placed))
        }
        (true, Dialect::Postgres) => {
            // In any order: these are ranked whole, or dropped when too many.
            let first = hits_scored(tx, terms, Hits::All, Take::AnyUpTo(RANKED_AT_MOST + 1))?;
            (first.len() <= RANKED_AT_MOST).then(|| by_score(first))
        }
    };
    let (total, order) = match first_pass {
        Some(order) => (order.len(), order),
        None => ranked_in_passes(tx, terms)?,
    };
    let page = order.into_iter().skip(offset).take(limit).collect();
    Ok((u64::try_from(total).unwrap_or(u64::MAX), page))
}

/// Every hit of a search in order, and how many there are, from up to three
/// passes over the index: the hits newest first, then (when there are more
/// than [`RANKED_AT_MOST`]) the newest headline hits ranked, and the
/// headline hits listed when those are more than ranked too.
fn ranked_in_passes(tx: &Transaction<'_>, terms: &SearchTerms) -> Result<(usize, Vec<i64>)> {
    let scored = |hits: Hits, take: Take| hits_scored(tx, terms, hits, take);
    let newest_first = |hits: Hits| hits_newest_first(tx, terms, hits);
    let hits = newest_first(Hits::All)?;
    let order = if hits.len() <= RANKED_AT_MOST {
        by_score(scored(Hits::All, Take::Every)?)
    } else {
        let mut ranked = scored(Hits::Headline, Take::NewestUpTo(RANKED_AT_MOST + 1))?;
        let headline_hits = if ranked.len() > RANKED_AT_MOST {
            ranked.truncate(RANKED_AT_MOST);
            newest_first(Hits::Headline)?
        } else {
            Vec::new()
        };
        headline_first(ranked, &headline_hits, &hits)
    };
    Ok((hits.len(), order))
}

/// Which hits of a search: all, or those with every word in a headline field.
#[derive(Clone, Copy)]
enum Hits {
    All,
    Headline,
}

/// How many of the hits a pass reads, and in what order.
#[derive(Clone, Copy)]
enum Take {
    Every,
    /// The newest this many.
    NewestUpTo(usize),
    /// This many in whatever order the index gives them, which is cheapest
    /// (see [`hits_newest_first`]).
    AnyUpTo(usize),
}

impl Take {
    /// The end of the query: its `ORDER BY` on `id_column` and `LIMIT`.
    fn tail(self, id_column: &str) -> String {
        match self {
            Take::Every => String::new(),
            Take::NewestUpTo(most) => format!("ORDER BY {id_column} DESC LIMIT {most}"),
            Take::AnyUpTo(most) => format!("LIMIT {most}"),
        }
    }
}

/// PostgreSQL's weights of the A to D fields, as `ts_rank` takes them
/// (D first): a word in the title counts ten times one in the body, as
/// SQLite's [`RANK`] weighs them.
const PG_WEIGHTS: &str = "'{0.1, 0.3, 0.4, 1.0}'";

/// The hits with their scores (lower is better), as many as `take` says.
fn hits_scored(
    tx: &Transaction<'_>,
    terms: &SearchTerms,
    hits: Hits,
    take: Take,
) -> Result<Vec<(i64, f64)>> {
    let (sql, args) = match tx.dialect() {
        Dialect::Sqlite => (
            format!(
                "SELECT rowid, {RANK} FROM content_search WHERE content_search MATCH ?1 {}",
                take.tail("rowid")
            ),
            vec![match hits {
                Hits::All => terms.matching(),
                Hits::Headline => terms.headline(),
            }],
        ),
        Dialect::Postgres => (
            format!(
                "SELECT content_id, -ts_rank({PG_WEIGHTS}, document, CAST(?1::text AS tsquery)) \
                 FROM content_search WHERE {column} @@ CAST(?1::text AS tsquery) \
                 AND filters @> string_to_array(?2, ' ') {tail}",
                column = pg_column(hits),
                tail = take.tail("content_id"),
            ),
            vec![terms.query.clone(), terms.filters.join(" ")],
        ),
    };
    let mut stmt = tx.prepare_cached(&sql)?;
    let rows = stmt
        .query_map(
            &args
                .iter()
                .map(|a| a as &dyn crate::db::ToSql)
                .collect::<Vec<_>>(),
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?
        .collect::<crate::db::Result<_>>()?;
    Ok(rows)
}

/// A hit of SQLite's first pass: its id, its score, and its headline score
/// when it is a headline hit.
pub(crate) type PlacedHit = (i64, f64, Option<f64>);

/// The newest story's id from which SQLite's first pass is split in two
/// (see [`split_point`]): below it a search takes a millisecond or less,
/// and a second thread would add more than it saves.
const SPLIT_FROM: i64 = 100_000;

/// Where a search splits its first pass over the index: the store whose
/// second reader takes the newer half, and the first id of that half.
struct Split<'s> {
    store: &'s Store,
    newer_from: i64,
}

/// Where to split a several-word search's first pass over the stories of
/// `store`, in two halves of ids, or `None` when the newest story's id is
/// below [`SPLIT_FROM`]. FTS5 steps through the words' lists entry by
/// entry, so each half costs about half of one pass, and the two run at
/// once (measured inside the database over a million stories: 5.2 to 5.8
/// ms at p50 and 16 to 20 at p99 in one pass, 3.2 and 11.4 in two halves). One word within a
/// tag or by an author intersects a short list: split, it was 0.3 to 0.6
/// ms slower over HTTP (measured when each split started a thread of its
/// own), so it runs in one pass.
fn split_point<'s>(tx: &Transaction<'_>, store: &'s Store) -> Result<Option<Split<'s>>> {
    let newest: Option<i64> = tx.query_row("SELECT max(id) FROM content", [], |row| row.get(0))?;
    Ok(newest
        .filter(|&newest| newest >= SPLIT_FROM)
        .map(|newest| Split {
            store,
            newer_from: newest / 2 + 1,
        }))
}

/// [`hits_placed`] over every story: in two halves side by side when
/// `split` says where and a second reader is free, the older half's hits
/// first, so that they come in the index's order all the same; else in
/// one pass.
fn hits_placed_whole(
    tx: &Transaction<'_>,
    terms: &SearchTerms,
    most: usize,
    split: Option<&Split<'_>>,
) -> Result<Vec<PlacedHit>> {
    let one_pass = |tx: &Transaction<'_>| hits_placed(tx, terms, most, i64::MIN..=i64::MAX);
    let Some(split) = split else {
        return one_pass(tx);
    };
    let newer_from = split.newer_from;
    let halves = split.store.read_beside(
        tx,
        |tx| hits_placed(tx, terms, most, i64::MIN..=newer_from - 1),
        |tx| hits_placed(tx, terms, most, newer_from..=i64::MAX),
    )?;
    match halves {
        Some((mut older, newer)) => {
            older.extend(newer);
            Ok(older)
        }
        None => one_pass(tx),
    }
}

/// Up to `most` hits with ids in `ids`, in the index's order, each scored
/// as the whole list and as the headline pass would score it (SQLite only).
fn hits_placed(
    tx: &Transaction<'_>,
    terms: &SearchTerms,
    most: usize,
    ids: std::ops::RangeInclusive<i64>,
) -> Result<Vec<PlacedHit>> {
    let sql = format!(
        "SELECT rowid, {RANK}, CASE WHEN {in_columns}(content_search, {HEADLINE_MASK}, {skipped}) \
         THEN {HEADLINE_RANK} END FROM content_search WHERE content_search MATCH ?1 \
         AND rowid >= ?2 AND rowid <= ?3 LIMIT {most}",
        in_columns = copydesk_search_rank::IN_COLUMNS,
        skipped = terms.filters.len(),
    );
    let mut stmt = tx.prepare_cached(&sql)?;
    let rows = stmt
        .query_map(params![terms.matching(), ids.start(), ids.end()], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })?
        .collect::<crate::db::Result<_>>()?;
    Ok(rows)
}

/// The order of a search's every hit, from its [`hits_placed`]: the order
/// [`ranked_in_passes`] gives.
fn placed_order(mut placed: Vec<PlacedHit>) -> Vec<i64> {
    if placed.len() <= RANKED_AT_MOST {
        return by_score(
            placed
                .into_iter()
                .map(|(id, score, _)| (id, score))
                .collect(),
        );
    }
    placed.sort_unstable_by_key(|(id, _, _)| std::cmp::Reverse(*id));
    let newest_first: Vec<i64> = placed.iter().map(|(id, _, _)| *id).collect();
    let headline: Vec<(i64, f64)> = placed
        .iter()
        .filter_map(|(id, _, headline)| headline.map(|score| (*id, score)))
        .collect();
    let headline_newest_first: Vec<i64> = headline.iter().map(|(id, _)| *id).collect();
    let ranked = headline.into_iter().take(RANKED_AT_MOST).collect();
    headline_first(ranked, &headline_newest_first, &newest_first)
}

/// The hits' ids, newest first.
fn hits_newest_first(tx: &Transaction<'_>, terms: &SearchTerms, hits: Hits) -> Result<Vec<i64>> {
    // FTS5 is asked for the oldest first and the list turned round here: it
    // walks its lists backwards at a quarter more cost when several words
    // are intersected.
    let oldest_first = tx.dialect() == Dialect::Sqlite;
    let (sql, args) = match tx.dialect() {
        Dialect::Sqlite => (
            "SELECT rowid FROM content_search WHERE content_search MATCH ?1 ORDER BY rowid ASC"
                .to_owned(),
            vec![match hits {
                Hits::All => terms.matching(),
                Hits::Headline => terms.headline(),
            }],
        ),
        Dialect::Postgres => (
            format!(
                "SELECT content_id FROM content_search WHERE {column} @@ CAST(?1::text AS tsquery) \
                 AND filters @> string_to_array(?2, ' ') ORDER BY content_id DESC",
                column = pg_column(hits),
            ),
            vec![terms.query.clone(), terms.filters.join(" ")],
        ),
    };
    let mut stmt = tx.prepare_cached(&sql)?;
    let rows = stmt
        .query_map(
            &args
                .iter()
                .map(|a| a as &dyn crate::db::ToSql)
                .collect::<Vec<_>>(),
            |row| row.get(0),
        )?
        .collect::<crate::db::Result<Vec<i64>>>()?;
    Ok(if oldest_first {
        rows.into_iter().rev().collect()
    } else {
        rows
    })
}

fn pg_column(hits: Hits) -> &'static str {
    match hits {
        Hits::All => "document",
        Hits::Headline => "headline",
    }
}

/// Scored hits best first (a lower [`RANK`] is a better match), the
/// newest first among equals.
fn by_score(mut scored: Vec<(i64, f64)>) -> Vec<i64> {
    scored.sort_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
    scored.into_iter().map(|(id, _)| id).collect()
}

/// A large search's order: the `ranked` headline hits by score, then the
/// other headline hits and then every other hit, each newest first as
/// listed.
fn headline_first(
    ranked: Vec<(i64, f64)>,
    headline_newest_first: &[i64],
    newest_first: &[i64],
) -> Vec<i64> {
    let mut placed: HashSet<i64> = ranked.iter().map(|(id, _)| *id).collect();
    let mut order = by_score(ranked);
    for &id in headline_newest_first.iter().chain(newest_first) {
        if placed.insert(id) {
            order.push(id);
        }
    }
    order
}

/// Items reindexed per transaction when a whole database is (re)indexed.
const BATCH: usize = 5_000;

/// Reindexes the items the triggers queued in this transaction, then empties
/// the queue: called by the store before every commit.
pub(crate) fn flush_pending(tx: &Transaction<'_>) -> Result<usize> {
    index_queued(tx, None)
}

/// Items waiting to be indexed (after an upgrade or a `reindex-search`):
/// indexes a batch of them.
pub(crate) fn pending_batch(tx: &Transaction<'_>) -> Result<usize> {
    index_queued(tx, Some(BATCH))
}

/// Reindexes up to `limit` queued items (all of them: `None`), lowest ids
/// first, and takes them off the queue; how many it took.
fn index_queued(tx: &Transaction<'_>, limit: Option<usize>) -> Result<usize> {
    // The limit is written into the text: SQLite re-prepares a cached
    // statement at every run when its LIMIT is a parameter.
    let sql = match limit {
        Some(limit) => {
            format!(
                "SELECT content_id, fresh FROM content_search_pending ORDER BY content_id LIMIT {limit}"
            )
        }
        None => {
            "SELECT content_id, fresh FROM content_search_pending ORDER BY content_id".to_owned()
        }
    };
    let queued: Vec<(i64, bool)> = {
        let mut stmt = tx.prepare_cached(&sql)?;
        stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<crate::db::Result<_>>()?
    };
    let Some(&(last, _)) = queued.last() else {
        return Ok(0);
    };
    for &(id, fresh) in &queued {
        reindex(tx, id, fresh)?;
    }
    tx.prepare_cached("DELETE FROM content_search_pending WHERE content_id <= ?1")?
        .execute([last])?;
    Ok(queued.len())
}

/// Empties the index and queues every item again (`copydesk-server reindex-search`).
pub(crate) fn queue_all(tx: &Transaction<'_>) -> Result<usize> {
    tx.execute("DELETE FROM content_search", [])?;
    tx.execute("DELETE FROM content_search_pending", [])?;
    Ok(tx.execute(
        "INSERT INTO content_search_pending (content_id, fresh) SELECT id, 1 FROM content",
        [],
    )?)
}

/// Merges the index's segments into one, after many items were indexed at once.
pub(crate) fn optimize(tx: &Transaction<'_>) -> Result<()> {
    if tx.dialect() == Dialect::Postgres {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO content_search (content_search) VALUES ('optimize')",
        [],
    )?;
    Ok(())
}

/// Writes the index row of item `id` from what is stored now, or removes it
/// when the item is gone. A `fresh` item (made since it was queued, so not
/// in the index) is inserted: a replace would write a delete first, and each
/// delete flushes the index's in-memory segment.
fn reindex(tx: &Transaction<'_>, id: i64, fresh: bool) -> Result<()> {
    if tx.dialect() == Dialect::Postgres {
        return reindex_postgres(tx, id);
    }
    let found = tx
        .prepare_cached(
            "SELECT title, abstract, content, slug,
                    (SELECT group_concat(a.name, ' ') FROM content_authors ca JOIN authors a ON a.id = ca.author_id
                     WHERE ca.content_id = content.id),
                    (SELECT group_concat(t.name, ' ') FROM content_tags ct JOIN tags t ON t.id = ct.tag_id
                     WHERE ct.content_id = content.id),
                    (SELECT json_group_array(tag_id) FROM content_tags WHERE content_id = content.id),
                    (SELECT json_group_array(author_id) FROM content_authors WHERE content_id = content.id)
             FROM content WHERE id = ?1",
        )?
        .query_row([id], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
                row.get::<_, Option<String>>(4)?,
                row.get::<_, Option<String>>(5)?,
                filter_terms(&row.get::<_, String>(6)?, &row.get::<_, String>(7)?)?,
            ))
        })
        .optional()?;
    match found {
        Some((title, abstract_html, body_html, slug, authors, tags, filters)) => {
            tx.prepare_cached(if fresh {
                "INSERT INTO content_search (rowid, title, abstract, body, slug, authors, tags, filters)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
            } else {
                "INSERT OR REPLACE INTO content_search (rowid, title, abstract, body, slug, authors, tags, filters)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
            })?
            .execute(params![
                id,
                without_filter_mark(&title).as_ref(),
                without_filter_mark(&html_text(&abstract_html)).as_ref(),
                without_filter_mark(&html_text(&body_html)).as_ref(),
                without_filter_mark(&slug.replace('-', " ")).as_ref(),
                without_filter_mark(&authors.unwrap_or_default()).as_ref(),
                without_filter_mark(&tags.unwrap_or_default()).as_ref(),
                filters
                    .iter()
                    .map(|term| fts5_filter_term(term))
                    .collect::<Vec<_>>()
                    .join(" "),
            ])?;
        }
        None if fresh => {}
        None => {
            tx.prepare_cached("DELETE FROM content_search WHERE rowid = ?1")?
                .execute([id])?;
        }
    }
    Ok(())
}

/// [`reindex`] on PostgreSQL: the story's words as a weighted `tsvector`
/// (see `search_tsvector`), its headline fields' words alone, and its
/// filter terms as an array.
fn reindex_postgres(tx: &Transaction<'_>, id: i64) -> Result<()> {
    let found = tx
        .prepare_cached(
            "SELECT title, abstract, content, slug,
                    (SELECT string_agg(a.name, ' ') FROM content_authors ca JOIN authors a ON a.id = ca.author_id
                     WHERE ca.content_id = content.id),
                    (SELECT string_agg(t.name, ' ') FROM content_tags ct JOIN tags t ON t.id = ct.tag_id
                     WHERE ct.content_id = content.id),
                    (SELECT COALESCE(json_agg(tag_id), '[]')::text FROM content_tags WHERE content_id = content.id),
                    (SELECT COALESCE(json_agg(author_id), '[]')::text FROM content_authors WHERE content_id = content.id)
             FROM content WHERE id = ?1",
        )?
        .query_row([id], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
                row.get::<_, Option<String>>(4)?,
                row.get::<_, Option<String>>(5)?,
                filter_terms(&row.get::<_, String>(6)?, &row.get::<_, String>(7)?)?,
            ))
        })
        .optional()?;
    let Some((title, abstract_html, body_html, slug, authors, tags, filters)) = found else {
        tx.prepare_cached("DELETE FROM content_search WHERE content_id = ?1")?
            .execute([id])?;
        return Ok(());
    };
    let (abstract_text, body_text, slug) = (
        html_text(&abstract_html),
        html_text(&body_html),
        slug.replace('-', " "),
    );
    let (authors, tags) = (authors.unwrap_or_default(), tags.unwrap_or_default());
    let document = crate::search_tsvector::document(&[
        (&title, 'A'),
        (&abstract_text, 'B'),
        (&slug, 'C'),
        (&authors, 'C'),
        (&tags, 'C'),
        (&body_text, 'D'),
    ]);
    let headline = crate::search_tsvector::document(&[
        (&title, 'A'),
        (&abstract_text, 'B'),
        (&slug, 'C'),
        (&authors, 'C'),
        (&tags, 'C'),
    ]);
    tx.prepare_cached(
        "INSERT INTO content_search (content_id, document, headline, filters)
         VALUES (?1, CAST(?2::text AS tsvector), CAST(?3::text AS tsvector), string_to_array(?4, ' '))
         ON CONFLICT (content_id) DO UPDATE
             SET document = excluded.document, headline = excluded.headline, filters = excluded.filters",
    )?
    .execute(params![id, document, headline, filters.join(" ")])?;
    Ok(())
}

/// The filter terms of a story ([`tag_term`], [`author_term`]): one for each
/// of its tags and authors, from their ids as JSON arrays.
fn filter_terms(tag_ids: &str, author_ids: &str) -> crate::db::Result<Vec<String>> {
    let ids = |json: &str| -> crate::db::Result<Vec<i64>> {
        serde_json::from_str(json).map_err(crate::db::Error::conversion)
    };
    Ok(ids(tag_ids)?
        .into_iter()
        .map(tag_term)
        .chain(ids(author_ids)?.into_iter().map(author_term))
        .collect())
}

/// Elements that do not end a word: `pre<b>fix</b>` is one word.
const INLINE: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "em", "i", "kbd", "mark", "q", "s", "small",
    "span", "strong", "sub", "sup", "u", "var",
];

/// The words of stored (sanitised) HTML: tags removed, a block's edge a word
/// break, the entities the sanitiser writes decoded.
pub(crate) fn html_text(html: &str) -> String {
    copydesk_text::html_scan::strip_tags(html, push_decoded, |name| !INLINE.contains(&name))
}

fn push_decoded(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let entity_end = rest[amp..]
            .find(';')
            .filter(|&end| end <= 10)
            .map(|end| amp + end);
        match entity_end.and_then(|end| decode_entity(&rest[amp + 1..end]).map(|c| (end, c))) {
            Some((end, c)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[amp + 1..];
            }
        }
    }
    out.push_str(rest);
}

fn decode_entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        "nbsp" => Some(' '),
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}

/// The search for the keywords typed (see `match_expression`); the last
/// word is taken as possibly half typed unless whitespace follows it.
pub fn match_typed(keywords: &str) -> Result<Option<SearchTerms>> {
    let words = search_words(keywords)?;
    let finished = keywords.ends_with(char::is_whitespace);
    let several_words = words
        .iter()
        .filter(|word| word.chars().any(char::is_alphanumeric))
        .nth(1)
        .is_some();
    Ok(
        match (
            match_expression(&words, !finished),
            crate::search_tsvector::query(&words, !finished),
        ) {
            (Some(words), Some(query)) => Some(SearchTerms {
                words,
                query,
                several_words,
                filters: Vec::new(),
            }),
            _ => None,
        },
    )
}

/// The FTS5 query for typed words: every word must occur (in any column),
/// each quoted so that no character is read as query syntax, and with
/// `last_is_prefix` the last one also as the start of a longer word.
/// `None` when nothing typed can match a word (only punctuation).
pub(crate) fn match_expression(words: &[&str], last_is_prefix: bool) -> Option<String> {
    let words: Vec<&str> = words
        .iter()
        .copied()
        .filter(|word| word.chars().any(char::is_alphanumeric))
        .collect();
    let last = words.len().checked_sub(1)?;
    let terms: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(i, word)| {
            let quoted = format!("\"{}\"", without_filter_mark(word).replace('"', "\"\""));
            if i == last && last_is_prefix {
                format!("{quoted}*")
            } else {
                quoted
            }
        })
        .collect();
    Some(terms.join(" "))
}

#[cfg(test)]
mod tests;
