//! A page of search hits in the order a desk expects, read only as far as
//! the page needs, so that a word in half the archive answers as fast as a
//! rare one.
//!
//! **Relevance.** The hits with every word in a headline field (title,
//! standfirst, slug, byline, tags) among the newest [`HEADLINE_SPAN`]
//! stories come first, then the others. Within each
//! part a hit that holds the words as a phrase comes before one that holds
//! them scattered, and one that holds the last word whole before one that
//! holds only a longer word it starts (see `copydesk_search_rank::tier`);
//! among equals, the newest first. That order is kept over the newest
//! [`WINDOW`] hits of each part; older hits of the part follow them newest
//! first, whatever their tier: the recency a news search weighs, and what
//! keeps a page from reading every hit of a common word.
//!
//! **Newest or oldest first** (`order=id`): the hits in the order of their
//! ids, which the index walks itself.
//!
//! **The count.** Exact up to [`COUNTED_AT_MOST`] hits, or whenever the page
//! read both parts to their ends; otherwise estimated from how densely the
//! newest hits lie among the newest stories, and said to be an estimate.

use copydesk_search_rank::tier::TIER;
use copydesk_wire::paging::ListParams;

use super::{SearchTerms, fts5_filter_term, without_filter_mark};
use crate::db::{Dialect, ToSql, Transaction};
use crate::error::Result;

/// The newest hits of each part whose order is that of their tier.
pub const WINDOW: usize = 1_000;

/// The most hits counted one by one; beyond, the count is estimated.
pub const COUNTED_AT_MOST: usize = 1_000;

/// The shortest word `content_search_words` lists, in characters: FTS5's
/// prefix indexes answer the starts of two to five characters.
pub(crate) const LONG_WORD_CHARS: usize = 6;

/// The furthest a page may start: beyond, every page is empty.
const MAX_OFFSET: usize = 1 << 40;

/// The most hits a walk with conditions on the story's row steps through
/// before it reads the stories the conditions hold for instead (see
/// [`Walk::rows_checked`]); it does so sooner when they hold for fewer than
/// one hit in twenty. Checking a hit's row costs about 2 µs; asking the
/// index whether a story is a hit, ten times that.
const WALKED_AT_MOST: usize = 20_000;

/// The newest stories among which a story with every word in a headline
/// field comes before the others: the recency decay of the headline part.
/// Older headline hits are ranked with the body hits. Without a bound a
/// search of three common words would read the three words' headline
/// lists to their ends to find the few stories with all three (5 ms over a
/// million stories); with it, the reads stop at this span.
pub const HEADLINE_SPAN: usize = 200_000;

/// Ids a walk with conditions on the story's row reads at once.
const CHUNK: usize = 1_000;

/// `ids` as an SQL list of numbers, for a walk's `within`, which takes no
/// parameters of its own.
fn listed(ids: &[i64]) -> String {
    ids.iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The most whole words a half-typed start is asked for as; a start of more
/// is asked for as a start.
const EXPANDED_AT_MOST: usize = 64;

/// How a search's hits are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Relevance,
    NewestFirst,
    OldestFirst,
}

impl Order {
    /// The order of a list with words that the index reads itself:
    /// `relevance`, or the hits by id (`order=id`, newest first unless
    /// `dir=asc`); `None` for an order of another field, which reads and
    /// sorts every hit. With it, `params` as a list without words reads
    /// them: relevance, which means nothing there, as `unranked`.
    pub fn asked(params: ListParams, unranked: &'static str) -> (Option<Self>, ListParams) {
        use copydesk_wire::paging::Direction;
        let order = match (params.order, params.dir) {
            ("relevance", _) => Some(Self::Relevance),
            ("id", Direction::Desc) => Some(Self::NewestFirst),
            ("id", Direction::Asc) => Some(Self::OldestFirst),
            _ => None,
        };
        let params = if params.order == "relevance" {
            ListParams {
                order: unranked,
                ..params
            }
        } else {
            params
        };
        (order, params)
    }
}

/// Conditions on the hit's `content` row beyond the words (a type, a
/// status, days of change), with their parameters numbered from `?1`:
/// `sql` as checked on each hit's row, `indexed` the same conditions
/// written so that the database may find their stories through its
/// indexes (for the stories they hold for, read when they are few).
pub struct Also<'a> {
    pub sql: &'a str,
    pub indexed: &'a str,
    pub args: &'a [&'a dyn ToSql],
}

/// A page of hits: their ids in order, how many hits there are, and
/// whether that number is an estimate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked {
    pub ids: Vec<i64>,
    pub total: u64,
    pub estimated: bool,
}

/// The page `params` asks for of the hits of `terms` in `order`,
/// restricted by `also` when given.
pub fn page(
    tx: &Transaction<'_>,
    terms: &SearchTerms,
    order: Order,
    also: Option<&Also<'_>>,
    params: &ListParams,
) -> Result<Ranked> {
    let offset = usize::try_from(params.offset()).unwrap_or(usize::MAX);
    let limit = usize::try_from(params.per_page).unwrap_or(usize::MAX);
    page_within(tx, terms, order, also, offset, limit, BOUNDS)
}

/// The bounds every search runs within.
const BOUNDS: Bounds = Bounds {
    window: WINDOW,
    counted_at_most: COUNTED_AT_MOST,
    chunk: CHUNK,
    walked_at_most: WALKED_AT_MOST,
    headline_span: HEADLINE_SPAN,
};

/// [`WINDOW`], [`COUNTED_AT_MOST`], [`CHUNK`], [`WALKED_AT_MOST`] and
/// [`HEADLINE_SPAN`], or smaller ones in tests.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    window: usize,
    counted_at_most: usize,
    chunk: usize,
    walked_at_most: usize,
    headline_span: usize,
}

/// [`page`] within `bounds`.
fn page_within(
    tx: &Transaction<'_>,
    terms: &SearchTerms,
    order: Order,
    also: Option<&Also<'_>>,
    offset: usize,
    limit: usize,
    bounds: Bounds,
) -> Result<Ranked> {
    // No archive holds this many stories; a page past it is past the end
    // (and its offset stays a number SQL takes).
    let offset = offset.min(MAX_OFFSET);
    let words = Words::of(tx, terms)?;
    if words.groups.is_empty() {
        return Ok(Ranked {
            ids: Vec::new(),
            total: 0,
            estimated: false,
        });
    }
    let walk = Walk {
        tx,
        words: &words,
        also,
        bounds,
    };
    let (ids, counted) = match order {
        Order::Relevance => {
            let headline = walk.part(Part::Headline, offset, limit)?;
            if headline.ids.len() == limit {
                (headline.ids, Counted::NotYet)
            } else {
                // A short read reaches the part's end, whose length is known.
                let headline_len = headline.len.unwrap_or(offset + headline.ids.len());
                let mut ids = headline.ids;
                let body = walk.part_without(
                    Part::Body,
                    offset.saturating_sub(headline_len),
                    limit - ids.len(),
                    headline.every.as_ref(),
                )?;
                ids.extend(body.ids);
                let counted = match (body.len, body.oldest_of_window) {
                    (Some(body_len), _) => Counted::Exactly(headline_len + body_len),
                    // More body hits than are counted one by one: the
                    // body's window tells their density, with no walk again.
                    (None, Some(oldest)) if bounds.window >= bounds.counted_at_most => {
                        Counted::About(headline_len as u64 + walk.estimate(oldest, bounds.window)?)
                    }
                    (None, _) => Counted::NotYet,
                };
                (ids, counted)
            }
        }
        Order::NewestFirst | Order::OldestFirst => {
            let ids = walk.rows(Part::All, order == Order::NewestFirst, false, offset, limit)?;
            let ids: Vec<i64> = ids.into_iter().map(|(id, _)| id).collect();
            let counted = if ids.len() < limit && (offset == 0 || !ids.is_empty()) {
                Counted::Exactly(offset + ids.len())
            } else {
                Counted::NotYet
            };
            (ids, counted)
        }
    };
    // An estimate is never below the hits this page has seen.
    let seen = if ids.is_empty() {
        0
    } else {
        (offset + ids.len()) as u64
    };
    let (total, estimated) = match counted {
        Counted::Exactly(total) => (total as u64, false),
        Counted::About(total) => (total.max(seen), true),
        Counted::NotYet => {
            let (total, estimated) = walk.count()?;
            (total.max(seen), estimated)
        }
    };
    Ok(Ranked {
        ids,
        total,
        estimated,
    })
}

/// What reading a page told of the number of hits.
enum Counted {
    Exactly(usize),
    About(u64),
    NotYet,
}

/// What a page's read of one part gave: its ids, the part's length when
/// the read reached its end, and the oldest hit of its window when the
/// window was full.
struct PartRead {
    ids: Vec<i64>,
    len: Option<usize>,
    oldest_of_window: Option<i64>,
    /// Every hit of the part, when its window held them all.
    every: Option<std::collections::HashSet<i64>>,
}

/// The typed words as each engine is asked for them.
struct Words {
    /// Each typed word's group of phrases (see `copydesk_search_rank::tier`)
    /// as FTS5 text, and its size.
    groups: Vec<(String, usize)>,
    filters: Vec<String>,
    /// PostgreSQL: every word (the last perhaps a start), the words as a
    /// phrase, and every word with the last one whole.
    all: String,
    phrase: String,
    whole: String,
    pg_filters: String,
}

impl Words {
    fn of(tx: &Transaction<'_>, terms: &SearchTerms) -> Result<Self> {
        // The words FTS5 finds a word in (it leaves out a phrase of
        // punctuation alone, which would leave the groups' count wrong),
        // each with its words as FTS5 folds them.
        let mut kept: Vec<(&str, Vec<String>)> = Vec::with_capacity(terms.typed.len());
        for word in &terms.typed {
            match tx.dialect() {
                Dialect::Sqlite => {
                    let folded = folded(tx, word)?;
                    if !folded.is_empty() {
                        kept.push((word, folded));
                    }
                }
                Dialect::Postgres => kept.push((word, Vec::new())),
            }
        }
        let last = kept.len().saturating_sub(1);
        let mut groups = Vec::with_capacity(kept.len());
        for (i, (word, folded)) in kept.iter().enumerate() {
            let quoted = quoted(word);
            if i == last && terms.last_is_prefix {
                // Only a word typed as one word is looked up ("covid-19" is a
                // phrase, and so is "talk-talk", which FTS5 folds to one
                // distinct word).
                let one_word = crate::search_tsvector::words(word).len() == 1;
                let starts = match folded.as_slice() {
                    [start] if one_word => long_words_starting(tx, start)?,
                    _ => None,
                };
                groups.push(match starts {
                    Some(starts) => {
                        let mut phrases = vec![quoted];
                        phrases.extend(starts.iter().map(|w| quoted_word(w)));
                        let size = phrases.len();
                        (format!("({})", phrases.join(" OR ")), size)
                    }
                    None => (format!("({quoted} OR {quoted}*)"), 2),
                });
            } else {
                groups.push((quoted, 1));
            }
        }
        let typed: Vec<&str> = terms.typed.iter().map(String::as_str).collect();
        let pg = |last_is_prefix| crate::search_tsvector::query(&typed, last_is_prefix);
        let all = pg(terms.last_is_prefix).unwrap_or_default();
        Ok(Self {
            groups,
            filters: terms.filters.iter().map(|f| fts5_filter_term(f)).collect(),
            phrase: crate::search_tsvector::phrase(&typed, terms.last_is_prefix)
                .unwrap_or_else(|| all.clone()),
            whole: pg(false).unwrap_or_default(),
            all,
            pg_filters: terms.filters.join(" "),
        })
    }

    /// The FTS5 expression of every word (each group) and every filter.
    fn every(&self) -> String {
        let mut parts: Vec<String> = self.groups.iter().map(|(g, _)| g.clone()).collect();
        parts.extend(self.filters.iter().map(|f| format!("\"{f}\"")));
        parts.join(" AND ")
    }

    /// Whether hits can differ in tier: one word is always its own phrase,
    /// and a last word with nothing it may be the start of is always whole,
    /// so the tier of every hit of such a search is the same and is not
    /// worked out row by row.
    fn tiers_differ(&self) -> bool {
        self.groups.len() > 1 || self.groups.last().is_some_and(|(_, size)| *size > 1)
    }

    /// The groups' sizes as the tier function's arguments.
    fn sizes(&self) -> String {
        let sizes: Vec<String> = self.groups.iter().map(|(_, n)| n.to_string()).collect();
        sizes.join(", ")
    }
}

/// `word` quoted for FTS5, so that nothing in it is read as syntax.
fn quoted(word: &str) -> String {
    format!("\"{}\"", without_filter_mark(word).replace('"', "\"\""))
}

/// A word of the index's own list, quoted for FTS5.
fn quoted_word(word: &str) -> String {
    format!("\"{}\"", word.replace('"', "\"\""))
}

/// The distinct words of `typed` as the index folds them (SQLite).
fn folded(tx: &Transaction<'_>, typed: &str) -> Result<Vec<String>> {
    let json: String = tx.query_row(
        &format!("SELECT {}(?1, 0)", copydesk_search_rank::terms::TERMS),
        [without_filter_mark(typed).as_ref()],
        |row| row.get(0),
    )?;
    Ok(serde_json::from_str(&json).unwrap_or_default())
}

/// The long words of the index that `start` (one word as the index folds
/// it) is the start of, other than itself, when it has [`LONG_WORD_CHARS`]
/// or more and they are no more than [`EXPANDED_AT_MOST`]; else `None`
/// (FTS5 answers it as a start).
fn long_words_starting(tx: &Transaction<'_>, start: &str) -> Result<Option<Vec<String>>> {
    if start.chars().count() < LONG_WORD_CHARS {
        return Ok(None);
    }
    let words: Vec<String> = tx
        .prepare_cached(&format!(
            "SELECT word FROM content_search_words WHERE word > ?1 AND word < ?1 || char(1114111) \
             ORDER BY word LIMIT {}",
            EXPANDED_AT_MOST + 1
        ))?
        .query_map([start], |row| row.get(0))?
        .collect::<crate::db::Result<_>>()?;
    Ok((words.len() <= EXPANDED_AT_MOST).then_some(words))
}

/// Which hits a walk reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// Every word in a headline field.
    Headline,
    /// The hits that are not headline hits.
    Body,
    /// Every hit.
    All,
}

impl Part {
    /// The SQLite index the part is read from, and its column of ids.
    fn table(self) -> (&'static str, &'static str) {
        match self {
            Part::Headline => ("content_headline_search", "content_headline_search.rowid"),
            Part::Body | Part::All => ("content_search", "content_search.rowid"),
        }
    }
}

/// A search's walks over the index, newest (or oldest) first.
struct Walk<'w, 't> {
    tx: &'w Transaction<'t>,
    words: &'w Words,
    also: Option<&'w Also<'w>>,
    bounds: Bounds,
}

impl Walk<'_, '_> {
    /// The ids at `from..from + count` of `part` in relevance order, and the
    /// part's length when the reads reached its end.
    fn part(&self, part: Part, from: usize, count: usize) -> Result<PartRead> {
        self.part_without(part, from, count, None)
    }

    /// [`Walk::part`]; for the body part, when `headline` holds every
    /// headline hit, its window read as every hit but those (one walk,
    /// where `NOT` would intersect the words a second time).
    fn part_without(
        &self,
        part: Part,
        from: usize,
        count: usize,
        headline: Option<&std::collections::HashSet<i64>>,
    ) -> Result<PartRead> {
        let most = self.bounds.window;
        let tiered = self.words.tiers_differ();
        let mut window = match (part, headline) {
            (Part::Body, Some(headline)) => {
                let mut rows = self.rows(Part::All, true, tiered, 0, most + 1 + headline.len())?;
                rows.retain(|(id, _)| !headline.contains(id));
                rows
            }
            _ => self.rows(part, true, tiered, 0, most + 1)?,
        };
        let more = window.len() > most;
        window.truncate(most);
        let window_len = window.len();
        let oldest_of_window = window.last().filter(|_| more).map(|(id, _)| *id);
        let every = (!more).then(|| window.iter().map(|(id, _)| *id).collect());
        // Best tier first, the newest first among equals.
        window.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
        let mut ids: Vec<i64> = window
            .into_iter()
            .map(|(id, _)| id)
            .skip(from)
            .take(count)
            .collect();
        if !more {
            return Ok(PartRead {
                ids,
                len: Some(window_len),
                oldest_of_window,
                every,
            });
        }
        let end = from + count;
        if end <= most {
            return Ok(PartRead {
                ids,
                len: None,
                oldest_of_window,
                every: None,
            });
        }
        // Read from the window's end (as an offset would step over the
        // same rows), so that a short read tells the part's length even
        // when the page starts past its end.
        let wanted = end - most;
        let tail = self.rows(part, true, false, most, wanted)?;
        let len = (tail.len() < wanted).then(|| most + tail.len());
        let skipped = from.saturating_sub(most);
        ids.extend(tail.into_iter().skip(skipped).map(|(id, _)| id));
        Ok(PartRead {
            ids,
            len,
            oldest_of_window,
            every: None,
        })
    }

    /// Up to `limit` hits of `part` from the `offset`th, by id (newest first
    /// or oldest), each with its tier when `tiered` (else 0).
    fn rows(
        &self,
        part: Part,
        newest_first: bool,
        tiered: bool,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<(i64, i64)>> {
        match (self.also, self.tx.dialect()) {
            (Some(also), Dialect::Sqlite) => {
                self.rows_checked(also, part, newest_first, tiered, offset, limit)
            }
            _ => self.rows_in(part, newest_first, tiered, offset, limit, "", true),
        }
    }

    /// [`Walk::rows`] on SQLite with conditions on the story's row: the
    /// index walked in chunks of ids, each chunk's rows checked at once.
    /// When the conditions hold for few of the hits met (see
    /// [`WALKED_AT_MOST`]), the stories they hold for are read instead,
    /// newest first, and the index asked which of them are hits.
    fn rows_checked(
        &self,
        also: &Also<'_>,
        part: Part,
        newest_first: bool,
        tiered: bool,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<(i64, i64)>> {
        let wanted = offset.saturating_add(limit);
        let (_, id) = part.table();
        let beyond = if newest_first { "<" } else { ">" };
        let mut kept: Vec<i64> = Vec::new();
        let mut bound: Option<i64> = None;
        let mut walked = 0;
        while kept.len() < wanted {
            let within = bound.map_or(String::new(), |b| format!("AND {id} {beyond} {b}"));
            // The conditions hold for fewer than one hit in twenty (or the
            // walk is long): reading their stories is then the cheaper way.
            let rarely_held = walked >= self.bounds.chunk && kept.len() * 20 < walked;
            if walked >= self.bounds.walked_at_most || rarely_held {
                self.hits_among_held(also, part, newest_first, bound, wanted, &mut kept)?;
                break;
            }
            let chunk: Vec<i64> = self
                .rows_in(
                    part,
                    newest_first,
                    false,
                    0,
                    self.bounds.chunk,
                    &within,
                    false,
                )?
                .into_iter()
                .map(|(id, _)| id)
                .collect();
            walked += chunk.len();
            let Some(&last) = chunk.last() else { break };
            bound = Some(last);
            let held = self.held(also, &chunk)?;
            kept.extend(chunk.iter().copied().filter(|id| held.contains(id)));
            if chunk.len() < self.bounds.chunk {
                break;
            }
        }
        let page: Vec<i64> = kept.into_iter().skip(offset).take(limit).collect();
        if !tiered || page.is_empty() {
            return Ok(page.into_iter().map(|id| (id, 0)).collect());
        }
        let tiers: std::collections::HashMap<i64, i64> = self
            .rows_in(
                part,
                newest_first,
                true,
                0,
                page.len(),
                &format!("AND {id} IN ({})", listed(&page)),
                false,
            )?
            .into_iter()
            .collect();
        Ok(page
            .into_iter()
            .map(|id| (id, tiers.get(&id).copied().unwrap_or(0)))
            .collect())
    }

    /// Which of `ids` are stories the conditions hold for.
    fn held(&self, also: &Also<'_>, ids: &[i64]) -> Result<std::collections::HashSet<i64>> {
        let sql = format!(
            "SELECT content.id FROM content WHERE content.id IN (SELECT value FROM json_each(?{})) \
             AND ({})",
            also.args.len() + 1,
            also.sql
        );
        let listed = crate::db::id_array(ids.iter().copied());
        let mut args = also.args.to_vec();
        args.push(&listed);
        let held = self
            .tx
            .prepare_cached(&sql)?
            .query_map(args.as_slice(), |row| row.get(0))?
            .collect::<crate::db::Result<_>>()?;
        Ok(held)
    }

    /// Adds to `kept` the hits among the stories the conditions hold for,
    /// past `bound`, in order, until it holds `wanted`.
    fn hits_among_held(
        &self,
        also: &Also<'_>,
        part: Part,
        newest_first: bool,
        mut bound: Option<i64>,
        wanted: usize,
        kept: &mut Vec<i64>,
    ) -> Result<()> {
        let (_, id) = part.table();
        let (beyond, dir) = if newest_first {
            ("<", "DESC")
        } else {
            (">", "ASC")
        };
        while kept.len() < wanted {
            let within = bound.map_or(String::new(), |b| format!("AND content.id {beyond} {b}"));
            let sql = format!(
                "SELECT content.id FROM content WHERE ({}) {within} ORDER BY content.id {dir} LIMIT {}",
                also.indexed, self.bounds.chunk
            );
            let stories: Vec<i64> = self
                .tx
                .prepare(&sql)?
                .query_map(also.args, |row| row.get(0))?
                .collect::<crate::db::Result<_>>()?;
            let Some(&last) = stories.last() else { break };
            bound = Some(last);
            let hits = self.rows_in(
                part,
                newest_first,
                false,
                0,
                stories.len(),
                &format!("AND {id} IN ({})", listed(&stories)),
                false,
            )?;
            kept.extend(hits.into_iter().map(|(id, _)| id));
            if stories.len() < self.bounds.chunk {
                break;
            }
        }
        Ok(())
    }

    /// Up to `limit` hits of `part` from the `offset`th, by id, each with its
    /// tier when `tiered`; `within` more SQL on the index's id (numbers
    /// only; SQLite alone is given any), and the conditions on the row
    /// joined when `joined`.
    #[allow(clippy::too_many_arguments)]
    fn rows_in(
        &self,
        part: Part,
        newest_first: bool,
        tiered: bool,
        offset: usize,
        limit: usize,
        within: &str,
        joined: bool,
    ) -> Result<Vec<(i64, i64)>> {
        let also = if joined { self.also } else { None };
        let also_args = also.map_or(0, |also| also.args.len());
        let mut args: Vec<&dyn ToSql> = also.map_or(Vec::new(), |also| also.args.to_vec());
        let dir = if newest_first { "DESC" } else { "ASC" };
        let tail = format!("LIMIT {limit} OFFSET {offset}");
        let (sql, texts) = match self.tx.dialect() {
            Dialect::Sqlite => {
                let (table, _) = part.table();
                let m = also_args + 1;
                let span = self.span_start();
                let headline = match part {
                    Part::Headline => format!("AND {table}.rowid >= {span}"),
                    Part::All => String::new(),
                    // The hits but the headline part's (the same words
                    // asked of the headline index, within the span).
                    Part::Body => format!(
                        "AND NOT ({table}.rowid >= {span} AND {table}.rowid IN \
                         (SELECT rowid FROM content_headline_search \
                         WHERE content_headline_search MATCH ?{m} AND rowid >= {span}))"
                    ),
                };
                let tier = if tiered {
                    format!("{TIER}({table}, {})", self.words.sizes())
                } else {
                    "0".to_owned()
                };
                let (from, also) = match also {
                    Some(also) => (
                        format!("{table} CROSS JOIN content ON content.id = {table}.rowid"),
                        format!("AND ({})", also.sql),
                    ),
                    None => (table.to_owned(), String::new()),
                };
                (
                    format!(
                        "SELECT {table}.rowid, {tier} FROM {from} \
                         WHERE {table} MATCH ?{m} {headline} {within} {also} \
                         ORDER BY {table}.rowid {dir} {tail}",
                    ),
                    vec![self.words.every()],
                )
            }
            Dialect::Postgres => {
                let span = self.span_start();
                let (column, not_headline) = match part {
                    Part::Headline => (
                        "headline",
                        format!(" AND content_search.content_id >= {span}"),
                    ),
                    Part::All => ("document", String::new()),
                    Part::Body => (
                        "document",
                        format!(
                            " AND NOT (content_search.content_id >= {span} \
                             AND content_search.headline @@ CAST(?{{q}}::text AS tsquery))"
                        ),
                    ),
                };
                let q = also_args + 1;
                let tier = if tiered {
                    format!(
                        "(CASE WHEN content_search.{column} @@ CAST(?{p}::text AS tsquery) THEN 2 ELSE 0 END \
                         + CASE WHEN content_search.{column} @@ CAST(?{w}::text AS tsquery) THEN 1 ELSE 0 END)::bigint",
                        p = q + 2,
                        w = q + 3,
                    )
                } else {
                    "0::bigint".to_owned()
                };
                let (from, also) = match also {
                    Some(also) => (
                        "content_search JOIN content ON content.id = content_search.content_id",
                        format!("AND ({})", also.sql),
                    ),
                    None => ("content_search", String::new()),
                };
                (
                    format!(
                        "SELECT content_search.content_id, {tier} FROM {from} \
                         WHERE content_search.{column} @@ CAST(?{q}::text AS tsquery) \
                         AND content_search.filters @> string_to_array(?{f}, ' '){not_headline} {also} \
                         ORDER BY content_search.content_id {dir} {tail}",
                        f = q + 1,
                        not_headline = not_headline.replace("{q}", &q.to_string()),
                    ),
                    vec![
                        self.words.all.clone(),
                        self.words.pg_filters.clone(),
                        self.words.phrase.clone(),
                        self.words.whole.clone(),
                    ],
                )
            }
        };
        // PostgreSQL is given every parameter its text may name; SQLite
        // only the expression.
        let texts: Vec<String> = match self.tx.dialect() {
            Dialect::Sqlite => texts,
            Dialect::Postgres if tiered => texts,
            Dialect::Postgres => texts.into_iter().take(2).collect(),
        };
        args.extend(texts.iter().map(|t| t as &dyn ToSql));
        // A statement naming ids is not kept for another search.
        let mut stmt = if within.is_empty() {
            self.tx.prepare_cached(&sql)?
        } else {
            self.tx.prepare(&sql)?
        };
        let rows = stmt
            .query_map(args.as_slice(), |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<crate::db::Result<_>>()?;
        Ok(rows)
    }

    /// The first id of the stories within [`HEADLINE_SPAN`] of the newest,
    /// as SQL (read once by each statement).
    fn span_start(&self) -> String {
        format!(
            "((SELECT max(id) FROM content) - {})",
            self.bounds.headline_span.saturating_sub(1)
        )
    }

    /// How many hits there are, and whether that is an estimate: exact up to
    /// [`COUNTED_AT_MOST`]; beyond, the density of the newest
    /// `COUNTED_AT_MOST` hits among the ids they span, over the ids of every
    /// story.
    fn count(&self) -> Result<(u64, bool)> {
        let most = self.bounds.counted_at_most;
        let newest = self.rows(Part::All, true, false, 0, most + 1)?;
        if newest.len() <= most {
            return Ok((newest.len() as u64, false));
        }
        Ok((self.estimate(newest[most - 1].0, most)?, true))
    }

    /// How many hits there are, from `counted` of them lying between the
    /// newest story and `oldest`: that density over the ids of every story.
    fn estimate(&self, oldest: i64, counted: usize) -> Result<u64> {
        // Two subqueries: SQLite reads a min() or a max() from the key's
        // ends only when it is the query's one aggregate, and scans the
        // whole table for both at once (50 ms over a million stories).
        let (first, last): (Option<i64>, Option<i64>) = self.tx.query_row(
            "SELECT (SELECT min(id) FROM content), (SELECT max(id) FROM content)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
        let at_least = counted as u64 + 1;
        let (Some(first), Some(last)) = (first, last) else {
            return Ok(at_least);
        };
        let spanned = (last - oldest + 1).max(1) as f64;
        let every = (last - first + 1).max(1) as f64;
        let estimate = (counted as f64 * every / spanned).round() as u64;
        Ok(estimate.max(at_least))
    }
}

#[cfg(test)]
mod tests;
