//! `copydesk-merge-bench`: the three-way merge of a long story's body, as sync runs it (Draft.js raw content in, HTML and raw content out).

use std::time::{Duration, Instant};

use clap::Parser;
use copydesk_core::merge::{StoredText, merge_stored};
use serde_json::{Value, json};

#[derive(Parser)]
#[command(about = "Benchmark the paragraph-and-word merge of one story")]
struct Args {
    /// Words in the story.
    #[arg(long, default_value_t = 5_000)]
    words: usize,
    /// Paragraphs each side edits.
    #[arg(long, default_value_t = 20)]
    edits: usize,
    /// Merges timed.
    #[arg(long, default_value_t = 500)]
    runs: usize,
}

const VOCABULARY: [&str; 12] = [
    "the", "council", "voted", "on", "Tuesday", "to", "raise", "fees", "by", "7%,", "mayor", "said",
];

/// A story of `words` words in paragraphs of 50, some bold, one link each, as the editor's raw content.
fn story(words: usize, edited: &dyn Fn(usize) -> Option<&'static str>) -> Value {
    let paragraphs = words.div_ceil(50);
    let blocks: Vec<Value> = (0..paragraphs)
        .map(|p| {
            let mut text: Vec<&str> = (0..50)
                .map(|w| VOCABULARY[(p * 7 + w * 3) % VOCABULARY.len()])
                .collect();
            if let Some(word) = edited(p) {
                text[25] = word;
                text.push(word);
            }
            let text = text.join(" ");
            json!({"key": format!("k{p:04}"), "text": text, "type": "unstyled", "depth": 0,
                   "inlineStyleRanges": [{"offset": 4, "length": 7, "style": "BOLD"}],
                   "entityRanges": [{"offset": 0, "length": 3, "key": p}], "data": {}})
        })
        .collect();
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

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn main() {
    let args = Args::parse();
    let paragraphs = args.words.div_ceil(50);
    let stride = (paragraphs / args.edits.max(1)).max(2);
    let base = story(args.words, &|_| None);
    // Mine edits every stride-th paragraph, theirs the ones just after: 20 each, all different.
    let mine = story(args.words, &|p| {
        (p % stride == 0 && p / stride < args.edits).then_some("MINE")
    });
    let theirs = story(args.words, &|p| {
        (p % stride == 1 && p / stride < args.edits).then_some("THEIRS")
    });
    // Each version stored as the editor stores it: HTML and raw content telling the same text.
    let html_of = |raw: &Value| {
        copydesk_core::merge::html::to_html(
            &copydesk_core::merge::draft_raw::from_raw(raw).expect("raw content"),
        )
    };
    let stored = [
        (html_of(&base), &base),
        (html_of(&mine), &mine),
        (html_of(&theirs), &theirs),
    ];
    let side = |i: usize| StoredText {
        html: &stored[i].0,
        raw: Some(stored[i].1),
    };
    let first = merge_stored(side(0), side(1), side(2)).expect("mergeable");
    assert!(
        first.conflicts.is_empty(),
        "disjoint edits merge without conflict"
    );
    assert_eq!(
        first.html.matches("MINE").count(),
        2 * args.edits.min(paragraphs)
    );
    assert_eq!(
        first.html.matches("THEIRS").count(),
        2 * args.edits.min(paragraphs)
    );
    let mut times = Vec::with_capacity(args.runs);
    for _ in 0..args.runs {
        let started = Instant::now();
        let merged = merge_stored(side(0), side(1), side(2));
        times.push(started.elapsed());
        std::hint::black_box(merged);
    }
    times.sort();
    println!(
        "merge of a {}-word story ({} paragraphs), {} edited paragraphs on each side, {} runs: p50 {:.2} ms, p99 {:.2} ms",
        args.words,
        paragraphs,
        args.edits,
        args.runs,
        percentile(&times, 0.5).as_secs_f64() * 1000.0,
        percentile(&times, 0.99).as_secs_f64() * 1000.0,
    );
}
