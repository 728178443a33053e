//! The generated archive both engines index: the same stories, word for word, from a fixed seed.
//!
//! Story ids run 1..=N in creation order. Each story has a title of 8 words
//! and a body of 200 words drawn uniformly from 400 common words, so one
//! common word is in about 40% of bodies and 2% of titles; one story in 2,000
//! also has one of 50 rare words in its body; and each story has two of 1,000
//! tags.

use std::collections::HashSet;

/// Words in the common vocabulary.
pub const COMMON_WORDS: usize = 400;
/// Words in the rare list.
pub const RARE_WORDS: usize = 50;
/// Distinct tags.
pub const TAGS: u32 = 1000;
/// Words in a title.
pub const TITLE_WORDS: usize = 8;
/// Common words in a body.
pub const BODY_WORDS: usize = 200;
/// One story in this many has a rare word in its body.
pub const RARE_ONE_IN: u64 = 2000;

/// The seed of the stories.
const CORPUS_SEED: u64 = 0x00c0_97de_5c00_2026;
/// The seed of the vocabulary.
const VOCABULARY_SEED: u64 = 0x0000_0000_0000_0400;

/// The words that a half-typed `harb` must expand to.
pub const HARBOUR_WORDS: [&str; 3] = ["harbour", "harbours", "harbourside"];

/// SplitMix64: small, fast and good enough to draw words uniformly.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (multiply-shift; the bias is below 2^-50 for the
    /// small `n` used here).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }
}

/// The common and rare words.
#[derive(Clone, Debug)]
pub struct Vocabulary {
    pub common: Vec<String>,
    pub rare: Vec<String>,
}

impl Vocabulary {
    /// The fixed vocabulary: 400 distinct pronounceable common words of 5 to
    /// 9 letters, among them `harbour`, `harbours` and `harbourside` and no
    /// other word starting with `harb`, and 50 rare words distinct from them.
    pub fn new() -> Self {
        let mut rng = Rng::new(VOCABULARY_SEED);
        let mut seen: HashSet<String> = HashSet::new();
        let mut common: Vec<String> = Vec::with_capacity(COMMON_WORDS);
        for word in HARBOUR_WORDS {
            seen.insert(word.to_owned());
            common.push(word.to_owned());
        }
        while common.len() < COMMON_WORDS {
            let word = pronounceable(&mut rng);
            if !word.starts_with("harb") && seen.insert(word.clone()) {
                common.push(word);
            }
        }
        let mut rare = Vec::with_capacity(RARE_WORDS);
        while rare.len() < RARE_WORDS {
            let word = pronounceable(&mut rng);
            if !word.starts_with("harb") && seen.insert(word.clone()) {
                rare.push(word);
            }
        }
        Vocabulary { common, rare }
    }
}

impl Default for Vocabulary {
    fn default() -> Self {
        Self::new()
    }
}

/// A word of 5 to 9 letters alternating consonants and vowels.
fn pronounceable(rng: &mut Rng) -> String {
    const CONSONANTS: &[u8] = b"bcdfghklmnprstvz";
    const VOWELS: &[u8] = b"aeiou";
    let len = 5 + rng.index(5);
    let mut vowel = rng.below(4) == 0;
    let mut word = String::with_capacity(len);
    while word.len() < len {
        let letters = if vowel { VOWELS } else { CONSONANTS };
        word.push(char::from(letters[rng.index(letters.len())]));
        vowel = !vowel;
    }
    word
}

/// The filter term of a tag, as indexed in FTS5's `filters` column.
pub fn tag_term(tag: u32) -> String {
    format!("tag{tag}")
}

/// One story of the archive.
#[derive(Clone, Debug)]
pub struct Story {
    pub id: u64,
    pub title: String,
    pub body: String,
    pub tags: [u32; 2],
}

impl Story {
    /// The `filters` column: one term per tag.
    pub fn filters(&self) -> String {
        format!("{} {}", tag_term(self.tags[0]), tag_term(self.tags[1]))
    }
}

/// The stories 1..=N, generated in order.
pub struct Stories<'a> {
    vocabulary: &'a Vocabulary,
    rng: Rng,
    next_id: u64,
    last_id: u64,
}

impl<'a> Stories<'a> {
    pub fn new(vocabulary: &'a Vocabulary, count: u64) -> Self {
        Stories {
            vocabulary,
            rng: Rng::new(CORPUS_SEED),
            next_id: 1,
            last_id: count,
        }
    }
}

impl Iterator for Stories<'_> {
    type Item = Story;

    fn next(&mut self) -> Option<Story> {
        if self.next_id > self.last_id {
            return None;
        }
        let id = self.next_id;
        self.next_id += 1;
        let common = &self.vocabulary.common;
        let rng = &mut self.rng;

        let mut title = String::with_capacity(TITLE_WORDS * 8);
        for i in 0..TITLE_WORDS {
            if i > 0 {
                title.push(' ');
            }
            title.push_str(&common[rng.index(common.len())]);
        }

        let rare = if rng.below(RARE_ONE_IN) == 0 {
            let word = &self.vocabulary.rare[rng.index(self.vocabulary.rare.len())];
            Some((word, rng.index(BODY_WORDS + 1)))
        } else {
            None
        };
        let mut body = String::with_capacity(BODY_WORDS * 8 + 16);
        for i in 0..=BODY_WORDS {
            if let Some((word, at)) = rare
                && at == i
            {
                if !body.is_empty() {
                    body.push(' ');
                }
                body.push_str(word);
            }
            if i == BODY_WORDS {
                break;
            }
            if !body.is_empty() {
                body.push(' ');
            }
            body.push_str(&common[rng.index(common.len())]);
        }

        let first = 1 + rng.below(u64::from(TAGS)) as u32;
        let mut second = 1 + rng.below(u64::from(TAGS) - 1) as u32;
        if second >= first {
            second += 1;
        }
        Some(Story {
            id,
            title,
            body,
            tags: [first, second],
        })
    }
}
