//! List parameters (`page`, `per_page`, `order`, `dir`) and the arithmetic of the list envelope.

use crate::FieldError;

/// Largest page served; a larger `per_page` is served at this size.
pub const MAX_PER_PAGE: u64 = 500;
pub const DEFAULT_PER_PAGE: u64 = 50;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Asc,
    Desc,
}

impl Direction {
    pub fn sql(self) -> &'static str {
        match self {
            Self::Asc => "ASC",
            Self::Desc => "DESC",
        }
    }
}

/// The list parameters as a client sent them, still text.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    pub page: Option<String>,
    pub per_page: Option<String>,
    pub order: Option<String>,
    pub dir: Option<String>,
}

/// Validated list parameters; `order` is one of the record's sortable fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListParams {
    pub page: u64,
    pub per_page: u64,
    pub order: &'static str,
    pub dir: Direction,
}

impl ListParams {
    /// Validates `query` against the fields a record can be ordered by.
    pub fn parse(
        query: &ListQuery,
        sortable: &[&'static str],
        default_order: &'static str,
    ) -> Result<Self, FieldError> {
        let page = parse_positive("page", query.page.as_deref())?.unwrap_or(1);
        let per_page = parse_positive("per_page", query.per_page.as_deref())?
            .unwrap_or(DEFAULT_PER_PAGE)
            .min(MAX_PER_PAGE);
        let order = match query.order.as_deref() {
            None | Some("") => default_order,
            Some(name) => sortable
                .iter()
                .copied()
                .find(|field| *field == name)
                .ok_or_else(|| {
                    FieldError::new(
                        "order",
                        format!(
                            "cannot order by \"{name}\"; use one of: {}",
                            sortable.join(", ")
                        ),
                    )
                })?,
        };
        let dir = match query.dir.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None | Some("") | Some("desc") => Direction::Desc,
            Some("asc") => Direction::Asc,
            Some(other) => {
                return Err(FieldError::new(
                    "dir",
                    format!("\"dir\" must be asc or desc, not \"{other}\""),
                ));
            }
        };
        Ok(Self {
            page,
            per_page,
            order,
            dir,
        })
    }

    pub fn offset(&self) -> u64 {
        (self.page - 1).saturating_mul(self.per_page)
    }

    /// Whether a filtered page is best read by walking the order's own index
    /// and checking each row, rather than by finding every match through the
    /// filter's index and sorting them. With `matches` of about `rows`
    /// spread evenly, the walk meets some `rows / matches` rows for each one
    /// it keeps, so it reads about `(offset + per_page) * rows / matches`
    /// rows against the `matches` the other way reads (and sorts). Matches
    /// are not always spread evenly (an author who left years ago, a type
    /// used only lately), and a walk that meets few of them reads the whole
    /// index, so it is chosen only when it looks ten times cheaper.
    pub fn walks_the_order(&self, rows: u64, matches: u64) -> bool {
        const MARGIN: u128 = 10;
        let wanted = u128::from(self.offset().saturating_add(self.per_page));
        matches > 0
            && MARGIN * wanted * u128::from(rows) <= u128::from(matches) * u128::from(matches)
    }

    /// `ORDER BY` text for a table whose columns carry these names; `id` breaks ties
    /// so that pages never overlap or skip.
    pub fn order_by(&self, table: &str) -> String {
        let dir = self.dir.sql();
        format!("ORDER BY {table}.{} {dir}, {table}.id {dir}", self.order)
    }
}

fn parse_positive(field: &str, raw: Option<&str>) -> Result<Option<u64>, FieldError> {
    match raw {
        None | Some("") => Ok(None),
        Some(raw) => match raw.trim().parse::<u64>() {
            Ok(n) if n >= 1 => Ok(Some(n)),
            _ => Err(FieldError::new(
                field,
                format!("\"{field}\" must be a whole number from 1, not \"{raw}\""),
            )),
        },
    }
}

/// One page of a list with the envelope's numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub first: u64,
    pub before: u64,
    pub current: u64,
    pub last: u64,
    pub next: u64,
    pub total_pages: u64,
    pub total_items: u64,
    pub limit: u64,
    /// Whether `total_items` is an estimate (see [`Page::estimated`]).
    pub total_estimated: bool,
}

impl<T> Page<T> {
    /// The envelope for `items` on the page `params` asked for, out of `total_items`.
    /// `last` is at least 1 so that page 1 of an empty list is a valid page;
    /// `before` and `next` stay within `first..=last`.
    pub fn new(items: Vec<T>, params: &ListParams, total_items: u64) -> Self {
        let total_pages = total_items.div_ceil(params.per_page);
        let last = total_pages.max(1);
        let current = params.page;
        Self {
            items,
            first: 1,
            before: current.saturating_sub(1).clamp(1, last),
            current,
            last,
            next: current.saturating_add(1).min(last),
            total_pages,
            total_items,
            limit: params.per_page,
            total_estimated: false,
        }
    }

    /// The same page, its `total_items` said to be an estimate when
    /// `estimated`.
    pub fn estimated(mut self, estimated: bool) -> Self {
        self.total_estimated = estimated;
        self
    }

    /// The same envelope around other items (as many).
    pub fn with_items<U>(self, items: Vec<U>) -> Page<U> {
        Page {
            items,
            first: self.first,
            before: self.before,
            current: self.current,
            last: self.last,
            next: self.next,
            total_pages: self.total_pages,
            total_items: self.total_items,
            limit: self.limit,
            total_estimated: self.total_estimated,
        }
    }

    pub fn map<U>(mut self, f: impl FnMut(T) -> U) -> Page<U> {
        let items = std::mem::take(&mut self.items).into_iter().map(f).collect();
        self.with_items(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SORTABLE: &[&str] = &["modified_at", "name"];

    fn query(
        page: Option<&str>,
        per_page: Option<&str>,
        order: Option<&str>,
        dir: Option<&str>,
    ) -> ListQuery {
        ListQuery {
            page: page.map(str::to_owned),
            per_page: per_page.map(str::to_owned),
            order: order.map(str::to_owned),
            dir: dir.map(str::to_owned),
        }
    }

    fn page(page: u64, per_page: u64) -> ListParams {
        ListParams {
            page,
            per_page,
            order: "modified_at",
            dir: Direction::Desc,
        }
    }

    #[test]
    fn a_common_filter_walks_the_order_and_a_rare_one_does_not() {
        // A million stories, pages of 20.
        assert!(page(1, 20).walks_the_order(1_000_000, 900_000));
        assert!(page(1, 20).walks_the_order(1_000_000, 19_710));
        assert!(!page(1, 20).walks_the_order(1_000_000, 5_000));
        assert!(!page(1, 20).walks_the_order(1_000_000, 0));
        // Deep in the list the walk is long: page 2,000 of everything, of a quarter.
        assert!(page(2_000, 20).walks_the_order(1_000_000, 1_000_000));
        assert!(!page(2_000, 20).walks_the_order(1_000_000, 250_000));
    }

    proptest::proptest! {
        /// More matches never turn a walk into a sort, nor does an earlier page.
        #[test]
        fn the_walk_is_kept_as_matches_grow_and_pages_come_earlier(
            rows in 0u64..10_000_000,
            matches in 0u64..10_000_000,
            more in 0u64..1_000_000,
            number in 1u64..100_000,
            per_page in 1u64..500,
        ) {
            let at = page(number, per_page);
            if at.walks_the_order(rows, matches) {
                proptest::prop_assert!(at.walks_the_order(rows, matches + more));
                proptest::prop_assert!(page(1, per_page).walks_the_order(rows, matches));
            }
            proptest::prop_assert!(!at.walks_the_order(rows, 0));
        }
    }

    #[test]
    fn defaults() {
        let p = ListParams::parse(&ListQuery::default(), SORTABLE, "modified_at").expect("valid");
        assert_eq!(
            (p.page, p.per_page, p.order, p.dir),
            (1, 50, "modified_at", Direction::Desc)
        );
    }

    #[test]
    fn caps_per_page() {
        let p = ListParams::parse(&query(None, Some("10000"), None, None), SORTABLE, "name")
            .expect("valid");
        assert_eq!(p.per_page, 500);
    }

    #[test]
    fn refuses_bad_values() {
        for q in [
            query(Some("0"), None, None, None),
            query(Some("-1"), None, None, None),
            query(Some("abc"), None, None, None),
            query(None, Some("0"), None, None),
            query(None, None, Some("password"), None),
            query(None, None, None, Some("sideways")),
        ] {
            assert!(ListParams::parse(&q, SORTABLE, "name").is_err(), "{q:?}");
        }
    }

    #[test]
    fn envelope_arithmetic() {
        let params = ListParams::parse(&query(Some("2"), Some("10"), None, None), SORTABLE, "name")
            .expect("valid");
        assert_eq!(params.offset(), 10);
        let page = Page::new(vec![(); 10], &params, 35);
        assert_eq!(
            (
                page.first,
                page.before,
                page.current,
                page.next,
                page.last,
                page.total_pages,
                page.limit
            ),
            (1, 1, 2, 3, 4, 4, 10)
        );
        let last = ListParams { page: 4, ..params };
        let page = Page::new(vec![(); 5], &last, 35);
        assert_eq!((page.before, page.next, page.last), (3, 4, 4));
    }

    #[test]
    fn empty_list_has_one_page() {
        let params = ListParams::parse(&ListQuery::default(), SORTABLE, "name").expect("valid");
        let page: Page<()> = Page::new(vec![], &params, 0);
        assert_eq!(
            (page.total_pages, page.last, page.next, page.before),
            (0, 1, 1, 1)
        );
    }

    #[test]
    fn exact_multiple() {
        let params = ListParams::parse(&query(None, Some("50"), None, None), SORTABLE, "name")
            .expect("valid");
        let page: Page<()> = Page::new(vec![], &params, 100);
        assert_eq!(page.total_pages, 2);
    }
}
