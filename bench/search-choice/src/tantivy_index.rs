//! The tantivy candidate: the index of the same stories and its two orders, with and without an exact count.
//!
//! Fields: `title` and `body` (text, not stored), `tags` (u64, indexed, two
//! values per story) and `id` (u64, indexed, fast and stored). Relevance is
//! BM25 with a title match weighing 10 times a body match: each word is a
//! union of its title term (boosted 10) and its body term, the words all
//! required. Relevance keeps the top 20 with block-max WAND; newest first
//! keeps the top 20 by the `id` fast field; either can be paired with
//! tantivy's `Count` collector, which visits every hit.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use tantivy::collector::{Count, TopDocs};
use tantivy::columnar::Column;
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, EmptyQuery, Occur, Query as TantivyQuery, TermQuery,
};
use tantivy::schema::{FAST, Field, INDEXED, IndexRecordOption, STORED, Schema, TEXT};
use tantivy::{
    Index, IndexReader, IndexWriter, Order, ReloadPolicy, Searcher, TantivyDocument, Term,
};

use crate::corpus::{Stories, Vocabulary};
use crate::query::{Answer, HitCount, PAGE, Query};

/// The index's folder inside `--dir`.
pub const INDEX_DIR: &str = "tantivy";
/// The record of a finished build, beside the index.
const BUILD_RECORD: &str = "tantivy-build.txt";
/// The writer's memory budget, shared by its threads.
const WRITER_BYTES: usize = 500_000_000;
/// The writer's indexing threads.
const WRITER_THREADS: usize = 2;
/// A title match weighs this many body matches.
const TITLE_BOOST: f32 = 10.0;

/// How the index was built, kept beside it so a later run reports it.
#[derive(Clone, Debug)]
pub struct BuildInfo {
    pub stories: u64,
    /// From the first document to the end of the commit and of the merges.
    pub build_secs: f64,
    /// Of that, the time spent generating the stories.
    pub generate_secs: f64,
    /// Of that, the commit and the merges it set off.
    pub commit_secs: f64,
    /// The index's files, in bytes.
    pub bytes: u64,
    /// Whether this run built the index (false: reused from an earlier run).
    pub built_now: bool,
}

/// The index in `dir`, reused when an earlier run finished building it for
/// the same number of stories, else built anew.
pub fn ensure(dir: &Path, stories: u64, vocabulary: &Vocabulary) -> Result<BuildInfo> {
    let index_dir = dir.join(INDEX_DIR);
    let record = dir.join(BUILD_RECORD);
    if index_dir.exists()
        && record.exists()
        && let Some(info) = read_record(&record, &index_dir)?
        && info.stories == stories
    {
        return Ok(info);
    }
    if record.exists() {
        std::fs::remove_file(&record)?;
    }
    if index_dir.exists() {
        std::fs::remove_dir_all(&index_dir)
            .with_context(|| format!("removing {}", index_dir.display()))?;
    }
    std::fs::create_dir_all(&index_dir)?;
    let info = build(&index_dir, stories, vocabulary)?;
    std::fs::write(
        &record,
        format!(
            "stories={}\nbuild_secs={}\ngenerate_secs={}\ncommit_secs={}\n",
            info.stories, info.build_secs, info.generate_secs, info.commit_secs
        ),
    )?;
    Ok(info)
}

fn read_record(record: &Path, index_dir: &Path) -> Result<Option<BuildInfo>> {
    let text = std::fs::read_to_string(record)?;
    let value = |key: &str| -> Option<f64> {
        text.lines()
            .find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
            .and_then(|value| value.trim().parse().ok())
    };
    let (Some(stories), Some(build_secs), Some(generate_secs), Some(commit_secs)) = (
        value("stories"),
        value("build_secs"),
        value("generate_secs"),
        value("commit_secs"),
    ) else {
        return Ok(None);
    };
    Ok(Some(BuildInfo {
        stories: stories as u64,
        build_secs,
        generate_secs,
        commit_secs,
        bytes: folder_bytes(index_dir)?,
        built_now: false,
    }))
}

fn schema() -> Schema {
    let mut builder = Schema::builder();
    builder.add_text_field("title", TEXT);
    builder.add_text_field("body", TEXT);
    builder.add_u64_field("tags", INDEXED);
    builder.add_u64_field("id", INDEXED | FAST | STORED);
    builder.build()
}

fn build(index_dir: &Path, stories: u64, vocabulary: &Vocabulary) -> Result<BuildInfo> {
    let schema = schema();
    let title = schema.get_field("title")?;
    let body = schema.get_field("body")?;
    let tags = schema.get_field("tags")?;
    let id = schema.get_field("id")?;
    let index = Index::create_in_dir(index_dir, schema)?;
    let mut writer: IndexWriter = index.writer_with_num_threads(WRITER_THREADS, WRITER_BYTES)?;

    let started = Instant::now();
    let mut generating = Duration::ZERO;
    let mut generator = Stories::new(vocabulary, stories);
    let mut done: u64 = 0;
    loop {
        let generated = Instant::now();
        let Some(story) = generator.next() else { break };
        generating += generated.elapsed();
        let mut doc = TantivyDocument::default();
        doc.add_text(title, &story.title);
        doc.add_text(body, &story.body);
        doc.add_u64(tags, u64::from(story.tags[0]));
        doc.add_u64(tags, u64::from(story.tags[1]));
        doc.add_u64(id, story.id);
        writer.add_document(doc)?;
        done += 1;
        if done.is_multiple_of(100_000) {
            eprintln!(
                "  tantivy: {done} stories added, {:.0} s",
                started.elapsed().as_secs_f64()
            );
        }
    }
    let committing = Instant::now();
    writer.commit()?;
    writer.wait_merging_threads()?;
    let commit_secs = committing.elapsed().as_secs_f64();
    let build_secs = started.elapsed().as_secs_f64();
    Ok(BuildInfo {
        stories,
        build_secs,
        generate_secs: generating.as_secs_f64(),
        commit_secs,
        bytes: folder_bytes(index_dir)?,
        built_now: true,
    })
}

/// Merges every segment of the index in `dir` into one, as FTS5's
/// `optimize` does for its index; the seconds taken, or `None` when the index
/// already has a single segment. The time is added to the build record.
pub fn merge_into_one(dir: &Path) -> Result<Option<f64>> {
    let index = Index::open_in_dir(dir.join(INDEX_DIR))?;
    let segments = index.searchable_segment_ids()?;
    if segments.len() <= 1 {
        return Ok(None);
    }
    let started = Instant::now();
    let mut writer: IndexWriter = index.writer_with_num_threads(1, 100_000_000)?;
    writer.merge(&segments).wait()?;
    writer.garbage_collect_files().wait()?;
    writer.wait_merging_threads()?;
    let secs = started.elapsed().as_secs_f64();
    let record = dir.join(BUILD_RECORD);
    let mut text = std::fs::read_to_string(&record)?;
    text.push_str(&format!("merged_into_one_secs={secs}\n"));
    std::fs::write(&record, text)?;
    Ok(Some(secs))
}

/// The seconds a later merge into one segment took, from the build record.
pub fn merged_into_one_secs(dir: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join(BUILD_RECORD)).ok()?;
    text.lines()
        .rev()
        .find_map(|line| line.strip_prefix("merged_into_one_secs="))
        .and_then(|value| value.trim().parse().ok())
}

/// The bytes of every file under `dir`.
pub fn folder_bytes(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let meta = entry.metadata()?;
        total += if meta.is_dir() {
            folder_bytes(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}

/// A searcher on the index, opened once before timing.
pub struct Tantivy {
    _reader: IndexReader,
    searcher: Searcher,
    title: Field,
    body: Field,
    tags: Field,
    /// The `id` column of each segment, to turn a relevance hit into a
    /// story id.
    ids: Vec<Column<u64>>,
    pub segments: usize,
    pub documents: u64,
}

impl Tantivy {
    pub fn open(dir: &Path) -> Result<Tantivy> {
        let index = Index::open_in_dir(dir.join(INDEX_DIR))?;
        let schema = index.schema();
        let reader: IndexReader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let searcher = reader.searcher();
        let mut ids = Vec::new();
        for segment in searcher.segment_readers() {
            ids.push(segment.fast_fields().u64("id")?);
        }
        Ok(Tantivy {
            title: schema.get_field("title")?,
            body: schema.get_field("body")?,
            tags: schema.get_field("tags")?,
            segments: searcher.segment_readers().len(),
            documents: searcher.num_docs(),
            ids,
            searcher,
            _reader: reader,
        })
    }

    /// The whole terms in the title or body dictionaries of any segment
    /// that start with `prefix`.
    fn expand(&self, prefix: &str) -> Result<Vec<String>> {
        let mut upper = prefix.as_bytes().to_vec();
        upper.push(0xFF);
        let mut terms = BTreeSet::new();
        for segment in self.searcher.segment_readers() {
            for field in [self.title, self.body] {
                let inverted = segment.inverted_index(field)?;
                let mut stream = inverted
                    .terms()
                    .range()
                    .ge(prefix.as_bytes())
                    .lt(&upper)
                    .into_stream()?;
                while stream.advance() {
                    terms.insert(String::from_utf8_lossy(stream.key()).into_owned());
                }
            }
        }
        Ok(terms.into_iter().collect())
    }

    /// One word (or the expansions of a half-typed one): any of its terms in
    /// the title, boosted, or in the body.
    fn word(&self, terms: &[String]) -> Box<dyn TantivyQuery> {
        if terms.is_empty() {
            return Box::new(EmptyQuery);
        }
        let mut clauses: Vec<(Occur, Box<dyn TantivyQuery>)> = Vec::with_capacity(terms.len() * 2);
        for term in terms {
            let in_title = TermQuery::new(
                Term::from_field_text(self.title, term),
                IndexRecordOption::WithFreqs,
            );
            let in_body = TermQuery::new(
                Term::from_field_text(self.body, term),
                IndexRecordOption::WithFreqs,
            );
            let in_title: Box<dyn TantivyQuery> =
                Box::new(BoostQuery::new(Box::new(in_title), TITLE_BOOST));
            let in_body: Box<dyn TantivyQuery> = Box::new(in_body);
            clauses.push((Occur::Should, in_title));
            clauses.push((Occur::Should, in_body));
        }
        Box::new(BooleanQuery::new(clauses))
    }

    fn query(&self, query: &Query) -> Result<Box<dyn TantivyQuery>> {
        let mut required: Vec<Box<dyn TantivyQuery>> = query
            .words
            .iter()
            .map(|word| self.word(std::slice::from_ref(word)))
            .collect();
        if let Some(prefix) = &query.prefix {
            required.push(self.word(&self.expand(prefix)?));
        }
        if let Some(tag) = query.tag {
            let in_tag = TermQuery::new(
                Term::from_field_u64(self.tags, u64::from(tag)),
                IndexRecordOption::Basic,
            );
            required.push(Box::new(ConstScoreQuery::new(Box::new(in_tag), 0.0)));
        }
        match required.len() {
            0 => bail!("an empty search"),
            1 => Ok(required.pop().context("one clause")?),
            _ => Ok(Box::new(BooleanQuery::new(
                required
                    .into_iter()
                    .map(|clause| (Occur::Must, clause))
                    .collect(),
            ))),
        }
    }

    /// The top 20 by score, and the exact count when asked.
    pub fn relevance(&self, query: &Query, with_count: bool) -> Result<Answer> {
        let tantivy_query = self.query(query)?;
        let top = TopDocs::with_limit(PAGE).order_by_score();
        let (hits, count) = if with_count {
            let (hits, count) = self.searcher.search(&*tantivy_query, &(top, Count))?;
            (hits, Some(HitCount::Exact(count as u64)))
        } else {
            (self.searcher.search(&*tantivy_query, &top)?, None)
        };
        let mut ids = Vec::with_capacity(hits.len());
        for (_score, address) in hits {
            let column = &self.ids[address.segment_ord as usize];
            ids.push(
                column
                    .first(address.doc_id)
                    .context("a hit without an id")?,
            );
        }
        Ok(Answer { ids, count })
    }

    /// The top 20 by `id` descending, and the exact count when asked.
    pub fn newest(&self, query: &Query, with_count: bool) -> Result<Answer> {
        let tantivy_query = self.query(query)?;
        let top = TopDocs::with_limit(PAGE).order_by_fast_field::<u64>("id", Order::Desc);
        let (hits, count) = if with_count {
            let (hits, count) = self.searcher.search(&*tantivy_query, &(top, Count))?;
            (hits, Some(HitCount::Exact(count as u64)))
        } else {
            (self.searcher.search(&*tantivy_query, &top)?, None)
        };
        let ids = hits
            .into_iter()
            .map(|(id, _address)| id.context("a hit without an id"))
            .collect::<Result<Vec<u64>>>()?;
        Ok(Answer { ids, count })
    }
}
