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

mod align;
pub mod annotated;
pub mod diff3;
pub mod draft_raw;
pub mod fields;
pub mod html;
mod joins;
mod marks;
pub mod rich_text;
pub mod words;

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use align::align;

use diff3::{Resolution, diff3_of_ids};
pub use draft_raw::RawContent;
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
    pub raw: Option<&'a RawContent<'a>>,
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
        // A `<del>` is a suggested deletion when it says so (else it is
        // strike-through, which the merge does not read).
        let suggested_deletion = name == "del"
            && (rest.starts_with('/') || {
                let tag_end = rest.find('>').unwrap_or(rest.len());
                rest[..tag_end].contains("data-suggestion=")
            });
        if !name.is_empty() && !MERGEABLE_TAGS.contains(&name.as_str()) && !suggested_deletion {
            return false;
        }
    }
    true
}

/// All the text of the blocks, a space between each two: its words are the
/// text's, to tell whether HTML and raw content tell the same text.
fn words_of(text: &RichText) -> String {
    let mut out = String::with_capacity(text.blocks.iter().map(|b| b.text.len() + 1).sum());
    for block in &text.blocks {
        out.extend(&block.text);
        out.push(' ');
    }
    out
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

/// The text of HTML, read cheaply (tags dropped, entities decoded): enough
/// to tell whether raw content tells the same text, without a full parse.
fn html_words(html: &str) -> String {
    let text = crate::html_scan::strip_tags(
        html,
        |out, text| out.push_str(text),
        |name| BLOCK_TAGS.contains(&name),
    );
    html_escape::decode_html_entities(&text).into_owned()
}

impl StoredText<'_> {
    /// The raw content's blocks, when it tells the same text as the HTML (a
    /// client that sent only new HTML leaves an older raw content behind).
    fn current_raw(&self) -> Option<RichText> {
        let from_raw = self.raw?.rich_text()?;
        let (raw_text, html_text) = (words_of(&from_raw), html_words(self.html));
        raw_text
            .split_whitespace()
            .eq(html_text.split_whitespace())
            .then_some(from_raw)
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
        let (text, links_kept) = html::from_html_counting(self.html);
        let mergeable = links_kept && tags_mergeable(self.html) && images_kept(self.html, &text);
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

/// The raw content to store with new HTML a client sent without raw
/// content (as the hosted service's clients do), when the field had some:
/// the HTML's own blocks written as raw content when the merge reads the
/// HTML whole, else none (an empty text). Never the old raw content, which
/// would tell the old formatting and be trusted by the next merge while
/// its words still match.
pub fn raw_for_sent_html(html: &str, stored_raw: &str) -> String {
    if stored_raw.is_empty() {
        return String::new();
    }
    let (mut text, mergeable) = StoredText { html, raw: None }.parse();
    if !mergeable {
        return String::new();
    }
    // Each paragraph keeps the key it had, found by its content (moved or
    // edited too), so an editor still open on the story knows it.
    if let Some(old) = RawContent::read(stored_raw).and_then(|raw| raw.rich_text()) {
        let found = align(&old.blocks, &text.blocks);
        for (block, found) in text.blocks.iter_mut().zip(found) {
            block.key = found.and_then(|at| old.blocks[at].key.clone());
        }
    }
    draft_raw::to_raw(&text)
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
    /// Present when any of the three versions had raw content: its JSON text.
    pub raw: Option<String>,
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
    // A long story's versions are read, and the result written, on as many
    // cores as there are (a short one's on this thread: it takes microseconds).
    let long = sides.iter().map(|side| side.html.len()).sum::<usize>() > PARALLEL_FROM_BYTES;
    let ((base_text, base_ok), ((mine_text, mine_ok), (theirs_text, theirs_ok))) = join_if(
        long,
        || base.parse(),
        || join_if(long, || mine.parse(), || theirs.parse()),
    );
    if !(base_ok && mine_ok && theirs_ok) {
        return None;
    }
    let merged = merge(&base_text, &mine_text, &theirs_text);
    let with_raw = sides.iter().any(|side| side.raw.is_some());
    let plain = sides.iter().all(StoredText::is_plain);
    let (html, raw) = join_if(
        long,
        || write_like(plain, &merged.text),
        || with_raw.then(|| draft_raw::to_raw(&merged.text)),
    );
    let Merged { text, conflicts } = merged;
    if long {
        // A long story's four texts are hundreds of thousands of small
        // allocations: freed beside the answer, not before it.
        rayon::spawn(move || drop((base_text, mine_text, theirs_text, text)));
    }
    Some(MergedText {
        html,
        plain,
        raw,
        conflicts,
    })
}

/// From how many bytes of HTML (the three versions together) a merge reads
/// and writes on more than one core.
const PARALLEL_FROM_BYTES: usize = 256 * 1024;

/// `a` and `b`, on two cores when `parallel` (rayon's pool), else in turn.
fn join_if<A, B>(
    parallel: bool,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B)
where
    A: Send,
    B: Send,
{
    if parallel {
        rayon::join(a, b)
    } else {
        (a(), b())
    }
}

/// A block's identity across the three versions: a base block's index, or
/// a fresh number for a block one side added.
type BlockId = usize;

/// The ids of one side's blocks, and its block for each id (a group of
/// joined or split blocks is one block, owned).
struct SideBlocks<'a> {
    ids: Vec<BlockId>,
    by_id: HashMap<BlockId, Cow<'a, Block>>,
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
    let by_id = ids
        .iter()
        .copied()
        .zip(side.iter().map(Cow::Borrowed))
        .collect();
    SideBlocks { ids, by_id }
}

/// The base blocks by id; `None` for a block merged into its group's first.
type BaseBlocks<'a> = Vec<Option<Cow<'a, Block>>>;

/// Makes each group of joined or split blocks (see `joins`) one block, in
/// the base and on each side: its blocks joined, in the order the version
/// has them, at the place of the first of them, under the group's first id.
fn join_groups(
    base: &mut BaseBlocks<'_>,
    sides: [&mut SideBlocks<'_>; 2],
    groups: &[Vec<BlockId>],
) {
    let lead_of: HashMap<BlockId, BlockId> = groups
        .iter()
        .flat_map(|members| members.iter().map(|id| (*id, members[0])))
        .collect();
    for members in groups {
        let blocks: Vec<&Block> = members
            .iter()
            .filter_map(|id| base.get(*id).and_then(|b| b.as_deref()))
            .collect();
        let group = joins::joined(&blocks);
        for id in &members[1..] {
            if let Some(slot) = base.get_mut(*id) {
                *slot = None;
            }
        }
        if let Some(group) = group {
            base[members[0]] = Some(Cow::Owned(group));
        }
    }
    for side in sides {
        let mut grouped: HashMap<BlockId, Vec<&Block>> = HashMap::new();
        let mut ids = Vec::with_capacity(side.ids.len());
        for id in &side.ids {
            match lead_of.get(id) {
                Some(lead) => {
                    let blocks = grouped.entry(*lead).or_default();
                    if blocks.is_empty() {
                        ids.push(*lead);
                    }
                    blocks.push(&side.by_id[id]);
                }
                None => ids.push(*id),
            }
        }
        let joined: Vec<(BlockId, Block)> = grouped
            .into_iter()
            .filter_map(|(lead, blocks)| Some((lead, joins::joined(&blocks)?)))
            .collect();
        side.by_id.retain(|id, _| !lead_of.contains_key(id));
        side.by_id
            .extend(joined.into_iter().map(|(lead, b)| (lead, Cow::Owned(b))));
        side.ids = ids;
    }
}

/// An edit beats a delete: puts back into `deleter` every base block it
/// deleted that `editor` changed, after the nearest earlier base block it
/// kept, in its base version.
fn keep_edited<'a>(base: &BaseBlocks<'a>, deleter: &mut SideBlocks<'a>, editor: &SideBlocks<'a>) {
    // For each base block the deleter kept (`None`: the start), the edited
    // blocks it deleted that follow it in the base.
    let mut put_back: HashMap<Option<BlockId>, Vec<BlockId>> = HashMap::new();
    let mut last_kept = None;
    for (id, base_block) in base.iter().enumerate() {
        let Some(base_block) = base_block else {
            continue;
        };
        match deleter.by_id.entry(id) {
            Entry::Occupied(_) => last_kept = Some(id),
            Entry::Vacant(slot) => {
                if editor
                    .by_id
                    .get(&id)
                    .is_some_and(|b| !b.same_content(base_block))
                {
                    put_back.entry(last_kept).or_default().push(id);
                    slot.insert(base_block.clone());
                }
            }
        }
    }
    if put_back.is_empty() {
        return;
    }
    let mut ids = put_back.remove(&None).unwrap_or_default();
    for id in std::mem::take(&mut deleter.ids) {
        ids.push(id);
        if let Some(after) = put_back.remove(&Some(id)) {
            ids.extend(after);
        }
    }
    deleter.ids = ids;
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
    let base_len = base.blocks.len();
    let mut mine_side = side_blocks(&base.blocks, &mine.blocks, base_len);
    let mut theirs_side = side_blocks(&base.blocks, &theirs.blocks, base_len + mine.blocks.len());
    let groups = joins::find_groups(
        &base.blocks,
        &joins::SideIds {
            blocks: &mine.blocks,
            ids: &mine_side.ids,
        },
        &joins::SideIds {
            blocks: &theirs.blocks,
            ids: &theirs_side.ids,
        },
    );
    let mut base_blocks: BaseBlocks<'_> =
        base.blocks.iter().map(|b| Some(Cow::Borrowed(b))).collect();
    join_groups(
        &mut base_blocks,
        [&mut mine_side, &mut theirs_side],
        &groups,
    );
    keep_edited(&base_blocks, &mut mine_side, &theirs_side);
    keep_edited(&base_blocks, &mut theirs_side, &mine_side);

    let base_ids: Vec<BlockId> = (0..base_len)
        .filter(|id| base_blocks[*id].is_some())
        .collect();
    let is_new = |id: &BlockId| *id >= base_len;
    let mut order: Vec<BlockId> = Vec::new();
    for region in diff3_of_ids(&base_ids, &mine_side.ids, &theirs_side.ids) {
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
                for id in theirs_ids {
                    if is_new(id) || mine_side.by_id.contains_key(id) {
                        order.push(*id);
                    }
                }
                let theirs_new: HashSet<_> = theirs_ids
                    .iter()
                    .filter(|t| is_new(t))
                    .map(|t| theirs_side.by_id[t].content())
                    .collect();
                for id in mine_ids {
                    let also_theirs =
                        is_new(id) && theirs_new.contains(&mine_side.by_id[id].content());
                    let kept_by_theirs = !is_new(id) && theirs_side.by_id.contains_key(id);
                    if (is_new(id) && !also_theirs) || kept_by_theirs {
                        order.push(*id);
                    }
                }
            }
        }
    }

    // A block both sides moved, to different places, stands once: where mine put it.
    let mut placed = HashSet::new();
    order.retain(|id| placed.insert(*id));
    // No block both sides kept goes missing, whatever the walk did with it.
    for id in base_ids {
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
            base_blocks.get(id).and_then(|b| b.as_deref()),
            mine_side.by_id.get(&id).map(AsRef::as_ref),
            theirs_side.by_id.get(&id).map(AsRef::as_ref),
        );
        let (merged, conflict) = match (b, m, t) {
            (Some(b), Some(m), Some(t)) if b.is_atomic() || m.is_atomic() || t.is_atomic() => {
                match unit_merge(b, m, t) {
                    Some(block) => (block, None),
                    None => (t.clone(), Some((Some(b), m, t))),
                }
            }
            (Some(b), Some(m), Some(t)) => match words::merge_block(b, m, t) {
                Some(block) => (block, None),
                None => (t.clone(), Some((Some(b), m, t))),
            },
            (_, Some(only), None) | (_, None, Some(only)) => (only.clone(), None),
            (_, Some(m), Some(t)) if m.same_content(t) => (t.clone(), None),
            (_, Some(m), Some(t)) => (t.clone(), Some((None, m, t))),
            (_, None, None) => continue,
        };
        let position = blocks.len();
        blocks.extend(joins::split_at_breaks(merged));
        if let Some((base, mine, theirs)) = conflict {
            conflicted.push((position, blocks.len(), base, mine, theirs));
            // A photo mine placed among paragraphs it split or joined stays
            // when those conflict, after theirs' text.
            blocks.extend(joins::photos_placed(base, mine, theirs));
        }
    }
    let conflicts = conflicted
        .into_iter()
        .map(|(position, end, base, mine, theirs)| BlockConflict {
            position,
            before: position
                .checked_sub(1)
                .and_then(|p| blocks.get(p))
                .map(Block::text),
            after: blocks.get(end).map(Block::text),
            base: base.map(joins::for_reading),
            mine: joins::for_reading(mine),
            theirs: joins::for_reading(theirs),
        })
        .collect();
    Merged {
        text: RichText { blocks },
        conflicts,
    }
}

#[cfg(test)]
mod tests;
