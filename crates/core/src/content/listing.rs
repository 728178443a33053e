//! The list of content items: its filters (type, status, workflow, words, author, tag, days of change), its orders, and the plan a page is read by.

use crate::access::Action;
use crate::db::{ToSql, Transaction};

use crate::Cms;
use crate::access::Principal;
use crate::authors::AUTHORS;
use crate::clock;
use crate::db::fetch_page_choosing;
use crate::error::{CoreError, Result};
use crate::model::content::{COLUMNS, ContentItem};
use crate::paging::{ListParams, ListQuery, Page};
use crate::records::{AUTHOR_BY_SLUG_OR_NAME, TAG_BY_SLUG_OR_NAME, named};
use crate::tags::TAGS;

use super::parse_content_type;

/// The orders a content list takes: `relevance` (with words; see
/// `search_index::relevance`) and the columns it may be sorted by.
const SORTABLE: &[&str] = &[
    "relevance",
    "id",
    "uuid",
    "title",
    "slug",
    "type",
    "version",
    "weight",
    "created_at",
    "modified_at",
    "published_at",
    "state",
];

/// Filters of the content list beyond paging.
#[derive(Debug, Clone, Default)]
pub struct ContentFilter {
    pub has_attachment: Option<String>,
    pub content_type: Option<String>,
    /// `published` (a publication time set and reached), `scheduled` (set,
    /// still ahead), `draft` or `unpublished` (none), as clients of the
    /// hosted service filter.
    pub status: Option<String>,
    /// A workflow's numeric id.
    pub workflow: Option<String>,
    /// Words each item must hold in its title, abstract, body or slug.
    pub keywords: Option<String>,
    /// An author (UUID, slug or name) each item must carry.
    pub author: Option<String>,
    /// A tag (UUID, slug or name) each item must carry.
    pub tag: Option<String>,
    /// The first day (`YYYY-MM-DD`, UTC) or moment (RFC 3339) of the
    /// items' last change.
    pub changed_from: Option<String>,
    /// The last day or moment of the items' last change, included.
    pub changed_to: Option<String>,
}

/// The orders the content table has an index for (`(column, id)`), which a
/// page can be read by walking.
const ORDERED_BY_INDEX: &[&str] = &["id", "version", "modified_at", "created_at", "published_at"];

/// One condition of the content list, in the two forms a page may be read
/// by. `by_index` lets SQLite find the matches through the condition's own
/// index (an `IN` over a link table's index, a column's index), then sort
/// them: best when few match. `in_order` keeps the condition off any index
/// (a unary plus on the column, `EXISTS` per row), so SQLite walks the
/// order's own index and checks each row until the page is full: best when
/// many match (a type filter over a million stories read every match and
/// sorted them, a second and more, for a page of 20). The count of matches,
/// which every page reads anyway, chooses ([`ListParams::walks_the_order`]).
#[derive(Debug, Clone)]
struct Narrowing {
    by_index: String,
    in_order: String,
    /// When this is the list's only condition, cheaper rows to count its
    /// matches by than the items (what follows `FROM` in the count).
    counted_alone: Option<String>,
}

impl Narrowing {
    /// A condition read the same either way (words, days, a status).
    fn same(sql: String) -> Self {
        Self {
            by_index: sql.clone(),
            in_order: sql,
            counted_alone: None,
        }
    }

    /// `column = ?N`. The parameter keeps its unary plus either way: it
    /// keeps SQLite from re-preparing the statement for each value
    /// (`store/mod.rs`); the plus on the column is the one that keeps the
    /// column's index out of the plan.
    fn column(column: &str, parameter: usize) -> Self {
        Self {
            by_index: format!("{column} = +?{parameter}"),
            in_order: format!("+{column} = +?{parameter}"),
            counted_alone: None,
        }
    }

    /// The item is linked to `?N` in `table` (`content_authors`,
    /// `content_tags`) by `column`.
    fn linked(table: &str, column: &str, parameter: usize) -> Self {
        Self {
            by_index: format!(
                "content.id IN (SELECT l.content_id FROM {table} l WHERE l.{column} = +?{parameter})"
            ),
            in_order: format!(
                "EXISTS (SELECT 1 FROM {table} l WHERE l.content_id = content.id AND l.{column} = +?{parameter})"
            ),
            // Alone, it is counted in the link table's own index: a link is
            // one item's (the table's key is the item and the other side),
            // and an item's links go with it (`ON DELETE CASCADE`). Read
            // through the items, a prolific author's 265,321 stories took
            // 0.22 s to count; the index alone, milliseconds.
            counted_alone: Some(format!("{table} l WHERE l.{column} = +?{parameter}")),
        }
    }

    /// The `WHERE` clause of `conditions` in one form.
    fn filter(conditions: &[Narrowing], form: impl Fn(&Narrowing) -> &String) -> String {
        if conditions.is_empty() {
            String::new()
        } else {
            let parts: Vec<&str> = conditions.iter().map(|c| form(c).as_str()).collect();
            format!("WHERE {}", parts.join(" AND "))
        }
    }
}

/// A day filter's field, when given: the span it covers (see
/// [`clock::span`]).
fn span_filter(field: &str, raw: Option<&str>) -> Result<Option<(String, String)>> {
    raw.map(str::trim)
        .filter(|raw| !raw.is_empty())
        .map(|raw| Ok(crate::clock::span(field, raw)?))
        .transpose()
}

impl Cms {
    pub fn list_content(
        &self,
        who: &Principal,
        query: &ListQuery,
        filter: &ContentFilter,
    ) -> Result<Page<ContentItem>> {
        self.list_content_as(
            who,
            query,
            filter,
            COLUMNS,
            |row| self.content_from_row(row),
            |tx, records| self.completed_items(tx, records, None),
        )
    }

    /// The content list: each page's rows read as `columns` by `map`, then
    /// finished by `finish`.
    pub(crate) fn list_content_as<R, T>(
        &self,
        who: &Principal,
        query: &ListQuery,
        filter: &ContentFilter,
        columns: &str,
        map: impl Fn(&crate::db::Row<'_>) -> crate::db::Result<R>,
        finish: impl Fn(&Transaction<'_>, Vec<R>) -> Result<Vec<T>>,
    ) -> Result<Page<T>> {
        who.require(Action::ContentList)?;
        let params = ListParams::parse(query, SORTABLE, "version")?;
        // With no words, relevance means nothing: the list's own order then.
        let (ranked_order, params) = crate::search_index::Order::asked(params, "version");
        let has_attachment = match filter.has_attachment.as_deref().map(str::trim) {
            None | Some("") => None,
            Some("0") => Some(0i64),
            Some("1") => Some(1i64),
            Some(other) => {
                return Err(CoreError::invalid_field(
                    "has_attachment",
                    format!("\"has_attachment\" must be 0 or 1, not \"{other}\""),
                ));
            }
        };
        let content_type = match filter.content_type.as_deref() {
            None | Some("") => None,
            Some(raw) => Some(parse_content_type(raw)?),
        };
        let now = clock::now();
        let status_condition = match filter.status.as_deref().map(str::trim) {
            None | Some("") | Some("any") => None,
            Some("published") => {
                Some("content.published_at IS NOT NULL AND content.published_at <= ?")
            }
            Some("scheduled") => Some("content.published_at > ?"),
            Some("draft" | "unpublished") => Some("content.published_at IS NULL"),
            Some(other) => {
                return Err(CoreError::invalid_field(
                    "status",
                    format!(
                        "\"status\" is published, scheduled, draft, unpublished or any, not \"{other}\""
                    ),
                ));
            }
        };
        let workflow = match filter.workflow.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(raw) => Some(raw.parse::<i64>().map_err(|_| {
                CoreError::invalid_field(
                    "workflow",
                    format!("\"workflow\" is a workflow's id, not \"{raw}\""),
                )
            })?),
        };
        let dialect = self.store.dialect();
        let typed = crate::search_index::match_typed(filter.keywords.as_deref().unwrap_or(""))?;
        // Words in relevance or id order: the index walks its hits itself
        // and every other condition is checked on each hit's row as it goes
        // (see `search_index::relevance`); else the words are one more
        // condition of the list.
        let ranked = typed.clone().zip(ranked_order);
        let keywords = match ranked {
            Some(_) => None,
            None => typed.map(|terms| terms.condition(dialect, 1)),
        };
        let mut conditions: Vec<Narrowing> = Vec::new();
        let mut args: Vec<&dyn ToSql> = Vec::new();
        // The words first: their condition numbers its parameters from 1.
        if let Some((condition, keyword_args)) = &keywords {
            args.extend(keyword_args.iter().map(|arg| arg as &dyn ToSql));
            conditions.push(Narrowing::same(format!(
                "content.id IN (SELECT {} FROM content_search WHERE {condition})",
                crate::search_index::story_column(dialect),
            )));
        }
        if let Some(condition) = status_condition {
            if condition.contains('?') {
                args.push(&now);
            }
            conditions.push(Narrowing::same(
                condition.replace('?', &format!("?{}", args.len())),
            ));
        }
        if let Some(workflow) = &workflow {
            args.push(workflow);
            conditions.push(Narrowing::column("content.workflow_id", args.len()));
        }
        if let Some(flag) = &has_attachment {
            args.push(flag);
            conditions.push(Narrowing::column("content.has_attachment", args.len()));
        }
        if let Some(content_type) = &content_type {
            args.push(content_type);
            conditions.push(Narrowing::column("content.type", args.len()));
        }
        let from =
            span_filter("changed_from", filter.changed_from.as_deref())?.map(|(start, _)| start);
        let to = span_filter("changed_to", filter.changed_to.as_deref())?.map(|(_, after)| after);
        if let Some(from) = &from {
            args.push(from);
            conditions.push(Narrowing::same(format!(
                "content.modified_at >= ?{}",
                args.len()
            )));
        }
        if let Some(to) = &to {
            args.push(to);
            conditions.push(Narrowing::same(format!(
                "content.modified_at < ?{}",
                args.len()
            )));
        }
        self.read(|tx| {
            let mut args = args.clone();
            let mut conditions = conditions.clone();
            let author = match filter
                .author
                .as_deref()
                .map(str::trim)
                .filter(|a| !a.is_empty())
            {
                Some(author) => Some(named(
                    tx,
                    AUTHORS,
                    &AUTHOR_BY_SLUG_OR_NAME,
                    "author",
                    author,
                )?),
                None => None,
            };
            let tag = match filter
                .tag
                .as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
            {
                Some(tag) => Some(named(tx, TAGS, &TAG_BY_SLUG_OR_NAME, "tag", tag)?),
                None => None,
            };
            if let Some((terms, order)) = &ranked {
                let terms = match (author, tag) {
                    (Some(author), Some(tag)) => terms.clone().with_author(author).with_tag(tag),
                    (Some(author), None) => terms.clone().with_author(author),
                    (None, Some(tag)) => terms.clone().with_tag(tag),
                    (None, None) => terms.clone(),
                };
                // Checked on each hit's row as the walk meets it (PostgreSQL
                // takes no unary plus on a text column), or found through
                // their indexes when they hold for few stories.
                let joined = |form: fn(&Narrowing) -> &str| -> String {
                    conditions
                        .iter()
                        .map(form)
                        .collect::<Vec<_>>()
                        .join(" AND ")
                };
                let indexed = joined(|c| c.by_index.as_str());
                let checked = match dialect {
                    crate::db::Dialect::Sqlite => joined(|c| c.in_order.as_str()),
                    crate::db::Dialect::Postgres => indexed.clone(),
                };
                let also = crate::search_index::Also {
                    sql: &checked,
                    indexed: &indexed,
                    args: &args,
                };
                let ranked = crate::search_index::relevance_page(
                    tx,
                    &terms,
                    *order,
                    (!conditions.is_empty()).then_some(&also),
                    &params,
                )?;
                let rows = tx.rows_in_order("content", columns, &ranked.ids, &map)?;
                let items = finish(tx, rows)?;
                return Ok(Page::new(items, &params, ranked.total).estimated(ranked.estimated));
            }
            if let Some(author) = &author {
                args.push(author);
                conditions.push(Narrowing::linked(
                    "content_authors",
                    "author_id",
                    args.len(),
                ));
            }
            if let Some(tag) = &tag {
                args.push(tag);
                conditions.push(Narrowing::linked("content_tags", "tag_id", args.len()));
            }
            let by_index = Narrowing::filter(&conditions, |c| &c.by_index);
            let in_order = Narrowing::filter(&conditions, |c| &c.in_order);
            // SQLite plans without knowing how many rows match; PostgreSQL's
            // statistics do, so it is given the one form.
            let may_walk = !self.store.is_postgres()
                && in_order != by_index
                && ORDERED_BY_INDEX.contains(&params.order);
            let choose = |tx: &Transaction<'_>, matches: u64| -> crate::db::Result<String> {
                if !may_walk {
                    return Ok(by_index.clone());
                }
                // The rows a walk may meet: the days' span of the order's
                // index when it is ordered by the change the days filter
                // (SQLite walks just that range), else the whole table.
                let rows: Option<i64> = match (&from, &to) {
                    (None, None) => None,
                    _ if params.order != "modified_at" => None,
                    (from, to) => Some(tx.query_row(
                        "SELECT COUNT(*) FROM content WHERE content.modified_at >= ?1 \
                         AND content.modified_at < ?2",
                        crate::params![
                            from.as_deref().unwrap_or(""),
                            to.as_deref().unwrap_or("\u{10FFFF}")
                        ],
                        |row| row.get(0),
                    )?),
                };
                let rows = match rows {
                    Some(rows) => rows,
                    None => tx
                        .query_row("SELECT max(id) FROM content", crate::params![], |row| {
                            row.get::<_, Option<i64>>(0)
                        })?
                        .unwrap_or(0),
                };
                let walks = params.walks_the_order(u64::try_from(rows).unwrap_or(0), matches);
                #[cfg(test)]
                super::tests::PLANS_CHOSEN.with(|chosen| chosen.borrow_mut().push(walks));
                Ok(if walks {
                    in_order.clone()
                } else {
                    by_index.clone()
                })
            };
            let counted = match conditions.as_slice() {
                [
                    Narrowing {
                        counted_alone: Some(count),
                        ..
                    },
                ] => count.clone(),
                _ => format!("content {by_index}"),
            };
            let mut page = fetch_page_choosing(
                tx, "content", columns, &counted, choose, &args, &params, &map,
            )?;
            let items = finish(tx, std::mem::take(&mut page.items))?;
            Ok(page.with_items(items))
        })
    }
}
