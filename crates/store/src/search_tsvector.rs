//! PostgreSQL's side of the search index: words folded and split here, in
//! Rust, and handed over as `tsvector` and `tsquery` literals.
//!
//! SQLite's FTS5 splits and folds text with its `unicode61` tokenizer
//! (letters and digits make words; case and diacritics are dropped). So
//! that PostgreSQL finds the same words, whatever its locale, the words are
//! made the same way here and PostgreSQL's own parser is never asked: a
//! story is written as a literal of its words with their positions and
//! weights (title A, standfirst B, byline, tags and slug C, body D), and a
//! search as a literal query of the same words.

use unicode_normalization::UnicodeNormalization as _;
use unicode_normalization::char::is_combining_mark;

/// PostgreSQL keeps at most 256 positions of one word and numbers them up to
/// 16,383; a `tsvector` may hold at most 1 MiB. Words past these limits are
/// left out of the index, so that no story is refused for being long.
const MAX_POSITIONS_PER_WORD: usize = 256;
const MAX_POSITION: usize = 16_383;
const MAX_LITERAL_BYTES: usize = 900 * 1024;
/// PostgreSQL's longest lexeme is 2,046 bytes.
const MAX_WORD_BYTES: usize = 2_046;

/// The words of `text`: lower case, without diacritics, split at anything
/// that is not a letter or a digit.
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.nfd() {
        if is_combining_mark(c) {
            continue;
        }
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        } else if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out.retain(|w| w.len() <= MAX_WORD_BYTES);
    out
}

fn quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', "''").replace('\\', "\\\\"))
}

/// A `tsvector` literal of `fields`, each with its weight letter (A to D).
pub(crate) fn document(fields: &[(&str, char)]) -> String {
    let mut positions: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let mut position = 0usize;
    let mut bytes = 0usize;
    for (field, (text, weight)) in fields.iter().enumerate() {
        // One position left empty between fields, so that words match as a
        // phrase only within one field, as FTS5 matches one in one column.
        if field > 0 && position > 0 {
            position = (position + 1).min(MAX_POSITION);
        }
        for word in words(text) {
            position = (position + 1).min(MAX_POSITION);
            let seen = positions.contains_key(&word);
            if !seen && bytes + word.len() + 16 > MAX_LITERAL_BYTES {
                continue;
            }
            let list = positions.entry(word.clone()).or_default();
            if !seen {
                bytes += word.len() + 4;
            }
            if list.len() < MAX_POSITIONS_PER_WORD {
                list.push(format!("{position}{weight}"));
                bytes += 7;
            }
        }
    }
    positions
        .iter()
        .map(|(word, at)| format!("{}:{}", quoted(word), at.join(",")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A `tsquery` literal: every typed word must occur; a word that splits
/// into several (`covid-19`) must occur as that phrase; with
/// `last_is_prefix` the last word may be the start of a longer one. `None`
/// when nothing typed is a word.
pub(crate) fn query(typed: &[&str], last_is_prefix: bool) -> Option<String> {
    joined(typed, last_is_prefix, " & ")
}

/// A `tsquery` literal of the typed words one after the other, in the
/// order typed (a phrase), the last perhaps a start as in [`query`].
pub(crate) fn phrase(typed: &[&str], last_is_prefix: bool) -> Option<String> {
    joined(typed, last_is_prefix, " <-> ")
}

/// The typed words' groups joined by `joiner`.
fn joined(typed: &[&str], last_is_prefix: bool, joiner: &str) -> Option<String> {
    let typed: Vec<Vec<String>> = typed
        .iter()
        .map(|word| words(word))
        .filter(|parts| !parts.is_empty())
        .collect();
    let last = typed.len().checked_sub(1)?;
    let terms: Vec<String> = typed
        .iter()
        .enumerate()
        .map(|(i, parts)| {
            let mut quoted: Vec<String> = parts.iter().map(|p| quoted(p)).collect();
            if i == last
                && last_is_prefix
                && let Some(end) = quoted.last_mut()
            {
                end.push_str(":*");
            }
            format!("({})", quoted.join(" <-> "))
        })
        .collect();
    Some(terms.join(joiner))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn words_are_folded_and_split_like_fts5() {
        assert_eq!(
            words("Café-Crème, COVID-19!"),
            ["cafe", "creme", "covid", "19"]
        );
        assert_eq!(
            document(&[("Storm storm", 'A'), ("the storm", 'D')]),
            "'storm':1A,2A,5D 'the':4D"
        );
        assert_eq!(
            query(&["Café", "covid-19", "elec"], true).as_deref(),
            Some("('cafe') & ('covid' <-> '19') & ('elec':*)")
        );
        assert_eq!(query(&["--", "?"], true), None);
        assert_eq!(
            phrase(&["Café", "covid-19", "elec"], true).as_deref(),
            Some("('cafe') <-> ('covid' <-> '19') <-> ('elec':*)")
        );
    }

    proptest! {
        /// Whatever is typed, the literals hold only quoted words.
        #[test]
        fn literals_quote_every_word(text in "\\PC{0,60}") {
            for word in words(&text) {
                prop_assert!(word.chars().all(char::is_alphanumeric));
            }
            let doc = document(&[(&text, 'A')]);
            for entry in doc.split(' ').filter(|e| !e.is_empty()) {
                let (word, positions) = entry.rsplit_once(':').expect("word:positions");
                prop_assert!(word.len() > 2 && word.starts_with('\'') && word.ends_with('\''));
                prop_assert!(word[1..word.len() - 1].chars().all(char::is_alphanumeric));
                for at in positions.split(',') {
                    prop_assert!(at.ends_with('A') && at[..at.len() - 1].parse::<u16>().is_ok());
                }
            }
        }
    }
}
