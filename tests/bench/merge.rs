//! `copydesk-merge-bench`: the three-way merge of a long story's body, as sync runs it (Draft.js raw content in, HTML and raw content out), and the check of a draft's raw content.

use std::time::{Duration, Instant};

use clap::Parser;

/// The allocator `copydesk-server` runs with.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use copydesk_text::merge::{RawContent, StoredText, merge_stored};
use serde_json::{Value, json};

#[derive(Parser)]
#[command(about = "Benchmark the paragraph-and-word merge of one story")]
struct Args {
    /// Words in the story.
    #[arg(long, default_value_t = 5_000)]
    words: usize,
    /// Words in a paragraph.
    #[arg(long, default_value_t = 50)]
    paragraph_words: usize,
    /// Paragraphs each side edits.
    #[arg(long, default_value_t = 20)]
    edits: usize,
    /// Paragraphs each side adds (after different paragraphs).
    #[arg(long, default_value_t = 0)]
    added: usize,
    /// Instead of a story: one paragraph of this many characters with a
    /// style range on each, both sides restyling different ones.
    #[arg(long)]
    ranges: Option<usize>,
    /// Instead of a merge: a draft's raw content with this many entity
    /// ranges, checked as `POST /v3/draft` checks it.
    #[arg(long)]
    draft_ranges: Option<usize>,
    /// Merges timed.
    #[arg(long, default_value_t = 500)]
    runs: usize,
}

const VOCABULARY: [&str; 12] = [
    "the", "council", "voted", "on", "Tuesday", "to", "raise", "fees", "by", "7%,", "mayor", "said",
];

/// How a side changes the story.
struct Changes<'a> {
    /// The word a paragraph's middle word becomes (and that is added at its end).
    edited: &'a dyn Fn(usize) -> Option<&'static str>,
    /// The paragraphs added after a paragraph, and the word that tells them.
    added: &'a dyn Fn(usize) -> Option<&'static str>,
}

/// A story of `words` words in paragraphs of `size`, some bold, one link
/// each, as the editor's raw content.
fn story(words: usize, size: usize, changes: &Changes<'_>) -> Value {
    let paragraphs = words.div_ceil(size);
    let block = |key: String, text: String, link: usize| {
        json!({"key": key, "text": text, "type": "unstyled", "depth": 0,
               "inlineStyleRanges": [{"offset": 4, "length": 7, "style": "BOLD"}],
               "entityRanges": [{"offset": 0, "length": 3, "key": link}], "data": {}})
    };
    let mut blocks: Vec<Value> = Vec::with_capacity(paragraphs);
    for p in 0..paragraphs {
        let mut text: Vec<&str> = (0..size)
            .map(|w| VOCABULARY[(p * 7 + w * 3) % VOCABULARY.len()])
            .collect();
        // Paragraphs tell themselves apart, as a story's do.
        let number = format!("n{p}");
        text[0] = &number;
        if let Some(word) = (changes.edited)(p) {
            text[size / 2] = word;
            text.push(word);
        }
        blocks.push(block(format!("k{p:05}"), text.join(" "), p));
        if let Some(word) = (changes.added)(p) {
            let text = format!("{word} {p} wrote a new paragraph here after this one");
            blocks.push(block(format!("{word}{p:05}"), text, p));
        }
    }
    let entities: serde_json::Map<String, Value> = (0..paragraphs)
        .map(|p| {
            (
                p.to_string(),
                json!({"type": "LINK", "mutability": "MUTABLE", "data": {"url": format!("https://example.org/{p}")}}),
            )
        })
        .collect();
    json!({"blocks": blocks, "entityMap": entities})
}

/// Times `run` `runs` times; its median and 99th percentile.
fn timed(runs: usize, mut run: impl FnMut()) -> (Duration, Duration) {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        run();
        times.push(started.elapsed());
    }
    times.sort();
    (
        copydesk_tests::percentile(&times, 0.5),
        copydesk_tests::percentile(&times, 0.99),
    )
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// One paragraph of `length` characters with a style range on each
/// character: mine italicises, theirs underlines, different characters.
fn ranges_case(length: usize, runs: usize) {
    let text: String = (0..length)
        .map(|i| if i % 10 == 9 { ' ' } else { 'a' })
        .collect();
    let raw = |style: &str, start: usize| {
        let ranges: Vec<Value> = (0..length)
            .map(|i| json!({"offset": i, "length": 1, "style": if i % 2 == 0 { "BOLD" } else { "ITALIC" }}))
            .chain(
                (start..length)
                    .step_by(40)
                    .map(|o| json!({"offset": o, "length": 1, "style": style})),
            )
            .collect();
        json!({"blocks": [{"key": "k0", "text": text, "type": "unstyled", "depth": 0,
            "inlineStyleRanges": ranges, "entityRanges": [], "data": {}}], "entityMap": {}})
    };
    let (base, mine, theirs) = (raw("BOLD", 0), raw("ITALIC", 1), raw("UNDERLINE", 3));
    let side = |raw: &'static RawContent<'static>| StoredText {
        html: "",
        raw: Some(raw),
    };
    let leak = |v: Value| -> &'static RawContent<'static> {
        let text: &'static str = Box::leak(v.to_string().into_boxed_str());
        Box::leak(Box::new(RawContent::read(text).expect("raw content")))
    };
    let (base, mine, theirs) = (leak(base), leak(mine), leak(theirs));
    let (p50, p99) = timed(runs, || {
        std::hint::black_box(copydesk_text::merge::merge(
            &side(base).read(),
            &side(mine).read(),
            &side(theirs).read(),
        ));
    });
    println!(
        "merge of one {length}-character paragraph with {} style ranges, restyled on both sides, {runs} runs: p50 {:.2} ms, p99 {:.2} ms",
        length,
        ms(p50),
        ms(p99)
    );
}

/// A draft's raw content with `count` entity ranges (links), checked.
fn draft_case(count: usize, runs: usize) {
    let per_block = 100;
    let blocks: Vec<Value> = (0..count.div_ceil(per_block))
        .map(|b| {
            let ranges: Vec<Value> = (0..per_block)
                .map(|r| json!({"offset": 2 * r, "length": 1, "key": b * per_block + r}))
                .collect();
            json!({"key": format!("k{b}"), "text": "ab".repeat(per_block), "type": "unstyled",
                   "depth": 0, "inlineStyleRanges": [], "entityRanges": ranges, "data": {}})
        })
        .collect();
    let entities: serde_json::Map<String, Value> = (0..count)
        .map(|e| (e.to_string(), json!({"type": "LINK", "mutability": "MUTABLE", "data": {"url": format!("https://x.test/{e}")}})))
        .collect();
    let raw = Value::String(json!({"blocks": blocks, "entityMap": entities}).to_string());
    copydesk_text::draftjs::validate_raw(&raw).expect("valid raw content");
    let (p50, p99) = timed(runs, || {
        std::hint::black_box(copydesk_text::draftjs::validate_raw(&raw).ok());
    });
    println!(
        "check of a draft's raw content with {count} entity ranges, {runs} runs: p50 {:.2} ms, p99 {:.2} ms",
        ms(p50),
        ms(p99)
    );
}

fn main() {
    let args = Args::parse();
    if let Some(length) = args.ranges {
        return ranges_case(length, args.runs);
    }
    if let Some(count) = args.draft_ranges {
        return draft_case(count, args.runs);
    }
    let size = args.paragraph_words.max(2);
    let paragraphs = args.words.div_ceil(size);
    let stride = (paragraphs / args.edits.max(1)).max(2);
    let added_stride = (paragraphs / args.added.max(1)).max(2);
    let nothing = |_| None;
    let base = story(
        args.words,
        size,
        &Changes {
            edited: &nothing,
            added: &nothing,
        },
    );
    // Mine edits every stride-th paragraph, theirs the ones just after, all
    // different; each adds paragraphs after different ones likewise.
    let mine = story(
        args.words,
        size,
        &Changes {
            edited: &|p| (p % stride == 0 && p / stride < args.edits).then_some("MINE"),
            added: &|p| {
                (args.added > 0 && p % added_stride == 0 && p / added_stride < args.added)
                    .then_some("ADDMINE")
            },
        },
    );
    let theirs = story(
        args.words,
        size,
        &Changes {
            edited: &|p| (p % stride == 1 && p / stride < args.edits).then_some("THEIRS"),
            added: &|p| {
                (args.added > 0 && p % added_stride == 1 && p / added_stride < args.added)
                    .then_some("ADDTHEIRS")
            },
        },
    );
    // Each version stored as the editor stores it: HTML and raw content telling the same text.
    let html_of = |raw: &Value| {
        copydesk_text::merge::html::to_html(
            &copydesk_text::merge::draft_raw::from_raw(raw).expect("raw content"),
        )
    };
    // Each raw content as its field stores it, JSON text, read for each merge as sync reads it.
    let stored = [
        (html_of(&base), base.to_string()),
        (html_of(&mine), mine.to_string()),
        (html_of(&theirs), theirs.to_string()),
    ];
    let merge_stored_texts = || {
        let raws = stored.each_ref().map(|(_, raw)| RawContent::read(raw));
        let side = |i: usize| StoredText {
            html: &stored[i].0,
            raw: raws[i].as_ref(),
        };
        merge_stored(side(0), side(1), side(2))
    };
    let first = merge_stored_texts().expect("mergeable");
    assert!(
        first.conflicts.is_empty(),
        "disjoint edits merge without conflict"
    );
    let merged_raw: Value = serde_json::from_str(first.raw.as_deref().expect("raw")).expect("JSON");
    let merged_text = copydesk_text::merge::draft_raw::from_raw(&merged_raw)
        .expect("raw content")
        .plain_text();
    let count = |word: &str| {
        merged_text
            .split_whitespace()
            .filter(|w| *w == word)
            .count()
    };
    let edits = args.edits.min(paragraphs.div_ceil(stride));
    assert_eq!(count("MINE"), 2 * edits);
    assert_eq!(count("THEIRS"), 2 * edits);
    let added = args.added.min(paragraphs.div_ceil(added_stride));
    assert_eq!(count("ADDMINE"), added);
    assert_eq!(count("ADDTHEIRS"), added);
    let (p50, p99) = timed(args.runs, || {
        std::hint::black_box(merge_stored_texts());
    });
    println!(
        "merge of a {}-word story ({} paragraphs), {} edited and {} added paragraphs on each side, {} runs: p50 {:.2} ms, p99 {:.2} ms",
        args.words,
        paragraphs,
        edits,
        added,
        args.runs,
        ms(p50),
        ms(p99),
    );
}
