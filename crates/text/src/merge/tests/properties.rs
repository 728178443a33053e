//! The merge's properties over generated stories: moves, disjoint edits, nothing lost, symmetry, valid raw content.

use proptest::prelude::*;

use super::*;

/// The paragraph the move tests move: words no other paragraph has.
const MOVED: &str = "Mayor Quinn opened the Elm Street bridge";

proptest! {
    /// One side moves a paragraph (and may edit it, at its start), the
    /// other edits it (at its end): the merged story has it once, with
    /// both edits, where the mover put it, and every other paragraph as it
    /// was, in its order. Without keys, as an HTML client or a re-keying
    /// editor sends it.
    #[test]
    fn a_moved_paragraph_stands_once_with_both_edits_where_it_was_moved(
        others in distinct_document(),
        from in any::<prop::sample::Index>(),
        to in any::<prop::sample::Index>(),
        mover_edits in any::<bool>(),
        mover_is_mine in any::<bool>(),
    ) {
        let mut base = others.clone();
        base.insert(from.index(others.len() + 1), MOVED.to_owned());
        let mut moved = others.clone();
        let moved_text = if mover_edits { format!("MOVER {MOVED}") } else { MOVED.to_owned() };
        let to = to.index(others.len() + 1);
        moved.insert(to, moved_text.clone());
        let mut edited = base.clone();
        let at = base.iter().position(|p| p == MOVED).expect("there");
        edited[at] = format!("{MOVED} EDITOR");
        let (mine, theirs) = if mover_is_mine { (&moved, &edited) } else { (&edited, &moved) };
        let merged = merge(&as_doc(&base), &as_doc(mine), &as_doc(theirs));
        prop_assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
        let text = texts(&merged.text);
        let holding: Vec<usize> = (0..text.len()).filter(|i| text[*i].contains("Quinn")).collect();
        prop_assert_eq!(holding.len(), 1, "{:?}", text);
        prop_assert_eq!(&text[holding[0]], &format!("{moved_text} EDITOR"));
        prop_assert_eq!(holding[0], to);
        let rest: Vec<String> = text.iter().filter(|p| !p.contains("Quinn")).cloned().collect();
        prop_assert_eq!(rest, others);
    }
}

proptest! {
    #[test]
    fn edits_to_disjoint_paragraphs_always_merge_to_both(
        base in distinct_document(),
        picks in prop::collection::vec((any::<prop::sample::Index>(), any::<bool>(), 0u8..3), 1..6),
    ) {
        let (mine, theirs, expected) = disjoint_edits(&base, picks);
        let merged = merge(&as_doc(&base), &as_doc(&mine), &as_doc(&theirs));
        prop_assert!(merged.conflicts.is_empty());
        prop_assert_eq!(texts(&merged.text), expected);
    }

    #[test]
    fn with_keys_even_repeated_paragraphs_merge_to_both(
        base in document(),
        picks in prop::collection::vec((any::<prop::sample::Index>(), any::<bool>(), 0u8..3), 1..6),
    ) {
        let (mine, theirs, expected) = disjoint_edits(&base, picks);
        let merged = merge(&as_keyed(&base), &as_keyed(&mine), &as_keyed(&theirs));
        prop_assert!(merged.conflicts.is_empty());
        prop_assert_eq!(texts(&merged.text), expected);
    }

    #[test]
    fn a_paragraph_both_sides_kept_is_never_lost(
        base in distinct_document(),
        mine_moves in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 0..3),
        theirs_adds in prop::collection::vec((any::<prop::sample::Index>(), paragraph()), 0..3),
        positional_keys in any::<bool>(),
    ) {
        // Mine moves paragraphs around; theirs adds some. Keys are stable
        // ids, or positions as our own editor writes them.
        let with_ids: Vec<(String, String)> =
            base.iter().enumerate().map(|(i, p)| (format!("k{i}"), p.clone())).collect();
        let mut mine = with_ids.clone();
        for (from, to) in mine_moves {
            let moved = mine.remove(from.index(mine.len()));
            let at = to.index(mine.len() + 1);
            mine.insert(at, moved);
        }
        let mut theirs = with_ids.clone();
        for (n, (at, text)) in theirs_adds.into_iter().enumerate() {
            let at = at.index(theirs.len() + 1);
            theirs.insert(at, (format!("t{n}"), format!("{text} new")));
        }
        let keyed = |blocks: &[(String, String)]| RichText {
            blocks: blocks
                .iter()
                .enumerate()
                .map(|(i, (key, text))| Block {
                    key: Some(if positional_keys { format!("b{i}") } else { key.clone() }),
                    ..Block::plain("unstyled", text)
                })
                .collect(),
        };
        let merged = merge(&keyed(&with_ids), &keyed(&mine), &keyed(&theirs));
        let result = texts(&merged.text);
        for paragraph in &base {
            prop_assert!(result.contains(paragraph), "{paragraph} was lost: {result:?}");
        }
        for (_, added) in theirs.iter().filter(|(k, _)| k.starts_with('t')) {
            prop_assert!(result.contains(added), "{added} was lost: {result:?}");
        }
    }

    #[test]
    fn merging_identical_or_unchanged_sides_changes_nothing(base in document(), other in document()) {
        let (b, x) = (as_doc(&base), as_doc(&other));
        prop_assert_eq!(texts(&merge(&b, &x, &x).text), other.clone());
        prop_assert_eq!(texts(&merge(&b, &x, &b).text), other.clone());
        prop_assert_eq!(texts(&merge(&b, &b, &x).text), other);
    }

    #[test]
    fn no_word_of_either_side_is_lost(base in document(), mine in document(), theirs in document()) {
        let merged = merge(&as_doc(&base), &as_doc(&mine), &as_doc(&theirs));
        let count = |paragraphs: &mut dyn Iterator<Item = String>| {
            let mut counts = std::collections::HashMap::<String, usize>::new();
            for paragraph in paragraphs {
                for word in paragraph.split_whitespace() {
                    *counts.entry(word.to_owned()).or_default() += 1;
                }
            }
            counts
        };
        let in_base = count(&mut base.iter().cloned());
        let mut kept = count(&mut merged.text.blocks.iter().map(Block::text));
        for (word, n) in count(&mut merged.conflicts.iter().flat_map(|c| [c.mine.text(), c.theirs.text()])) {
            *kept.entry(word).or_default() += n;
        }
        // A word a side added (it has more of it than the base) is in the
        // merged text or in a conflict.
        for side in [&mine, &theirs] {
            for (word, n) in count(&mut side.iter().cloned()) {
                if n > in_base.get(&word).copied().unwrap_or(0) {
                    prop_assert!(kept.contains_key(&word), "{word} was lost");
                }
            }
        }
    }

    #[test]
    fn swapping_the_sides_changes_only_which_side_a_conflict_names(
        base in document(), mine in document(), theirs in document(),
    ) {
        let (b, m, t) = (as_doc(&base), as_doc(&mine), as_doc(&theirs));
        let there = merge(&b, &m, &t);
        let back = merge(&b, &t, &m);
        // The same conflicts, in any order: they come in the merged text's
        // order, and a block both sides moved stands where mine put it.
        let mut named: Vec<(&Block, &Block)> =
            there.conflicts.iter().map(|c| (&c.mine, &c.theirs)).collect();
        let mut swapped: Vec<(&Block, &Block)> =
            back.conflicts.iter().map(|c| (&c.theirs, &c.mine)).collect();
        named.sort_by_key(|(m, t)| (m.text(), t.text()));
        swapped.sort_by_key(|(m, t)| (m.text(), t.text()));
        prop_assert_eq!(named, swapped);
    }

    #[test]
    fn merged_raw_content_is_valid_draft_js(base in document(), mine in document(), theirs in document()) {
        let merged = merge(&as_doc(&base), &as_doc(&mine), &as_doc(&theirs));
        let raw = raw_value(&merged.text);
        prop_assert!(crate::draftjs::validate_raw(&raw).is_ok());
        prop_assert_eq!(draft_raw::from_raw(&raw).map(|t| texts(&t)), Some(texts(&merged.text)));
    }
}
