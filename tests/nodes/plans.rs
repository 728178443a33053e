//! The plans PostgreSQL chooses for the web UI's content lists, read from
//! the server's own statements (`auto_explain` logs each one's plan): the
//! choices the SQLite listing makes by counting (`Narrowing` in the core),
//! PostgreSQL makes from its statistics, and this test holds it to them.
//! A filter most stories match walks the order's index until the page is
//! full; a filter few match finds them through its own index and sorts
//! them; a page's stories and their parts are looked up by id, never read
//! by scanning a table. And none is compiled (JIT), whatever it costs.

use copydesk_tests::TestServer;
use copydesk_tests::postgres::Cluster;
use serde_json::Value;

/// Stories in the database: enough that a scan of a table costs the
/// planner far more than a page's look-ups.
const STORIES: usize = 30_000;

/// The authors and the tag the stories are linked to.
const MANY: &str = "0193a000-0000-7000-8000-000000000001";
const FEW: &str = "0193a000-0000-7000-8000-000000000002";
const RARE: &str = "0193a000-0000-7000-8000-000000000003";

/// One logged plan: its statement, every node of its tree, and whether
/// its run compiled code (JIT).
struct Logged {
    query: String,
    nodes: Vec<Value>,
    compiled: bool,
}

impl Logged {
    /// Whether a node reads `relation` by scanning all of it.
    fn scans(&self, relation: &str) -> bool {
        self.nodes
            .iter()
            .any(|node| node["Node Type"] == "Seq Scan" && node["Relation Name"] == relation)
    }

    /// Whether a node reads through the index `index`.
    fn uses(&self, index: &str) -> bool {
        self.nodes.iter().any(|node| node["Index Name"] == index)
    }

    /// Whether a node sorts more rows than a page holds (a page's twenty,
    /// found, are put in order once more by the statement around them).
    fn sorts_more_than_a_page(&self) -> bool {
        self.nodes.iter().any(|node| {
            matches!(
                node["Node Type"].as_str(),
                Some("Sort" | "Incremental Sort")
            ) && node["Plan Rows"].as_u64() > Some(100)
        })
    }
}

/// Every node of the plan tree under `node`.
fn flatten(node: &Value, into: &mut Vec<Value>) {
    into.push(node.clone());
    for child in node["Plans"].as_array().into_iter().flatten() {
        flatten(child, into);
    }
}

/// The plans `auto_explain` wrote into `log` (JSON after "plan:", each
/// line of it indented by a tab).
fn plans(log: &str) -> Vec<Logged> {
    let mut found = Vec::new();
    let mut lines = log.lines().peekable();
    while let Some(line) = lines.next() {
        if !line.contains("LOG:  duration:") || !line.ends_with("plan:") {
            continue;
        }
        let mut json = String::new();
        while let Some(next) = lines.next_if(|next| next.starts_with('\t')) {
            json.push_str(next);
            json.push('\n');
        }
        let plan: Value = serde_json::from_str(&json).expect("a plan in JSON");
        let mut nodes = Vec::new();
        flatten(&plan["Plan"], &mut nodes);
        found.push(Logged {
            query: plan["Query Text"].as_str().unwrap_or_default().to_owned(),
            nodes,
            compiled: plan.get("JIT").is_some(),
        });
    }
    found
}

#[test]
fn postgresql_walks_the_order_for_common_filters_and_looks_up_rare_ones_and_every_page_by_id() {
    let cluster = Cluster::start(&[
        "shared_preload_libraries=auto_explain",
        "auto_explain.log_format=json",
        "auto_explain.log_min_duration=-1",
    ])
    .expect("a cluster of its own");
    cluster.create_database("plans").expect("a database");
    let url = cluster.url("plans");
    let server = TestServer::start_on_database(&url);
    // Stories written straight into the database, as an import leaves
    // them, each with its first version, its audit row and an answer
    // kept by an older renderer (so each is assembled when read): an
    // author of a third of them and one of 12, a tag of 15 and one of half
    // of them, a
    // change every minute of the last three weeks; a tenth are posts.
    super::psql(
        &url,
        &format!(
            "INSERT INTO authors (uuid, slug, name, created_at, modified_at) VALUES
               ('{MANY}', 'many', 'Many Stories', '2026-01-01', '2026-01-01'),
               ('{FEW}', 'few', 'Few Stories', '2026-01-01', '2026-01-01');
             INSERT INTO tags (uuid, name, slug, created_at, modified_at) VALUES
               ('{RARE}', 'Rare', 'rare', '2026-01-01', '2026-01-01'),
               (gen_random_uuid()::text, 'Common', 'common', '2026-01-01', '2026-01-01');
             INSERT INTO content (uuid, title, slug, type, version, created_at, modified_at)
             SELECT gen_random_uuid()::text, 'Story ' || n, 'story-' || n,
                    CASE WHEN n % 10 = 0 THEN 'post' ELSE 'article' END, 1,
                    to_char(timestamp '2026-11-10' + n * interval '1 minute', 'YYYY-MM-DD HH24:MI:SS'),
                    to_char(timestamp '2026-11-10' + n * interval '1 minute', 'YYYY-MM-DD HH24:MI:SS')
             FROM generate_series(1, {STORIES}) n;
             INSERT INTO content_authors (content_id, author_id, position)
             SELECT c.id, a.id, 0 FROM content c, authors a
             WHERE (a.slug = 'many' AND c.id % 3 = 0) OR (a.slug = 'few' AND c.id % 2500 = 7);
             INSERT INTO content_tags (content_id, tag_id, position)
             SELECT c.id, t.id, 0 FROM content c, tags t
             WHERE (t.slug = 'rare' AND c.id % 2000 = 11) OR (t.slug = 'common' AND c.id % 2 = 0);
             INSERT INTO versions (uuid, content_id, version, title, slug, type, weight, abstract,
                                   abstract_raw, content, content_raw, state, workflow_id,
                                   created_at, modified_at)
             SELECT gen_random_uuid()::text, id, 1, title, slug, type, 0, '', '', '', '', 0, 0,
                    created_at, modified_at FROM content;
             INSERT INTO audit (uuid, content_id, action, created_at)
             SELECT gen_random_uuid()::text, id, 'create', created_at FROM content;
             INSERT INTO content_rendered (content_id, format, body)
             SELECT id, 'an older renderer', '{{}}' FROM content;
             DELETE FROM content_search_pending;
             DELETE FROM content_render_pending;
             ANALYZE"
        ),
    );
    // The cluster can compile (Debian's PostgreSQL ships LLVM's JIT), so
    // the check below that nothing is compiled means something.
    assert_eq!(
        cluster.sql("SELECT pg_jit_available()").expect("psql"),
        "t",
        "JIT is available"
    );
    // Only the server's statements from here on, each logged with its plan.
    let log = cluster.dir.join("pg.log");
    super::psql(
        &url,
        "ALTER DATABASE plans SET auto_explain.log_min_duration = 0;
         ALTER DATABASE plans SET jit_above_cost = 0",
    );
    let start = std::fs::metadata(&log).expect("the log").len() as usize;
    let server = {
        // New connections take the setting.
        drop(server);
        TestServer::start_on_database(&url)
    };
    let list = |filter: &str| -> Vec<String> {
        // Past the first five runs, PostgreSQL may plan a statement once
        // for every value: both kinds of plan are logged.
        let mut pages = Vec::new();
        for _ in 0..8 {
            let body = server
                .get(&format!(
                    "/v3/content?per_page=20&order=modified_at&dir=desc{filter}"
                ))
                .expect(200)
                .body;
            pages.push(body["items"][0]["title"].as_str().unwrap_or("").to_owned());
        }
        pages
    };
    assert_eq!(list("")[7], format!("Story {STORIES}"), "newest first");
    assert_eq!(list("&type=article")[7], format!("Story {}", STORIES - 1));
    list(&format!("&author={MANY}"));
    list(&format!("&author={FEW}"));
    list(&format!("&tag={RARE}"));
    list("&type=post&changed_from=2026-11-30T00:00:00Z");
    let text = std::fs::read_to_string(&log).expect("the log");
    let logged = plans(&text[start..]);
    let pages: Vec<&Logged> = logged
        .iter()
        .filter(|plan| plan.query.contains("ORDER BY content.modified_at DESC"))
        .collect();
    let page_of = |condition: &str| -> Vec<&Logged> {
        pages
            .iter()
            .copied()
            .filter(|plan| plan.query.contains(condition))
            .collect()
    };
    let common = page_of("content.type = ");
    let by_author = page_of("l.author_id = ");
    let by_tag = page_of("l.tag_id = ");
    assert!(
        common.len() >= 16 && by_author.len() >= 16 && by_tag.len() >= 8,
        "every page's plan was logged: {} {} {} of {} plans",
        common.len(),
        by_author.len(),
        by_tag.len(),
        logged.len()
    );
    // Nine in ten stories are articles: the order's own index, walked
    // until twenty are found, and no sort (the posts of the last days,
    // listed above, are left to the planner).
    for plan in common
        .iter()
        .filter(|plan| !plan.query.contains("modified_at >="))
    {
        assert!(
            plan.uses("content_modified")
                && !plan.sorts_more_than_a_page()
                && !plan.scans("content"),
            "a common type walks the order: {}\n{:#?}",
            plan.query,
            plan.nodes
        );
    }
    // A third of the stories: the walk again, each story's link checked.
    // One in 2,500 or 2,000: the link table's index, then a sort.
    let (walked, looked_up): (Vec<&Logged>, Vec<&Logged>) = by_author
        .iter()
        .partition(|plan| plan.uses("content_modified"));
    assert_eq!(
        walked.len(),
        8,
        "the prolific author's pages walk the order"
    );
    for plan in looked_up.iter().chain(&by_tag) {
        assert!(
            (plan.uses("content_authors_author") || plan.uses("content_tags_tag"))
                && !plan.scans("content"),
            "a rare filter goes through its link: {}\n{:#?}",
            plan.query,
            plan.nodes
        );
    }
    // A database whose default compiles every statement (as a large
    // archive's lists and searches would be, past `jit_above_cost`): the
    // server's connections compile none.
    let compiled: Vec<&str> = logged
        .iter()
        .filter(|plan| plan.compiled)
        .map(|plan| plan.query.as_str())
        .collect();
    assert!(compiled.is_empty(), "statements compiled: {compiled:#?}");
    // Every story of a page, its parts and its kept answer, by id.
    let by_id: Vec<&Logged> = logged
        .iter()
        .filter(|plan| plan.query.contains("json_each"))
        .collect();
    assert!(by_id.len() > 50, "pages were read by id: {}", by_id.len());
    for plan in by_id {
        for table in [
            "content",
            "content_rendered",
            "versions",
            "audit",
            "content_authors",
            "content_tags",
        ] {
            assert!(
                !plan.scans(table),
                "{table} is read by id, not scanned: {}\n{:#?}",
                plan.query,
                plan.nodes
            );
        }
    }
}
