//! The merge's cases of formatting: a link's address and its text merge apart, and a style or link stays on the words that replaced the ones it was on.

use super::*;

const CITY: &str = "Read the city council report here.";

fn link(url: &str) -> Entity {
    Entity {
        kind: "LINK".to_owned(),
        mutability: "MUTABLE".to_owned(),
        data: json!({ "url": url }).to_string(),
    }
}

/// Links the characters of `words` (their first occurrence) in the first block to `url`.
fn linked(mut text: RichText, words: &str, url: Option<&str>) -> RichText {
    let block = &mut text.blocks[0];
    let start = block.text().find(words).expect("the words are there");
    let start = block.text()[..start].chars().count();
    for mark in &mut block.marks[start..start + words.chars().count()] {
        mark.entity = url.map(link);
    }
    text
}

/// Each link's text and address in the first block, in order.
fn links(text: &RichText) -> Vec<(String, String)> {
    let block = &text.blocks[0];
    let mut out: Vec<(String, String)> = Vec::new();
    let mut previous: Option<&Entity> = None;
    for (c, mark) in block.text.iter().zip(&block.marks) {
        match &mark.entity {
            Some(entity) if Some(entity) == previous => {
                out.last_mut().expect("open").0.push(*c);
            }
            Some(entity) => {
                let data: serde_json::Value = serde_json::from_str(&entity.data).expect("json");
                out.push((c.to_string(), data["url"].as_str().unwrap_or("").to_owned()));
            }
            None => {}
        }
        previous = mark.entity.as_ref();
    }
    out
}

#[test]
fn a_fixed_address_and_a_word_changed_inside_the_link_both_apply_to_one_link() {
    let base = linked(
        doc(&[CITY]),
        "city council report",
        Some("https://x.test/old"),
    );
    let fixed = linked(
        base.clone(),
        "city council report",
        Some("https://x.test/new"),
    );
    let reworded = linked(
        doc(&["Read the city board report here."]),
        "city board report",
        Some("https://x.test/old"),
    );
    for (mine, theirs) in [(&fixed, &reworded), (&reworded, &fixed)] {
        let merged = merge(&base, mine, theirs);
        assert!(merged.conflicts.is_empty());
        assert_eq!(texts(&merged.text), ["Read the city board report here."]);
        assert_eq!(
            links(&merged.text),
            [(
                "city board report".to_owned(),
                "https://x.test/new".to_owned()
            )]
        );
    }
}

#[test]
fn a_fixed_address_and_the_links_last_or_only_word_reworded_give_one_link_to_the_new_address() {
    for (words, rewritten, new_words) in [
        (
            "city council",
            "Read the city board report here.",
            "city board",
        ),
        ("council", "Read the city board report here.", "board"),
    ] {
        let base = linked(doc(&[CITY]), words, Some("https://x.test/old"));
        let fixed = linked(base.clone(), words, Some("https://x.test/new"));
        let reworded = linked(doc(&[rewritten]), new_words, Some("https://x.test/old"));
        for (mine, theirs) in [(&fixed, &reworded), (&reworded, &fixed)] {
            let merged = merge(&base, mine, theirs);
            assert_eq!(
                links(&merged.text),
                [(new_words.to_owned(), "https://x.test/new".to_owned())],
                "{words}"
            );
        }
    }
}

#[test]
fn a_link_removed_on_one_side_is_gone_from_the_words_the_other_reworded() {
    let base = linked(doc(&[CITY]), "council", Some("https://x.test/old"));
    let unlinked = doc(&[CITY]);
    let reworded = linked(
        doc(&["Read the city board report here."]),
        "board",
        Some("https://x.test/old"),
    );
    let merged = merge(&base, &unlinked, &reworded);
    assert_eq!(texts(&merged.text), ["Read the city board report here."]);
    assert!(links(&merged.text).is_empty());
}

#[test]
fn both_sides_changing_one_links_address_leave_one_link_to_theirs() {
    let base = linked(
        doc(&[CITY]),
        "city council report",
        Some("https://x.test/old"),
    );
    let mine = linked(
        doc(&["Read the city council annual report here."]),
        "city council annual report",
        Some("https://x.test/mine"),
    );
    let theirs = linked(
        base.clone(),
        "city council report",
        Some("https://x.test/theirs"),
    );
    let merged = merge(&base, &mine, &theirs);
    assert_eq!(
        links(&merged.text),
        [(
            "city council annual report".to_owned(),
            "https://x.test/theirs".to_owned()
        )]
    );
}

#[test]
fn a_word_bolded_on_one_side_and_reworded_on_the_other_is_bold_in_its_new_wording() {
    let base = doc(&[CITY]);
    let bolded = styled(base.clone(), 0, "council", "BOLD");
    let reworded = doc(&["Read the city board report here."]);
    for (mine, theirs) in [(&bolded, &reworded), (&reworded, &bolded)] {
        let merged = merge(&base, mine, theirs);
        assert_eq!(texts(&merged.text), ["Read the city board report here."]);
        assert_eq!(style_of(&merged.text, 0, "board"), [true; 5]);
        assert_eq!(style_of(&merged.text, 0, "city"), [false; 4]);
        assert_eq!(style_of(&merged.text, 0, "report"), [false; 6]);
    }
}

#[test]
fn a_word_linked_on_one_side_and_reworded_on_the_other_is_linked_in_its_new_wording() {
    let base = doc(&[CITY]);
    let with_link = linked(base.clone(), "council", Some("https://x.test/c"));
    let reworded = doc(&["Read the city board report here."]);
    let merged = merge(&base, &with_link, &reworded);
    assert_eq!(
        links(&merged.text),
        [("board".to_owned(), "https://x.test/c".to_owned())]
    );
}

/// Raw content of one paragraph, as the editor writes it.
fn raw_paragraph(key: &str, text: &str) -> serde_json::Value {
    json!({"blocks": [{"key": key, "text": text, "type": "unstyled", "depth": 0,
        "inlineStyleRanges": [], "entityRanges": [], "data": {}}], "entityMap": {}})
}

#[test]
fn html_only_text_keeps_relative_phone_and_anchor_links_and_no_break_spaces_through_a_merge() {
    let links = r##"<p>See <a href="/news/42">the story</a>, <a href="#map">the map</a> or call <a href="tel:+15551234">the desk</a>.</p>"##;
    let base = format!("{links}<p>First draft.</p><p>10&nbsp;km north.</p>");
    let mine = format!("{links}<p>Second draft.</p><p>10&nbsp;km north.</p>");
    let theirs = format!("{links}<p>First draft.</p><p>10&nbsp;km north, by road.</p>");
    let side = |html| StoredText { html, raw: None };
    let merged = merge_stored(side(&base), side(&mine), side(&theirs)).expect("mergeable");
    assert!(merged.conflicts.is_empty());
    for link in [
        r#"href="/news/42""#,
        r##"href="#map""##,
        r#"href="tel:+15551234""#,
    ] {
        assert!(merged.html.contains(link), "{link}: {}", merged.html);
    }
    assert!(merged.html.contains("Second draft."), "{}", merged.html);
    assert!(
        merged.html.contains("10\u{a0}km north, by road."),
        "{}",
        merged.html
    );
}

#[test]
fn html_with_a_link_the_sanitiser_drops_is_not_merged_paragraph_by_paragraph() {
    let base = r#"<p><a href="javascript:alert(1)">x</a></p><p>One.</p>"#;
    let mine = r#"<p><a href="javascript:alert(1)">x</a></p><p>Two.</p>"#;
    let side = |html| StoredText { html, raw: None };
    assert!(merge_stored(side(base), side(mine), side(base)).is_none());
}

#[test]
fn raw_content_whose_html_holds_named_entities_is_trusted_with_its_keys() {
    let raw = raw_paragraph("kx1", "Caf\u{e9} at 10\u{a0}am \u{2014} \"open\" & free");
    let html = "<p>Caf&eacute; at 10&nbsp;am &mdash; &quot;open&quot; &amp; free</p>";
    let text = StoredText {
        html,
        raw: Some(typed(&raw)),
    }
    .read();
    assert_eq!(text.blocks[0].key.as_deref(), Some("kx1"));
}

#[test]
fn html_sent_without_raw_replaces_the_stale_raw_with_its_own() {
    let old_raw = raw_paragraph("k0", "The council met.").to_string();
    let bolded = "<p>The <strong>council</strong> met.</p>";
    let rebuilt = raw_for_sent_html(bolded, &old_raw);
    let value = parse_raw(&rebuilt).expect("raw content");
    let read = StoredText {
        html: bolded,
        raw: Some(typed(&value)),
    }
    .read();
    assert_eq!(style_of(&read, 0, "council"), [true; 7]);
    // The paragraph keeps its key; a new one gets a new key.
    assert_eq!(read.blocks[0].key.as_deref(), Some("k0"));
    let added = "<p>The <strong>council</strong> met.</p><p>Fees will rise by seven percent.</p>";
    let value = parse_raw(&raw_for_sent_html(added, &old_raw)).expect("raw content");
    let read = StoredText {
        html: added,
        raw: Some(typed(&value)),
    }
    .read();
    assert_eq!(read.blocks[0].key.as_deref(), Some("k0"));
    assert!(read.blocks[1].key.as_deref().is_some_and(|k| k != "k0"));
    // A field that never had raw content gets none; HTML the merge cannot
    // write back drops the old raw content.
    assert_eq!(raw_for_sent_html(bolded, ""), "");
    assert_eq!(
        raw_for_sent_html("<table><tr><td>x</td></tr></table>", &old_raw),
        ""
    );
}
