//! The Markdown report: latencies per engine, kind and order, hit counts, agreement between the engines, builds and memory.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use crate::query::{Answer, HitCount, Kind, PAGE, Query};
use crate::{fts, tantivy_index};

/// The target: p50 under this many milliseconds...
const TARGET_P50_MS: f64 = 5.0;
/// ...and p99 under this many.
const TARGET_P99_MS: f64 = 20.0;

/// The timed searches of one kind on one engine, one way.
pub struct VariantResult {
    pub engine: &'static str,
    pub order: &'static str,
    pub with_count: bool,
    pub plan: &'static str,
    pub millis: Vec<f64>,
    pub answers: Vec<Answer>,
}

impl VariantResult {
    fn percentile(&self, p: f64) -> f64 {
        percentile(&self.millis, p)
    }

    fn meets_target(&self) -> bool {
        self.percentile(50.0) < TARGET_P50_MS && self.percentile(99.0) < TARGET_P99_MS
    }

    fn counts(&self) -> Vec<HitCount> {
        self.answers
            .iter()
            .filter_map(|answer| answer.count)
            .collect()
    }
}

/// Every variant's results for one kind of search.
pub struct KindResult {
    pub kind: Kind,
    pub queries: Vec<Query>,
    pub variants: Vec<VariantResult>,
}

impl KindResult {
    fn variant(&self, engine: &str, order: &str, with_count: bool) -> Option<&VariantResult> {
        self.variants
            .iter()
            .find(|v| v.engine == engine && v.order == order && v.with_count == with_count)
    }
}

pub struct Report {
    pub stories: u64,
    pub queries: usize,
    pub warm_up: usize,
    pub dir: PathBuf,
    pub fts_build: fts::BuildInfo,
    pub tantivy_build: tantivy_index::BuildInfo,
    pub fts_mmap_bytes: i64,
    /// Bytes read and seconds taken to read each index whole before timing.
    pub fts_prewarm: (u64, f64),
    pub tantivy_prewarm: (u64, f64),
    pub sqlite_version: String,
    pub tantivy_segments: usize,
    /// The seconds a merge into one segment took after the build, if done.
    pub tantivy_merged_secs: Option<f64>,
    pub tantivy_version: String,
    pub kinds: Vec<KindResult>,
    pub search_secs: f64,
    pub peak_after_build: Option<u64>,
    pub peak_at_end: Option<u64>,
    pub rss_at_end: Option<u64>,
    pub load_at_start: String,
    pub load_at_end: String,
}

impl Report {
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        self.write(&mut out)
            .expect("writing to a String does not fail");
        out
    }

    fn write(&self, out: &mut String) -> std::fmt::Result {
        let (cores, model, memory) = machine();
        writeln!(out, "# Copydesk search choice: SQLite FTS5 or tantivy\n")?;
        writeln!(
            out,
            "{} stories, {} timed searches of each kind per engine and order after {} untimed ones; \
             indexes in `{}`.\n",
            thousands(self.stories),
            self.queries,
            self.warm_up,
            self.dir.display()
        )?;
        writeln!(out, "- Machine: {cores} cores, {model}, {memory} memory")?;
        writeln!(
            out,
            "- Load average at start: {}; at end: {}",
            self.load_at_start, self.load_at_end
        )?;
        writeln!(
            out,
            "- SQLite {} (FTS5), `mmap_size` in force for reads: {}",
            self.sqlite_version,
            bytes(self.fts_mmap_bytes.max(0) as u64)
        )?;
        writeln!(
            out,
            "- tantivy: {}; {} segment(s) after the build's merges",
            self.tantivy_version, self.tantivy_segments
        )?;
        writeln!(
            out,
            "- Before timing, each index was read whole into the page cache: FTS5 {} in {:.2} s, \
             tantivy {} in {:.2} s",
            bytes(self.fts_prewarm.0),
            self.fts_prewarm.1,
            bytes(self.tantivy_prewarm.0),
            self.tantivy_prewarm.1
        )?;
        writeln!(out, "- Searching took {:.1} s in all\n", self.search_secs)?;

        writeln!(
            out,
            "## Summary: a page of 20 with its count of hits (ms)\n\n\
             Target: p50 under {TARGET_P50_MS} ms and p99 under {TARGET_P99_MS} ms.\n"
        )?;
        writeln!(
            out,
            "| kind | order | FTS5 p50 | FTS5 p99 | FTS5 meets | tantivy p50 | tantivy p99 | tantivy meets |"
        )?;
        writeln!(out, "|---|---|---:|---:|:---:|---:|---:|:---:|")?;
        for kind in &self.kinds {
            for order in ["relevance", "newest"] {
                let (Some(f), Some(t)) = (
                    kind.variant("FTS5", order, true),
                    kind.variant("tantivy", order, true),
                ) else {
                    continue;
                };
                writeln!(
                    out,
                    "| {} | {} | {:.2} | {:.2} | {} | {:.2} | {:.2} | {} |",
                    kind.kind.label(),
                    order,
                    f.percentile(50.0),
                    f.percentile(99.0),
                    yes_no(f.meets_target()),
                    t.percentile(50.0),
                    t.percentile(99.0),
                    yes_no(t.meets_target()),
                )?;
            }
        }

        writeln!(out, "\n## Every timing (ms)\n")?;
        writeln!(
            out,
            "| kind | order | engine | plan | p50 | p99 | max | median hits | how counted |"
        )?;
        writeln!(out, "|---|---|---|---|---:|---:|---:|---:|---|")?;
        for kind in &self.kinds {
            for variant in &kind.variants {
                let counts = variant.counts();
                let (median_hits, how) = if counts.is_empty() {
                    ("—".to_owned(), "not counted".to_owned())
                } else {
                    let mut values: Vec<f64> = counts.iter().map(|c| c.value() as f64).collect();
                    values.sort_by(f64::total_cmp);
                    let exact = counts
                        .iter()
                        .filter(|c| matches!(c, HitCount::Exact(_)))
                        .count();
                    let how = if variant.engine == "tantivy" {
                        "exact (Count collector)".to_owned()
                    } else if exact == counts.len() {
                        "exact (walk ended under 1,001)".to_owned()
                    } else if exact == 0 {
                        "estimated (1,000th hit's id)".to_owned()
                    } else {
                        format!("{exact} exact, {} estimated", counts.len() - exact)
                    };
                    (thousands(median(&values).round() as u64), how)
                };
                writeln!(
                    out,
                    "| {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {} | {} |",
                    kind.kind.label(),
                    variant.order,
                    variant.engine,
                    variant.plan,
                    variant.percentile(50.0),
                    variant.percentile(99.0),
                    variant.percentile(100.0),
                    median_hits,
                    how,
                )?;
            }
        }

        self.write_agreement(out)?;
        self.write_builds(out)?;

        writeln!(out, "\n## Memory\n")?;
        writeln!(
            out,
            "- Peak RSS (VmHWM) after building or opening the indexes: {}",
            kib(self.peak_after_build)
        )?;
        writeln!(
            out,
            "- Peak RSS (VmHWM) at the end: {}",
            kib(self.peak_at_end)
        )?;
        writeln!(out, "- RSS at the end: {}", kib(self.rss_at_end))?;
        writeln!(
            out,
            "- Both engines read their index through `mmap`, so RSS counts the index pages they touched; \
             a run that built the indexes also counts the build.\n"
        )?;
        Ok(())
    }

    fn write_agreement(&self, out: &mut String) -> std::fmt::Result {
        writeln!(out, "\n## Do the engines agree?\n")?;
        writeln!(
            out,
            "Counts: FTS5's count (exact when its walk ended under 1,001 rows, else estimated) against \
             tantivy's exact `Count`. Newest first: the two pages of 20 compared id for id. Relevance: \
             the two engines rank differently (FTS5: headline hits first, then newest; tantivy: BM25), \
             so only the pages' lengths must match; the overlap is shown for information.\n"
        )?;
        writeln!(
            out,
            "| kind | FTS5 exact counts equal to tantivy's | estimated counts: median error | max error | \
             newest-first pages identical | relevance pages of equal length | relevance ids in common (mean) |"
        )?;
        writeln!(out, "|---|---|---:|---:|---|---|---:|")?;
        let mut mismatches: Vec<String> = Vec::new();
        for kind in &self.kinds {
            let (Some(fts_counted), Some(tantivy_counted)) = (
                kind.variant("FTS5", "relevance", true),
                kind.variant("tantivy", "relevance", true),
            ) else {
                continue;
            };
            let mut exact = 0;
            let mut exact_equal = 0;
            let mut errors: Vec<f64> = Vec::new();
            for (i, (f, t)) in fts_counted
                .answers
                .iter()
                .zip(&tantivy_counted.answers)
                .enumerate()
            {
                let (Some(f), Some(t)) = (f.count, t.count) else {
                    continue;
                };
                match f {
                    HitCount::Exact(n) => {
                        exact += 1;
                        if n == t.value() {
                            exact_equal += 1;
                        } else {
                            mismatches.push(format!(
                                "{}: `{}`: FTS5 counted {}, tantivy {}",
                                kind.kind.label(),
                                kind.queries[i].describe(),
                                n,
                                t.value()
                            ));
                        }
                    }
                    HitCount::Estimated(n) => {
                        let truth = t.value().max(1) as f64;
                        errors.push((n as f64 - truth).abs() / truth * 100.0);
                    }
                }
            }
            errors.sort_by(f64::total_cmp);

            let mut identical = 0;
            let mut compared = 0;
            if let (Some(f), Some(t)) = (
                kind.variant("FTS5", "newest", false),
                kind.variant("tantivy", "newest", false),
            ) {
                for (i, (a, b)) in f.answers.iter().zip(&t.answers).enumerate() {
                    compared += 1;
                    if a.ids == b.ids {
                        identical += 1;
                    } else {
                        mismatches.push(format!(
                            "{}: `{}`: newest-first pages differ: FTS5 {:?}, tantivy {:?}",
                            kind.kind.label(),
                            kind.queries[i].describe(),
                            a.ids,
                            b.ids
                        ));
                    }
                }
            }

            let mut same_length = 0;
            let mut overlap_sum = 0usize;
            let mut pages = 0;
            if let (Some(f), Some(t)) = (
                kind.variant("FTS5", "relevance", false),
                kind.variant("tantivy", "relevance", false),
            ) {
                for (i, (a, b)) in f.answers.iter().zip(&t.answers).enumerate() {
                    pages += 1;
                    if a.ids.len() == b.ids.len() && a.ids.len() <= PAGE {
                        same_length += 1;
                    } else {
                        mismatches.push(format!(
                            "{}: `{}`: relevance pages of {} (FTS5) and {} (tantivy) results",
                            kind.kind.label(),
                            kind.queries[i].describe(),
                            a.ids.len(),
                            b.ids.len()
                        ));
                    }
                    let theirs: HashSet<u64> = b.ids.iter().copied().collect();
                    overlap_sum += a.ids.iter().filter(|id| theirs.contains(id)).count();
                }
            }

            let (median_error, max_error) = if errors.is_empty() {
                ("—".to_owned(), "—".to_owned())
            } else {
                (
                    format!("{:.1}% ({} estimates)", median(&errors), errors.len()),
                    format!("{:.1}%", errors[errors.len() - 1]),
                )
            };
            writeln!(
                out,
                "| {} | {exact_equal} of {exact} | {median_error} | {max_error} | {identical} of {compared} | \
                 {same_length} of {pages} | {:.1} |",
                kind.kind.label(),
                if pages == 0 {
                    0.0
                } else {
                    overlap_sum as f64 / pages as f64
                },
            )?;
        }
        if mismatches.is_empty() {
            writeln!(out, "\nNo mismatch.")?;
        } else {
            writeln!(out, "\nMismatches ({}; the first 20):\n", mismatches.len())?;
            for line in mismatches.iter().take(20) {
                writeln!(out, "- {line}")?;
            }
        }
        Ok(())
    }

    fn write_builds(&self, out: &mut String) -> std::fmt::Result {
        writeln!(
            out,
            "\n## Index builds ({} stories)\n",
            thousands(self.stories)
        )?;
        writeln!(
            out,
            "| engine | build s | of which generating stories s | of which final optimize / commit+merge s | on disk | built |"
        )?;
        writeln!(out, "|---|---:|---:|---:|---:|---|")?;
        let f = &self.fts_build;
        writeln!(
            out,
            "| FTS5 (`content_search` + `content_headline` + `search_terms`, one file) | {:.1} | {:.1} | {:.1} | {} | {} |",
            f.build_secs,
            f.generate_secs,
            f.optimize_secs,
            bytes(f.file_bytes),
            if f.built_now {
                "in this run"
            } else {
                "in an earlier run, reused"
            }
        )?;
        let t = &self.tantivy_build;
        writeln!(
            out,
            "| tantivy ({} segment(s)) | {:.1} | {:.1} | {:.1} | {} | {} |",
            self.tantivy_segments,
            t.build_secs,
            t.generate_secs,
            t.commit_secs,
            bytes(t.bytes),
            if t.built_now {
                "in this run"
            } else {
                "in an earlier run, reused"
            }
        )?;
        if let Some(secs) = self.tantivy_merged_secs {
            writeln!(
                out,
                "\nThe tantivy index was then merged into one segment (`--tantivy-one-segment`) in {secs:.1} s, \
                 not included above; its size on disk is the one shown."
            )?;
        }
        if !f.table_bytes.is_empty() {
            let parts: Vec<String> = f
                .table_bytes
                .iter()
                .map(|(name, size)| format!("`{name}` {}", bytes(*size)))
                .collect();
            writeln!(
                out,
                "\nFTS5 file by table (pages, from `dbstat`): {}.",
                parts.join(", ")
            )?;
        }
        Ok(())
    }
}

/// The nearest-rank percentile: the smallest value with at least `p`% of
/// the values at or below it.
fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The median of sorted values.
fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

fn yes_no(yes: bool) -> &'static str {
    if yes { "yes" } else { "**no**" }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn bytes(n: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    let n = n as f64;
    if n >= 1024.0 * MIB {
        format!("{:.2} GiB", n / (1024.0 * MIB))
    } else {
        format!("{:.1} MiB", n / MIB)
    }
}

fn kib(value: Option<u64>) -> String {
    value.map_or_else(|| "unknown".to_owned(), |kib| bytes(kib * 1024))
}

/// A line of `/proc/self/status`, in KiB.
fn status_kib(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|line| {
        let rest = line.strip_prefix(key)?.strip_prefix(':')?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

/// The process's peak resident memory so far, in KiB.
pub fn peak_rss_kib() -> Option<u64> {
    status_kib("VmHWM")
}

/// The process's resident memory now, in KiB.
pub fn rss_kib() -> Option<u64> {
    status_kib("VmRSS")
}

/// The 1, 5 and 15-minute load averages.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Cores, processor model and total memory.
fn machine() -> (String, String, String) {
    let cores = std::thread::available_parallelism()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("model name"))
                .and_then(|rest| rest.split_once(':'))
                .map(|(_, model)| model.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown processor".to_owned());
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("MemTotal:"))
                .and_then(|rest| rest.split_whitespace().next()?.parse::<u64>().ok())
        })
        .map_or_else(|| "unknown".to_owned(), |kib| bytes(kib * 1024));
    (cores, model, memory)
}
