//! Joined and split paragraphs: the blocks a side joined or split are grouped with the base blocks they came from, and a group merges as one text in which a paragraph break is a token like a word.
//!
//! A join is then a break deleted and a split a break inserted, so a join
//! or split on one side and word edits on the other merge word by word into
//! the joined or split result, and two different splits of one paragraph
//! both stand. Pure logic, no I/O.
//!
//! Grouping more than was joined or split is harmless (the word merge of
//! the group gives the same text as a block merge would, at worst a
//! conflict where edits meet), so the tests are loose: a side block that
//! stands for a base block, followed by blocks the side added whose words
//! mostly come from that base block's, is a split; a side block that holds
//! most of the words of the base blocks after its own that the side
//! deleted is a join, and so is a block the side added that holds most of
//! the words of the base blocks it deleted right after the last block it
//! kept before it (a new paragraph that took the next one in keeps its own
//! key, so the base block it took would seem deleted).

use std::collections::HashMap;

use super::rich_text::{Block, Entity, Marks};

/// The character a group's text holds where one of its blocks ends and the next begins.
pub const BREAK: char = '\u{2029}';

/// The entity on a break character: it carries the next block's key, type,
/// depth and data, so a split-off block keeps what it was.
const BREAK_ENTITY: &str = "copydesk:paragraph-break";

/// How many of a block's words must come from the other block, at least,
/// for the two to be one paragraph joined or split.
const JOINED_SHARE: f64 = 0.6;

/// A block's identity across the three versions (see `merge`).
type BlockId = usize;

/// Whether a character's marks are a break's.
pub fn is_break(marks: &Marks) -> bool {
    marks
        .entity
        .as_ref()
        .is_some_and(|e| e.kind == BREAK_ENTITY)
}

/// The marks of the break before `block`.
fn break_marks(block: &Block) -> Marks {
    let data = serde_json::json!({
        "key": block.key,
        "type": block.kind,
        "depth": block.depth,
        "data": block.data,
    });
    Marks::new(
        std::collections::BTreeSet::new(),
        Some(Entity {
            kind: BREAK_ENTITY.to_owned(),
            mutability: "IMMUTABLE".to_owned(),
            data: data.to_string(),
        }),
    )
}

/// Blocks as one, a break between each two; the first block's key, type, depth and data.
pub fn joined(blocks: &[&Block]) -> Option<Block> {
    let (first, rest) = blocks.split_first()?;
    let mut out = (*first).clone();
    for block in rest {
        out.text.push(BREAK);
        out.marks.push(break_marks(block));
        out.text.extend_from_slice(&block.text);
        out.marks.extend_from_slice(&block.marks);
    }
    Some(out)
}

/// A group's block cut back into blocks at its breaks (the inverse of [`joined`]).
pub fn split_at_breaks(block: Block) -> Vec<Block> {
    if !block
        .text
        .iter()
        .zip(&block.marks)
        .any(|(c, m)| *c == BREAK && is_break(m))
    {
        return vec![block];
    }
    let mut out = Vec::new();
    let mut current = Block {
        text: Vec::new(),
        marks: Vec::new(),
        ..block.clone()
    };
    for (c, marks) in block.text.into_iter().zip(block.marks) {
        if c == BREAK && is_break(&marks) {
            let next = block_after(&marks, &current);
            out.push(std::mem::replace(&mut current, next));
        } else {
            current.text.push(c);
            current.marks.push(marks);
        }
    }
    out.push(current);
    out
}

/// An empty block as a break describes the block after it.
fn block_after(marks: &Marks, before: &Block) -> Block {
    let data: serde_json::Value = marks
        .entity
        .as_ref()
        .and_then(|e| serde_json::from_str(&e.data).ok())
        .unwrap_or_default();
    let text = |name: &str| data.get(name).and_then(serde_json::Value::as_str);
    Block {
        key: text("key").map(str::to_owned),
        kind: text("type").unwrap_or(&before.kind).to_owned(),
        depth: data
            .get("depth")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0),
        data: text("data").unwrap_or("{}").to_owned(),
        text: Vec::new(),
        marks: Vec::new(),
    }
}

/// The photos `mine`, a group of joined or split blocks, holds that
/// neither `theirs` nor `base` does: the ones it placed there.
pub fn photos_placed(base: Option<&Block>, mine: &Block, theirs: &Block) -> Vec<Block> {
    if !mine.text.contains(&BREAK) {
        return Vec::new();
    }
    let photos = |block: Option<&Block>| -> Vec<Block> {
        block.map_or_else(Vec::new, |b| {
            split_at_breaks(b.clone())
                .into_iter()
                .filter(|piece| piece.image_parts().is_some())
                .collect()
        })
    };
    let elsewhere: Vec<Block> = photos(Some(theirs))
        .into_iter()
        .chain(photos(base))
        .collect();
    photos(Some(mine))
        .into_iter()
        .filter(|photo| !elsewhere.iter().any(|other| other.same_content(photo)))
        .collect()
}

/// A block as a person reads it in a conflict: its breaks as line breaks.
pub fn for_reading(block: &Block) -> Block {
    if !block
        .text
        .iter()
        .zip(&block.marks)
        .any(|(c, m)| *c == BREAK && is_break(m))
    {
        return block.clone();
    }
    // A group's pieces, one a line; a photo among them as "[Photo: caption]".
    let mut out = Block {
        text: Vec::new(),
        marks: Vec::new(),
        ..block.clone()
    };
    for (at, piece) in split_at_breaks(block.clone()).into_iter().enumerate() {
        if at > 0 {
            out.text.push('\n');
            out.marks.push(Marks::default());
        }
        match piece.image_parts() {
            Some((_, alt)) => {
                let line: Vec<char> = format!("[Photo: {alt}]").chars().collect();
                out.marks
                    .extend(std::iter::repeat_n(Marks::default(), line.len()));
                out.text.extend(line);
            }
            None => {
                out.text.extend(piece.text);
                out.marks.extend(piece.marks);
            }
        }
    }
    out
}

/// A block's words, counted: lower case, split at anything that is not a letter or a digit.
fn word_counts(block: &Block) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for word in super::align::words_for_likeness(block) {
        *counts.entry(word).or_default() += 1;
    }
    counts
}

/// Takes `block`'s words out of `pool` as far as it has them; whether most
/// of them were there (a block of no words never is).
fn drawn_mostly_from(pool: &mut HashMap<String, usize>, block: &Block) -> bool {
    let words = super::align::words_for_likeness(block);
    let mut drawn = 0;
    for word in &words {
        if let Some(left) = pool.get_mut(word)
            && *left > 0
        {
            *left -= 1;
            drawn += 1;
        }
    }
    !words.is_empty() && drawn as f64 >= JOINED_SHARE * words.len() as f64
}

/// What `have` holds beyond `less`.
fn surplus(
    mut have: HashMap<String, usize>,
    less: &HashMap<String, usize>,
) -> HashMap<String, usize> {
    for (word, n) in less {
        if let Some(left) = have.get_mut(word) {
            *left = left.saturating_sub(*n);
        }
    }
    have
}

/// Ids joined into groups (a union-find over every id).
struct Groups {
    parent: HashMap<BlockId, BlockId>,
}

impl Groups {
    fn root(&mut self, id: BlockId) -> BlockId {
        let mut at = id;
        while let Some(up) = self.parent.get(&at).copied().filter(|up| *up != at) {
            at = up;
        }
        // Shorten the path for the next lookup.
        let mut walk = id;
        while walk != at {
            let up = self.parent.insert(walk, at).unwrap_or(at);
            walk = up;
        }
        at
    }

    fn join(&mut self, a: BlockId, b: BlockId) {
        let (a, b) = (self.root(a), self.root(b));
        if a != b {
            // The smaller id leads, so a base block leads its group.
            let (low, high) = (a.min(b), a.max(b));
            self.parent.insert(high, low);
            self.parent.entry(low).or_insert(low);
        }
    }
}

/// One side's blocks and the id each stands for.
pub struct SideIds<'a> {
    pub blocks: &'a [Block],
    pub ids: &'a [BlockId],
}

/// Finds the joins and splits of one side and adds them to `groups`.
fn find_on_side(base: &[Block], side: &SideIds<'_>, groups: &mut Groups) {
    let is_base = |id: BlockId| id < base.len();
    let present: std::collections::HashSet<BlockId> = side.ids.iter().copied().collect();
    // The base blocks found joined into a block so far, and the last block
    // so far that stands for a base block.
    let mut claimed = std::collections::HashSet::new();
    let mut last_base: Option<BlockId> = None;
    for (at, (block, id)) in side.blocks.iter().zip(side.ids).enumerate() {
        if !is_base(*id) {
            if block.is_atomic() {
                continue;
            }
            // A new block joined with the base blocks after it (a paragraph
            // typed, or split off, and the next one pulled up into it,
            // which keeps the new block's key): it holds the words of the
            // base blocks after the last one the side has before it, which
            // the side deleted and no block before took (past photos it
            // deleted).
            let mut gained = None;
            for (later, later_block) in base.iter().enumerate().skip(last_base.map_or(0, |b| b + 1))
            {
                if present.contains(&later) || claimed.contains(&later) {
                    break;
                }
                if later_block.is_atomic() {
                    continue;
                }
                let gained = gained.get_or_insert_with(|| word_counts(block));
                if !drawn_mostly_from(gained, later_block) {
                    break;
                }
                claimed.insert(later);
                groups.join(*id, later);
            }
            continue;
        }
        last_base = Some(*id);
        if block.is_atomic() || base[*id].is_atomic() {
            continue;
        }
        let base_block = &base[*id];
        if block.text == base_block.text {
            // It neither lost words to blocks after it nor took theirs.
            continue;
        }
        // A split: the blocks added after it hold what its base block had
        // and it lost. A photo placed between the halves goes into the
        // group with them, so it stays between them.
        if side.ids.get(at + 1).is_some_and(|next| !is_base(*next)) {
            let mut lost = surplus(word_counts(base_block), &word_counts(block));
            let mut photos = Vec::new();
            for (next, next_id) in side.blocks[at + 1..].iter().zip(&side.ids[at + 1..]) {
                if is_base(*next_id) {
                    break;
                }
                if next.image_parts().is_some() {
                    photos.push(*next_id);
                    continue;
                }
                if next.is_atomic() || !drawn_mostly_from(&mut lost, next) {
                    break;
                }
                for photo in photos.drain(..) {
                    groups.join(*id, photo);
                }
                groups.join(*id, *next_id);
            }
        }
        // A join: it holds what base blocks after its own, which the side deleted, had.
        if id + 1 >= base.len() || present.contains(&(id + 1)) {
            continue;
        }
        let mut gained = surplus(word_counts(block), &word_counts(base_block));
        for (later, later_block) in base.iter().enumerate().skip(id + 1) {
            if present.contains(&later)
                || later_block.is_atomic()
                || !drawn_mostly_from(&mut gained, later_block)
            {
                break;
            }
            claimed.insert(later);
            groups.join(*id, later);
        }
    }
}

/// The groups of ids that one side or the other joined or split, each of
/// two ids or more, in order of their leading (smallest) id, which is a
/// base block's.
pub fn find_groups(base: &[Block], mine: &SideIds<'_>, theirs: &SideIds<'_>) -> Vec<Vec<BlockId>> {
    let mut groups = Groups {
        parent: HashMap::new(),
    };
    find_on_side(base, mine, &mut groups);
    find_on_side(base, theirs, &mut groups);
    let ids: Vec<BlockId> = groups.parent.keys().copied().collect();
    let mut by_root: HashMap<BlockId, Vec<BlockId>> = HashMap::new();
    for id in ids {
        let root = groups.root(id);
        by_root.entry(root).or_default().push(id);
    }
    let mut out: Vec<Vec<BlockId>> = by_root
        .into_values()
        .filter(|members| members.len() > 1)
        .map(|mut members| {
            members.sort_unstable();
            members
        })
        .collect();
    out.sort_unstable_by_key(|members| members[0]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_joined_block_splits_back_into_its_blocks() {
        let mut second = Block::plain("header-two", "Two");
        second.key = Some("b".to_owned());
        let first = Block::plain("unstyled", "One");
        let group = joined(&[&first, &second]).expect("blocks");
        assert_eq!(group.text.iter().filter(|c| **c == BREAK).count(), 1);
        assert_eq!(
            split_at_breaks(group.clone()),
            vec![first.clone(), second.clone()]
        );
        assert_eq!(for_reading(&group).text(), "One\nTwo");
        let photo = Block::image("/files/a1/p.jpg", "The dock");
        let with_photo = joined(&[&first, &photo, &second]).expect("blocks");
        assert_eq!(
            for_reading(&with_photo).text(),
            "One\n[Photo: The dock]\nTwo"
        );
        assert_eq!(
            for_reading(&photo),
            photo,
            "a photo alone is shown as it is"
        );
    }
}
