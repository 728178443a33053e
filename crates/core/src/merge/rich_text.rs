//! A story's text as the merge sees it: blocks of characters, each character with its inline styles and link.
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

/// What one character carries besides itself.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Marks {
    /// Draft.js inline styles: `BOLD`, `ITALIC`, `UNDERLINE`, ...
    pub styles: BTreeSet<String>,
    pub entity: Option<Entity>,
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

    pub fn text(&self) -> String {
        self.text.iter().collect()
    }

    /// The same block in every way that shows, whatever its key.
    pub fn same_content(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.depth == other.depth
            && self.data == other.data
            && self.text == other.text
            && self.marks == other.marks
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

/// Cuts text into the tokens the word merge compares: runs of letters and
/// digits, runs of spaces, and every other character alone.
pub fn tokens(text: &[char]) -> Vec<std::ops::Range<usize>> {
    #[derive(PartialEq)]
    enum Class {
        Word,
        Space,
        Other,
    }
    let class = |c: char| {
        if c.is_alphanumeric() {
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
}
