//! The searches timed on both engines: the same generated list of each kind for each engine.

use crate::corpus::{Rng, TAGS, Vocabulary};

/// The seed of the searches.
const QUERY_SEED: u64 = 0x5ea2_c4ed_0000_0001;

/// What a search looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One common word.
    OneWord,
    /// Three distinct common words, all required.
    ThreeWords,
    /// `harb` half typed: `harbour`, `harbours`, `harbourside`.
    PrefixHarb,
    /// The first four letters of a common word, half typed.
    PrefixFour,
    /// One rare word.
    RareWord,
    /// One common word within one tag.
    WordInTag,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::OneWord,
        Kind::ThreeWords,
        Kind::PrefixHarb,
        Kind::PrefixFour,
        Kind::RareWord,
        Kind::WordInTag,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Kind::OneWord => "one common word",
            Kind::ThreeWords => "three common words",
            Kind::PrefixHarb => "prefix `harb`",
            Kind::PrefixFour => "prefix, 4 letters",
            Kind::RareWord => "rare word",
            Kind::WordInTag => "common word in a tag",
        }
    }
}

/// One search: whole words, then at most one half-typed last word, within
/// at most one tag.
#[derive(Clone, Debug)]
pub struct Query {
    pub words: Vec<String>,
    pub prefix: Option<String>,
    pub tag: Option<u32>,
}

impl Query {
    pub fn describe(&self) -> String {
        let mut text = self.words.join(" ");
        if let Some(prefix) = &self.prefix {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(prefix);
            text.push('…');
        }
        if let Some(tag) = self.tag {
            text.push_str(&format!(" in tag {tag}"));
        }
        text
    }
}

/// The searches of each kind: `warm` untimed ones, then `timed` ones.
pub struct QuerySet {
    pub kind: Kind,
    pub warm: Vec<Query>,
    pub timed: Vec<Query>,
}

pub fn query_sets(vocabulary: &Vocabulary, warm: usize, timed: usize) -> Vec<QuerySet> {
    let mut rng = Rng::new(QUERY_SEED);
    Kind::ALL
        .iter()
        .map(|&kind| {
            let warm = (0..warm)
                .map(|_| make(kind, vocabulary, &mut rng))
                .collect();
            let timed = (0..timed)
                .map(|_| make(kind, vocabulary, &mut rng))
                .collect();
            QuerySet { kind, warm, timed }
        })
        .collect()
}

fn make(kind: Kind, vocabulary: &Vocabulary, rng: &mut Rng) -> Query {
    let common = &vocabulary.common;
    let word = |rng: &mut Rng| common[rng.index(common.len())].clone();
    match kind {
        Kind::OneWord => Query {
            words: vec![word(rng)],
            prefix: None,
            tag: None,
        },
        Kind::ThreeWords => {
            let mut words: Vec<String> = Vec::with_capacity(3);
            while words.len() < 3 {
                let candidate = word(rng);
                if !words.contains(&candidate) {
                    words.push(candidate);
                }
            }
            Query {
                words,
                prefix: None,
                tag: None,
            }
        }
        Kind::PrefixHarb => Query {
            words: Vec::new(),
            prefix: Some("harb".to_owned()),
            tag: None,
        },
        Kind::PrefixFour => Query {
            words: Vec::new(),
            prefix: Some(word(rng).chars().take(4).collect()),
            tag: None,
        },
        Kind::RareWord => Query {
            words: vec![vocabulary.rare[rng.index(vocabulary.rare.len())].clone()],
            prefix: None,
            tag: None,
        },
        Kind::WordInTag => Query {
            words: vec![word(rng)],
            prefix: None,
            tag: Some(1 + rng.below(u64::from(TAGS)) as u32),
        },
    }
}

/// How many stories a search hits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HitCount {
    /// Every hit counted.
    Exact(u64),
    /// Estimated from how far back the first 1,000 hits newest first reach.
    Estimated(u64),
}

impl HitCount {
    pub fn value(self) -> u64 {
        match self {
            HitCount::Exact(n) | HitCount::Estimated(n) => n,
        }
    }
}

/// A search's first page of story ids, in the order shown, and its count
/// of hits when asked for.
#[derive(Clone, Debug, Default)]
pub struct Answer {
    pub ids: Vec<u64>,
    pub count: Option<HitCount>,
}

/// Results on a page.
pub const PAGE: usize = 20;
