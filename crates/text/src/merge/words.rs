//! Merging one block changed on both sides: a diff3 over its words, then each character's styles and link merged three ways.
//!
//! Styles and links follow the words they were on (see `marks`).

use std::ops::Range;

use super::diff3::{Region, Resolution, diff3_keeping};
use super::joins::{BREAK, is_break};
use super::marks::{Kept, Renames, RunChange, merge_marks, written_marks};
use super::rich_text::{Block, Marks, tokens};

/// Takes the side that changed a value; both changed: theirs (the server's).
fn three_way<'a, T: PartialEq>(base: &'a T, mine: &'a T, theirs: &'a T) -> &'a T {
    if mine == base { theirs } else { mine }
}

/// The character for merged marks where mine has `mine` and theirs
/// `theirs`, which compare alike: a paragraph break where the marks are a
/// break's, else the side's character that is not a break.
fn break_or(merged: &Marks, mine: char, theirs: char) -> char {
    if is_break(merged) {
        BREAK
    } else if mine == BREAK {
        theirs
    } else {
        mine
    }
}

/// The three versions of one block, cut into tokens.
struct Sides<'a> {
    base: &'a Block,
    base_tokens: Vec<Range<usize>>,
    mine_tokens: Vec<Range<usize>>,
    theirs_tokens: Vec<Range<usize>>,
}

impl Sides<'_> {
    /// The characters a run of tokens covers.
    fn chars(tokens: &[Range<usize>], run: &Range<usize>) -> Range<usize> {
        if run.is_empty() {
            let at = tokens
                .get(run.start)
                .map_or_else(|| tokens.last().map_or(0, |t| t.end), |t| t.start);
            return at..at;
        }
        tokens[run.start].start..tokens[run.end - 1].end
    }

    /// The character of a stable region next to a change: its first, or
    /// (`last`) its last. For a pure insertion whose last character is the
    /// same as the one before it (`slides`: "today " after "report "), the
    /// insertion could as well stand one character earlier (" today" after
    /// "report"), so the neighbour is the character before that one.
    fn kept_edge(&self, region: &Region, last: bool, slides: Option<char>) -> Option<Kept> {
        if region.resolution.is_some() || region.base.is_empty() {
            return None;
        }
        let base_chars = Self::chars(&self.base_tokens, &region.base);
        let step = if last {
            let end = base_chars.len() - 1;
            let slid = slides == Some(self.base.text[base_chars.start + end]) && end > 0;
            if slid { end - 1 } else { end }
        } else {
            0
        };
        let pick =
            |tokens: &[Range<usize>], run: &Range<usize>| Self::chars(tokens, run).start + step;
        Some(Kept {
            base: base_chars.start + step,
            mine: pick(&self.mine_tokens, &region.mine),
            theirs: pick(&self.theirs_tokens, &region.theirs),
        })
    }
}

/// Merges a block both sides changed; `None` when the same words changed
/// differently (a conflict on this block).
pub fn merge_block(base: &Block, mine: &Block, theirs: &Block) -> Option<Block> {
    if mine.same_content(base) {
        return Some(theirs.clone());
    }
    if theirs.same_content(base) || theirs.same_content(mine) {
        let mut merged = mine.clone();
        merged.key = theirs.key.clone().or_else(|| mine.key.clone());
        return Some(merged);
    }
    let sides = Sides {
        base,
        base_tokens: tokens(&base.text),
        mine_tokens: tokens(&mine.text),
        theirs_tokens: tokens(&theirs.text),
    };
    // A paragraph break compares as a space: joining two paragraphs with a
    // space changes no word, and splitting one at a space adds none.
    let words = |block: &Block, cut: &[Range<usize>]| -> Vec<Vec<char>> {
        cut.iter()
            .map(|r| {
                if block.text[r.clone()] == [BREAK] && is_break(&block.marks[r.start]) {
                    vec![' ']
                } else {
                    block.text[r.clone()].to_vec()
                }
            })
            .collect()
    };
    let walk = diff3_keeping(
        &words(base, &sides.base_tokens),
        &words(mine, &sides.mine_tokens),
        &words(theirs, &sides.theirs_tokens),
    );
    let regions = &walk.regions;
    let mine_renames = Renames::find(
        base,
        mine,
        &sides.base_tokens,
        &sides.mine_tokens,
        &walk.in_mine,
    );
    let theirs_renames = Renames::find(
        base,
        theirs,
        &sides.base_tokens,
        &sides.theirs_tokens,
        &walk.in_theirs,
    );
    // The other side's change over the base characters a side wrote over
    // (in such a region the other side kept the base's words).
    let replaced = |region: &Region,
                    other: &Block,
                    other_tokens: &[Range<usize>],
                    other_run: &Range<usize>| {
        if region.base.is_empty() {
            return None;
        }
        let b = Sides::chars(&sides.base_tokens, &region.base);
        let o = Sides::chars(other_tokens, other_run);
        Some(RunChange::find(
            &base.marks[b.clone()],
            &other.marks[o],
            &base.text[b],
        ))
    };
    let mut text = Vec::with_capacity(mine.text.len().max(theirs.text.len()));
    let mut marks = Vec::with_capacity(text.capacity());
    for (i, region) in regions.iter().enumerate() {
        // A pure insertion's last character, for the slide in `kept_edge`.
        let inserted_last = match region.resolution {
            Some(Resolution::Mine) if region.base.is_empty() => {
                Sides::chars(&sides.mine_tokens, &region.mine)
                    .last()
                    .map(|i| mine.text[i])
            }
            Some(Resolution::Theirs) if region.base.is_empty() => {
                Sides::chars(&sides.theirs_tokens, &region.theirs)
                    .last()
                    .map(|i| theirs.text[i])
            }
            _ => None,
        };
        let before = i
            .checked_sub(1)
            .and_then(|j| sides.kept_edge(&regions[j], true, inserted_last));
        let after = regions
            .get(i + 1)
            .and_then(|r| sides.kept_edge(r, false, None));
        match region.resolution {
            None => {
                let b = Sides::chars(&sides.base_tokens, &region.base);
                let m = Sides::chars(&sides.mine_tokens, &region.mine);
                let t = Sides::chars(&sides.theirs_tokens, &region.theirs);
                for ((bi, mi), ti) in b.zip(m).zip(t) {
                    let merged = merge_marks(&base.marks[bi], &mine.marks[mi], &theirs.marks[ti]);
                    text.push(break_or(&merged, mine.text[mi], theirs.text[ti]));
                    marks.push(merged);
                }
            }
            Some(Resolution::Mine) => {
                let change = replaced(region, theirs, &sides.theirs_tokens, &region.theirs);
                for mi in Sides::chars(&sides.mine_tokens, &region.mine) {
                    text.push(mine.text[mi]);
                    marks.push(written_marks(
                        &mine.marks[mi],
                        base,
                        theirs,
                        |k| k.theirs,
                        (before, after),
                        change.as_ref(),
                        (&mine_renames, &theirs_renames),
                        true,
                    ));
                }
            }
            Some(Resolution::Theirs) => {
                let change = replaced(region, mine, &sides.mine_tokens, &region.mine);
                for ti in Sides::chars(&sides.theirs_tokens, &region.theirs) {
                    text.push(theirs.text[ti]);
                    marks.push(written_marks(
                        &theirs.marks[ti],
                        base,
                        mine,
                        |k| k.mine,
                        (before, after),
                        change.as_ref(),
                        (&theirs_renames, &mine_renames),
                        false,
                    ));
                }
            }
            Some(Resolution::Both) => {
                let m = Sides::chars(&sides.mine_tokens, &region.mine);
                let t = Sides::chars(&sides.theirs_tokens, &region.theirs);
                for (mi, ti) in m.zip(t) {
                    let (own, other) = (&mine.marks[mi], &theirs.marks[ti]);
                    let merged = Marks::annotated(
                        own.styles.union(&other.styles).cloned().collect(),
                        other.entity.clone().or_else(|| own.entity.clone()),
                        own.annotations.union(&other.annotations).cloned().collect(),
                    );
                    text.push(break_or(&merged, mine.text[mi], theirs.text[ti]));
                    marks.push(merged);
                }
            }
            Some(Resolution::Conflict) => return None,
        }
    }
    Some(Block {
        key: theirs.key.clone().or_else(|| mine.key.clone()),
        kind: three_way(&base.kind, &mine.kind, &theirs.kind).clone(),
        depth: *three_way(&base.depth, &mine.depth, &theirs.depth),
        data: three_way(&base.data, &mine.data, &theirs.data).clone(),
        text,
        marks,
    })
}
