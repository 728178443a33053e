//! The merge's cases (the ones newsrooms hit) and its properties.

use proptest::prelude::*;
use serde_json::json;

use super::*;

fn doc(paragraphs: &[&str]) -> RichText {
    RichText {
        blocks: paragraphs
            .iter()
            .map(|p| Block::plain("unstyled", p))
            .collect(),
    }
}

/// A document with keys `k0`, `k1`, ... (as the editor's raw content has them).
fn keyed(paragraphs: &[(&str, &str)]) -> RichText {
    RichText {
        blocks: paragraphs
            .iter()
            .map(|(key, text)| Block {
                key: Some((*key).to_owned()),
                ..Block::plain("unstyled", text)
            })
            .collect(),
    }
}

/// Raw content as `draft_raw::to_raw` writes it, read back as a JSON value.
fn raw_value(text: &RichText) -> serde_json::Value {
    serde_json::from_str(&draft_raw::to_raw(text)).expect("raw content is JSON")
}

/// Raw content as a stored field holds it: its JSON text, read as the merge reads it.
fn typed(raw: &serde_json::Value) -> &'static RawContent<'static> {
    let text: &'static str = Box::leak(raw.to_string().into_boxed_str());
    Box::leak(Box::new(RawContent::read(text).expect("raw content")))
}

fn texts(text: &RichText) -> Vec<String> {
    text.blocks.iter().map(Block::text).collect()
}

/// Sets `style` on the characters of `word` (its first occurrence) in block `block`.
fn styled(mut text: RichText, block: usize, word: &str, style: &str) -> RichText {
    let b = &mut text.blocks[block];
    let start = b.text().find(word).expect("the word is there");
    let start = b.text()[..start].chars().count();
    for mark in &mut b.marks[start..start + word.chars().count()] {
        mark.styles.insert(style.to_owned());
    }
    text
}

fn style_of(text: &RichText, block: usize, word: &str) -> Vec<bool> {
    let b = &text.blocks[block];
    let start = b.text().find(word).expect("the word is there");
    let start = b.text()[..start].chars().count();
    b.marks[start..start + word.chars().count()]
        .iter()
        .map(|m| m.styles.contains("BOLD"))
        .collect()
}

#[test]
fn different_paragraphs_both_apply() {
    let base = doc(&["The lede.", "Middle.", "The kicker."]);
    let mine = doc(&["The new lede.", "Middle.", "The kicker."]);
    let theirs = doc(&["The lede.", "Middle.", "The trimmed kicker."]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty());
    assert_eq!(
        texts(&merged.text),
        ["The new lede.", "Middle.", "The trimmed kicker."]
    );
}

#[test]
fn different_words_of_one_paragraph_both_apply() {
    let base = doc(&["The council voted on Tuesday to raise fees."]);
    let mine = doc(&["The city council voted on Tuesday to raise fees."]);
    let theirs = doc(&["The council voted on Wednesday to raise fees."]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty());
    assert_eq!(
        texts(&merged.text),
        ["The city council voted on Wednesday to raise fees."]
    );
}

#[test]
fn the_same_edit_is_applied_once() {
    let base = doc(&["hello world"]);
    let both = doc(&["Hello world"]);
    let merged = merge(&base, &both, &both);
    assert!(merged.conflicts.is_empty());
    assert_eq!(texts(&merged.text), ["Hello world"]);
}

#[test]
fn the_same_words_changed_differently_conflict_in_that_block_only() {
    let base = doc(&["One.", "Fees rise by 5%.", "Three."]);
    let mine = doc(&["One!", "Fees rise by 6%.", "Three."]);
    let theirs = doc(&["One.", "Fees rise by 7%.", "Three, revised."]);
    let merged = merge(&base, &mine, &theirs);
    assert_eq!(
        texts(&merged.text),
        ["One!", "Fees rise by 7%.", "Three, revised."]
    );
    assert_eq!(merged.conflicts.len(), 1);
    let conflict = &merged.conflicts[0];
    assert_eq!(conflict.position, 1);
    assert_eq!(conflict.mine.text(), "Fees rise by 6%.");
    assert_eq!(conflict.theirs.text(), "Fees rise by 7%.");
    assert_eq!(conflict.before.as_deref(), Some("One!"));
    assert_eq!(conflict.after.as_deref(), Some("Three, revised."));
}

#[test]
fn a_deletion_against_a_fix_inside_it_conflicts() {
    let base = doc(&["The mayor, who was re-elected in 2022, resigned."]);
    let mine = doc(&["The mayor resigned."]);
    let theirs = doc(&["The mayor, who was re-elected in 2021, resigned."]);
    let merged = merge(&base, &mine, &theirs);
    assert_eq!(merged.conflicts.len(), 1);
    assert_eq!(texts(&merged.text), [theirs.blocks[0].text()]);
}

#[test]
fn an_inserted_paragraph_and_an_edited_one_both_apply() {
    let base = doc(&["A.", "B.", "C."]);
    let mine = doc(&["A.", "New.", "B.", "C."]);
    let theirs = doc(&["A.", "B.", "C, edited."]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty());
    assert_eq!(texts(&merged.text), ["A.", "New.", "B.", "C, edited."]);
}

#[test]
fn a_deleted_paragraph_and_an_edited_other_both_apply() {
    let base = doc(&["A.", "B.", "C."]);
    let mine = doc(&["A.", "C."]);
    let theirs = doc(&["A, edited.", "B.", "C."]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty());
    assert_eq!(texts(&merged.text), ["A, edited.", "C."]);
}

#[test]
fn an_edit_beats_a_delete_of_the_same_paragraph() {
    let base = keyed(&[("a", "A."), ("b", "B."), ("c", "C.")]);
    let mine = keyed(&[("a", "A."), ("c", "C.")]);
    let theirs = keyed(&[("a", "A."), ("b", "B, edited."), ("c", "C.")]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty());
    assert_eq!(texts(&merged.text), ["A.", "B, edited.", "C."]);
    let merged = merge(&base, &theirs, &mine);
    assert_eq!(texts(&merged.text), ["A.", "B, edited.", "C."]);
}

#[test]
fn paragraphs_both_sides_insert_at_one_place_are_kept_whole_in_a_fixed_order() {
    let base = doc(&["A.", "Z."]);
    let mine = doc(&["A.", "Mine one.", "Mine two.", "Z."]);
    let theirs = doc(&["A.", "Theirs.", "Z."]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty());
    assert_eq!(
        texts(&merged.text),
        ["A.", "Theirs.", "Mine one.", "Mine two.", "Z."]
    );
    // The same paragraph added on both sides stands once.
    let merged = merge(&base, &theirs, &theirs);
    assert_eq!(texts(&merged.text), ["A.", "Theirs.", "Z."]);
}

#[test]
fn new_keys_on_every_block_duplicate_nothing() {
    // An HTML-only client: every block gets a new key each time.
    let base = keyed(&[("a", "A."), ("b", "B."), ("c", "C.")]);
    let mine = keyed(&[("x1", "A."), ("x2", "B, mine."), ("x3", "C.")]);
    let theirs = keyed(&[("a", "A."), ("b", "B."), ("c", "C, theirs.")]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty());
    assert_eq!(texts(&merged.text), ["A.", "B, mine.", "C, theirs."]);
}

#[test]
fn a_moved_paragraph_moves_and_keeps_the_other_sides_edit() {
    let base = keyed(&[("a", "A."), ("b", "B."), ("c", "C.")]);
    let mine = keyed(&[("b", "B."), ("a", "A."), ("c", "C.")]);
    let theirs = keyed(&[("a", "A, edited."), ("b", "B."), ("c", "C.")]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty());
    assert_eq!(texts(&merged.text), ["B.", "A, edited.", "C."]);
}

#[test]
fn a_paragraph_moved_without_keys_and_edited_on_the_other_side_stands_once_edited_at_its_new_place()
{
    // Keys numbered by position (or none): the move is found by content.
    let base = doc(&[
        "A lede.",
        "B middle.",
        "C more.",
        "D the quote from the mayor.",
    ]);
    let mine = doc(&[
        "D the quote from the mayor.",
        "A lede.",
        "B middle.",
        "C more.",
    ]);
    let theirs = doc(&[
        "A lede.",
        "B middle.",
        "C more.",
        "D the quote from the city mayor.",
    ]);
    for (mine, theirs) in [(&mine, &theirs), (&theirs, &mine)] {
        let merged = merge(&base, mine, theirs);
        assert!(merged.conflicts.is_empty());
        assert_eq!(
            texts(&merged.text),
            [
                "D the quote from the city mayor.",
                "A lede.",
                "B middle.",
                "C more."
            ]
        );
    }
}

#[test]
fn a_paragraph_moved_and_edited_on_one_side_and_edited_on_the_other_merges_its_words_once() {
    let base = doc(&[
        "A lede.",
        "B middle.",
        "The mayor said the bridge would open in May.",
    ]);
    let mine = doc(&[
        "The mayor said the new bridge would open in May.",
        "A lede.",
        "B middle.",
    ]);
    let theirs = doc(&[
        "A lede.",
        "B middle.",
        "The mayor said the bridge would open in June.",
    ]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty());
    assert_eq!(
        texts(&merged.text),
        [
            "The mayor said the new bridge would open in June.",
            "A lede.",
            "B middle."
        ]
    );
}

#[test]
fn a_photo_moved_on_one_side_and_replaced_on_the_other_prints_once_replaced_at_its_new_place() {
    let with = |blocks: Vec<Block>| RichText { blocks };
    let text = |t: &str| Block::plain("unstyled", t);
    let quay = || Block::image("/files/a/quay.png", "The quay");
    let crane = || Block::image("/files/b/crane.png", "The crane");
    let base = with(vec![
        text("A lede."),
        text("B middle."),
        quay(),
        text("C end."),
    ]);
    let moved = with(vec![
        quay(),
        text("A lede."),
        text("B middle."),
        text("C end."),
    ]);
    let replaced = with(vec![
        text("A lede."),
        text("B middle."),
        crane(),
        text("C end."),
    ]);
    for (mine, theirs) in [(&moved, &replaced), (&replaced, &moved)] {
        let merged = merge(&base, mine, theirs);
        assert!(merged.conflicts.is_empty());
        assert_eq!(
            merged.text.blocks,
            vec![crane(), text("A lede."), text("B middle."), text("C end.")]
        );
    }
}

#[test]
fn an_empty_line_deleted_here_and_added_there_is_not_taken_for_a_move() {
    let (a, b, c) = (
        "A lede about the port.",
        "B middle about the ships.",
        "C the end of it all.",
    );
    let base = doc(&[a, "", b, c]);
    // Mine drops the empty line and adds one at the end; theirs types into it.
    let mine = doc(&[a, b, c, ""]);
    let theirs = doc(&[a, "Quay reopened.", b, c]);
    let merged = merge(&base, &mine, &theirs);
    let text = texts(&merged.text);
    let at = text
        .iter()
        .position(|p| p == "Quay reopened.")
        .expect("theirs' words stay");
    assert_eq!(at, 1, "where they typed them: {text:?}");
}

#[test]
fn a_new_paragraph_on_another_subject_is_not_taken_for_a_moved_one() {
    let base = doc(&["A lede.", "The council met on Tuesday evening."]);
    let mine = doc(&["Fire crews were called at noon.", "A lede."]);
    let theirs = doc(&["A lede.", "The council met on Tuesday evening, late."]);
    let merged = merge(&base, &mine, &theirs);
    // Mine deleted the council paragraph, theirs edited it: the edit stays, and the new one too.
    assert_eq!(
        texts(&merged.text),
        [
            "Fire crews were called at noon.",
            "A lede.",
            "The council met on Tuesday evening, late."
        ]
    );
}

#[test]
fn words_inserted_inside_a_range_the_other_side_bolded_are_bold() {
    let base = doc(&["the quick fox jumps"]);
    let mine = styled(doc(&["the quick fox jumps"]), 0, "quick fox", "BOLD");
    let theirs = doc(&["the quick brown fox jumps"]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty());
    assert_eq!(texts(&merged.text), ["the quick brown fox jumps"]);
    assert!(
        style_of(&merged.text, 0, "quick brown fox")
            .iter()
            .all(|b| *b)
    );
    assert!(style_of(&merged.text, 0, "jumps").iter().all(|b| !*b));
}

#[test]
fn bold_grows_over_words_typed_at_its_end_but_a_link_does_not() {
    let base = doc(&["read the report now"]);
    let mut mine = styled(doc(&["read the report now"]), 0, "the report", "BOLD");
    let url = Entity {
        kind: "LINK".into(),
        mutability: "MUTABLE".into(),
        data: json!({"url": "https://example.org/r"}).to_string(),
    };
    for mark in &mut mine.blocks[0].marks[5..15] {
        mark.entity = Some(url.clone());
    }
    let theirs = doc(&["read the report today now"]);
    let merged = merge(&base, &mine, &theirs);
    let block = &merged.text.blocks[0];
    assert_eq!(block.text(), "read the report today now");
    let today = block.text().find("today").expect("today");
    assert!(
        block.marks[today].styles.contains("BOLD"),
        "bold grows at its end"
    );
    assert_eq!(block.marks[today].entity, None, "a link does not");
    assert_eq!(
        block.marks[5].entity,
        Some(url),
        "the link stays on its words"
    );
}

#[test]
fn a_style_and_a_word_change_elsewhere_in_the_block_both_apply() {
    let base = doc(&["Fees rise again this year"]);
    let mine = styled(doc(&["Fees rise again this year"]), 0, "Fees", "ITALIC");
    let theirs = styled(doc(&["Fees rise again next year"]), 0, "rise", "BOLD");
    let merged = merge(&base, &mine, &theirs);
    let block = &merged.text.blocks[0];
    assert_eq!(block.text(), "Fees rise again next year");
    assert!(block.marks[0].styles.contains("ITALIC"));
    assert!(block.marks[5].styles.contains("BOLD"));
}

#[test]
fn emoji_offsets_stay_right_through_raw_content() {
    let raw = json!({"blocks": [{"key": "a1", "text": "🌊 Water rises", "type": "unstyled", "depth": 0,
        "inlineStyleRanges": [{"offset": 2, "length": 5, "style": "BOLD"}], "entityRanges": [], "data": {}}],
        "entityMap": {}});
    let text = draft_raw::from_raw(&raw).expect("raw content");
    assert!(text.blocks[0].marks[2].styles.contains("BOLD"), "W is bold");
    assert_eq!(
        raw_value(&text)["blocks"][0]["inlineStyleRanges"],
        raw["blocks"][0]["inlineStyleRanges"]
    );
}

#[test]
fn stored_fields_merge_into_html_and_raw_that_tell_the_same_text() {
    let raw = |lede: &str, kicker: &str| {
        json!({"blocks": [
            {"key": "l", "text": lede, "type": "unstyled", "depth": 0, "inlineStyleRanges": [], "entityRanges": [{"offset": 0, "length": 3, "key": 0}], "data": {}},
            {"key": "k", "text": kicker, "type": "header-two", "depth": 0, "inlineStyleRanges": [], "entityRanges": [], "data": {}}],
            "entityMap": {"0": {"type": "LINK", "mutability": "MUTABLE", "data": {"url": "https://example.org/a?b=1&c=2"}}}})
    };
    let (b, m, t) = (
        raw("The lede.", "Kicker."),
        raw("The new lede.", "Kicker."),
        raw("The lede.", "Kicker, trimmed."),
    );
    let as_html = |r: &serde_json::Value| -> String {
        let blocks = r["blocks"].as_array().expect("blocks");
        format!(
            "<p>{}</p><h2>{}</h2>",
            blocks[0]["text"].as_str().unwrap_or(""),
            blocks[1]["text"].as_str().unwrap_or("")
        )
    };
    let (bh, mh, th) = (as_html(&b), as_html(&m), as_html(&t));
    let side = |html, r| StoredText {
        html,
        raw: Some(typed(r)),
    };
    let merged = merge_stored(side(&bh, &b), side(&mh, &m), side(&th, &t)).expect("mergeable");
    assert!(merged.conflicts.is_empty());
    assert_eq!(
        merged.html,
        "<p><a href=\"https://example.org/a?b=1&amp;c=2\">The</a> new lede.</p><h2>Kicker, trimmed.</h2>"
    );
    let raw: serde_json::Value =
        serde_json::from_str(&merged.raw.expect("raw content")).expect("JSON");
    assert_eq!(raw["blocks"][0]["text"], "The new lede.");
    assert_eq!(raw["blocks"][1]["key"], "k");
    assert_eq!(
        raw["entityMap"]["0"]["data"]["url"],
        "https://example.org/a?b=1&c=2"
    );
    crate::draftjs::validate_raw(&raw).expect("valid Draft.js raw content");
    // HTML alone merges too, and reads back as the same text.
    let html = |s| StoredText { html: s, raw: None };
    let merged = merge_stored(
        html("<p>One <strong>two</strong>.</p><ul><li>Item</li></ul>"),
        html("<p>One <strong>two</strong> three.</p><ul><li>Item</li></ul>"),
        html("<p>One <strong>two</strong>.</p><ul><li>Item, edited</li></ul>"),
    )
    .expect("mergeable");
    assert_eq!(
        merged.html,
        "<p>One <strong>two</strong> three.</p><ul><li>Item, edited</li></ul>"
    );
    assert!(merged.raw.is_none());
    // What a round trip would lose is not merged paragraph by paragraph.
    for unmergeable in [
        "<p>A.</p><img src=\"x.png\">",
        "<ol><li>A.</li></ol>",
        "<table><tr><td>A.</td></tr></table>",
    ] {
        assert!(
            merge_stored(html(unmergeable), html("<p>B.</p>"), html("<p>C.</p>")).is_none(),
            "{unmergeable}"
        );
    }
    // Raw content left behind by a client that sent only new HTML is not read.
    let stale = b.clone();
    let merged = merge_stored(
        side(&bh, &b),
        StoredText {
            html: "<p>The lede, from the web.</p><h2>Kicker.</h2>",
            raw: Some(typed(&stale)),
        },
        side(&th, &t),
    )
    .expect("mergeable");
    assert!(
        merged.html.contains("The lede, from the web."),
        "{}",
        merged.html
    );
    assert!(merged.html.contains("Kicker, trimmed."), "{}", merged.html);
}

// Properties, over documents of short paragraphs drawn from a small
// vocabulary (so that words repeat, as they do in stories).

fn paragraph() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "the", "council", "vote", "fees", "rise", "mayor", "said", "7%", "Tuesday,",
        ]),
        1..8,
    )
    .prop_map(|words| words.join(" "))
}

fn document() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(paragraph(), 1..8)
}

/// A document whose paragraphs all differ: without keys, paragraphs are told
/// apart by their text, and a paragraph that stands twice word for word
/// cannot be (a limit written down in docs/decisions.md).
fn distinct_document() -> impl Strategy<Value = Vec<String>> {
    document().prop_filter("paragraphs differ", |paragraphs| {
        let unique: std::collections::HashSet<&String> = paragraphs.iter().collect();
        unique.len() == paragraphs.len()
    })
}

fn as_doc(paragraphs: &[String]) -> RichText {
    let refs: Vec<&str> = paragraphs.iter().map(String::as_str).collect();
    doc(&refs)
}

/// The same document with a key per paragraph, as the editor's raw content has.
fn as_keyed(paragraphs: &[String]) -> RichText {
    let mut text = as_doc(paragraphs);
    for (i, block) in text.blocks.iter_mut().enumerate() {
        block.key = Some(format!("k{i}"));
    }
    text
}

/// Base, mine and theirs with disjoint paragraphs edited on each side, and the text both edits give.
fn disjoint_edits(
    base: &[String],
    picks: Vec<(prop::sample::Index, bool, u8)>,
) -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut mine = base.to_vec();
    let mut theirs = base.to_vec();
    let mut expected = base.to_vec();
    let mut touched = std::collections::HashSet::new();
    for (index, to_mine, how) in picks {
        let i = index.index(base.len());
        if !touched.insert(i) {
            continue;
        }
        let changed = edit(&base[i], how, if to_mine { "MINE" } else { "THEIRS" });
        if to_mine {
            mine[i].clone_from(&changed);
        } else {
            theirs[i].clone_from(&changed);
        }
        expected[i] = changed;
    }
    (mine, theirs, expected)
}

/// An edit of one paragraph: its words replaced, one added, or one dropped.
fn edit(paragraph: &str, how: u8, word: &str) -> String {
    let mut words: Vec<&str> = paragraph.split(' ').collect();
    match how % 3 {
        0 => words.push(word),
        1 if words.len() > 1 => {
            words.remove(0);
        }
        _ => words.insert(0, word),
    }
    words.join(" ")
}

mod edit_scripts;
mod formatting;
mod photos;
mod properties;
mod scripts;
mod structure;

use photos::{spelled, with_photos};

/// The merged raw content the UI's test suite checks against the real
/// `draft-js` (`ui/test/merged-raw.test.ts`): `UPDATE_FIXTURES=1` rewrites it.
#[test]
fn merged_raw_content_fixture_for_draft_js_is_current() {
    const FIXTURE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../ui/test/fixtures/merged-raw.json"
    );
    let link = |url: &str| Entity {
        kind: "LINK".into(),
        mutability: "MUTABLE".into(),
        data: json!({"url": url}).to_string(),
    };
    let with_link = |mut text: RichText, block: usize, word: &str, url: &str| {
        let b = &mut text.blocks[block];
        let start = b.text()[..b.text().find(word).expect("the word")]
            .chars()
            .count();
        for mark in &mut b.marks[start..start + word.chars().count()] {
            mark.entity = Some(link(url));
        }
        text
    };
    let list = |items: &[&str]| RichText {
        blocks: items
            .iter()
            .enumerate()
            .map(|(i, t)| Block {
                key: Some(format!("l{i}")),
                ..Block::plain(
                    if i == 0 {
                        "header-two"
                    } else {
                        "unordered-list-item"
                    },
                    t,
                )
            })
            .collect(),
    };
    let cases = [
        (
            "emoji, a bold word and a link, each side editing around the other's",
            doc(&["🌊 Water rises at the north bank"]),
            styled(
                doc(&["🌊 Water rises at the north bank today 👷🏽"]),
                0,
                "Water",
                "BOLD",
            ),
            with_link(
                doc(&["🌊 Water rose at the north bank"]),
                0,
                "north bank",
                "https://example.org/n",
            ),
        ),
        (
            "a heading and a list, items added and edited on both sides",
            list(&["Flood", "sandbags", "pumps"]),
            list(&["Flood 🌊", "sandbags", "pumps", "boats"]),
            list(&["Flood", "sandbags at the dam", "pumps"]),
        ),
        (
            "a photo placed on one side while the other edits the text around it",
            with_photos(&["Dockers walk out.", "The port is shut."]),
            with_photos(&["Dockers walk out.", "img:s1", "The port is shut."]),
            with_photos(&["Dockers walk out at dawn.", "The port is shut."]),
        ),
        (
            "the desk's note and suggestions over a link while the reporter edits the next paragraph",
            with_link(
                doc(&["The council voted to raise fees.", "More soon."]),
                0,
                "council",
                "https://example.org/c",
            ),
            with_link(
                doc(&["The council voted to raise fees.", "More tonight."]),
                0,
                "council",
                "https://example.org/c",
            ),
            annotated(with_link(
                doc(&["The council narrowly voted to raise fees.", "More soon."]),
                0,
                "council",
                "https://example.org/c",
            )),
        ),
    ];
    let fixtures: Vec<serde_json::Value> = cases
        .into_iter()
        .map(|(name, base, mine, theirs)| {
            let merged = merge(&base, &mine, &theirs);
            assert!(merged.conflicts.is_empty(), "{name}");
            json!({
                "name": name,
                "raw": raw_value(&merged.text),
                "texts": texts(&merged.text),
            })
        })
        .collect();
    let mut written = serde_json::to_string_pretty(&fixtures).expect("JSON");
    written.push('\n');
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(FIXTURE, &written).expect("writes the fixture");
    }
    let committed = std::fs::read_to_string(FIXTURE).unwrap_or_default();
    assert!(
        committed == written,
        "ui/test/fixtures/merged-raw.json is not what the merge writes: run `UPDATE_FIXTURES=1 cargo test -p copydesk-core merge` and review"
    );
}

/// `text` (its first paragraph "The council narrowly voted to raise
/// fees.") with the desk's note over "council narrowly", "narrowly "
/// suggested, "to raise" suggested for deletion and "fees" suggested bold.
fn annotated(mut text: RichText) -> RichText {
    use crate::annotations::{Annotation, Change, Suggestion};
    let suggestion = |id: &str, change| {
        Annotation::Suggestion(Suggestion {
            id: id.to_owned(),
            change,
            author: "Desk".to_owned(),
            at: "2026-11-28T08:00:00Z".to_owned(),
        })
    };
    let marks: [(&str, Annotation); 4] = [
        (
            "council narrowly",
            Annotation::Note("3b0f5c1e-8d4a-4f7e-9a51-2c6d8e0f1a2b".to_owned()),
        ),
        ("narrowly ", suggestion("s-insert", Change::Insertion)),
        ("to raise ", suggestion("s-delete", Change::Deletion)),
        (
            "fees",
            suggestion(
                "s-bold",
                Change::Style {
                    style: "BOLD".to_owned(),
                    on: true,
                },
            ),
        ),
    ];
    let block = &mut text.blocks[0];
    for (words, annotation) in marks {
        let start = block.text()[..block.text().find(words).expect("the words")]
            .chars()
            .count();
        for mark in &mut block.marks[start..start + words.chars().count()] {
            mark.annotations.insert(annotation.clone());
        }
    }
    text
}

/// Blocks keyed by their position, as our editor writes `content_raw`.
fn positional(paragraphs: &[&str]) -> RichText {
    RichText {
        blocks: paragraphs
            .iter()
            .enumerate()
            .map(|(i, text)| Block {
                key: Some(format!("b{i}")),
                ..Block::plain("unstyled", text)
            })
            .collect(),
    }
}

#[test]
fn keys_that_are_positions_do_not_pair_the_wrong_paragraphs() {
    let merged = merge(
        &positional(&["A.", "B.", "C."]),
        &positional(&["A.", "B.", "C, mine."]),
        &positional(&["B.", "C."]),
    );
    assert!(merged.conflicts.is_empty());
    assert_eq!(texts(&merged.text), ["B.", "C, mine."]);
    let merged = merge(
        &positional(&["Intro.", "The mayor said no.", "The mayor said yes."]),
        &positional(&["X.", "Intro.", "The mayor said no.", "The mayor said yes."]),
        &positional(&["Intro.", "The mayor said no.", "Now the mayor said yes."]),
    );
    assert!(merged.conflicts.is_empty());
    assert_eq!(
        texts(&merged.text),
        [
            "X.",
            "Intro.",
            "The mayor said no.",
            "Now the mayor said yes."
        ]
    );
}

#[test]
fn a_paragraph_moved_on_one_side_stays_when_the_other_adds_at_its_new_place() {
    let merged = merge(
        &keyed(&[
            ("a", "A."),
            ("b", "B."),
            ("c", "C."),
            ("d", "D."),
            ("e", "E."),
        ]),
        &keyed(&[
            ("a", "A."),
            ("c", "C."),
            ("d", "D."),
            ("e", "E."),
            ("b", "B."),
        ]),
        &keyed(&[
            ("a", "A."),
            ("b", "B."),
            ("c", "C."),
            ("d", "D."),
            ("e", "E."),
            ("t", "T."),
        ]),
    );
    assert_eq!(texts(&merged.text), ["A.", "C.", "D.", "E.", "T.", "B."]);
}

// Photos in the body: an `atomic` block whose one character carries an
// `IMAGE` entity (`<figure><img></figure>` in HTML), merged as one unit.
