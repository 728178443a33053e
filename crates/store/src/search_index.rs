//! The full-text index of content (SQLite FTS5, migration 0013): kept current
//! inside each write's transaction, and turned from what a journalist types
//! into an FTS5 query that cannot be misread as query syntax.

use crate::db::{Dialect, OptionalExtension as _, Transaction, params};

use crate::error::{Result, StoreError};
use crate::story_text::StoryText;

/// The most words one search takes: each word is one more condition per column.
pub const MAX_SEARCH_WORDS: usize = 50;
/// The longest word one search takes, in characters: no title or name holds a longer one.
pub const MAX_SEARCH_WORD_CHARS: usize = 200;

/// The words of a search, refused with the limit named when there are too
/// many or one is too long (SQLite would otherwise fail on the query), or
/// when they hold U+0000, which no stored text holds.
pub fn search_words(keywords: &str) -> Result<Vec<&str>> {
    if keywords.contains('\0') {
        return Err(StoreError::invalid_field(
            "keywords",
            "a search may not hold the character U+0000",
        ));
    }
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
    filters: Vec<String>,
    /// The typed words that hold a letter or digit, as typed.
    typed: Vec<String>,
    /// Whether the last of them may be half typed.
    last_is_prefix: bool,
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
        let mut expression = format!("({})", self.words);
        for term in &self.filters {
            expression.push_str(&format!(" AND \"{}\"", fts5_filter_term(term)));
        }
        expression
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
}

/// Items reindexed per transaction when a whole database is (re)indexed.
const BATCH: usize = 5_000;

/// Reindexes the items the triggers queued in this transaction and takes
/// them off the queue: called by the store before every commit.
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
    // A story made alone is all this write has to index (the triggers did
    // not queue it), and its text is known.
    if limit.is_none()
        && let Some((id, text)) = tx.take_made_alone_text()
    {
        reindex_postgres(tx, id, Some(text))?;
        return Ok(1);
    }
    // Taken off the queue as they are read, in one statement. The limit is
    // written into the text: SQLite re-prepares a cached statement at every
    // run when its LIMIT is a parameter.
    let sql = match limit {
        Some(limit) => format!(
            "DELETE FROM content_search_pending WHERE content_id IN \
             (SELECT content_id FROM content_search_pending WHERE {} ORDER BY content_id LIMIT {limit}) \
             RETURNING content_id, fresh",
            tx.queued_here()
        ),
        None => format!(
            "DELETE FROM content_search_pending WHERE {} RETURNING content_id, fresh",
            tx.queued_by_itself()
        ),
    };
    let mut queued: Vec<(i64, bool)> = {
        let mut stmt = tx.prepare_cached(&sql)?;
        stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<crate::db::Result<_>>()?
    };
    queued.sort_unstable();
    for &(id, fresh) in &queued {
        reindex(tx, id, fresh)?;
    }
    Ok(queued.len())
}

/// Empties the index and queues every item again (`copydesk-server reindex-search`).
pub(crate) fn queue_all(tx: &Transaction<'_>) -> Result<usize> {
    tx.execute("DELETE FROM content_search", [])?;
    if tx.dialect() == Dialect::Sqlite {
        tx.execute("DELETE FROM content_headline_search", [])?;
    }
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
    tx.execute(
        "INSERT INTO content_headline_search (content_headline_search) VALUES ('optimize')",
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
        return reindex_postgres(tx, id, None);
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
        .query_row([id], StoryText::from_row)
        .optional()?;
    match found {
        Some(StoryText {
            title,
            abstract_html,
            body_html,
            slug,
            authors,
            tags,
            filters,
        }) => {
            let title = without_filter_mark(&title).into_owned();
            let abstract_text = without_filter_mark(&html_text(&abstract_html)).into_owned();
            let body = without_filter_mark(&html_text(&body_html)).into_owned();
            let slug = without_filter_mark(&slug.replace('-', " ")).into_owned();
            let authors = without_filter_mark(&authors.unwrap_or_default()).into_owned();
            let tags = without_filter_mark(&tags.unwrap_or_default()).into_owned();
            let filters = filters
                .iter()
                .map(|term| fts5_filter_term(term))
                .collect::<Vec<_>>()
                .join(" ");
            tx.prepare_cached(if fresh {
                "INSERT INTO content_search (rowid, title, abstract, body, slug, authors, tags, filters)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
            } else {
                "INSERT OR REPLACE INTO content_search (rowid, title, abstract, body, slug, authors, tags, filters)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
            })?
            .execute(params![
                id,
                title,
                abstract_text,
                body,
                slug,
                authors,
                tags,
                filters
            ])?;
            tx.prepare_cached(if fresh {
                "INSERT INTO content_headline_search (rowid, title, abstract, slug, authors, tags, filters)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
            } else {
                "INSERT OR REPLACE INTO content_headline_search (rowid, title, abstract, slug, authors, tags, filters)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
            })?
            .execute(params![id, title, abstract_text, slug, authors, tags, filters])?;
            // The long words, for a half-typed word's look-up (see
            // `relevance`): one statement for all of the story's fields.
            tx.prepare_cached(&format!(
                "INSERT OR IGNORE INTO content_search_words (word) \
                 SELECT value FROM json_each({terms}(?1, {LONG_WORD_CHARS}))",
                terms = copydesk_search_rank::terms::TERMS,
            ))?
            .execute([[
                title.as_str(),
                &abstract_text,
                &body,
                &slug,
                &authors,
                &tags,
            ]
            .join("\n")])?;
        }
        None if fresh => {}
        None => {
            tx.prepare_cached("DELETE FROM content_search WHERE rowid = ?1")?
                .execute([id])?;
            tx.prepare_cached("DELETE FROM content_headline_search WHERE rowid = ?1")?
                .execute([id])?;
        }
    }
    Ok(())
}

impl StoryText {
    /// From the columns both engines' reads select: title, abstract,
    /// content, slug, the authors' and tags' names, and the tags' and
    /// authors' ids as JSON arrays.
    fn from_row(row: &crate::db::Row<'_>) -> crate::db::Result<Self> {
        Ok(Self {
            title: row.get(0)?,
            abstract_html: row.get(1)?,
            body_html: row.get(2)?,
            slug: row.get(3)?,
            authors: row.get(4)?,
            tags: row.get(5)?,
            filters: filter_terms(&row.get::<_, String>(6)?, &row.get::<_, String>(7)?)?,
        })
    }
}

/// Story `id`'s [`StoryText`] as PostgreSQL holds it; `None` when it is gone.
fn stored_text_postgres(tx: &Transaction<'_>, id: i64) -> Result<Option<StoryText>> {
    Ok(tx
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
        .query_row([id], StoryText::from_row)
        .optional()?)
}

/// [`reindex`] on PostgreSQL: the story's words as a weighted `tsvector`
/// (see `search_tsvector`), its headline fields' words alone, and its
/// filter terms as an array; from `known` text when the write holds it.
fn reindex_postgres(tx: &Transaction<'_>, id: i64, known: Option<StoryText>) -> Result<()> {
    let found = match known {
        Some(written) => {
            debug_assert_eq!(
                Some(&written),
                stored_text_postgres(tx, id)?.as_ref(),
                "a story's text as its write noted it is what it stored"
            );
            Some(written)
        }
        None => stored_text_postgres(tx, id)?,
    };
    let Some(text) = found else {
        tx.prepare_cached("DELETE FROM content_search WHERE content_id = ?1")?
            .execute([id])?;
        return Ok(());
    };
    let (abstract_text, body_text, slug) = (
        html_text(&text.abstract_html),
        html_text(&text.body_html),
        text.slug.replace('-', " "),
    );
    let (authors, tags) = (
        text.authors.unwrap_or_default(),
        text.tags.unwrap_or_default(),
    );
    let title = text.title;
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
    tx.execute_or_defer(
        "INSERT INTO content_search (content_id, document, headline, filters)
         VALUES (?1, CAST(?2::text AS tsvector), CAST(?3::text AS tsvector), string_to_array(?4, ' '))
         ON CONFLICT (content_id) DO UPDATE
             SET document = excluded.document, headline = excluded.headline, filters = excluded.filters",
        params![id, document, headline, text.filters.join(" ")],
    )?;
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
    // A last word of one letter or digit is taken whole ("world war 2",
    // "vitamin d"): as a start it would stand for every word it begins,
    // which FTS5 merges whole before its first hit.
    let one_character = words
        .iter()
        .rev()
        .find(|word| word.chars().any(char::is_alphanumeric))
        .is_some_and(|word| word.chars().count() == 1);
    let finished = keywords.ends_with(char::is_whitespace) || one_character;
    Ok(
        match (
            match_expression(&words, !finished),
            crate::search_tsvector::query(&words, !finished),
        ) {
            (Some(expression), Some(query)) => Some(SearchTerms {
                words: expression,
                query,
                filters: Vec::new(),
                typed: words
                    .iter()
                    .filter(|word| word.chars().any(char::is_alphanumeric))
                    .map(|word| (*word).to_owned())
                    .collect(),
                last_is_prefix: !finished,
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

mod relevance;
use relevance::LONG_WORD_CHARS;
pub use relevance::{Also, COUNTED_AT_MOST, Order, Ranked, WINDOW, page as relevance_page};

#[cfg(test)]
mod tests;
