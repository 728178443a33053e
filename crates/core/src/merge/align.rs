//! Which base block each block of a side stands for: by key where keys are trustworthy, else by content, with moved blocks paired by their words.

use std::collections::{HashMap, HashSet};

use similar::{Algorithm, DiffOp, capture_diff_slices_by_key_deadline};

use super::diff3;
use super::rich_text::{Block, Entity};

/// What aligning by content compares: a block's kind and text, and for a
/// photo (whose text is one space) its entity too, so that one photo is
/// never taken for another.
pub(super) fn content_key(block: &Block) -> (String, Vec<char>, Option<Entity>) {
    let entity = if block.is_atomic() {
        block.marks.first().and_then(|m| m.entity.clone())
    } else {
        None
    };
    (block.kind.clone(), block.text.clone(), entity)
}

/// [`content_key`] hashed, for the diff to compare without copying every
/// block's text (two blocks of one hash and different content, a chance of
/// one in 2^64, would be taken for one unchanged).
fn content_hash(block: &Block) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    block.kind.hash(&mut hasher);
    block.text.hash(&mut hasher);
    if block.is_atomic() {
        block
            .marks
            .first()
            .and_then(|m| m.entity.as_ref())
            .hash(&mut hasher);
    }
    hasher.finish()
}

/// Whether two blocks are alike for alignment (see [`content_key`]).
pub(super) fn alike(a: &Block, b: &Block) -> bool {
    a.kind == b.kind && a.text == b.text && (!a.is_atomic() || content_key(a) == content_key(b))
}

/// How many blocks an alignment pairs with a base block of the same kind and text.
fn unchanged_pairs(base: &[Block], side: &[Block], found: &[Option<usize>]) -> usize {
    found
        .iter()
        .zip(side)
        .filter(|(f, s)| f.is_some_and(|b| alike(&base[b], s)))
        .count()
}

/// Which base block (by index) each block of `side` stands for; `None` for a block the side added.
pub(super) fn align(base: &[Block], side: &[Block]) -> Vec<Option<usize>> {
    let keyed = |blocks: &[Block]| {
        let keys: Vec<&str> = blocks.iter().filter_map(|b| b.key.as_deref()).collect();
        keys.len() == blocks.len() && {
            let mut unique = keys.clone();
            unique.sort_unstable();
            unique.dedup();
            unique.len() == keys.len()
        }
    };
    if !base.is_empty() && keyed(base) && keyed(side) {
        let by_key: HashMap<&str, usize> = base
            .iter()
            .enumerate()
            .filter_map(|(i, b)| Some((b.key.as_deref()?, i)))
            .collect();
        let found: Vec<Option<usize>> = side
            .iter()
            .map(|b| b.key.as_deref().and_then(|k| by_key.get(k).copied()))
            .collect();
        // Keys are trusted while they pair at least as many unchanged blocks
        // as the content does. An editor that numbers its blocks by position
        // (as ours did) or re-keys them all (HTML converted again) gives keys
        // that name other blocks once one is added or removed. No alignment
        // by content pairs more unchanged blocks than the side has blocks
        // alike a base block, so when the keys pair that many, the content
        // is not compared at all.
        if found.iter().any(Option::is_some) {
            let by_keys = unchanged_pairs(base, side, &found);
            if by_keys >= alike_anywhere(base, side) {
                return found;
            }
            let by_content = align_by_content(base, side);
            if by_keys >= unchanged_pairs(base, side, &by_content) {
                return found;
            }
            return by_content;
        }
    }
    align_by_content(base, side)
}

/// How many blocks of `side` could be paired with a base block alike, at
/// most: the blocks the two have in common, counted as multisets.
fn alike_anywhere(base: &[Block], side: &[Block]) -> usize {
    let mut in_base: HashMap<u64, usize> = HashMap::new();
    for block in base {
        *in_base.entry(content_hash(block)).or_default() += 1;
    }
    side.iter()
        .filter(|block| {
            in_base.get_mut(&content_hash(block)).is_some_and(|left| {
                let had = *left > 0;
                *left = left.saturating_sub(1);
                had
            })
        })
        .count()
}

/// Aligns by content (see [`align`]).
fn align_by_content(base: &[Block], side: &[Block]) -> Vec<Option<usize>> {
    // By content: unchanged blocks match; in a stretch that changed, blocks
    // pair up in order (edited), and the rest were added or deleted.
    let mut found = vec![None; side.len()];
    let deadline = std::time::Instant::now() + diff3::DIFF_DEADLINE;
    let ops = capture_diff_slices_by_key_deadline(
        Algorithm::Myers,
        base,
        side,
        content_hash,
        Some(deadline),
    );
    // The same number of blocks, as many unchanged in place as the diff
    // finds anywhere: the blocks were edited where they stand (a diff could
    // pair a block with a lookalike elsewhere when an edit made two alike).
    let unchanged_anywhere: usize = ops
        .iter()
        .map(|op| match op {
            DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum();
    let unchanged_in_place = base.iter().zip(side).filter(|(b, s)| alike(b, s)).count();
    if base.len() == side.len() && unchanged_in_place >= unchanged_anywhere {
        return (0..side.len()).map(Some).collect();
    }
    for op in ops {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for k in 0..len {
                    found[new_index + k] = Some(old_index + k);
                }
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                for k in 0..old_len.min(new_len) {
                    found[new_index + k] = Some(old_index + k);
                }
            }
            DiffOp::Delete { .. } | DiffOp::Insert { .. } => {}
        }
    }
    pair_moved(base, side, &mut found);
    found
}

/// A block's words for telling how alike two blocks are: the merge's word
/// tokens (dictionary words in Chinese, Japanese and Thai), lower case.
pub(super) fn words_for_likeness(block: &Block) -> Vec<String> {
    super::rich_text::tokens(&block.text)
        .into_iter()
        .filter(|r| block.text[r.start].is_alphanumeric())
        .map(|r| block.text[r].iter().collect::<String>().to_lowercase())
        .collect()
}

/// How many of its words a block must share with another, at least, for
/// the two to be one block moved and edited (the Dice coefficient of their
/// words): a move with a few words changed, not a new paragraph on the
/// same subject.
const MOVED_LIKENESS: f64 = 0.6;

/// The fewest words a text block needs to be taken for a moved one.
const MOVED_WORDS: usize = 3;

/// A word in more blocks than this says nothing of which block is which
/// ("the", "said"): it is not looked up.
const COMMON_WORD_BLOCKS: usize = 64;

/// Pairs the blocks the diff left unpaired on both sides when one is the
/// other moved: the same content first (a photo by its address and
/// caption), then, for text, the unpaired base block that shares the most
/// of its words, if that is most of them. So a block moved (and perhaps
/// edited) is one block at its new place, never one deleted and another
/// added, which the merge would print twice. A block of fewer than three
/// words is left as the diff has it. Candidates come from a map of words to
/// blocks, a word in more than 64 blocks not looked up, so the work grows
/// with the unpaired blocks times their telling words' blocks, not with
/// every pair of blocks.
fn pair_moved(base: &[Block], side: &[Block], found: &mut [Option<usize>]) {
    let mut taken = vec![false; base.len()];
    for at in found.iter().flatten() {
        taken[*at] = true;
    }
    if taken.iter().all(|t| *t) || found.iter().all(Option::is_some) {
        return;
    }
    // A block of a word or two (an empty line, "***", "Advertisement")
    // stands in many places alike: which one moved cannot be told, so it is
    // never taken for a moved one.
    let telling =
        |block: &Block| block.is_atomic() || words_for_likeness(block).len() >= MOVED_WORDS;
    // The same content, moved.
    let mut unpaired: HashMap<(String, Vec<char>, Option<Entity>), Vec<usize>> = HashMap::new();
    for (at, block) in base.iter().enumerate().rev() {
        if !taken[at] && telling(block) {
            unpaired.entry(content_key(block)).or_default().push(at);
        }
    }
    for (slot, block) in found.iter_mut().zip(side) {
        if slot.is_none()
            && telling(block)
            && let Some(at) = unpaired.get_mut(&content_key(block)).and_then(Vec::pop)
        {
            taken[at] = true;
            *slot = Some(at);
        }
    }
    // Text moved and edited: the most alike unpaired base block.
    let base_words: Vec<Vec<String>> = base
        .iter()
        .enumerate()
        .map(|(at, b)| {
            if taken[at] || b.is_atomic() || !telling(b) {
                Vec::new()
            } else {
                words_for_likeness(b)
            }
        })
        .collect();
    let distinct = |list: &[String]| list.iter().collect::<HashSet<_>>().len();
    let base_distinct: Vec<usize> = base_words.iter().map(|w| distinct(w)).collect();
    let mut blocks_of_word: HashMap<&str, Vec<usize>> = HashMap::new();
    for (at, words) in base_words.iter().enumerate() {
        let mut seen = HashSet::new();
        for word in words {
            if seen.insert(word.as_str()) {
                blocks_of_word.entry(word.as_str()).or_default().push(at);
            }
        }
    }
    for (slot, block) in found.iter_mut().zip(side) {
        if slot.is_some() || block.is_atomic() || !telling(block) {
            continue;
        }
        let words = words_for_likeness(block);
        let side_distinct = distinct(&words);
        let mut shared: HashMap<usize, usize> = HashMap::new();
        let mut counted = HashSet::new();
        for word in &words {
            if !counted.insert(word.as_str()) {
                continue;
            }
            let Some(blocks) = blocks_of_word.get(word.as_str()) else {
                continue;
            };
            if blocks.len() > COMMON_WORD_BLOCKS {
                continue;
            }
            for at in blocks {
                if !taken[*at] {
                    *shared.entry(*at).or_default() += 1;
                }
            }
        }
        let best = shared
            .into_iter()
            .map(|(at, common)| {
                let likeness = 2.0 * common as f64 / (side_distinct + base_distinct[at]) as f64;
                (at, likeness)
            })
            .filter(|(_, likeness)| *likeness >= MOVED_LIKENESS)
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        if let Some((at, _)) = best {
            taken[at] = true;
            *slot = Some(at);
        }
    }
}
