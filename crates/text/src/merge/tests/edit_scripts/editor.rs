//! Applying an edit script to a story, on one side: each edit as an editor makes it, but for those that would take the case past what a merge can tell from the texts alone.

use std::collections::{HashMap, HashSet};

use proptest::sample::Index;

use super::{Edit, Item, Keys, Story, TYPED_WORDS, Word, is_marker};
use crate::annotations::{Annotation, Change, Suggestion};

/// A story being edited by one side, which names what it makes with its
/// own prefix (`m` for mine, `t` for theirs): marker `m1`, key `km1`,
/// photo `m2`, so that no two sides make the same name.
///
/// It leaves out (as if never in the script) the edits that would take the
/// case past what a merge can tell from the texts alone. Each is a limit
/// of telling blocks apart by their words, which the merge does for splits
/// and joins (`joins`: the new blocks right after a block hold most, 60%,
/// of the words it lost; a block holds most of the words of the deleted
/// blocks right after it), and, without keys, for every block (`align`):
///
/// - A paragraph the side split or joined gets no word edit from it, is
///   not split, joined or deleted after, nor is the block before it; and
///   one whose words it edited is not split or joined. A split-off half of
///   these short paragraphs with a word rewritten, joined on to the next
///   paragraph, or left alone by deleting the other half, is by its words
///   a new paragraph, so the other side's edit of the words it took would
///   stand beside it.
/// - No paragraph is put between the two halves of a split, as one there
///   ends the run of new blocks the split is told by (it is, to the merge,
///   the second half deleted and a new paragraph typed after it). Photos
///   placed there are part of the split.
/// - A side joins a base paragraph only onto the base block before it, or
///   onto a paragraph it made after that one: a join across a block it
///   deleted or moved away is, by its words, the paragraph deleted and its
///   words typed into another.
/// - A side that moves a block (a paragraph or a photo) makes no split or
///   join, and one that split or joined moves nothing: a move can take
///   apart the blocks a split or join is told by.
/// - Without keys, a side leaves no paragraph alike a base paragraph it
///   does not come from, and each base paragraph whose words it edited
///   alike its base version (alike as `align` measures it: 60% of the
///   shorter one's distinct words in the other). Else one is, by its
///   words, the other (a split-off "mayor said the" is as much the
///   paragraph "p2 said the police" as its own), or none (rewritten, next
///   to one the side deleted, it may be taken for that one).
/// - Without keys, a side that moves a block makes no word edit, and one
///   that edited words moves nothing. A moved block is found by its words
///   (`pair_moved`: three words or more, 60% of them its base version's),
///   and a diff may take any block the side edited for the moved one
///   (moving B above A is, to a diff, moving A below B): a short paragraph
///   edited so is one deleted and another added, and the other side's edit
///   of it would bring it back beside the new one.
#[derive(Clone)]
struct Editor<'a> {
    story: Story,
    side: &'a str,
    made: usize,
    keys: Keys,
    /// Paragraphs (by key) whose words the side edited.
    reworded: HashSet<String>,
    /// Paragraphs (by key) the side split or joined, both halves of a split.
    restructured: HashSet<String>,
    /// The keys of the two halves of each split.
    splits: HashSet<(String, String)>,
    /// For each paragraph (by key), the base paragraphs its words come from.
    origins: HashMap<String, HashSet<String>>,
    moved: bool,
}

impl Editor<'_> {
    fn key(&self, at: usize) -> String {
        match &self.story.items[at] {
            Item::Paragraph { key, .. } | Item::Photo { key, .. } => key.clone(),
        }
    }

    /// Whether the words of paragraph `at` may be edited (see [`Editor`]);
    /// if so, they count as edited.
    fn may_reword(&mut self, at: usize) -> bool {
        let key = self.key(at);
        let may = !self.restructured.contains(&key) && (self.keys == Keys::Stable || !self.moved);
        if may {
            self.reworded.insert(key);
        }
        may
    }

    /// Whether the paragraphs at `blocks` may be split or joined (see [`Editor`]).
    fn may_restructure(&self, blocks: &[usize]) -> bool {
        blocks.iter().all(|at| {
            let key = self.key(*at);
            !self.reworded.contains(&key) && !self.restructured.contains(&key)
        }) && !self.moved
    }

    /// Whether the paragraph at `at` may be joined to the one before it
    /// (see [`Editor`]): it was the base's block `i`, and the last block of
    /// the base before it here is `i - 1`, or it is not the base's.
    fn may_join_onto_previous(&self, at: usize) -> bool {
        let base_index = |at: usize| self.key(at).strip_prefix('k')?.parse::<usize>().ok();
        let Some(i) = base_index(at) else {
            return true;
        };
        let before = (0..at).rev().find_map(base_index);
        before.map_or(i == 0, |b| b + 1 == i)
    }

    /// Whether the block at `at` may be deleted (see [`Editor`]): neither it
    /// nor the block after it was split or joined.
    fn may_delete(&self, at: usize) -> bool {
        let restructured =
            |at: usize| at < self.story.items.len() && self.restructured.contains(&self.key(at));
        !restructured(at) && !restructured(at + 1)
    }

    /// Whether a block may be put at `at` among the blocks (see
    /// [`Editor`]): a photo anywhere, a paragraph not between the halves of
    /// a split.
    fn may_insert_at(&self, at: usize, photo: bool) -> bool {
        let place = |key: &str| (0..self.story.items.len()).find(|i| self.key(*i) == key);
        photo
            || !self.splits.iter().any(|(first, second)| {
                matches!((place(first), place(second)), (Some(a), Some(b)) if a < at && at <= b)
            })
    }

    /// Whether a block may be moved (see [`Editor`]); if so, one was.
    fn may_move(&mut self) -> bool {
        let may =
            self.restructured.is_empty() && (self.keys == Keys::Stable || self.reworded.is_empty());
        self.moved |= may;
        may
    }

    fn fresh(&mut self) -> String {
        self.made += 1;
        format!("{}{}", self.side, self.made)
    }

    /// The index among the story's blocks of the paragraph `pick` names.
    fn paragraph(&self, pick: Index) -> Option<usize> {
        let found: Vec<usize> = (0..self.story.items.len())
            .filter(|i| matches!(self.story.items[*i], Item::Paragraph { .. }))
            .collect();
        (!found.is_empty()).then(|| found[pick.index(found.len())])
    }

    /// The index among the story's blocks of the photo `pick` names.
    fn photo(&self, pick: Index) -> Option<usize> {
        let found: Vec<usize> = (0..self.story.items.len())
            .filter(|i| matches!(self.story.items[*i], Item::Photo { .. }))
            .collect();
        (!found.is_empty()).then(|| found[pick.index(found.len())])
    }

    fn words(&mut self, at: usize) -> &mut Vec<Word> {
        match &mut self.story.items[at] {
            Item::Paragraph { words, .. } => words,
            Item::Photo { .. } => unreachable!("a paragraph was picked"),
        }
    }

    /// The index in paragraph `at` of the word `pick` names; `editable`:
    /// among the words that are not markers.
    fn word(&mut self, at: usize, pick: Index, editable: bool) -> Option<usize> {
        let words = self.words(at);
        let found: Vec<usize> = (0..words.len())
            .filter(|i| !editable || !is_marker(&words[*i].text))
            .collect();
        (!found.is_empty()).then(|| found[pick.index(found.len())])
    }

    /// The word a note or suggestion goes on: the paragraph's marker half
    /// the time (the words invariant 5 follows), else any word.
    fn annotated_word(&mut self, at: usize, pick: Index) -> Option<usize> {
        let marker = self.words(at).iter().position(|w| is_marker(&w.text));
        match marker {
            Some(marker) if pick.index(2) == 0 => Some(marker),
            _ => self.word(at, pick, false),
        }
    }

    /// Takes out block `from` and puts it back at the place `to` names.
    fn move_block(&mut self, from: usize, to: Index) {
        let block = self.story.items.remove(from);
        let to = to.index(self.story.items.len() + 1);
        self.story.items.insert(to, block);
    }

    fn apply(&mut self, edit: &Edit) {
        match edit {
            Edit::ReplaceWord {
                paragraph,
                word,
                with,
            } => {
                let Some(p) = self.paragraph(*paragraph) else {
                    return;
                };
                let Some(w) = self.word(p, *word, true) else {
                    return;
                };
                if !self.may_reword(p) {
                    return;
                }
                let words = self.words(p);
                // Retyping a typed word as itself would change nothing, yet count as typed.
                let with = if words[w].text == *with {
                    let at = TYPED_WORDS.iter().position(|v| v == with).unwrap_or(0);
                    TYPED_WORDS[(at + 1) % TYPED_WORDS.len()]
                } else {
                    with
                };
                words[w] = Word::plain(with);
            }
            Edit::InsertWord {
                paragraph,
                at,
                word,
            } => {
                let Some(p) = self.paragraph(*paragraph) else {
                    return;
                };
                if !self.may_reword(p) {
                    return;
                }
                let words = self.words(p);
                let at = at.index(words.len() + 1);
                words.insert(at, Word::plain(word));
            }
            Edit::DeleteWord { paragraph, word } => {
                let Some(p) = self.paragraph(*paragraph) else {
                    return;
                };
                if let Some(w) = self.word(p, *word, true)
                    && self.may_reword(p)
                {
                    self.words(p).remove(w);
                }
            }
            Edit::InsertParagraph { at, words } => {
                let marker = self.fresh();
                let key = format!("k{marker}");
                let words = std::iter::once(marker.as_str())
                    .chain(words.iter().copied())
                    .map(Word::plain)
                    .collect();
                let at = at.index(self.story.items.len() + 1);
                if self.may_insert_at(at, false) {
                    self.story.items.insert(at, Item::Paragraph { key, words });
                }
            }
            Edit::DeleteParagraph { paragraph } => {
                if let Some(p) = self.paragraph(*paragraph)
                    && self.may_delete(p)
                {
                    self.story.items.remove(p);
                }
            }
            Edit::MoveParagraph { paragraph, to } => {
                if let Some(p) = self.paragraph(*paragraph)
                    && self.may_move()
                {
                    self.move_block(p, *to);
                }
            }
            Edit::Split { paragraph, at } => {
                let Some(p) = self.paragraph(*paragraph) else {
                    return;
                };
                if self.words(p).len() < 2 || !self.may_restructure(&[p]) {
                    return;
                }
                let key = format!("k{}", self.fresh());
                self.restructured.extend([self.key(p), key.clone()]);
                self.splits.insert((self.key(p), key.clone()));
                let from = self.origins.get(&self.key(p)).cloned().unwrap_or_default();
                self.origins.insert(key.clone(), from);
                let words = self.words(p);
                let at = 1 + at.index(words.len() - 1);
                let second = words.split_off(at);
                self.story
                    .items
                    .insert(p + 1, Item::Paragraph { key, words: second });
            }
            Edit::Join { paragraph } => {
                let Some(p) = self.paragraph(*paragraph) else {
                    return;
                };
                if let Some(Item::Paragraph { .. }) = self.story.items.get(p + 1)
                    && self.may_restructure(&[p, p + 1])
                    && self.may_join_onto_previous(p + 1)
                {
                    self.restructured.insert(self.key(p));
                    let Item::Paragraph {
                        words: second,
                        key: second_key,
                    } = self.story.items.remove(p + 1)
                    else {
                        unreachable!("a paragraph follows");
                    };
                    let from = self.origins.remove(&second_key).unwrap_or_default();
                    self.origins.entry(self.key(p)).or_default().extend(from);
                    self.words(p).extend(second);
                }
            }
            Edit::Bold { paragraph, word } => {
                if let Some(p) = self.paragraph(*paragraph)
                    && let Some(w) = self.word(p, *word, false)
                {
                    self.words(p)[w].bold = true;
                }
            }
            Edit::Link {
                paragraph,
                word,
                url,
            } => {
                if let Some(p) = self.paragraph(*paragraph)
                    && let Some(w) = self.word(p, *word, false)
                {
                    self.words(p)[w].link = Some(url);
                }
            }
            Edit::Note {
                paragraph,
                word,
                note,
            } => {
                if let Some(p) = self.paragraph(*paragraph)
                    && let Some(w) = self.annotated_word(p, *word)
                {
                    self.words(p)[w]
                        .annotations
                        .insert(Annotation::Note((*note).to_owned()));
                }
            }
            Edit::ResolveNote { paragraph, word } => {
                if let Some(p) = self.paragraph(*paragraph)
                    && let Some(w) = self.annotated_word(p, *word)
                {
                    let annotations = &mut self.words(p)[w].annotations;
                    let open: Vec<String> = annotations
                        .iter()
                        .filter_map(|a| match a {
                            Annotation::Note(id) => Some(id.clone()),
                            _ => None,
                        })
                        .collect();
                    for id in open {
                        annotations.remove(&Annotation::Note(id.clone()));
                        annotations.insert(Annotation::ResolvedNote(id));
                    }
                }
            }
            Edit::SuggestDeletion { paragraph, word } => {
                if let Some(p) = self.paragraph(*paragraph)
                    && let Some(w) = self.annotated_word(p, *word)
                {
                    let suggestion = Suggestion {
                        id: self.side.to_owned(),
                        change: Change::Deletion,
                        author: self.side.to_owned(),
                        at: String::new(),
                    };
                    self.words(p)[w]
                        .annotations
                        .insert(Annotation::Suggestion(suggestion));
                }
            }
            Edit::PlacePhoto { at } => {
                let name = self.fresh();
                let at = at.index(self.story.items.len() + 1);
                if self.may_insert_at(at, true) {
                    self.story.items.insert(
                        at,
                        Item::Photo {
                            key: format!("k{name}"),
                            name,
                        },
                    );
                }
            }
            Edit::MovePhoto { photo, to } => {
                if let Some(p) = self.photo(*photo)
                    && self.may_move()
                {
                    self.move_block(p, *to);
                }
            }
            Edit::DeletePhoto { photo } => {
                if let Some(p) = self.photo(*photo)
                    && self.may_delete(p)
                {
                    self.story.items.remove(p);
                }
            }
        }
    }
}

/// Whether two paragraphs' words are alike as `align` tells it: 60% of the
/// shorter one's distinct words in the other.
fn alike_words(one: &[Word], other: &[Word]) -> bool {
    let distinct =
        |words: &[Word]| -> HashSet<String> { words.iter().map(|w| w.text.clone()).collect() };
    let (one, other) = (distinct(one), distinct(other));
    let fewest = one.len().min(other.len());
    fewest > 0 && one.intersection(&other).count() * 5 >= fewest * 3
}

impl Editor<'_> {
    /// Whether, without keys, the paragraphs can be told apart by their
    /// words (see [`Editor`]).
    fn told_apart(&self, base: &HashMap<String, Vec<Word>>) -> bool {
        self.story.items.iter().all(|item| {
            let Item::Paragraph { key, words } = item else {
                return true;
            };
            let from = self.origins.get(key);
            base.iter().all(|(base_key, was)| {
                if from.is_some_and(|from| from.contains(base_key)) {
                    !self.reworded.contains(key) || alike_words(was, words)
                } else {
                    !alike_words(was, words)
                }
            })
        })
    }
}

/// The story after `side` applied `script` to `base`, for a merge given
/// `keys` (which some edits depend on, see [`Editor`]).
pub(super) fn apply(base: &Story, script: &[Edit], side: &str, keys: Keys) -> Story {
    let base_words: HashMap<String, Vec<Word>> = base
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Paragraph { key, words } => Some((key.clone(), words.clone())),
            Item::Photo { .. } => None,
        })
        .collect();
    let mut editor = Editor {
        story: base.clone(),
        side,
        made: 0,
        keys,
        reworded: HashSet::new(),
        restructured: HashSet::new(),
        splits: HashSet::new(),
        origins: base_words
            .keys()
            .map(|key| (key.clone(), HashSet::from([key.clone()])))
            .collect(),
        moved: false,
    };
    for edit in script {
        let before = editor.clone();
        editor.apply(edit);
        if keys == Keys::None && !editor.told_apart(&base_words) {
            editor = before;
        }
    }
    editor.story
}
