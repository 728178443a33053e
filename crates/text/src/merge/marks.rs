//! The marks of merged characters: styles and links follow the words they were on, whichever side rewrote those words.
//!
//! A character both sides kept takes each style and its link from the side
//! that changed it. Words one side inserted take the other side's style
//! change from the character before them (so a bold range grows over words
//! typed at its end, as Peritext does) and its link change only when the
//! characters on both sides of them got it (a link does not grow at its
//! edges). Words one side wrote in place of others take the style or link
//! the other side put on every one of the words they replaced. A link the
//! other side changed as a whole (its address fixed, or the link removed)
//! is changed on the inserted words that carry it too, so a link's address
//! and its text merge apart and a link never splits in two. Notes merge as
//! styles do on the characters both kept and as links do at their edges;
//! a suggested edit stays on the characters it was made on and never
//! spreads to the other side's words.

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use super::joins::is_break;
use super::rich_text::{Annotation, Block, Entity, Marks};

/// A character kept on all three sides, by its index in each.
#[derive(Clone, Copy)]
pub(super) struct Kept {
    pub base: usize,
    pub mine: usize,
    pub theirs: usize,
}

/// A character both sides kept: each style from the side that changed it,
/// the link likewise (changed on both sides: theirs).
pub(super) fn merge_marks(base: &Marks, mine: &Marks, theirs: &Marks) -> Marks {
    if mine == base {
        return theirs.clone();
    }
    if theirs == base || theirs == mine {
        return mine.clone();
    }
    let styles = each_from_its_changer(&base.styles, &mine.styles, &theirs.styles);
    let entity = if theirs.entity == base.entity {
        mine.entity.clone()
    } else {
        theirs.entity.clone()
    };
    let annotations =
        each_from_its_changer(&base.annotations, &mine.annotations, &theirs.annotations);
    Marks::annotated(styles, entity, annotations)
}

/// Each member of three sets as the side that added or took it off left
/// it: a flag's three-way merge.
fn each_from_its_changer<T: Ord + Clone>(
    base: &BTreeSet<T>,
    mine: &BTreeSet<T>,
    theirs: &BTreeSet<T>,
) -> BTreeSet<T> {
    let every: BTreeSet<&T> = base.iter().chain(mine).chain(theirs).collect();
    every
        .into_iter()
        .filter(|member| {
            let (b, m, t) = (
                base.contains(*member),
                mine.contains(*member),
                theirs.contains(*member),
            );
            if m == b { t } else { m }
        })
        .cloned()
        .collect()
}

/// The marks of a character one side (`taken`) inserted, with the other
/// side's change around it applied.
pub(super) fn inserted_marks(
    own: &Marks,
    base: &Block,
    other: &Block,
    other_index: impl Fn(Kept) -> usize,
    before: Option<Kept>,
    after: Option<Kept>,
) -> Marks {
    let mut marks = own.clone();
    if is_break(own) {
        return marks;
    }
    if let Some(left) = before {
        let (was, now) = (&base.marks[left.base], &other.marks[other_index(left)]);
        for style in now.styles.difference(&was.styles) {
            marks.styles.insert(style.clone());
        }
        for style in was.styles.difference(&now.styles) {
            marks.styles.remove(style);
        }
        if let Some(right) = after {
            let (was_right, now_right) =
                (&base.marks[right.base], &other.marks[other_index(right)]);
            let both_changed = was.entity == was_right.entity
                && now.entity == now_right.entity
                && now.entity != was.entity;
            if both_changed && marks.entity == was.entity {
                marks.entity.clone_from(&now.entity);
            }
            // A note, like a link, covers words typed inside it, not at its
            // edges; a suggestion never covers the other side's words.
            FlagChange::find(
                &[(was, now), (was_right, now_right)],
                |m| &m.annotations,
                is_note,
            )
            .apply(&mut marks.annotations);
        }
    }
    marks
}

/// The links (and other entities) a side changed as a whole: each base
/// entity whose every character the side kept now carries one other entity,
/// or none (the link removed).
pub(super) struct Renames {
    to: HashMap<Entity, Option<Entity>>,
    /// The base entity for each entity a side renamed one to.
    from: HashMap<Entity, Entity>,
}

impl Renames {
    /// Reads them off the characters a side kept: `kept` gives, for each
    /// base token, the side's token it was kept as.
    pub fn find(
        base: &Block,
        side: &Block,
        base_tokens: &[Range<usize>],
        side_tokens: &[Range<usize>],
        kept: &[Option<usize>],
    ) -> Self {
        // For each base entity: what the side's characters carry now, `None` once they disagree.
        let mut now_of: HashMap<&Entity, Option<Option<&Entity>>> = HashMap::new();
        for (base_token, side_token) in kept
            .iter()
            .enumerate()
            .filter_map(|(b, s)| Some((b, (*s)?)))
        {
            let (b, s) = (&base_tokens[base_token], &side_tokens[side_token]);
            for (bi, si) in b.clone().zip(s.clone()) {
                let Some(was) = base.marks[bi].entity.as_ref() else {
                    continue;
                };
                if is_break(&base.marks[bi]) {
                    continue;
                }
                let now = side.marks[si].entity.as_ref();
                now_of
                    .entry(was)
                    .and_modify(|seen| {
                        if *seen != Some(now) {
                            *seen = None;
                        }
                    })
                    .or_insert(Some(now));
            }
        }
        let to: HashMap<Entity, Option<Entity>> = now_of
            .into_iter()
            .filter_map(|(was, now)| {
                let now = now?;
                (now != Some(was)).then(|| (was.clone(), now.cloned()))
            })
            .collect();
        let from = to
            .iter()
            .filter_map(|(was, now)| Some((now.clone()?, was.clone())))
            .collect();
        Self { to, from }
    }

    /// What the side made of a base entity, when it changed it as a whole.
    fn of(&self, entity: &Entity) -> Option<&Option<Entity>> {
        self.to.get(entity)
    }
}

/// Whether an annotation is a note (which, unlike a suggestion, follows
/// the words around it).
fn is_note(annotation: &Annotation) -> bool {
    matches!(
        annotation,
        Annotation::Note(_) | Annotation::ResolvedNote(_)
    )
}

/// Flags (styles, notes) a side put on or took off every one of a run's
/// characters.
struct FlagChange<T> {
    added: BTreeSet<T>,
    removed: BTreeSet<T>,
}

impl<T> Default for FlagChange<T> {
    fn default() -> Self {
        Self {
            added: BTreeSet::new(),
            removed: BTreeSet::new(),
        }
    }
}

impl<T: Ord + Clone> FlagChange<T> {
    /// The flags of `set_of` that `counts` takes, changed alike on every
    /// pair of base and side marks.
    fn find(
        pairs: &[(&Marks, &Marks)],
        set_of: impl Fn(&Marks) -> &BTreeSet<T>,
        counts: impl Fn(&T) -> bool,
    ) -> Self {
        let every = |test: &dyn Fn(&BTreeSet<T>, &BTreeSet<T>) -> bool| {
            pairs.iter().all(|(b, s)| test(set_of(b), set_of(s)))
        };
        let flags: BTreeSet<&T> = pairs
            .iter()
            .flat_map(|(b, s)| set_of(b).iter().chain(set_of(s)))
            .filter(|flag| counts(flag))
            .collect();
        let mut change = Self::default();
        for flag in flags {
            if every(&|b, s| !b.contains(flag) && s.contains(flag)) {
                change.added.insert(flag.clone());
            } else if every(&|b, s| b.contains(flag) && !s.contains(flag)) {
                change.removed.insert(flag.clone());
            }
        }
        change
    }

    fn apply(&self, set: &mut BTreeSet<T>) {
        set.extend(self.added.iter().cloned());
        for flag in &self.removed {
            set.remove(flag);
        }
    }
}

/// The styles, link and notes a side put on every non-space character of a
/// run of base characters, where it changed them alike.
#[derive(Default)]
pub(super) struct RunChange {
    styles: FlagChange<String>,
    entity: Option<Option<Entity>>,
    notes: FlagChange<Annotation>,
}

impl RunChange {
    /// Compares the marks of the base's characters with the side's (the same
    /// characters, in the same order).
    pub fn find(base: &[Marks], side: &[Marks], chars: &[char]) -> Self {
        let pairs: Vec<(&Marks, &Marks)> = base
            .iter()
            .zip(side)
            .zip(chars)
            .filter(|(_, c)| !c.is_whitespace())
            .map(|(pair, _)| pair)
            .collect();
        let Some(((first_was, first_now), rest)) = pairs.split_first() else {
            return Self::default();
        };
        let mut change = Self {
            styles: FlagChange::find(&pairs, |m| &m.styles, |_| true),
            entity: None,
            notes: FlagChange::find(&pairs, |m| &m.annotations, is_note),
        };
        let alike = rest
            .iter()
            .all(|(b, s)| b.entity == first_was.entity && s.entity == first_now.entity);
        if alike && first_was.entity != first_now.entity {
            change.entity = Some(first_now.entity.clone());
        }
        change
    }

    fn apply(&self, marks: &mut Marks) {
        self.styles.apply(&mut marks.styles);
        if let Some(entity) = &self.entity {
            marks.entity.clone_from(entity);
        }
        self.notes.apply(&mut marks.annotations);
    }
}

/// The marks of a character one side wrote in place of base characters
/// (`replaced`: the other side's change over those) or, with `replaced`
/// `None`, inserted between them (see [`inserted_marks`]); then the links
/// the other side changed as a whole. Where both sides changed one link,
/// theirs wins (`own_is_mine`: the character is mine's).
#[allow(clippy::too_many_arguments)]
pub(super) fn written_marks(
    own: &Marks,
    base: &Block,
    other: &Block,
    other_index: impl Fn(Kept) -> usize,
    (before, after): (Option<Kept>, Option<Kept>),
    replaced: Option<&RunChange>,
    (own_renames, other_renames): (&Renames, &Renames),
    own_is_mine: bool,
) -> Marks {
    if is_break(own) {
        return own.clone();
    }
    let mut marks = match replaced {
        Some(change) => {
            let mut marks = own.clone();
            change.apply(&mut marks);
            marks
        }
        None => inserted_marks(own, base, other, other_index, before, after),
    };
    if let Some(entity) = marks.entity.clone() {
        if let Some(now) = other_renames.of(&entity) {
            marks.entity.clone_from(now);
        } else if own_is_mine
            && let Some(was) = own_renames.from.get(&entity)
            && let Some(theirs) = other_renames.of(was)
        {
            marks.entity.clone_from(theirs);
        }
    }
    marks
}
