//! Times SQLite FTS5 against tantivy on the same generated archive, to choose Copydesk's search engine by measurement.
//!
//! Builds (or reuses) both indexes of N generated stories in `--dir`, then
//! runs the same searches of each kind on each engine, relevance and newest
//! first, a page of 20 with and without the count of hits, and prints p50 and
//! p99 latencies, the hit counts and where the engines disagree, as Markdown
//! (also written to `--out`).

mod corpus;
mod fts;
mod query;
mod report;
mod tantivy_index;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::corpus::Vocabulary;
use crate::fts::Fts;
use crate::query::{Answer, Query, query_sets};
use crate::report::{KindResult, Report, VariantResult};
use crate::tantivy_index::Tantivy;

/// Untimed searches of each kind before the timed ones.
const WARM_UP: usize = 20;

struct Args {
    stories: u64,
    dir: PathBuf,
    queries: usize,
    out: PathBuf,
    tantivy_one_segment: bool,
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        stories: 1_000_000,
        dir: PathBuf::from("/tmp/search-choice"),
        queries: 200,
        out: PathBuf::from("/tmp/search-choice-results.md"),
        tantivy_one_segment: false,
    };
    let mut given = std::env::args().skip(1);
    while let Some(flag) = given.next() {
        let mut value = || {
            given
                .next()
                .with_context(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--stories" => args.stories = value()?.parse().context("--stories")?,
            "--dir" => args.dir = PathBuf::from(value()?),
            "--queries" => args.queries = value()?.parse().context("--queries")?,
            "--out" => args.out = PathBuf::from(value()?),
            "--tantivy-one-segment" => args.tantivy_one_segment = true,
            "-h" | "--help" => {
                println!(
                    "copydesk-search-choice [--stories N (1000000)] [--dir DIR (/tmp/search-choice)] \
                     [--queries N per kind (200)] [--out FILE (/tmp/search-choice-results.md)] \
                     [--tantivy-one-segment (merge the tantivy index into one segment first)]"
                );
                std::process::exit(0);
            }
            other => bail!("unknown argument {other}"),
        }
    }
    if args.stories == 0 || args.queries == 0 {
        bail!("--stories and --queries must be at least 1");
    }
    Ok(args)
}

/// One way of answering a search, timed on its own.
#[derive(Clone, Copy)]
enum Variant {
    FtsRelevance { count: bool },
    FtsNewest { count: bool },
    TantivyRelevance { count: bool },
    TantivyNewest { count: bool },
}

impl Variant {
    const ALL: [Variant; 8] = [
        Variant::FtsRelevance { count: false },
        Variant::FtsRelevance { count: true },
        Variant::FtsNewest { count: false },
        Variant::FtsNewest { count: true },
        Variant::TantivyRelevance { count: false },
        Variant::TantivyRelevance { count: true },
        Variant::TantivyNewest { count: false },
        Variant::TantivyNewest { count: true },
    ];

    fn run(self, fts: &Fts, tantivy: &Tantivy, query: &Query) -> Result<Answer> {
        match self {
            Variant::FtsRelevance { count } => fts.relevance(query, count),
            Variant::FtsNewest { count } => fts.newest(query, count),
            Variant::TantivyRelevance { count } => tantivy.relevance(query, count),
            Variant::TantivyNewest { count } => tantivy.newest(query, count),
        }
    }

    fn engine(self) -> &'static str {
        match self {
            Variant::FtsRelevance { .. } | Variant::FtsNewest { .. } => "FTS5",
            Variant::TantivyRelevance { .. } | Variant::TantivyNewest { .. } => "tantivy",
        }
    }

    fn order(self) -> &'static str {
        match self {
            Variant::FtsRelevance { .. } | Variant::TantivyRelevance { .. } => "relevance",
            Variant::FtsNewest { .. } | Variant::TantivyNewest { .. } => "newest",
        }
    }

    fn with_count(self) -> bool {
        match self {
            Variant::FtsRelevance { count }
            | Variant::FtsNewest { count }
            | Variant::TantivyRelevance { count }
            | Variant::TantivyNewest { count } => count,
        }
    }

    fn plan(self) -> &'static str {
        match self {
            Variant::FtsRelevance { count: false } => "headline hits, then body hits, newest first",
            Variant::FtsRelevance { count: true } => "the same + count walk (≤1,001 rows)",
            Variant::FtsNewest { count: false } => "hits newest first, LIMIT 20",
            Variant::FtsNewest { count: true } => "walk of ≤1,001 rows: page + count",
            Variant::TantivyRelevance { count: false } => "TopDocs 20 by BM25 (block-max WAND)",
            Variant::TantivyRelevance { count: true } => "TopDocs 20 by BM25 + Count",
            Variant::TantivyNewest { count: false } => "TopDocs 20 by `id` fast field desc",
            Variant::TantivyNewest { count: true } => "TopDocs 20 by `id` desc + Count",
        }
    }
}

fn main() -> Result<()> {
    let args = parse_args()?;
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("creating {}", args.dir.display()))?;
    let load_at_start = report::load_average();
    let vocabulary = Vocabulary::new();

    eprintln!(
        "FTS5 index of {} stories in {}",
        args.stories,
        args.dir.display()
    );
    let fts_build = fts::ensure(&args.dir, args.stories, &vocabulary)?;
    eprintln!(
        "  {} in {:.1} s",
        if fts_build.built_now {
            "built"
        } else {
            "reused, built earlier"
        },
        fts_build.build_secs
    );
    eprintln!(
        "tantivy index of {} stories in {}",
        args.stories,
        args.dir.display()
    );
    let mut tantivy_build = tantivy_index::ensure(&args.dir, args.stories, &vocabulary)?;
    eprintln!(
        "  {} in {:.1} s",
        if tantivy_build.built_now {
            "built"
        } else {
            "reused, built earlier"
        },
        tantivy_build.build_secs
    );
    if args.tantivy_one_segment
        && let Some(secs) = tantivy_index::merge_into_one(&args.dir)?
    {
        eprintln!("  merged into one segment in {secs:.1} s");
        tantivy_build.bytes =
            tantivy_index::folder_bytes(&args.dir.join(tantivy_index::INDEX_DIR))?;
    }
    let tantivy_merged_secs = tantivy_index::merged_into_one_secs(&args.dir);
    let peak_after_build = report::peak_rss_kib();

    // Both indexes are read once, whole, before timing, so that neither is
    // timed on pages the kernel has since dropped from its cache (both
    // engines then read them through mmap).
    let fts_prewarm = read_through(&args.dir.join(fts::DB_FILE))?;
    let tantivy_prewarm = read_through(&args.dir.join(tantivy_index::INDEX_DIR))?;
    eprintln!(
        "read into the page cache: FTS5 {} bytes in {:.2} s, tantivy {} bytes in {:.2} s",
        fts_prewarm.0, fts_prewarm.1, tantivy_prewarm.0, tantivy_prewarm.1
    );

    let fts = Fts::open(&args.dir)?;
    let tantivy = Tantivy::open(&args.dir)?;
    if tantivy.documents != args.stories {
        bail!(
            "the tantivy index has {} documents, not {}",
            tantivy.documents,
            args.stories
        );
    }

    let started = Instant::now();
    let mut kinds = Vec::new();
    for set in query_sets(&vocabulary, WARM_UP, args.queries) {
        eprintln!("searching: {}", set.kind.label());
        let mut variants = Vec::new();
        for variant in Variant::ALL {
            for query in &set.warm {
                variant.run(&fts, &tantivy, query)?;
            }
            let mut millis = Vec::with_capacity(set.timed.len());
            let mut answers = Vec::with_capacity(set.timed.len());
            for query in &set.timed {
                let begun = Instant::now();
                let answer = variant
                    .run(&fts, &tantivy, query)
                    .with_context(|| format!("searching {}", query.describe()))?;
                millis.push(begun.elapsed().as_secs_f64() * 1000.0);
                answers.push(answer);
            }
            variants.push(VariantResult {
                engine: variant.engine(),
                order: variant.order(),
                with_count: variant.with_count(),
                plan: variant.plan(),
                millis,
                answers,
            });
        }
        kinds.push(KindResult {
            kind: set.kind,
            queries: set.timed,
            variants,
        });
    }
    let search_secs = started.elapsed().as_secs_f64();

    let report = Report {
        stories: args.stories,
        queries: args.queries,
        warm_up: WARM_UP,
        dir: args.dir.clone(),
        fts_build,
        tantivy_build,
        fts_mmap_bytes: fts.mmap_bytes,
        sqlite_version: fts.sqlite_version.clone(),
        fts_prewarm,
        tantivy_prewarm,
        tantivy_segments: tantivy.segments,
        tantivy_merged_secs,
        tantivy_version: tantivy::version_string().to_owned(),
        kinds,
        search_secs,
        peak_after_build,
        peak_at_end: report::peak_rss_kib(),
        rss_at_end: report::rss_kib(),
        load_at_start,
        load_at_end: report::load_average(),
    };
    let markdown = report.markdown();
    print!("{markdown}");
    std::fs::write(&args.out, &markdown)
        .with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!("written to {}", args.out.display());
    Ok(())
}

/// Reads the file, or every file under the folder, once from start to end;
/// returns the bytes read and the seconds taken.
fn read_through(path: &std::path::Path) -> Result<(u64, f64)> {
    fn read_all(path: &std::path::Path, buffer: &mut [u8]) -> Result<u64> {
        use std::io::Read as _;
        if path.is_dir() {
            let mut total = 0;
            for entry in std::fs::read_dir(path)? {
                total += read_all(&entry?.path(), buffer)?;
            }
            return Ok(total);
        }
        let mut file =
            std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        let mut total = 0;
        loop {
            let n = file.read(buffer)?;
            if n == 0 {
                return Ok(total);
            }
            total += n as u64;
        }
    }
    let started = Instant::now();
    let mut buffer = vec![0u8; 1 << 20];
    let bytes = read_all(path, &mut buffer)?;
    Ok((bytes, started.elapsed().as_secs_f64()))
}
