//! The three-way walk over any token sequences (diff3): which stretches both sides kept, and how each changed stretch resolves.
//!
//! Both sides are diffed against the base with `similar`'s patience diff,
//! which anchors on the tokens each side holds once (a word before the
//! spaces around it: with Myers, "council council p0" against "council p0
//! budget" could keep two spaces and give up "p0", moving the note on it
//! to "budget"); a base token that
//! both sides kept in place is a sync point, and everything between two sync
//! points is one chunk. A chunk changed on one side takes that side; the
//! same change on both sides is taken once (unlike GNU diff3, which calls it
//! a conflict); different changes are a conflict.

use std::hash::Hash;
use std::ops::Range;

use similar::{Algorithm, DiffOp, capture_diff_slices_deadline};

/// How a changed chunk resolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// Only mine changed it: mine's tokens.
    Mine,
    /// Only theirs changed it: theirs' tokens.
    Theirs,
    /// Both changed it the same way: taken once (mine's tokens, equal to theirs').
    Both,
    /// Both changed it differently.
    Conflict,
}

/// One stretch of the walk, with the ranges it covers in each sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub base: Range<usize>,
    pub mine: Range<usize>,
    pub theirs: Range<usize>,
    /// `None`: a stable stretch, the same tokens on all three.
    pub resolution: Option<Resolution>,
}

/// How long one diff may search for the smallest difference before it
/// settles for a larger one (still exact, only coarser): the merge runs in
/// a write transaction, and a huge paragraph must not hold it for long.
pub const DIFF_DEADLINE: std::time::Duration = std::time::Duration::from_millis(200);

/// For each base token, the index of the token a side kept it as.
fn kept_at<T: Eq + Hash>(base: &[T], side: &[T]) -> Vec<Option<usize>> {
    let mut kept = vec![None; base.len()];
    let deadline = std::time::Instant::now() + DIFF_DEADLINE;
    for op in capture_diff_slices_deadline(Algorithm::Patience, base, side, Some(deadline)) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for offset in 0..len {
                kept[old_index + offset] = Some(new_index + offset);
            }
        }
    }
    kept
}

/// Walks base, mine and theirs together; the regions cover all three in order.
pub fn diff3<T: Eq + Hash>(base: &[T], mine: &[T], theirs: &[T]) -> Vec<Region> {
    diff3_keeping(base, mine, theirs).regions
}

/// A walk, with what each side kept of the base.
pub struct Walk {
    pub regions: Vec<Region>,
    /// For each base token, the index of the token mine kept it as.
    pub in_mine: Vec<Option<usize>>,
    /// For each base token, the index of the token theirs kept it as.
    pub in_theirs: Vec<Option<usize>>,
}

/// Walks base, mine and theirs together (see [`diff3`]), and tells what each side kept.
pub fn diff3_keeping<T: Eq + Hash>(base: &[T], mine: &[T], theirs: &[T]) -> Walk {
    walk(
        base,
        mine,
        theirs,
        kept_at(base, mine),
        kept_at(base, theirs),
    )
}

/// Walks sequences of distinct ids (a story's blocks): what a side kept of
/// the base is the longest run of base ids it has in the base's order,
/// found in `n log n` (the longest increasing subsequence), where a diff of
/// a long story with thousands of changes would take its deadline.
pub fn diff3_of_ids(base: &[usize], mine: &[usize], theirs: &[usize]) -> Vec<Region> {
    walk(
        base,
        mine,
        theirs,
        kept_ids(base, mine),
        kept_ids(base, theirs),
    )
    .regions
}

/// For each of the distinct base ids, where `side` kept it, if in order (see [`diff3_of_ids`]).
fn kept_ids(base: &[usize], side: &[usize]) -> Vec<Option<usize>> {
    let place: std::collections::HashMap<usize, usize> =
        base.iter().enumerate().map(|(at, id)| (*id, at)).collect();
    // The side's blocks that stand for base blocks: (index in side, index in base).
    let pairs: Vec<(usize, usize)> = side
        .iter()
        .enumerate()
        .filter_map(|(at, id)| Some((at, *place.get(id)?)))
        .collect();
    // Patience sorting: tails[k] ends the best increasing run of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = vec![None; pairs.len()];
    for (i, (_, in_base)) in pairs.iter().enumerate() {
        let k = tails.partition_point(|t| pairs[*t].1 < *in_base);
        before[i] = k.checked_sub(1).map(|k| tails[k]);
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut kept = vec![None; base.len()];
    let mut at = tails.last().copied();
    while let Some(i) = at {
        let (in_side, in_base) = pairs[i];
        kept[in_base] = Some(in_side);
        at = before[i];
    }
    kept
}

fn walk<T: Eq>(
    base: &[T],
    mine: &[T],
    theirs: &[T],
    in_mine: Vec<Option<usize>>,
    in_theirs: Vec<Option<usize>>,
) -> Walk {
    let (mut b, mut m, mut t) = (0, 0, 0);
    let mut regions: Vec<Region> = Vec::new();
    while b < base.len() || m < mine.len() || t < theirs.len() {
        if b < base.len() && in_mine[b] == Some(m) && in_theirs[b] == Some(t) {
            match regions.last_mut() {
                Some(last) if last.resolution.is_none() => {
                    last.base.end += 1;
                    last.mine.end += 1;
                    last.theirs.end += 1;
                }
                _ => regions.push(Region {
                    base: b..b + 1,
                    mine: m..m + 1,
                    theirs: t..t + 1,
                    resolution: None,
                }),
            }
            b += 1;
            m += 1;
            t += 1;
            continue;
        }
        // The next base token both sides kept ends this chunk.
        let next = (b..base.len()).find_map(|k| Some((k, in_mine[k]?, in_theirs[k]?)));
        let (b_end, m_end, t_end) = next.unwrap_or((base.len(), mine.len(), theirs.len()));
        let (base_part, mine_part, theirs_part) =
            (&base[b..b_end], &mine[m..m_end], &theirs[t..t_end]);
        let resolution = if mine_part == base_part {
            Resolution::Theirs
        } else if theirs_part == base_part {
            Resolution::Mine
        } else if mine_part == theirs_part {
            Resolution::Both
        } else {
            Resolution::Conflict
        };
        regions.push(Region {
            base: b..b_end,
            mine: m..m_end,
            theirs: t..t_end,
            resolution: Some(resolution),
        });
        (b, m, t) = (b_end, m_end, t_end);
    }
    Walk {
        regions,
        in_mine,
        in_theirs,
    }
}

/// The tokens of a walk with every chunk resolved, or `None` at the first conflict.
pub fn merge_tokens<T: Eq + Hash + Clone>(base: &[T], mine: &[T], theirs: &[T]) -> Option<Vec<T>> {
    let mut merged = Vec::with_capacity(mine.len().max(theirs.len()));
    for region in diff3(base, mine, theirs) {
        match region.resolution {
            None | Some(Resolution::Mine | Resolution::Both) => {
                merged.extend_from_slice(&mine[region.mine]);
            }
            Some(Resolution::Theirs) => merged.extend_from_slice(&theirs[region.theirs]),
            Some(Resolution::Conflict) => return None,
        }
    }
    Some(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn words(text: &str) -> Vec<&str> {
        text.split(' ').collect()
    }

    fn merged(base: &str, mine: &str, theirs: &str) -> Option<String> {
        merge_tokens(&words(base), &words(mine), &words(theirs)).map(|w| w.join(" "))
    }

    proptest! {
        #[test]
        fn ids_kept_in_order_are_a_longest_common_run(
            base_len in 0usize..20,
            side in prop::collection::vec(0usize..30, 0..25),
        ) {
            let base: Vec<usize> = (0..base_len).collect();
            let mut side = side;
            let mut seen = std::collections::HashSet::new();
            side.retain(|id| seen.insert(*id));
            let by_ids = kept_ids(&base, &side);
            let by_diff = kept_at(&base, &side);
            let count = |kept: &[Option<usize>]| kept.iter().flatten().count();
            prop_assert_eq!(count(&by_ids), count(&by_diff));
            let kept: Vec<(usize, usize)> = by_ids.iter().enumerate().filter_map(|(b, s)| Some((b, (*s)?))).collect();
            for pair in kept.windows(2) {
                prop_assert!(pair[0].1 < pair[1].1);
            }
            for (b, s) in kept {
                prop_assert_eq!(base[b], side[s]);
            }
        }
    }

    #[test]
    fn changes_apart_both_apply() {
        assert_eq!(
            merged("a b c d e", "A b c d e", "a b c d E").as_deref(),
            Some("A b c d E")
        );
    }

    #[test]
    fn the_same_change_applies_once() {
        assert_eq!(
            merged("hello world", "Hello world", "Hello world").as_deref(),
            Some("Hello world")
        );
    }

    #[test]
    fn different_changes_of_the_same_words_conflict() {
        assert_eq!(merged("a b c", "a X c", "a Y c"), None);
        // A deletion against an edit inside what it deleted.
        assert_eq!(merged("a b c d", "a d", "a B c d"), None);
    }

    #[test]
    fn inserts_at_the_same_place_conflict_unless_equal() {
        assert_eq!(merged("a b", "a x b", "a y b"), None);
        assert_eq!(merged("a b", "a x b", "a x b").as_deref(), Some("a x b"));
    }

    proptest! {
        #[test]
        fn merging_with_an_unchanged_side_takes_the_other(
            base in prop::collection::vec(0u8..6, 0..30),
            side in prop::collection::vec(0u8..6, 0..30),
        ) {
            prop_assert_eq!(merge_tokens(&base, &side, &base), Some(side.clone()));
            prop_assert_eq!(merge_tokens(&base, &base, &side), Some(side.clone()));
            prop_assert_eq!(merge_tokens(&base, &side, &side), Some(side));
        }

        #[test]
        fn regions_cover_all_three_in_order(
            base in prop::collection::vec(0u8..5, 0..25),
            mine in prop::collection::vec(0u8..5, 0..25),
            theirs in prop::collection::vec(0u8..5, 0..25),
        ) {
            let regions = diff3(&base, &mine, &theirs);
            let (mut b, mut m, mut t) = (0, 0, 0);
            for region in &regions {
                prop_assert_eq!(region.base.start, b);
                prop_assert_eq!(region.mine.start, m);
                prop_assert_eq!(region.theirs.start, t);
                if region.resolution.is_none() {
                    prop_assert_eq!(&base[region.base.clone()], &mine[region.mine.clone()]);
                    prop_assert_eq!(&base[region.base.clone()], &theirs[region.theirs.clone()]);
                }
                (b, m, t) = (region.base.end, region.mine.end, region.theirs.end);
            }
            prop_assert_eq!((b, m, t), (base.len(), mine.len(), theirs.len()));
        }

        #[test]
        fn swapping_the_sides_swaps_only_the_names(
            base in prop::collection::vec(0u8..5, 0..25),
            mine in prop::collection::vec(0u8..5, 0..25),
            theirs in prop::collection::vec(0u8..5, 0..25),
        ) {
            prop_assert_eq!(
                merge_tokens(&base, &mine, &theirs),
                merge_tokens(&base, &theirs, &mine)
            );
        }
    }
}
