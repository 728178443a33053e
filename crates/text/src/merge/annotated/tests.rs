//! Notes and suggested edits through raw content, HTML, settling and the three-way merge.

use super::*;
use crate::merge::draft_raw::{from_raw, to_raw};
use crate::merge::{html, merge};

const NOTE: &str = "4f1c2a7e-0000-4000-8000-000000000001";
const OTHER_NOTE: &str = "4f1c2a7e-0000-4000-8000-000000000002";

fn doc(paragraphs: &[&str]) -> RichText {
    RichText {
        blocks: paragraphs
            .iter()
            .enumerate()
            .map(|(i, text)| Block {
                key: Some(format!("k{i}")),
                ..Block::plain("unstyled", text)
            })
            .collect(),
    }
}

fn suggestion(id: &str, change: Change, author: &str) -> Annotation {
    Annotation::Suggestion(Suggestion {
        id: id.to_owned(),
        change,
        author: author.to_owned(),
        at: "2026-11-28T08:00:00Z".to_owned(),
    })
}

/// `annotation` put on the characters of `words` in block `block`.
fn mark(text: &mut RichText, block: usize, words: &str, annotation: &Annotation) {
    let b = &mut text.blocks[block];
    let chars: Vec<char> = words.chars().collect();
    let start = b
        .text
        .windows(chars.len())
        .position(|w| w == chars.as_slice())
        .unwrap_or_else(|| panic!("{words:?} in {:?}", b.text()));
    for m in &mut b.marks[start..start + chars.len()] {
        m.annotations.insert(annotation.clone());
    }
}

/// The text of `text`'s block, with the characters carrying `annotation`
/// in brackets.
fn shown(text: &RichText, block: usize, annotation: &Annotation) -> String {
    let b = &text.blocks[block];
    let mut out = String::new();
    let mut open = false;
    for (c, m) in b.text.iter().zip(&b.marks) {
        let on = m.annotations.contains(annotation);
        if on != open {
            out.push(if on { '[' } else { ']' });
            open = on;
        }
        out.push(*c);
    }
    if open {
        out.push(']');
    }
    out
}

fn texts(text: &RichText) -> Vec<String> {
    text.blocks.iter().map(Block::text).collect()
}

#[test]
fn notes_and_suggestions_over_a_link_ride_in_one_entity_per_character() {
    let mut text = doc(&["The council voted to raise fees."]);
    let link = Entity {
        kind: "LINK".into(),
        mutability: "MUTABLE".into(),
        data: r#"{"url":"https://example.org/council"}"#.into(),
    };
    for m in &mut text.blocks[0].marks[4..11] {
        m.entity = Some(link.clone());
    }
    mark(
        &mut text,
        0,
        "council voted",
        &Annotation::Note(NOTE.into()),
    );
    mark(
        &mut text,
        0,
        "to raise",
        &suggestion("s1", Change::Deletion, "Desk"),
    );
    mark(
        &mut text,
        0,
        "fees",
        &suggestion(
            "s2",
            Change::Style {
                style: "BOLD".into(),
                on: true,
            },
            "Desk",
        ),
    );
    let raw = to_raw(&text);
    // Draft.js's own rule: a character carries one entity at most.
    let value: Value = serde_json::from_str(&raw).expect("JSON");
    crate::draftjs::validate_raw(&value).expect("valid raw content");
    let kinds: BTreeSet<&str> = value["entityMap"]
        .as_object()
        .expect("a map")
        .values()
        .filter_map(|e| e["type"].as_str())
        .collect();
    assert_eq!(
        kinds,
        BTreeSet::from(["LINK", NOTE_ENTITY, SUGGESTION_ENTITY])
    );
    assert!(
        raw.contains(r#""url":"https://example.org/council""#),
        "{raw}"
    );
    let back = from_raw(&value).expect("raw content");
    assert_eq!(back.blocks[0].marks, text.blocks[0].marks);
}

#[test]
fn entity_data_not_of_the_form_stays_the_entitys_own() {
    let odd = Entity {
        kind: "LINK".into(),
        mutability: "MUTABLE".into(),
        data: r#"{"notes":"not a list","url":"/a"}"#.into(),
    };
    let (own, annotations) = split_entity(odd.clone());
    assert_eq!(own, Some(odd));
    assert!(annotations.is_empty());
}

#[test]
fn each_suggestion_is_accepted_or_rejected_on_its_own() {
    let mut text = doc(&["Fees rise by five percent today."]);
    let insertion = suggestion("ins", Change::Insertion, "Desk");
    let deletion = suggestion("del", Change::Deletion, "Desk");
    let bold = suggestion(
        "bold",
        Change::Style {
            style: "BOLD".into(),
            on: true,
        },
        "Ana",
    );
    mark(&mut text, 0, "five ", &insertion);
    mark(&mut text, 0, " today", &deletion);
    mark(&mut text, 0, "Fees", &bold);
    let accepted = settle(&text, Which::Id("ins"), true);
    assert_eq!(texts(&accepted), ["Fees rise by five percent today."]);
    assert_eq!(
        shown(&accepted, 0, &insertion),
        "Fees rise by five percent today."
    );
    let rejected = settle(&text, Which::Id("ins"), false);
    assert_eq!(texts(&rejected), ["Fees rise by percent today."]);
    assert_eq!(
        texts(&settle(&text, Which::Id("del"), true)),
        ["Fees rise by five percent."]
    );
    assert_eq!(
        texts(&settle(&text, Which::Id("del"), false)),
        ["Fees rise by five percent today."]
    );
    let bolded = settle(&text, Which::Id("bold"), true);
    assert!(bolded.blocks[0].marks[0].styles.contains("BOLD"));
    assert!(bolded.blocks[0].marks[0].annotations.is_empty());
    let unbolded = settle(&text, Which::Id("bold"), false);
    assert!(!unbolded.blocks[0].marks[0].styles.contains("BOLD"));
    // All of one author's at once: the desk's two, not Ana's.
    let desk = settle(&text, Which::Author("Desk"), true);
    assert_eq!(texts(&desk), ["Fees rise by five percent."]);
    assert_eq!(listed(&desk).1.len(), 1);
    // As it prints: every suggestion rejected, no note.
    mark(&mut text, 0, "rise", &Annotation::Note(NOTE.into()));
    let printed = as_printed(&text);
    assert_eq!(texts(&printed), ["Fees rise by percent today."]);
    assert!(
        printed.blocks[0]
            .marks
            .iter()
            .all(|m| m.annotations.is_empty() && m.styles.is_empty())
    );
}

#[test]
fn notes_and_suggestions_are_listed_with_their_words() {
    let mut text = doc(&["One two three.", "Four five."]);
    let note = Annotation::Note(NOTE.into());
    mark(&mut text, 0, "three.", &note);
    mark(&mut text, 1, "Four", &note);
    mark(
        &mut text,
        1,
        "five",
        &suggestion("s", Change::Deletion, "Desk"),
    );
    let (notes, suggestions) = listed(&text);
    assert_eq!(
        notes,
        [NoteInText {
            id: NOTE.into(),
            words: "three. Four".into(),
            resolved: false,
        }]
    );
    assert_eq!(suggestions.len(), 1);
    assert_eq!(suggestions[0].words, "five");
}

/// `paragraph` with "rise" suggested, "today" suggested for deletion and
/// a note on "Fees".
fn marked(paragraph: &str) -> RichText {
    let mut text = doc(&[paragraph]);
    mark(
        &mut text,
        0,
        "rise",
        &suggestion("s1", Change::Insertion, "Desk <copy>"),
    );
    mark(
        &mut text,
        0,
        "today",
        &suggestion("s2", Change::Deletion, "Desk"),
    );
    mark(&mut text, 0, "Fees", &Annotation::Note(NOTE.into()));
    text
}

#[test]
fn the_html_holds_suggestions_as_ins_and_del_and_notes_as_spans() {
    let text = marked("Fees rise today.");
    let written = html::to_html(&text);
    assert_eq!(
        written,
        format!(
            "<p><span data-notes=\"{NOTE}\">Fees</span> \
             <ins data-suggestion=\"s1\" data-author=\"Desk &lt;copy&gt;\" data-at=\"2026-11-28T08:00:00Z\">rise</ins> \
             <del data-suggestion=\"s2\" data-author=\"Desk\" data-at=\"2026-11-28T08:00:00Z\">today</del>.</p>"
        )
    );
}

#[test]
fn the_desks_suggestion_and_an_offline_edit_to_another_paragraph_both_survive() {
    let base = doc(&["The council met.", "Fees rise today."]);
    let mut desk = base.clone();
    mark(
        &mut desk,
        0,
        "council",
        &suggestion("s1", Change::Deletion, "Desk"),
    );
    let laptop = doc(&["The council met.", "Fees rise sharply today."]);
    let merged = merge(&base, &laptop, &desk);
    assert!(merged.conflicts.is_empty());
    assert_eq!(
        texts(&merged.text),
        ["The council met.", "Fees rise sharply today."]
    );
    assert_eq!(
        shown(&merged.text, 0, &suggestion("s1", Change::Deletion, "Desk")),
        "The [council] met."
    );
}

#[test]
fn a_note_covers_words_typed_inside_it_not_at_its_edges() {
    let base = doc(&["The council voted on fees."]);
    let note = Annotation::Note(NOTE.into());
    let mut desk = base.clone();
    mark(&mut desk, 0, "council voted", &note);
    let laptop = doc(&["The city council narrowly voted on fees today."]);
    let merged = merge(&base, &laptop, &desk);
    assert!(merged.conflicts.is_empty());
    assert_eq!(
        shown(&merged.text, 0, &note),
        "The city [council narrowly voted] on fees today."
    );
}

#[test]
fn a_suggested_deletion_never_takes_the_other_sides_words() {
    let base = doc(&["Fees rise by five percent."]);
    let deletion = suggestion("s1", Change::Deletion, "Desk");
    let mut desk = base.clone();
    mark(&mut desk, 0, "by five percent", &deletion);
    let laptop = doc(&["Fees rise by nearly five percent."]);
    let merged = merge(&base, &laptop, &desk);
    assert!(merged.conflicts.is_empty());
    let shown = shown(&merged.text, 0, &deletion);
    assert!(
        !shown.contains("[nearly") && !shown.contains("nearly]"),
        "{shown}"
    );
    assert!(shown.contains("nearly"), "{shown}");
    // Accepting the deletion keeps the laptop's word.
    let accepted = settle(&merged.text, Which::Id("s1"), true);
    assert!(
        texts(&accepted)[0].contains("nearly"),
        "{:?}",
        texts(&accepted)
    );
}

#[test]
fn one_suggestion_accepted_on_the_server_and_another_rejected_offline_converge() {
    let mut base = doc(&["Fees rise today.", "The council met on Tuesday."]);
    mark(
        &mut base,
        0,
        " today",
        &suggestion("a", Change::Deletion, "Desk"),
    );
    mark(
        &mut base,
        1,
        " on Tuesday",
        &suggestion("b", Change::Insertion, "Desk"),
    );
    let server = settle(&base, Which::Id("a"), true);
    let laptop = settle(&base, Which::Id("b"), false);
    let merged_here = merge(&base, &laptop, &server);
    let merged_there = merge(&base, &server, &laptop);
    assert!(merged_here.conflicts.is_empty() && merged_there.conflicts.is_empty());
    assert_eq!(texts(&merged_here.text), ["Fees rise.", "The council met."]);
    assert_eq!(merged_here.text, merged_there.text);
    let (_, pending) = listed(&merged_here.text);
    assert!(pending.is_empty(), "{pending:?}");
}

#[test]
fn a_note_whose_words_are_deleted_leaves_the_text_and_others_stay() {
    let mut base = doc(&["Keep this. Drop that."]);
    mark(&mut base, 0, "that", &Annotation::Note(NOTE.into()));
    mark(&mut base, 0, "this", &Annotation::Note(OTHER_NOTE.into()));
    let mut laptop = doc(&["Keep this."]);
    mark(&mut laptop, 0, "this", &Annotation::Note(OTHER_NOTE.into()));
    let merged = merge(&base, &laptop, &base);
    let (notes, _) = listed(&merged.text);
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].id, OTHER_NOTE);
}

#[test]
fn notes_put_on_one_word_by_both_sides_are_both_kept_and_one_taken_off_goes() {
    let note = Annotation::Note(NOTE.into());
    let other = Annotation::Note(OTHER_NOTE.into());
    let mut base = doc(&["Fees rise today."]);
    mark(&mut base, 0, "today", &note);
    let mut mine = base.clone();
    mark(&mut mine, 0, "rise", &other);
    let mut theirs = doc(&["Fees rise today."]);
    mark(
        &mut theirs,
        0,
        "rise",
        &suggestion("s", Change::Deletion, "Desk"),
    );
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty());
    assert_eq!(shown(&merged.text, 0, &other), "Fees [rise] today.");
    assert_eq!(
        shown(&merged.text, 0, &suggestion("s", Change::Deletion, "Desk")),
        "Fees [rise] today."
    );
    // Theirs took the note off "today"; mine left it: it goes.
    assert_eq!(shown(&merged.text, 0, &note), "Fees rise today.");
}

#[test]
fn notes_and_suggestions_come_back_from_the_html() {
    let mut text = marked("Fees rise sharply today.");
    mark(
        &mut text,
        0,
        "Fees",
        &suggestion(
            "s3",
            Change::Style {
                style: "BOLD".into(),
                on: true,
            },
            "Ana",
        ),
    );
    mark(&mut text, 0, "rise sharply", &Annotation::Note(NOTE.into()));
    mark(
        &mut text,
        0,
        "sharply",
        &Annotation::Note(OTHER_NOTE.into()),
    );
    let written = html::to_html(&text);
    let back = html::from_html(&written);
    assert_eq!(back.blocks[0].text(), text.blocks[0].text());
    assert_eq!(back.blocks[0].marks, text.blocks[0].marks);
    // An HTML-only client's save of it merges word by word.
    let stored = crate::merge::StoredText {
        html: &written,
        raw: None,
    };
    assert!(stored.parse().1, "{written}");
    // A <del> of its own is strike-through, which the merge does not read.
    let struck = crate::merge::StoredText {
        html: "<p>Fees <del>rise</del></p>",
        raw: None,
    };
    assert!(!struck.parse().1);
}

#[test]
fn a_resolved_note_stays_on_its_words_through_raw_html_and_a_merge_and_is_listed_resolved() {
    let open = Annotation::Note(NOTE.into());
    let resolved = Annotation::ResolvedNote(NOTE.into());
    let mut base = doc(&["Fees rise today.", "The council met."]);
    mark(&mut base, 0, "rise today", &open);
    // The desk resolves the note; the laptop, offline, edits the other paragraph.
    let mut desk = doc(&["Fees rise today.", "The council met."]);
    mark(&mut desk, 0, "rise today", &resolved);
    let mut laptop = doc(&["Fees rise today.", "The council met on Tuesday."]);
    mark(&mut laptop, 0, "rise today", &open);
    let merged = merge(&base, &laptop, &desk);
    assert!(merged.conflicts.is_empty());
    assert_eq!(shown(&merged.text, 0, &resolved), "Fees [rise today].");
    assert_eq!(shown(&merged.text, 0, &open), "Fees rise today.");
    assert_eq!(merged.text.blocks[1].text(), "The council met on Tuesday.");
    let (notes, _) = listed(&merged.text);
    assert_eq!(
        notes,
        [NoteInText {
            id: NOTE.into(),
            words: "rise today".into(),
            resolved: true,
        }]
    );
    // Raw content and HTML both keep it, apart from open notes.
    let raw = to_raw(&merged.text);
    assert!(raw.contains("\"resolved_notes\""), "{raw}");
    let parsed: serde_json::Value = serde_json::from_str(&raw).expect("JSON");
    assert_eq!(from_raw(&parsed).expect("raw").blocks, merged.text.blocks);
    let written = html::to_html(&merged.text);
    assert!(
        written.contains(&format!(
            "<span data-resolved-notes=\"{NOTE}\">rise today</span>"
        )),
        "{written}"
    );
    assert_eq!(
        html::from_html(&written).blocks[0].marks,
        merged.text.blocks[0].marks
    );
    // It never prints.
    assert_eq!(
        as_printed(&merged.text).blocks[0].marks,
        doc(&["Fees rise today."]).blocks[0].marks
    );
}
