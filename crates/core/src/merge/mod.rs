//! The three-way merge of a story's rich text: base, mine and theirs give the merged text and the block conflicts that remain.
//!
//! Pure logic, no I/O. Blocks are aligned first (by Draft.js block key where
//! every version has keys, else by their content); a block changed,
//! inserted, deleted or moved on one side takes that side, and a block
//! changed on both sides is merged word by word (`words`). Only where the
//! same words changed differently is there a conflict, and it covers that
//! block alone: the merged text keeps theirs (the server's) there, and the
//! conflict holds both versions with their neighbours. An edit beats a
//! delete: a block one side deleted and the other changed stays, changed.
//! A photo (an `atomic` block holding an `IMAGE` entity, a `<figure><img>`
//! in HTML) is one unit: it is aligned by its address and caption, never
//! merged character by character, and a side that changed it wins whole.

pub mod diff3;
pub mod draft_raw;
pub mod fields;
pub mod html;
pub mod rich_text;
pub mod words;

use std::collections::HashMap;

use similar::{Algorithm, DiffOp, capture_diff_slices_by_key_deadline};

use diff3::{Resolution, diff3};
pub use rich_text::{Block, Entity, Marks, RichText};

/// A block both sides changed in the same words, differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockConflict {
    /// Where the block stands in the merged text (which holds theirs there).
    pub position: usize,
    pub base: Option<Block>,
    pub mine: Block,
    pub theirs: Block,
    /// The merged text of the blocks around it, for a person to see where it is.
    pub before: Option<String>,
    pub after: Option<String>,
}

/// What a merge gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub text: RichText,
    pub conflicts: Vec<BlockConflict>,
}

/// A rich-text field as it is stored: its HTML and, when the editor sent
/// it, its Draft.js raw content.
#[derive(Debug, Clone, Copy)]
pub struct StoredText<'a> {
    pub html: &'a str,
    pub raw: Option<&'a serde_json::Value>,
}

/// Block types the merge writes back as they were (a nested list or an
/// atomic block other than a photo would not be).
const MERGEABLE_BLOCKS: [&str; 11] = [
    "unstyled",
    "header-one",
    "header-two",
    "header-three",
    "header-four",
    "header-five",
    "header-six",
    "blockquote",
    "code-block",
    "unordered-list-item",
    "ordered-list-item",
];

/// HTML elements the merge reads and writes back as they were: anything
/// else (an image, a table, a rule, an ordered list, code) would be lost or
/// changed by a round trip through `html.rs`. A photo (`figure`, `img`) is,
/// when its address is safe (see [`images_kept`]).
const MERGEABLE_TAGS: [&str; 22] = [
    "p",
    "div",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "li",
    "blockquote",
    "strong",
    "b",
    "em",
    "i",
    "u",
    "ins",
    "a",
    "br",
    "span",
    "figure",
    "img",
];

/// Whether every `<img>` of `html` was read as a photo's block (an image
/// with an unsafe address is dropped by the reading, so it would be lost).
fn images_kept(html: &str, text: &RichText) -> bool {
    let lower = html.to_ascii_lowercase();
    let tags = lower
        .match_indices("<img")
        .filter(|(at, _)| {
            lower[at + 4..]
                .chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || c == '/' || c == '>')
        })
        .count();
    let photos = text
        .blocks
        .iter()
        .filter(|b| b.image_parts().is_some())
        .count();
    tags == photos
}

/// Whether every element of `html` is one the merge writes back as it was.
fn tags_mergeable(html: &str) -> bool {
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        let name: String = rest
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        if !name.is_empty() && !MERGEABLE_TAGS.contains(&name.as_str()) {
            return false;
        }
    }
    true
}

/// All the words of a text, spaces collapsed: to tell whether HTML and raw content tell the same text.
fn words_of(text: &RichText) -> String {
    text.blocks
        .iter()
        .map(Block::text)
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Draft.js raw content as a field stores it (JSON text); `None` for none.
pub fn parse_raw(text: &str) -> Option<serde_json::Value> {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .filter(serde_json::Value::is_object)
}

/// Elements that end a line of text: between them words are apart.
const BLOCK_TAGS: [&str; 14] = [
    "p",
    "div",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "li",
    "ul",
    "ol",
    "blockquote",
    "pre",
    "br",
];

/// The words of HTML, read cheaply (tags dropped, entities decoded): enough
/// to tell whether raw content tells the same text, without a full parse.
fn html_words(html: &str) -> String {
    let text = crate::html_scan::strip_tags(
        html,
        |out, text| out.push_str(text),
        |name| BLOCK_TAGS.contains(&name),
    );
    let text = quick_xml::escape::unescape(&text).map_or(text.clone(), |t| t.into_owned());
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl StoredText<'_> {
    /// The raw content's blocks, when it tells the same text as the HTML (a
    /// client that sent only new HTML leaves an older raw content behind).
    fn current_raw(&self) -> Option<RichText> {
        let from_raw = draft_raw::from_raw(self.raw?)?;
        (words_of(&from_raw) == html_words(self.html)).then_some(from_raw)
    }

    /// The blocks, and whether a merge writes them back as they were: plain
    /// text (one block a line); raw content where it tells the same text as
    /// the HTML, of paragraphs, headings, lists and quotes (not nested) with
    /// links as the only entities, and photos; else the HTML, of paragraphs,
    /// headings, unordered lists, quotes, bold, italic, underline, links and
    /// photos.
    pub fn parse(&self) -> (RichText, bool) {
        if let Some(text) = self.current_raw() {
            let mergeable = text.blocks.iter().all(|b| {
                b.image_parts().is_some()
                    || (b.depth == 0
                        && MERGEABLE_BLOCKS.contains(&b.kind.as_str())
                        && b.marks
                            .iter()
                            .all(|m| m.entity.as_ref().is_none_or(|e| e.kind == "LINK")))
            });
            return (text, mergeable);
        }
        if self.is_plain() {
            let blocks = self
                .html
                .split('\n')
                .map(|line| Block::plain("unstyled", line))
                .collect();
            return (RichText { blocks }, true);
        }
        let text = html::from_html(self.html);
        let mergeable = tags_mergeable(self.html) && images_kept(self.html, &text);
        (text, mergeable)
    }

    /// The blocks (see [`StoredText::parse`]).
    pub fn read(&self) -> RichText {
        self.parse().0
    }

    /// Text with no markup and no raw content (an abstract typed as text).
    pub fn is_plain(&self) -> bool {
        self.raw.is_none() && !self.html.contains('<')
    }
}

/// One block written the way its field is stored, as a conflict shows it.
pub fn write_block(plain: bool, block: &Block) -> String {
    write_like(
        plain,
        &RichText {
            blocks: vec![block.clone()],
        },
    )
}

/// Writes merged text the way the field was stored: plain text stays plain
/// (one line a block), anything else is HTML.
pub fn write_like(plain: bool, text: &RichText) -> String {
    if plain {
        text.plain_text()
    } else {
        html::to_html(text)
    }
}

/// A merged field, written both ways so that they tell the same text.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedText {
    pub html: String,
    /// All three versions were plain text, and so is `html`.
    pub plain: bool,
    /// Present when any of the three versions had raw content.
    pub raw: Option<serde_json::Value>,
    pub conflicts: Vec<BlockConflict>,
}

/// Merges a stored field (a body or an abstract) three ways; `None` when a
/// version holds what the merge would not write back as it was (then the
/// field is merged as one value).
pub fn merge_stored(
    base: StoredText<'_>,
    mine: StoredText<'_>,
    theirs: StoredText<'_>,
) -> Option<MergedText> {
    let sides = [base, mine, theirs];
    let (base_text, base_ok) = base.parse();
    let (mine_text, mine_ok) = mine.parse();
    let (theirs_text, theirs_ok) = theirs.parse();
    if !(base_ok && mine_ok && theirs_ok) {
        return None;
    }
    let merged = merge(&base_text, &mine_text, &theirs_text);
    let with_raw = sides.iter().any(|side| side.raw.is_some());
    let plain = sides.iter().all(StoredText::is_plain);
    Some(MergedText {
        html: write_like(plain, &merged.text),
        plain,
        raw: with_raw.then(|| draft_raw::to_raw(&merged.text)),
        conflicts: merged.conflicts,
    })
}

/// What aligning by content compares: a block's kind and text, and for a
/// photo (whose text is one space) its entity too, so that one photo is
/// never taken for another.
fn content_key(block: &Block) -> (String, Vec<char>, Option<Entity>) {
    let entity = if block.is_atomic() {
        block.marks.first().and_then(|m| m.entity.clone())
    } else {
        None
    };
    (block.kind.clone(), block.text.clone(), entity)
}

/// Whether two blocks are alike for alignment (see [`content_key`]).
fn alike(a: &Block, b: &Block) -> bool {
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
fn align(base: &[Block], side: &[Block]) -> Vec<Option<usize>> {
    let by_content = align_by_content(base, side);
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
        // (ours does) or re-keys them all (HTML converted again) gives keys
        // that name other blocks once one is added or removed.
        if found.iter().any(Option::is_some)
            && unchanged_pairs(base, side, &found) >= unchanged_pairs(base, side, &by_content)
        {
            return found;
        }
    }
    by_content
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
        content_key,
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

/// A block's words for telling how alike two blocks are: lower case, split
/// at anything that is not a letter or a digit.
fn words_for_likeness(block: &Block) -> Vec<String> {
    block
        .text()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
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
    let distinct = |list: &[String]| list.iter().collect::<std::collections::HashSet<_>>().len();
    let base_distinct: Vec<usize> = base_words.iter().map(|w| distinct(w)).collect();
    let mut blocks_of_word: HashMap<&str, Vec<usize>> = HashMap::new();
    for (at, words) in base_words.iter().enumerate() {
        let mut seen = std::collections::HashSet::new();
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
        let mut counted = std::collections::HashSet::new();
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

/// A block's identity across the three versions: a base block's index, or
/// a fresh number for a block one side added.
type BlockId = usize;

/// The ids of one side's blocks, and its block for each id.
struct SideBlocks<'a> {
    ids: Vec<BlockId>,
    by_id: HashMap<BlockId, &'a Block>,
}

fn side_blocks<'a>(base: &[Block], side: &'a [Block], first_new: BlockId) -> SideBlocks<'a> {
    let mut next = first_new;
    let ids: Vec<BlockId> = align(base, side)
        .into_iter()
        .map(|found| {
            found.unwrap_or_else(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    let by_id = ids.iter().copied().zip(side.iter()).collect();
    SideBlocks { ids, by_id }
}

/// An edit beats a delete: puts back into `deleter` every base block it
/// deleted that `editor` changed, after the nearest earlier base block it kept.
fn keep_edited<'a>(base: &'a [Block], deleter: &mut SideBlocks<'a>, editor: &SideBlocks<'a>) {
    for (id, base_block) in base.iter().enumerate() {
        let edited = editor
            .by_id
            .get(&id)
            .is_some_and(|b| !b.same_content(base_block));
        if deleter.by_id.contains_key(&id) || !edited {
            continue;
        }
        let at = (0..id)
            .rev()
            .find_map(|earlier| deleter.ids.iter().position(|x| *x == earlier))
            .map_or(0, |p| p + 1);
        deleter.ids.insert(at, id);
    }
    // Its version of a block it deleted is the base one.
    for id in &deleter.ids {
        if *id < base.len() && !deleter.by_id.contains_key(id) {
            deleter.by_id.insert(*id, &base[*id]);
        }
    }
}

/// A block merged as one unit (a photo): the side that changed it wins
/// whole; both changed it differently: `None`, a conflict.
fn unit_merge(base: &Block, mine: &Block, theirs: &Block) -> Option<Block> {
    if mine.same_content(base) || mine.same_content(theirs) {
        Some(theirs.clone())
    } else if theirs.same_content(base) {
        Some(mine.clone())
    } else {
        None
    }
}

/// Merges `mine` and `theirs`, two versions of `base`.
pub fn merge(base: &RichText, mine: &RichText, theirs: &RichText) -> Merged {
    let base_blocks = &base.blocks;
    let mut mine_side = side_blocks(base_blocks, &mine.blocks, base_blocks.len());
    let mut theirs_side = side_blocks(
        base_blocks,
        &theirs.blocks,
        base_blocks.len() + mine.blocks.len(),
    );
    keep_edited(base_blocks, &mut mine_side, &theirs_side);
    keep_edited(base_blocks, &mut theirs_side, &mine_side);

    let base_ids: Vec<BlockId> = (0..base_blocks.len()).collect();
    let mut order: Vec<BlockId> = Vec::new();
    for region in diff3(&base_ids, &mine_side.ids, &theirs_side.ids) {
        let (mine_ids, theirs_ids) = (
            &mine_side.ids[region.mine.clone()],
            &theirs_side.ids[region.theirs.clone()],
        );
        match region.resolution {
            None | Some(Resolution::Mine | Resolution::Both) => order.extend_from_slice(mine_ids),
            Some(Resolution::Theirs) => order.extend_from_slice(theirs_ids),
            Some(Resolution::Conflict) => {
                // Both sides moved or added blocks here: theirs' blocks (those
                // theirs added, and base blocks mine still has anywhere),
                // then mine's (likewise, less additions theirs also made);
                // never interleaved. A block placed twice stands once, below.
                let is_new = |id: &BlockId| *id >= base_blocks.len();
                for id in theirs_ids {
                    if is_new(id) || mine_side.by_id.contains_key(id) {
                        order.push(*id);
                    }
                }
                for id in mine_ids {
                    let also_theirs = is_new(id)
                        && theirs_ids.iter().any(|t| {
                            is_new(t) && theirs_side.by_id[t].same_content(mine_side.by_id[id])
                        });
                    let kept_by_theirs = !is_new(id) && theirs_side.by_id.contains_key(id);
                    if (is_new(id) && !also_theirs) || kept_by_theirs {
                        order.push(*id);
                    }
                }
            }
        }
    }

    // A block both sides moved, to different places, stands once: where mine put it.
    let mut placed = std::collections::HashSet::new();
    order.retain(|id| placed.insert(*id));
    // No block both sides kept goes missing, whatever the walk did with it.
    for id in 0..base_blocks.len() {
        if !placed.contains(&id)
            && mine_side.by_id.contains_key(&id)
            && theirs_side.by_id.contains_key(&id)
        {
            order.push(id);
        }
    }

    let mut blocks = Vec::with_capacity(order.len());
    let mut conflicted = Vec::new();
    for id in order {
        let (b, m, t) = (
            base_blocks.get(id),
            mine_side.by_id.get(&id).copied(),
            theirs_side.by_id.get(&id).copied(),
        );
        let merged = match (b, m, t) {
            (Some(b), Some(m), Some(t)) if b.is_atomic() || m.is_atomic() || t.is_atomic() => {
                match unit_merge(b, m, t) {
                    Some(block) => block,
                    None => {
                        conflicted.push((blocks.len(), Some(b.clone()), m.clone(), t.clone()));
                        t.clone()
                    }
                }
            }
            (Some(b), Some(m), Some(t)) => match words::merge_block(b, m, t) {
                Some(block) => block,
                None => {
                    conflicted.push((blocks.len(), Some(b.clone()), m.clone(), t.clone()));
                    t.clone()
                }
            },
            (_, Some(only), None) | (_, None, Some(only)) => only.clone(),
            (_, Some(m), Some(t)) => {
                if m.same_content(t) {
                    t.clone()
                } else {
                    conflicted.push((blocks.len(), None, m.clone(), t.clone()));
                    t.clone()
                }
            }
            (_, None, None) => continue,
        };
        blocks.push(merged);
    }
    let conflicts = conflicted
        .into_iter()
        .map(|(position, base, mine, theirs)| BlockConflict {
            position,
            before: position
                .checked_sub(1)
                .and_then(|p| blocks.get(p))
                .map(Block::text),
            after: blocks.get(position + 1).map(Block::text),
            base,
            mine,
            theirs,
        })
        .collect();
    Merged {
        text: RichText { blocks },
        conflicts,
    }
}

#[cfg(test)]
mod tests;
