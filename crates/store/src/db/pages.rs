//! One page of a list, in the order a client asked for, with the count of
//! every match: the same two statements for every resource.

use copydesk_wire::paging::{ListParams, Page};

use super::{Result, Row, ToSql, Transaction};

/// One page of `SELECT columns FROM table [filter]` in the order `params` asks.
/// `filter` is fixed SQL text with `?N` placeholders bound from `args`.
pub fn fetch_page<T>(
    tx: &Transaction<'_>,
    table: &str,
    columns: &str,
    filter: &str,
    args: &[&dyn ToSql],
    params: &ListParams,
    map: impl FnMut(&Row<'_>) -> Result<T>,
) -> Result<Page<T>> {
    fetch_page_choosing(
        tx,
        table,
        columns,
        &format!("{table} {filter}"),
        |_, _| Ok(filter.to_owned()),
        args,
        params,
        map,
    )
}

/// [`fetch_page`], counting the matches of `counted` (what follows `FROM`
/// in a count, taking `args`: [`Transaction::count_rows`]) and
/// reading the page by the filter `page_filter` answers, given the count:
/// the same condition written for another plan (same parameters, same
/// rows).
#[allow(clippy::too_many_arguments)]
pub fn fetch_page_choosing<T>(
    tx: &Transaction<'_>,
    table: &str,
    columns: &str,
    counted: &str,
    page_filter: impl FnOnce(&Transaction<'_>, u64) -> Result<String>,
    args: &[&dyn ToSql],
    params: &ListParams,
    map: impl FnMut(&Row<'_>) -> Result<T>,
) -> Result<Page<T>> {
    let total = tx.count_rows(counted, args)?;
    let filter = page_filter(tx, total.0)?;
    let order = params.order_by(table);
    // The page's rows are picked by id first, walking only the ordering
    // index, so a deep page skips index entries rather than whole rows.
    let sql = format!(
        "SELECT {columns} FROM {table} WHERE {table}.id IN
           (SELECT {table}.id FROM {table} {filter} {order} LIMIT ?{} OFFSET ?{})
         {order}",
        args.len() + 1,
        args.len() + 2
    );
    read_page(tx, &sql, args, params, total, map)
}

/// One page by two statements: the rows of `counted` (as for
/// [`fetch_page_choosing`]) count every
/// match, `page_sql` (taking `args`, then the limit and the offset) reads
/// the page's rows.
pub fn fetch_page_by<T>(
    tx: &Transaction<'_>,
    counted: &str,
    page_sql: &str,
    args: &[&dyn ToSql],
    params: &ListParams,
    map: impl FnMut(&Row<'_>) -> Result<T>,
) -> Result<Page<T>> {
    let total = tx.count_rows(counted, args)?;
    read_page(tx, page_sql, args, params, total, map)
}

/// The rows of `page_sql` (taking `args`, then the limit and the offset)
/// in a page of `total` matches.
fn read_page<T>(
    tx: &Transaction<'_>,
    page_sql: &str,
    args: &[&dyn ToSql],
    params: &ListParams,
    total: (u64, bool),
    map: impl FnMut(&Row<'_>) -> Result<T>,
) -> Result<Page<T>> {
    let limit = i64::try_from(params.per_page).unwrap_or(i64::MAX);
    let offset = i64::try_from(params.offset()).unwrap_or(i64::MAX);
    let mut all: Vec<&dyn ToSql> = args.to_vec();
    all.push(&limit);
    all.push(&offset);
    let mut stmt = tx.prepare_cached(page_sql)?;
    let items = stmt
        .query_map(all.as_slice(), map)?
        .collect::<Result<Vec<T>>>()?;
    // An estimate never ends the list before the rows read (a full page
    // always has a next one), and a short page knows the count exactly.
    let (total, estimated) = total;
    let (read, full) = (
        params.offset() + items.len() as u64,
        items.len() as u64 == params.per_page,
    );
    let (total, estimated) = match (estimated, full, items.is_empty()) {
        (true, true, _) => (total.max(read + 1), true),
        (true, false, false) => (read, false),
        _ => (total, estimated),
    };
    Ok(Page::new(items, params, total).estimated(estimated))
}
