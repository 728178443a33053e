//! The merge's properties over random edit scripts: two sides (or three replicas) edit one story on their own, and the merge keeps what was kept, doubles nothing, takes an unchanged side whole, and converges.
//!
//! How the tests are built, for a reader new to them:
//!
//! - A generated story is a [`Story`] of paragraphs and photos. A base
//!   paragraph's words come from a small vocabulary (so that words
//!   repeat, as they do in stories), and each has a marker word of its own
//!   (`p0`, `p3`, ...), as each paragraph a side inserts has (`m1`, `t2`):
//!   a paragraph printed twice shows as its marker printed twice. The
//!   words a side types come from a vocabulary of their own.
//! - An [`Edit`] is one thing an editor does (a word replaced, a paragraph
//!   split or joined, a photo moved, a word made bold, ...); an edit script
//!   is a list of them, applied to the base on each side independently
//!   ([`apply`], which leaves out the edits past what a merge can tell from
//!   the texts alone, each limit explained in `editor.rs`).
//! - A story goes to the merge as [`RichText`] in two ways ([`Keys`]): with
//!   stable Draft.js keys, as the editor writes them, and without keys, as
//!   a client that sends only HTML. Every property runs both ways.
//! - The four invariants are `check_` functions, each explained where it
//!   is written, and the properties at the end run them.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::annotations::Annotation;

use proptest::prelude::*;
use proptest::sample::Index;

use super::*;

mod editor;
use editor::apply;

/// The words every base paragraph may have.
const SHARED_WORDS: [&str; 2] = ["the", "said"];

/// The words of base paragraphs: base block `i` draws from `TOPICS[i]`
/// (one of them at least) and [`SHARED_WORDS`], repeats and all. Without
/// keys, paragraphs are told apart by their words alone, and two that
/// share most of their words cannot be (docs/decisions.md writes down the
/// limit for paragraphs alike word for word; a merge cannot do better
/// for nearly alike ones): with a topic of its own besides its marker, no
/// base paragraph has more than half its words in another.
const TOPICS: [[&str; 3]; 6] = [
    ["council", "vote", "fees"],
    ["mayor", "bridge", "river"],
    ["police", "street", "night"],
    ["school", "board", "teachers"],
    ["storm", "power", "lines"],
    ["market", "prices", "farmers"],
];

/// The words a side types (into a paragraph, or as a new one): few, so
/// that both sides type the same ones, and none of the base's. So a side
/// has fewer of a base word than the base only where it deleted some, and
/// more of a typed word only where it typed some, which lets invariants 1
/// and 2 tell by counts what a side kept, deleted and added. (A base word
/// typed again would blur that: retyped where it stood, or a "the" deleted
/// and another typed two words on, it is no change a diff can see.)
const TYPED_WORDS: [&str; 4] = ["budget", "park", "road", "rise"];

/// The addresses a generated link points to.
const URLS: [&str; 2] = ["https://x.test/a", "https://x.test/b"];

// The model: stories as the generators write and edit them.

/// One word of a paragraph, with its formatting.
#[derive(Clone, Debug)]
struct Word {
    text: String,
    bold: bool,
    link: Option<&'static str>,
    /// Notes on the word and suggestions pending on it.
    annotations: BTreeSet<Annotation>,
}

impl Word {
    /// A word without formatting.
    fn plain(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            bold: false,
            link: None,
            annotations: BTreeSet::new(),
        }
    }
}

/// Whether a word (or a photo's token) is a paragraph's marker or a photo:
/// one that stands once in a story.
fn is_marker(token: &str) -> bool {
    !SHARED_WORDS.contains(&token)
        && !TOPICS.iter().any(|topic| topic.contains(&token))
        && !TYPED_WORDS.contains(&token)
}

/// A block of a generated story.
#[derive(Clone, Debug)]
enum Item {
    Paragraph {
        key: String,
        words: Vec<Word>,
    },
    /// A photo, `/files/{name}/public.png`.
    Photo {
        key: String,
        name: String,
    },
}

/// A generated story: its blocks in order.
#[derive(Clone)]
struct Story {
    items: Vec<Item>,
}

/// As [`Story::show`] writes it with keys, so that a shrunk case reads short.
impl std::fmt::Debug for Story {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.show(Keys::Stable))
    }
}

/// How a photo counts among the words: one token no text word can be.
fn photo_token(name: &str) -> String {
    format!("photo:{name}")
}

impl Story {
    /// How often each word and photo (as [`photo_token`]) stands in it.
    fn counts(&self) -> HashMap<String, usize> {
        let mut out = HashMap::new();
        for item in &self.items {
            match item {
                Item::Paragraph { words, .. } => {
                    for word in words {
                        *out.entry(word.text.clone()).or_default() += 1;
                    }
                }
                Item::Photo { name, .. } => *out.entry(photo_token(name)).or_default() += 1,
            }
        }
        out
    }

    /// The story written compactly for a failure's message: blocks apart
    /// by ` | `, `*bold*`, `[linked]`, photos as `[photo name]`, keys
    /// before a `:` when given.
    fn show(&self, keys: Keys) -> String {
        let blocks: Vec<String> = self
            .items
            .iter()
            .map(|item| {
                let (key, body) = match item {
                    Item::Paragraph { key, words } => {
                        let words: Vec<String> = words
                            .iter()
                            .map(|w| {
                                let word = match (w.bold, w.link) {
                                    (false, None) => w.text.clone(),
                                    (true, None) => format!("*{}*", w.text),
                                    (false, Some(_)) => format!("[{}]", w.text),
                                    (true, Some(_)) => format!("*[{}]*", w.text),
                                };
                                if w.annotations.is_empty() {
                                    word
                                } else {
                                    format!("{word}{{{}}}", annotation_names(&w.annotations))
                                }
                            })
                            .collect();
                        (key, words.join(" "))
                    }
                    Item::Photo { key, name } => (key, format!("[photo {name}]")),
                };
                match keys {
                    Keys::Stable => format!("{key}: {body}"),
                    Keys::None => body,
                }
            })
            .collect();
        blocks.join(" | ")
    }
}

/// A word's notes and suggestions written short: `n1`, `s:m` (side m's
/// suggestion).
fn annotation_names(annotations: &BTreeSet<Annotation>) -> String {
    let names: Vec<String> = annotations
        .iter()
        .map(|a| match a {
            Annotation::Note(id) => id.clone(),
            Annotation::ResolvedNote(id) => format!("r:{id}"),
            Annotation::Suggestion(s) => format!("s:{}", s.id),
        })
        .collect();
    names.join(",")
}

/// How the stories are handed to the merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keys {
    /// Draft.js keys as the editor writes them: an edited or moved block
    /// keeps its key, a split's second half and an inserted block get a
    /// new one, a join keeps the first block's.
    Stable,
    /// No keys at all, as a client that sends only HTML: blocks are
    /// aligned by their content.
    None,
}

/// Every property runs both ways.
const KEYINGS: [Keys; 2] = [Keys::Stable, Keys::None];

fn link(url: &str) -> Entity {
    Entity {
        kind: "LINK".to_owned(),
        mutability: "MUTABLE".to_owned(),
        data: json!({ "url": url }).to_string(),
    }
}

/// A generated story as the merge reads it: a paragraph is its words with
/// one space between each two, the marks on the word's characters only.
fn rich(story: &Story, keys: Keys) -> RichText {
    let blocks = story
        .items
        .iter()
        .map(|item| {
            let (key, mut block) = match item {
                Item::Paragraph { key, words } => {
                    let text: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
                    let mut block = Block::plain("unstyled", &text.join(" "));
                    let mut at = 0;
                    for word in words {
                        let end = at + word.text.chars().count();
                        for marks in &mut block.marks[at..end] {
                            if word.bold {
                                marks.styles.insert("BOLD".to_owned());
                            }
                            marks.entity = word.link.map(link);
                            marks.annotations.clone_from(&word.annotations);
                        }
                        at = end + 1;
                    }
                    (key, block)
                }
                Item::Photo { key, name } => (
                    key,
                    Block::image(
                        &format!("/files/{name}/public.png"),
                        &format!("Photo {name}"),
                    ),
                ),
            };
            if keys == Keys::Stable {
                block.key = Some(key.clone());
            }
            block
        })
        .collect();
    RichText { blocks }
}

/// A merged block's words, or its photo as [`photo_token`].
fn block_tokens(block: &Block) -> Vec<String> {
    match block.image_parts() {
        Some((src, _)) => {
            let name = src
                .trim_start_matches("/files/")
                .trim_end_matches("/public.png");
            vec![photo_token(name)]
        }
        None => block.text().split_whitespace().map(str::to_owned).collect(),
    }
}

/// How often each word (and photo) stands in the blocks.
fn counts<'a>(blocks: impl IntoIterator<Item = &'a Block>) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for block in blocks {
        for token in block_tokens(block) {
            *out.entry(token).or_default() += 1;
        }
    }
    out
}

// The generators.

/// A base paragraph as planned: one to five words, each picked from its
/// topic's words then the shared ones (see [`TOPICS`]), a topic word more
/// at a place picked, and the place of its marker.
#[derive(Clone, Debug)]
struct PlannedParagraph {
    words: Vec<Index>,
    topic: (Index, Index),
    marker_at: Index,
}

impl PlannedParagraph {
    /// The words of base block `i` as planned.
    fn words(&self, i: usize) -> Vec<Word> {
        let topic = TOPICS[i];
        let choices: Vec<&str> = topic.iter().chain(&SHARED_WORDS).copied().collect();
        let mut words: Vec<Word> = self
            .words
            .iter()
            .map(|pick| Word::plain(pick.get::<&str>(&choices)))
            .collect();
        let (which, at) = self.topic;
        words.insert(
            at.index(words.len() + 1),
            Word::plain(which.get::<&str>(&topic)),
        );
        words.insert(
            self.marker_at.index(words.len() + 1),
            Word::plain(&format!("p{i}")),
        );
        words
    }
}

fn base_paragraph() -> impl Strategy<Value = PlannedParagraph> {
    (
        prop::collection::vec(any::<Index>(), 1..6),
        any::<(Index, Index)>(),
        any::<Index>(),
    )
        .prop_map(|(words, topic, marker_at)| PlannedParagraph {
            words,
            topic,
            marker_at,
        })
}

/// A base story: one to six blocks, mostly paragraphs, some photos. Block
/// `i` has key `k{i}`; a paragraph has the marker `p{i}` at a random place
/// among its three to seven words, a photo the name `p{i}`.
fn base_story() -> impl Strategy<Value = Story> {
    prop::collection::vec(
        prop_oneof![4 => base_paragraph().prop_map(Some), 1 => Just(None)],
        1..7,
    )
    .prop_map(|planned| {
        let items = planned
            .into_iter()
            .enumerate()
            .map(|(i, plan)| {
                let (key, name) = (format!("k{i}"), format!("p{i}"));
                match plan {
                    Some(plan) => Item::Paragraph {
                        key,
                        words: plan.words(i),
                    },
                    None => Item::Photo { key, name },
                }
            })
            .collect();
        Story { items }
    })
}

/// One thing an editor does to a story. Paragraphs, words and photos are
/// picked by an [`Index`] into those the story has when the edit is
/// applied (an edit with nothing to pick does nothing). Word edits never
/// touch a marker word: a marker leaves only with its paragraph.
#[derive(Clone, Debug)]
enum Edit {
    /// A word retyped as another (never as itself).
    ReplaceWord {
        paragraph: Index,
        word: Index,
        with: &'static str,
    },
    InsertWord {
        paragraph: Index,
        at: Index,
        word: &'static str,
    },
    DeleteWord {
        paragraph: Index,
        word: Index,
    },
    /// A new paragraph of these words after its own marker, with a new key.
    InsertParagraph {
        at: Index,
        words: Vec<&'static str>,
    },
    DeleteParagraph {
        paragraph: Index,
    },
    /// A paragraph cut out and pasted elsewhere (keeping its key).
    MoveParagraph {
        paragraph: Index,
        to: Index,
    },
    /// A paragraph of two words or more cut in two between two words: the
    /// first half keeps the key, the second gets a new one.
    Split {
        paragraph: Index,
        at: Index,
    },
    /// A paragraph and the paragraph after it made one, a space between:
    /// the first's key stays.
    Join {
        paragraph: Index,
    },
    Bold {
        paragraph: Index,
        word: Index,
    },
    /// A word made a link to one of [`URLS`].
    Link {
        paragraph: Index,
        word: Index,
        url: &'static str,
    },
    /// A note (`n1` or `n2`) put on a word.
    Note {
        paragraph: Index,
        word: Index,
        note: &'static str,
    },
    /// The notes on a word resolved (each stays on it, resolved).
    ResolveNote {
        paragraph: Index,
        word: Index,
    },
    /// A word suggested for deletion (the side's one suggestion).
    SuggestDeletion {
        paragraph: Index,
        word: Index,
    },
    /// A new photo (a new name and key).
    PlacePhoto {
        at: Index,
    },
    MovePhoto {
        photo: Index,
        to: Index,
    },
    DeletePhoto {
        photo: Index,
    },
}

fn typed_word() -> impl Strategy<Value = &'static str> {
    prop::sample::select(TYPED_WORDS.to_vec())
}

/// One edit, word edits the likeliest.
fn edit() -> impl Strategy<Value = Edit> {
    let pick = any::<Index>;
    prop_oneof![
        3 => (pick(), pick(), typed_word())
            .prop_map(|(paragraph, word, with)| Edit::ReplaceWord { paragraph, word, with }),
        3 => (pick(), pick(), typed_word())
            .prop_map(|(paragraph, at, word)| Edit::InsertWord { paragraph, at, word }),
        2 => (pick(), pick()).prop_map(|(paragraph, word)| Edit::DeleteWord { paragraph, word }),
        2 => (pick(), prop::collection::vec(typed_word(), 2..6))
            .prop_map(|(at, words)| Edit::InsertParagraph { at, words }),
        1 => pick().prop_map(|paragraph| Edit::DeleteParagraph { paragraph }),
        2 => (pick(), pick()).prop_map(|(paragraph, to)| Edit::MoveParagraph { paragraph, to }),
        2 => (pick(), pick()).prop_map(|(paragraph, at)| Edit::Split { paragraph, at }),
        2 => pick().prop_map(|paragraph| Edit::Join { paragraph }),
        1 => (pick(), pick()).prop_map(|(paragraph, word)| Edit::Bold { paragraph, word }),
        1 => (pick(), pick(), prop::sample::select(URLS.to_vec()))
            .prop_map(|(paragraph, word, url)| Edit::Link { paragraph, word, url }),
        2 => (pick(), pick(), prop::sample::select(vec!["n1", "n2"]))
            .prop_map(|(paragraph, word, note)| Edit::Note { paragraph, word, note }),
        1 => (pick(), pick()).prop_map(|(paragraph, word)| Edit::ResolveNote { paragraph, word }),
        2 => (pick(), pick()).prop_map(|(paragraph, word)| Edit::SuggestDeletion { paragraph, word }),
        1 => pick().prop_map(|at| Edit::PlacePhoto { at }),
        1 => (pick(), pick()).prop_map(|(photo, to)| Edit::MovePhoto { photo, to }),
        1 => pick().prop_map(|photo| Edit::DeletePhoto { photo }),
    ]
}

/// An edit script: up to five edits, applied in order.
fn script() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(edit(), 0..6)
}

// The invariants.

/// The three stories of a case, written for a failure's message.
fn shown(keys: Keys, base: &Story, mine: &Story, theirs: &Story) -> String {
    format!(
        "keys: {keys:?}\n  base:   {}\n  mine:   {}\n  theirs: {}",
        base.show(keys),
        mine.show(keys),
        theirs.show(keys)
    )
}

/// The merged text, one block a line, and its conflicts' two versions.
fn shown_merge(merged: &Merged) -> String {
    let mut out = texts(&merged.text).join(" | ");
    for conflict in &merged.conflicts {
        out.push_str(&format!(
            "\n  conflict at {}: mine {:?}, theirs {:?}",
            conflict.position,
            conflict.mine.text(),
            conflict.theirs.text()
        ));
    }
    out
}

/// Invariant 1, nothing kept is lost: every word (or photo) that one side
/// kept and the other did not delete is in the merged text, or in a listed
/// conflict (as its mine or its theirs). Exactly, for each side and each
/// word it has: a word the base did not have (one the side typed, a new
/// paragraph's marker, a photo it placed) must be there; so must a base
/// word of which the other side has as many as the base (since no side
/// types a base word, it deleted none of them). A base word the other
/// side has fewer of may be gone: a word present in mine and in the base
/// that theirs deleted is deleted. A base paragraph's marker and a photo
/// stand once in the base, so this says that a paragraph or photo one side
/// kept and the other did not delete is never lost.
fn check_nothing_kept_is_lost(
    base: &Story,
    mine: &Story,
    theirs: &Story,
    merged: &Merged,
) -> Result<(), String> {
    let mut present: HashSet<String> = counts(&merged.text.blocks).into_keys().collect();
    for conflict in &merged.conflicts {
        present.extend(block_tokens(&conflict.mine));
        present.extend(block_tokens(&conflict.theirs));
    }
    let (in_base, in_mine, in_theirs) = (base.counts(), mine.counts(), theirs.counts());
    for (side, name, other) in [
        (&in_mine, "mine", &in_theirs),
        (&in_theirs, "theirs", &in_mine),
    ] {
        for word in side.keys() {
            let was = in_base.get(word).copied().unwrap_or(0);
            let kept = was == 0 || other.get(word).copied().unwrap_or(0) >= was;
            if kept && !present.contains(word) {
                return Err(format!("{word} ({name}'s) was lost"));
            }
        }
    }
    Ok(())
}

/// Invariant 2, nothing doubled: each base marker word and each photo
/// stands at most once in the merged text (a paragraph is never printed
/// twice), and every word at most base + (mine − base)⁺ + (theirs − base)⁺
/// times: as often as the base has it, plus what each side added. Since no
/// side types a base word, that is the base's count for a base word and
/// mine's plus theirs' for a typed one (both typing the same word are two
/// words, though where both typed it at one place the merge takes it once).
/// A conflict's merged text holds theirs, which counts the same.
fn check_nothing_is_doubled(
    base: &Story,
    mine: &Story,
    theirs: &Story,
    merged: &Merged,
) -> Result<(), String> {
    let result = counts(&merged.text.blocks);
    let (in_base, in_mine, in_theirs) = (base.counts(), mine.counts(), theirs.counts());
    for word in in_base.keys().filter(|w| is_marker(w)) {
        let n = result.get(word).copied().unwrap_or(0);
        if n > 1 {
            return Err(format!("{word} stands {n} times"));
        }
    }
    for (word, n) in result {
        let count = |counts: &HashMap<String, usize>| counts.get(&word).copied().unwrap_or(0);
        let was = count(&in_base);
        let most =
            was + count(&in_mine).saturating_sub(was) + count(&in_theirs).saturating_sub(was);
        if n > most {
            return Err(format!("{word} stands {n} times, at most {most} allowed"));
        }
    }
    Ok(())
}

/// The merge of three generated stories given `keys`.
fn merge_stories(base: &Story, mine: &Story, theirs: &Story, keys: Keys) -> Merged {
    merge(&rich(base, keys), &rich(mine, keys), &rich(theirs, keys))
}

/// Invariant 3, an unchanged side changes nothing: merging a side with
/// itself, or with the unchanged base, gives that side (its blocks' text,
/// marks and type), with no conflict, and every block that has a base
/// block's key keeps it. A new block's key may be renumbered: the merge
/// pairs it with the base block it stands for, if any (a paragraph typed
/// and the next pulled up into it stands for that next one, and so does
/// every block of a text that kept no base key, which is aligned by
/// content), and takes that block's key.
fn check_one_side_changes(base: &RichText, side: &RichText) -> Result<(), String> {
    let base_keys: HashSet<_> = base.blocks.iter().filter_map(|b| b.key.as_ref()).collect();
    for (name, mine, theirs) in [
        ("merge(b, x, x)", side, side),
        ("merge(b, b, x)", base, side),
        ("merge(b, x, b)", side, base),
    ] {
        let merged = merge(base, mine, theirs);
        let same = merged.text.blocks.len() == side.blocks.len()
            && merged.text.blocks.iter().zip(&side.blocks).all(|(m, s)| {
                m.same_content(s)
                    && (m.key == s.key || !s.key.as_ref().is_some_and(|k| base_keys.contains(k)))
            });
        if !merged.conflicts.is_empty() || !same {
            return Err(format!(
                "{name} is not x:\n  x:      {}\n  merged: {}",
                texts(side).join(" | "),
                shown_merge(&merged)
            ));
        }
    }
    Ok(())
}

/// Each base marker's notes and suggestions in a story.
fn marker_annotations(story: &Story) -> HashMap<String, BTreeSet<Annotation>> {
    let mut out = HashMap::new();
    for item in &story.items {
        if let Item::Paragraph { words, .. } = item {
            for word in words.iter().filter(|w| is_marker(&w.text)) {
                out.insert(word.text.clone(), word.annotations.clone());
            }
        }
    }
    out
}

/// Invariant 5, notes and suggestions stay on their words: a base marker
/// both sides kept carries, in the merged text, each note and suggestion
/// as the side that put it on or took it off left it (a flag's three-way
/// merge), outside the blocks in conflict (whose merged text is theirs).
fn check_annotations_stay(
    base: &Story,
    mine: &Story,
    theirs: &Story,
    merged: &Merged,
) -> Result<(), String> {
    let (in_base, in_mine, in_theirs) = (
        marker_annotations(base),
        marker_annotations(mine),
        marker_annotations(theirs),
    );
    let in_conflict: HashSet<usize> = merged.conflicts.iter().map(|c| c.position).collect();
    for (at, block) in merged.text.blocks.iter().enumerate() {
        if in_conflict.contains(&at) {
            continue;
        }
        let mut start = 0;
        for (i, c) in block.text.iter().chain([&' ']).enumerate() {
            if !c.is_whitespace() {
                continue;
            }
            let word: String = block.text[start..i].iter().collect();
            let here = start;
            start = i + 1;
            let (Some(b), Some(m), Some(t)) =
                (in_base.get(&word), in_mine.get(&word), in_theirs.get(&word))
            else {
                continue;
            };
            let every: BTreeSet<&Annotation> = b.iter().chain(m).chain(t).collect();
            let want: BTreeSet<Annotation> = every
                .into_iter()
                .filter(|a| {
                    if m.contains(*a) == b.contains(*a) {
                        t.contains(*a)
                    } else {
                        m.contains(*a)
                    }
                })
                .cloned()
                .collect();
            let got = &block.marks[here].annotations;
            if *got != want {
                return Err(format!(
                    "{word} carries {{{}}}, not {{{}}}",
                    annotation_names(got),
                    annotation_names(&want)
                ));
            }
        }
    }
    Ok(())
}

/// A replica of the story: what it last synced and its text now.
struct Replica {
    synced: RichText,
    text: RichText,
}

/// Invariant 4, replicas converge: a central text and three replicas
/// that each applied their own script to the base sync in turn, each
/// merging (base: what it last synced, mine: its text, theirs: the
/// central's text now); the central and the replica both take the merged
/// text, and the replica records it as synced. Conflicts leave theirs
/// (the central's) in the merged text, so they do not stop it. After two
/// rounds every replica's text is the central's. (What the merges keep is
/// for invariants 1 and 2: a later replica merges against the others' work
/// together, moves of one and word edits of another, which the limits in
/// [`Editor`] keep apart only within one side.)
fn check_replicas_converge(base: &Story, replicas: &[Story], keys: Keys) -> Result<(), String> {
    let base_text = rich(base, keys);
    let mut central = base_text.clone();
    let mut synced: Vec<Replica> = replicas
        .iter()
        .map(|story| Replica {
            synced: base_text.clone(),
            text: rich(story, keys),
        })
        .collect();
    for _round in 0..2 {
        for replica in &mut synced {
            let merged = merge(&replica.synced, &replica.text, &central);
            central = merged.text;
            replica.text = central.clone();
            replica.synced = central.clone();
        }
    }
    for (i, replica) in synced.iter().enumerate() {
        if replica.text != central {
            return Err(format!(
                "replica {i} has {:?}, the central {:?}",
                texts(&replica.text),
                texts(&central)
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Invariant 1 (see [`check_nothing_kept_is_lost`]).
    #[test]
    fn every_word_a_side_kept_is_merged_or_in_a_listed_conflict(
        base in base_story(), mine_script in script(), theirs_script in script(),
    ) {
        for keys in KEYINGS {
            let mine = apply(&base, &mine_script, "m", keys);
            let theirs = apply(&base, &theirs_script, "t", keys);
            let merged = merge_stories(&base, &mine, &theirs, keys);
            if let Err(why) = check_nothing_kept_is_lost(&base, &mine, &theirs, &merged) {
                return Err(TestCaseError::fail(format!(
                    "{why}\n{}\n  merged: {}", shown(keys, &base, &mine, &theirs), shown_merge(&merged)
                )));
            }
        }
    }

    /// Invariant 2 (see [`check_nothing_is_doubled`]).
    #[test]
    fn no_paragraph_or_word_stands_more_often_than_it_should(
        base in base_story(), mine_script in script(), theirs_script in script(),
    ) {
        for keys in KEYINGS {
            let mine = apply(&base, &mine_script, "m", keys);
            let theirs = apply(&base, &theirs_script, "t", keys);
            let merged = merge_stories(&base, &mine, &theirs, keys);
            if let Err(why) = check_nothing_is_doubled(&base, &mine, &theirs, &merged) {
                return Err(TestCaseError::fail(format!(
                    "{why}\n{}\n  merged: {}", shown(keys, &base, &mine, &theirs), shown_merge(&merged)
                )));
            }
        }
    }

    /// Invariant 5 (see [`check_annotations_stay`]).
    #[test]
    fn notes_and_suggestions_stay_on_their_words(
        base in base_story(), mine_script in script(), theirs_script in script(),
    ) {
        // Not yet where one side joins or splits paragraphs and the other
        // moves one: the marks of the joined words can then land on the
        // wrong words (docs/decisions.md: "Another, found by the notes' property test").
        let restructures = |script: &[Edit]| script.iter().any(|e| matches!(e, Edit::Join { .. } | Edit::Split { .. }));
        let moves = |script: &[Edit]| script.iter().any(|e| matches!(e, Edit::MoveParagraph { .. } | Edit::InsertParagraph { .. } | Edit::DeleteParagraph { .. }));
        let apart = |a: &[Edit], b: &[Edit]| !(restructures(a) && moves(b));
        prop_assume!(apart(&mine_script, &theirs_script) && apart(&theirs_script, &mine_script));
        for keys in KEYINGS {
            let mine = apply(&base, &mine_script, "m", keys);
            let theirs = apply(&base, &theirs_script, "t", keys);
            let merged = merge_stories(&base, &mine, &theirs, keys);
            if let Err(why) = check_annotations_stay(&base, &mine, &theirs, &merged) {
                return Err(TestCaseError::fail(format!(
                    "{why}\n{}\n  merged: {}", shown(keys, &base, &mine, &theirs), shown_merge(&merged)
                )));
            }
        }
    }

    /// Invariant 3 (see [`check_one_side_changes`]).
    #[test]
    fn merging_identical_or_unchanged_sides_gives_that_side(
        base in base_story(), side_script in script(),
    ) {
        for keys in KEYINGS {
            let side = apply(&base, &side_script, "m", keys);
            if let Err(why) = check_one_side_changes(&rich(&base, keys), &rich(&side, keys)) {
                return Err(TestCaseError::fail(format!(
                    "{why}\n  keys: {keys:?}\n  base: {}\n  x:    {}", base.show(keys), side.show(keys)
                )));
            }
        }
    }

    /// Invariant 4 (see [`check_replicas_converge`]).
    #[test]
    fn three_replicas_converge_after_two_rounds(
        base in base_story(), scripts in prop::collection::vec(script(), 3),
    ) {
        for keys in KEYINGS {
            let replicas: Vec<Story> = scripts
                .iter()
                .zip(["u", "v", "w"])
                .map(|(script, side)| apply(&base, script, side, keys))
                .collect();
            if let Err(why) = check_replicas_converge(&base, &replicas, keys) {
                let shown: Vec<String> = replicas.iter().map(|r| r.show(keys)).collect();
                return Err(TestCaseError::fail(format!(
                    "{why}\n  keys: {keys:?}\n  base: {}\n  replicas: {shown:#?}", base.show(keys)
                )));
            }
        }
    }
}
