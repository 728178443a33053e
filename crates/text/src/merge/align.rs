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
    // pair up alike ones first, then in order (edited, see `pair_stretch`),
    // and the rest were added or deleted.
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
    // pair a block with a lookalike elsewhere when an edit made two alike),
    // each run of changed ones a stretch.
    let unchanged_anywhere: usize = ops
        .iter()
        .map(|op| match op {
            DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum();
    let unchanged_in_place = base.iter().zip(side).filter(|(b, s)| alike(b, s)).count();
    let mut stretches = Vec::new();
    if base.len() == side.len() && unchanged_in_place >= unchanged_anywhere {
        let mut at = 0;
        while at < side.len() {
            let start = at;
            while at < side.len() && !alike(&base[at], &side[at]) {
                at += 1;
            }
            if at > start {
                stretches.push((start..at, start..at));
            } else {
                found[at] = Some(at);
                at += 1;
            }
        }
    } else {
        for op in &ops {
            match *op {
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
                } => stretches.push((
                    old_index..old_index + old_len,
                    new_index..new_index + new_len,
                )),
                DiffOp::Delete { .. } | DiffOp::Insert { .. } => {}
            }
        }
    }
    if !stretches.is_empty() {
        let (base_moved, side_moved) = moved_unchanged(base, side, &found);
        for stretch in stretches {
            pair_stretch(base, side, stretch, (&base_moved, &side_moved), &mut found);
        }
    }
    pair_moved(base, side, &mut found);
    found
}

/// The most cells (base blocks times side blocks) of a stretch that
/// changed for which [`pair_stretch`] looks for alike blocks; a larger
/// stretch (a story rewritten whole) pairs its blocks in order.
const STRETCH_CELLS: usize = 4096;

/// The blocks of a stretch that changed that are not for it to pair: a
/// block whose same content stands unpaired on the other side (outside
/// any unchanged run) moved there unchanged, and [`pair_moved`] pairs it
/// with that one, never with an edited neighbour.
fn moved_unchanged(
    base: &[Block],
    side: &[Block],
    found: &[Option<usize>],
) -> (Vec<bool>, Vec<bool>) {
    let mut taken = vec![false; base.len()];
    for at in found.iter().flatten() {
        taken[*at] = true;
    }
    let hashes = |blocks: &[Block], paired: &dyn Fn(usize) -> bool| -> HashSet<u64> {
        (0..blocks.len())
            .filter(|at| !paired(*at) && telling(&blocks[*at]))
            .map(|at| content_hash(&blocks[at]))
            .collect()
    };
    let in_base = hashes(base, &|at| taken[at]);
    let in_side = hashes(side, &|at| found[at].is_some());
    let reserved = |blocks: &[Block], paired: &dyn Fn(usize) -> bool, other: &HashSet<u64>| {
        (0..blocks.len())
            .map(|at| {
                !paired(at) && telling(&blocks[at]) && other.contains(&content_hash(&blocks[at]))
            })
            .collect()
    };
    (
        reserved(base, &|at| taken[at], &in_side),
        reserved(side, &|at| found[at].is_some(), &in_base),
    )
}

/// Pairs the blocks of a stretch that changed, but for those moved
/// unchanged (`reserved`, see [`moved_unchanged`]): a text block only with
/// a text block, a photo only with a photo. As many blocks on both sides,
/// each alike the one at its place or alike none there: in order (edited
/// in place). Else first the most pairs, in order, of blocks alike (the
/// same photo; text blocks with most, 60%, of the shorter one's distinct
/// words in the other, so that a split-off half is alike its base block
/// and a joined block both of its own), the earliest where there is a
/// choice (a split's first half, a join's first block, as `joins`
/// expects); then between those the rest in order, but for blocks alike
/// one paired already. Pairing in order alone paired a photo placed before
/// a paragraph with that paragraph (the photo merged into its text, lost),
/// and after a join, a split or a move a block with its neighbour's base
/// block, so that the other side's edit of that block printed it twice.
fn pair_stretch(
    base: &[Block],
    side: &[Block],
    (old, new): (std::ops::Range<usize>, std::ops::Range<usize>),
    reserved: (&[bool], &[bool]),
    found: &mut [Option<usize>],
) {
    let old: Vec<usize> = old.filter(|o| !reserved.0[*o]).collect();
    let new: Vec<usize> = new.filter(|n| !reserved.1[*n]).collect();
    let in_order = |old: &[usize], new: &[usize], found: &mut [Option<usize>]| {
        for atomic in [false, true] {
            let olds = old.iter().filter(|o| base[**o].is_atomic() == atomic);
            let news = new.iter().filter(|n| side[**n].is_atomic() == atomic);
            for (o, n) in olds.zip(news) {
                found[*n] = Some(*o);
            }
        }
    };
    let (rows, cols) = (old.len(), new.len());
    if rows * cols > STRETCH_CELLS || (rows == 1 && cols == 1) {
        in_order(&old, &new, found);
        return;
    }
    // A text block's distinct words.
    let words =
        |block: &Block| -> HashSet<String> { words_for_likeness(block).into_iter().collect() };
    let old_words: Vec<_> = old.iter().map(|o| words(&base[*o])).collect();
    let new_words: Vec<_> = new.iter().map(|n| words(&side[*n])).collect();
    let alike_at = |i: usize, j: usize| -> bool {
        let (b, s) = (&base[old[i]], &side[new[j]]);
        if b.is_atomic() || s.is_atomic() {
            return content_key(b) == content_key(s);
        }
        let (bw, sw) = (&old_words[i], &new_words[j]);
        let fewest = bw.len().min(sw.len());
        fewest > 0 && bw.intersection(sw).count() as f64 >= MOVED_LIKENESS * fewest as f64
    };
    let alike: Vec<Vec<bool>> = (0..rows)
        .map(|i| (0..cols).map(|j| alike_at(i, j)).collect())
        .collect();
    // Edited in place (not, say, a block deleted and the next split, which
    // give as many blocks).
    let in_place = rows == cols
        && (0..rows).all(|k| {
            base[old[k]].is_atomic() == side[new[k]].is_atomic()
                && (alike[k][k]
                    || ((0..cols).all(|j| !alike[k][j]) && (0..rows).all(|i| !alike[i][k])))
        });
    if in_place {
        in_order(&old, &new, found);
        return;
    }
    // most[i][j]: the most alike pairs, in order, among old[i..] and new[j..].
    let mut most = vec![vec![0usize; cols + 1]; rows + 1];
    for i in (0..rows).rev() {
        for j in (0..cols).rev() {
            let paired = if alike[i][j] {
                1 + most[i + 1][j + 1]
            } else {
                0
            };
            most[i][j] = paired.max(most[i + 1][j]).max(most[i][j + 1]);
        }
    }
    let mut anchors: Vec<(usize, usize)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < rows && j < cols {
        // A block alike the last pair's other block (a split-off half, a
        // block joined into the one before) is passed when that costs no pair.
        let (side_follows, base_follows) = anchors
            .last()
            .map_or((false, false), |(pi, pj)| (alike[*pi][j], alike[i][*pj]));
        if side_follows && most[i][j] == most[i][j + 1] {
            j += 1;
        } else if base_follows && most[i][j] == most[i + 1][j] {
            i += 1;
        } else if alike[i][j] && most[i][j] == 1 + most[i + 1][j + 1] {
            anchors.push((i, j));
            (i, j) = (i + 1, j + 1);
        } else if most[i][j] == most[i][j + 1] && !(i..rows).any(|k| alike[k][j]) {
            // Passed first: a side block alike no base block left,
            j += 1;
        } else if most[i][j] == most[i + 1][j] {
            // then the base block (which keeps the side's earlier blocks in
            // reach: a base block's is the earliest alike it),
            i += 1;
        } else {
            j += 1;
        }
    }
    // Between those, the rest in order, but for a block alike one paired
    // already (a split-off half, a block joined into another): it is not
    // an edit of its neighbour, and `joins` finds what it is.
    let spare_old: Vec<bool> = (0..rows)
        .map(|i| !anchors.iter().any(|(_, j)| alike[i][*j]))
        .collect();
    let spare_new: Vec<bool> = (0..cols)
        .map(|j| !anchors.iter().any(|(i, _)| alike[*i][j]))
        .collect();
    let (mut from_old, mut from_new) = (0, 0);
    for (i, j) in anchors.into_iter().chain([(rows, cols)]) {
        let olds: Vec<usize> = (from_old..i)
            .filter(|i| spare_old[*i])
            .map(|i| old[i])
            .collect();
        let news: Vec<usize> = (from_new..j)
            .filter(|j| spare_new[*j])
            .map(|j| new[j])
            .collect();
        in_order(&olds, &news, found);
        if i < rows {
            found[new[j]] = Some(old[i]);
        }
        (from_old, from_new) = (i + 1, j + 1);
    }
}

/// Whether a block can be told from others by its content: a photo, or
/// text of at least [`MOVED_WORDS`] words (an empty line, "***" or
/// "Advertisement" stands in many places alike). Counted without copying
/// the words.
fn telling(block: &Block) -> bool {
    block.is_atomic()
        || super::rich_text::tokens(&block.text)
            .into_iter()
            .filter(|r| block.text[r.start].is_alphanumeric())
            .take(MOVED_WORDS)
            .count()
            >= MOVED_WORDS
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
    // A block that is not `telling` is never taken for a moved one: which
    // of its lookalikes moved cannot be told. The same content, moved.
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
