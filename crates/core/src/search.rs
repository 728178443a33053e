//! `/v3/search`: content, authors or tags by keywords, tag and author.

use crate::access::Action;
use crate::db::ToSql;

use crate::Cms;
use crate::access::Principal;
use crate::authors::{AUTHORS, Author};
use crate::db::{fetch_page, fetch_page_by};
use crate::error::{CoreError, Result};
use crate::model::content::RenderedContent;
use crate::paging::{ListParams, ListQuery, Page};
use crate::records::{AUTHOR_BY_SLUG_OR_NAME, TAG_BY_SLUG_OR_NAME, named};
use crate::tags::{TAGS, Tag};

#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    pub record_type: Option<String>,
    pub keywords: Option<String>,
    /// A tag UUID or slug (content only).
    pub tag: Option<String>,
    /// An author UUID (content only).
    pub author: Option<String>,
}

/// One search result. A content item comes as its kept answer's text (see
/// `content_rendered`), as the content list serves it.
#[derive(Debug, Clone)]
pub enum SearchHit {
    Content(RenderedContent),
    Author(Author),
    Tag(Tag),
}

pub(crate) use crate::search_index::search_words;
pub use crate::search_index::{MAX_SEARCH_WORD_CHARS, MAX_SEARCH_WORDS};

/// A `LIKE` pattern that matches `word` literally anywhere.
pub(crate) fn like_pattern(word: &str) -> String {
    let escaped = word
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("%{escaped}%")
}

/// One condition per keyword: each must appear in one of `columns`.
pub(crate) fn keyword_conditions(
    dialect: crate::db::Dialect,
    words: &[String],
    columns: &[&str],
    first_arg: usize,
) -> Vec<String> {
    // SQLite's LIKE ignores ASCII case; PostgreSQL's ILIKE does the same in
    // the "C" collation of every text column (migration 0024).
    let like = match dialect {
        crate::db::Dialect::Sqlite => "LIKE",
        crate::db::Dialect::Postgres => "ILIKE",
    };
    words
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let n = first_arg + i;
            let any: Vec<String> = columns
                .iter()
                .map(|c| format!("{c} {like} ?{n} ESCAPE '\\'"))
                .collect();
            format!("({})", any.join(" OR "))
        })
        .collect()
}

impl Cms {
    pub fn search(
        &self,
        who: &Principal,
        search: &SearchQuery,
        query: &ListQuery,
    ) -> Result<Page<SearchHit>> {
        let record_type = search
            .record_type
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| CoreError::required("type"))?;
        let patterns: Vec<String> = search_words(search.keywords.as_deref().unwrap_or(""))?
            .into_iter()
            .map(like_pattern)
            .collect();
        match record_type {
            "content" => {
                let page = self.search_content(who, search, query)?;
                Ok(page.map(SearchHit::Content))
            }
            "author" => {
                who.require(Action::AuthorList)?;
                let params = ListParams::parse(
                    query,
                    &["name", "created_at", "modified_at"],
                    "modified_at",
                )?;
                let conditions = keyword_conditions(
                    self.store.dialect(),
                    &patterns,
                    &["authors.name", "authors.email", "authors.tagline"],
                    1,
                );
                let filter = where_all(&conditions);
                let args: Vec<&dyn ToSql> = patterns.iter().map(|p| p as &dyn ToSql).collect();
                self.read(|tx| {
                    let page = fetch_page(
                        tx,
                        "authors",
                        crate::authors::COLUMNS,
                        &filter,
                        &args,
                        &params,
                        |row| self.author_from_row(row),
                    )?;
                    Ok(page.map(SearchHit::Author))
                })
            }
            "tag" => {
                who.require(Action::TagList)?;
                let params = ListParams::parse(
                    query,
                    &["name", "slug", "created_at", "modified_at"],
                    "modified_at",
                )?;
                let conditions = keyword_conditions(
                    self.store.dialect(),
                    &patterns,
                    &["tags.name", "tags.slug"],
                    1,
                );
                let filter = where_all(&conditions);
                let args: Vec<&dyn ToSql> = patterns.iter().map(|p| p as &dyn ToSql).collect();
                self.read(|tx| {
                    let page = fetch_page(
                        tx,
                        "tags",
                        crate::tags::COLUMNS,
                        &filter,
                        &args,
                        &params,
                        |row| self.tag_from_row(row),
                    )?;
                    Ok(page.map(SearchHit::Tag))
                })
            }
            other => Err(CoreError::invalid_field(
                "type",
                format!("search covers content, author or tag, not \"{other}\""),
            )),
        }
    }

    /// Content by its full-text index (see `search_index`): every word typed
    /// must occur, the last one perhaps half typed; ranked by relevance, the
    /// newest first among equals, unless the client asks for an order.
    fn search_content(
        &self,
        who: &Principal,
        search: &SearchQuery,
        query: &ListQuery,
    ) -> Result<Page<RenderedContent>> {
        who.require(Action::ContentList)?;
        let params = ListParams::parse(
            query,
            &[
                "relevance",
                "id",
                "title",
                "version",
                "created_at",
                "modified_at",
                "published_at",
            ],
            "relevance",
        )?;
        // With no words, relevance means nothing: the list's own order then.
        let (ranked_order, params) = crate::search_index::Order::asked(params, "modified_at");
        let typed = crate::search_index::match_typed(search.keywords.as_deref().unwrap_or(""))?;
        self.read(|tx| {
            let tag_id = match search.tag.as_deref().map(str::trim) {
                Some(tag) if !tag.is_empty() => {
                    Some(named(tx, TAGS, &TAG_BY_SLUG_OR_NAME, "tag", tag)?)
                }
                _ => None,
            };
            let author_id = match search.author.as_deref().map(str::trim) {
                Some(author) if !author.is_empty() => Some(named(
                    tx,
                    AUTHORS,
                    &AUTHOR_BY_SLUG_OR_NAME,
                    "author",
                    author,
                )?),
                _ => None,
            };
            // With words typed, the index drives the query, the tag and the
            // author are terms of its own, and each hit is named by its
            // rowid (the item's id): ranked by relevance, a search reads no
            // story's row until its page is chosen.
            let terms = typed.clone().map(|terms| {
                let terms = match tag_id {
                    Some(tag_id) => terms.with_tag(tag_id),
                    None => terms,
                };
                match author_id {
                    Some(author_id) => terms.with_author(author_id),
                    None => terms,
                }
            });
            if let (Some(order), Some(terms)) = (ranked_order, &terms) {
                let ranked = crate::search_index::relevance_page(
                    tx,
                    terms,
                    order,
                    None,
                    &params,
                )?;
                let items = self.rendered_items(tx, ranked.ids)?;
                return Ok(Page::new(items, &params, ranked.total).estimated(ranked.estimated));
            }
            let mut conditions = Vec::new();
            let mut args: Vec<Box<dyn ToSql>> = Vec::new();
            let dialect = tx.dialect();
            if let Some(terms) = &terms {
                let (condition, terms_args) = terms.condition(dialect, args.len() + 1);
                for arg in terms_args {
                    args.push(Box::new(arg));
                }
                conditions.push(condition);
            } else {
                if let Some(tag_id) = tag_id {
                    args.push(Box::new(tag_id));
                    conditions.push(format!(
                        "EXISTS (SELECT 1 FROM content_tags WHERE content_id = content.id AND tag_id = ?{})",
                        args.len()
                    ));
                }
                if let Some(author_id) = author_id {
                    args.push(Box::new(author_id));
                    conditions.push(format!(
                        "EXISTS (SELECT 1 FROM content_authors WHERE content_id = content.id AND author_id = ?{})",
                        args.len()
                    ));
                }
            }
            let refs: Vec<&dyn ToSql> = args.iter().map(|a| a.as_ref()).collect();
            let id = if terms.is_some() {
                crate::search_index::story_column(dialect)
            } else {
                "content.id"
            };
            // An order asked for, or no words. Every indexed rowid is a
            // stored item (the index is kept in each write's transaction),
            // so hits are counted without a join; the page joins the items
            // for the order, the index still driving (CROSS JOIN keeps
            // SQLite from scanning every story and probing the index for
            // each).
            let filter = where_all(&conditions);
            let (counted, from) = match (terms.is_some(), dialect) {
                (false, _) => ("content", "content"),
                (true, crate::db::Dialect::Sqlite) => (
                    "content_search",
                    "content_search CROSS JOIN content ON content.id = content_search.rowid",
                ),
                (true, crate::db::Dialect::Postgres) => (
                    "content_search",
                    "content_search JOIN content ON content.id = content_search.content_id",
                ),
            };
            let order = params.order_by("content");
            let n = args.len();
            let counted_rows = format!("{counted} {filter}");
            // Only ids go through the ranking's sort; the page's answers
            // are then read as kept.
            let page_sql = format!(
                "SELECT {id} FROM {from} {filter} {order} LIMIT ?{} OFFSET ?{}",
                n + 1,
                n + 2
            );
            let mut page =
                fetch_page_by(tx, &counted_rows, &page_sql, &refs, &params, |row| row.get(0))?;
            let items = self.rendered_items(tx, std::mem::take(&mut page.items))?;
            Ok(page.with_items(items))
        })
    }
}

fn where_all(conditions: &[String]) -> String {
    if conditions.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conditions.join(" AND "))
    }
}

#[cfg(test)]
mod tests {
    use super::like_pattern;

    #[test]
    fn like_escapes() {
        assert_eq!(like_pattern("50%_off"), "%50\\%\\_off%");
    }
}
