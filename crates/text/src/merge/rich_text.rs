//! A story's text as the merge sees it: blocks of characters, each character with its inline styles, its link, and the notes and suggested edits on it.
//!
//! Characters are Unicode code points, as Draft.js counts offsets, so a
//! range read from `content_raw` maps onto them one to one.

use std::collections::BTreeSet;

/// A link or other Draft.js entity, compared by value (`entityMap` keys are
/// renumbered on every `convertToRaw`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entity {
    pub kind: String,
    pub mutability: String,
    /// The entity's `data`, as canonical JSON.
    pub data: String,
}

impl Entity {
    /// A photo, as Draft.js holds one: `IMAGE`, immutable, `{src, alt}`.
    pub fn image(src: &str, alt: &str) -> Self {
        Self {
            kind: "IMAGE".to_owned(),
            mutability: "IMMUTABLE".to_owned(),
            data: serde_json::json!({ "src": src, "alt": alt }).to_string(),
        }
    }

    /// A photo's `src` and `alt`, when the entity is one with a safe address.
    pub fn image_parts(&self) -> Option<(String, String)> {
        if self.kind != "IMAGE" {
            return None;
        }
        let data: serde_json::Value = serde_json::from_str(&self.data).ok()?;
        let src = data.get("src").and_then(serde_json::Value::as_str)?;
        let alt = data
            .get("alt")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("");
        crate::sanitize::safe_image_src(src).then(|| (src.to_owned(), alt.to_owned()))
    }
}

/// The one character of a photo's block (`AtomicBlockUtils.insertAtomicBlock`
/// is given a space in Draft.js's own examples).
pub const IMAGE_CHARACTER: char = ' ';

/// What one character carries besides itself.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct MarkSet {
    /// Draft.js inline styles: `BOLD`, `ITALIC`, `UNDERLINE`, ...
    pub styles: BTreeSet<String>,
    pub entity: Option<Entity>,
    /// The in-content notes anchored on the character and the suggested
    /// edits pending on it (see [`crate::annotations`]).
    pub annotations: BTreeSet<Annotation>,
}

pub use crate::annotations::{Annotation, Change, Suggestion};

/// A character's marks, shared: the characters of a run (a story's
/// thousands of bold or linked characters) hold one set between them, so
/// copying, comparing and dropping them costs no allocation; a change
/// copies the set first.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Marks(std::sync::Arc<MarkSet>);

impl Marks {
    pub fn new(styles: BTreeSet<String>, entity: Option<Entity>) -> Self {
        Self::annotated(styles, entity, BTreeSet::new())
    }

    /// Marks with notes and suggested edits on them.
    pub fn annotated(
        styles: BTreeSet<String>,
        entity: Option<Entity>,
        annotations: BTreeSet<Annotation>,
    ) -> Self {
        Self(std::sync::Arc::new(MarkSet {
            styles,
            entity,
            annotations,
        }))
    }
}

impl std::ops::Deref for Marks {
    type Target = MarkSet;

    fn deref(&self) -> &MarkSet {
        &self.0
    }
}

impl std::ops::DerefMut for Marks {
    fn deref_mut(&mut self) -> &mut MarkSet {
        std::sync::Arc::make_mut(&mut self.0)
    }
}

/// A paragraph, heading, list item or quote.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Block {
    /// The Draft.js block key, when the text came with `content_raw`.
    pub key: Option<String>,
    /// The Draft.js block type: `unstyled`, `header-two`, `unordered-list-item`, ...
    pub kind: String,
    pub depth: u64,
    /// The block's `data`, as canonical JSON (`{}` when none).
    pub data: String,
    pub text: Vec<char>,
    /// One entry per character of `text`.
    pub marks: Vec<Marks>,
}

impl Block {
    /// A block of plain text.
    pub fn plain(kind: &str, text: &str) -> Self {
        let text: Vec<char> = text.chars().collect();
        Self {
            key: None,
            kind: kind.to_owned(),
            depth: 0,
            data: "{}".to_owned(),
            marks: vec![Marks::default(); text.len()],
            text,
        }
    }

    /// A photo's block: Draft.js's `atomic` block of one character that
    /// carries the `IMAGE` entity.
    pub fn image(src: &str, alt: &str) -> Self {
        Self {
            key: None,
            kind: "atomic".to_owned(),
            depth: 0,
            data: "{}".to_owned(),
            text: vec![IMAGE_CHARACTER],
            marks: vec![Marks::new(BTreeSet::new(), Some(Entity::image(src, alt)))],
        }
    }

    /// Whether this is an `atomic` block (merged as one unit, never word by word).
    pub fn is_atomic(&self) -> bool {
        self.kind == "atomic"
    }

    /// The photo's `src` and `alt`, when the block is exactly a photo's
    /// block (one character, the `IMAGE` entity, a safe address).
    pub fn image_parts(&self) -> Option<(String, String)> {
        if !self.is_atomic() || self.text.len() != 1 || self.depth != 0 {
            return None;
        }
        self.marks.first()?.entity.as_ref()?.image_parts()
    }

    pub fn text(&self) -> String {
        self.text.iter().collect()
    }

    /// The same block in every way that shows, whatever its key.
    pub fn same_content(&self, other: &Self) -> bool {
        self.content() == other.content()
    }

    /// Everything about the block that shows (all but its key), to compare or hash.
    pub fn content(&self) -> (&str, u64, &str, &[char], &[Marks]) {
        (&self.kind, self.depth, &self.data, &self.text, &self.marks)
    }
}

/// A story body or abstract: its blocks in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RichText {
    pub blocks: Vec<Block>,
}

impl RichText {
    /// The text of every block, one block a line.
    pub fn plain_text(&self) -> String {
        self.blocks
            .iter()
            .map(Block::text)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Whether a character is of a script written without spaces between
/// words (Chinese, Japanese, Thai, Lao, Khmer, Burmese), whose words only a
/// dictionary finds.
fn written_without_spaces(c: char) -> bool {
    matches!(
        u32::from(c),
        0x0E00..=0x0EFF // Thai, Lao
            | 0x1000..=0x109F // Myanmar
            | 0x1780..=0x17FF // Khmer
            | 0x3040..=0x30FF // Hiragana, Katakana
            | 0x31F0..=0x31FF // Katakana phonetic extensions
            | 0x3400..=0x4DBF // CJK extension A
            | 0x4E00..=0x9FFF // CJK unified ideographs
            | 0xF900..=0xFAFF // CJK compatibility ideographs
            | 0xFF66..=0xFF9F // halfwidth Katakana
            | 0x20000..=0x3134F // CJK extensions B to G
    )
}

/// Cuts a run of letters into words by Unicode's word boundaries, with
/// ICU4X's dictionaries for Chinese, Japanese, Thai, Lao, Khmer and
/// Burmese (the dictionary segmenter rather than the LSTM one: it is
/// faster and as good for Chinese and Japanese).
fn dictionary_words(run: &[char], start: usize, out: &mut Vec<std::ops::Range<usize>>) {
    static SEGMENTER: std::sync::OnceLock<icu_segmenter::WordSegmenterBorrowed<'static>> =
        std::sync::OnceLock::new();
    let segmenter = SEGMENTER.get_or_init(|| {
        icu_segmenter::WordSegmenter::new_dictionary(
            icu_segmenter::options::WordBreakInvariantOptions::default(),
        )
    });
    let text: String = run.iter().collect();
    // Byte offsets of the breaks, as character offsets.
    let mut chars = 0;
    let mut bytes = text.char_indices().map(|(b, _)| b).peekable();
    let mut last = 0;
    for byte in segmenter.segment_str(&text).skip(1) {
        while bytes.next_if(|b| *b < byte).is_some() {
            chars += 1;
        }
        if chars > last {
            out.push(start + last..start + chars);
            last = chars;
        }
    }
    if run.len() > last {
        out.push(start + last..start + run.len());
    }
}

/// Cuts text into the tokens the word merge compares: words, runs of
/// spaces, and every other character alone. A word is a run of letters and
/// digits, and in scripts written without spaces a word the dictionary
/// finds, so that two edits in one Japanese sentence are two words apart.
pub fn tokens(text: &[char]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    for token in simple_tokens(text) {
        if text[token.clone()]
            .iter()
            .any(|c| written_without_spaces(*c))
        {
            dictionary_words(&text[token.clone()], token.start, &mut out);
        } else {
            out.push(token);
        }
    }
    out
}

/// Runs of letters and digits, runs of spaces, and every other character alone.
fn simple_tokens(text: &[char]) -> Vec<std::ops::Range<usize>> {
    #[derive(PartialEq)]
    enum Class {
        Word,
        Space,
        Other,
    }
    let class = |c: char| {
        // A paragraph break inside a group of joined blocks is a token alone.
        if c == super::joins::BREAK {
            Class::Other
        } else if c.is_alphanumeric() {
            Class::Word
        } else if c.is_whitespace() {
            Class::Space
        } else {
            Class::Other
        }
    };
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=text.len() {
        let ends = i == text.len() || {
            let (before, here) = (class(text[i - 1]), class(text[i]));
            before != here || before == Class::Other
        };
        if ends {
            out.push(start..i);
            start = i;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_words_spaces_and_single_marks() {
        let text: Vec<char> = "Hi,  world 🌊!".chars().collect();
        let cut: Vec<String> = tokens(&text)
            .into_iter()
            .map(|r| text[r].iter().collect())
            .collect();
        assert_eq!(cut, ["Hi", ",", "  ", "world", " ", "🌊", "!"]);
        assert!(tokens(&[]).is_empty());
    }

    fn cut(text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        tokens(&chars)
            .into_iter()
            .map(|r| chars[r].iter().collect())
            .collect()
    }

    #[test]
    fn japanese_chinese_and_thai_are_cut_into_dictionary_words() {
        let japanese = cut("東京都の予算は来年度に増える。");
        assert!(japanese.len() >= 6, "{japanese:?}");
        assert_eq!(japanese.concat(), "東京都の予算は来年度に増える。");
        assert!(japanese.contains(&"予算".to_owned()), "{japanese:?}");
        let chinese = cut("市议会周二投票提高费用");
        assert!(chinese.len() >= 4, "{chinese:?}");
        let thai = cut("สภาเมืองลงมติขึ้นค่าธรรมเนียม");
        assert!(thai.len() >= 4, "{thai:?}");
        assert_eq!(thai.concat(), "สภาเมืองลงมติขึ้นค่าธรรมเนียม");
        // Latin words with a CJK neighbour stay whole.
        assert_eq!(cut("NHK 東京"), ["NHK", " ", "東京"]);
    }
}
