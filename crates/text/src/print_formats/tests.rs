//! The print formats over stored HTML: blocks, styles, links, photos, and suggested edits and notes.

use super::*;

/// A story with a suggested insertion, a suggested deletion, a
/// suggested bold and a note, as the merge writes them.
const SUGGESTED: &str = "<p><span data-notes=\"n1\">Fees</span> \
    <ins data-suggestion=\"s1\" data-author=\"Desk\" data-at=\"2026-11-28T08:00:00Z\">sharply </ins>rise \
    <del data-suggestion=\"s2\" data-author=\"Desk\" data-at=\"2026-11-28T08:00:00Z\">today</del> \
    <span data-suggestion=\"s3\" data-style=\"BOLD\" data-on=\"true\" data-author=\"Ana\" data-at=\"\">again</span>.</p>\
    <p><ins data-suggestion=\"s4\" data-author=\"Desk\" data-at=\"\">A paragraph suggested whole.</ins></p>";

#[test]
fn print_formats_print_every_suggestion_rejected_and_say_some_are_pending() {
    assert!(has_pending_suggestions(SUGGESTED));
    assert!(!has_pending_suggestions(
        "<p><ins>underlined</ins> and <del>struck</del></p>"
    ));
    let notes = [PrintedNote {
        id: "n1".into(),
        author: "Desk".into(),
        at: "2026-11-28T08:05:00Z".into(),
        text: "Which fees?".into(),
    }];
    let story = Story {
        headline: "Fees",
        byline: None,
        html: SUGGESTED,
        notes: &notes,
    };
    let text = to_text(&story);
    assert_eq!(
        text,
        format!("Fees\n\n[{PENDING_NOTICE}]\n\nFees rise today again.\n")
    );
    let html = to_html(&story);
    assert!(html.contains(PENDING_NOTICE), "{html}");
    assert!(html.contains("<p>Fees rise today again.</p>"), "{html}");
    for gone in ["sharply", "suggested whole", "<ins", "<del", "data-"] {
        assert!(!html.contains(gone), "{gone} in {html}");
    }
    assert_icml_tracks_changes_and_notes(&to_icml(&story).expect("ICML"));
    // A story without suggestions prints as before, with no notice.
    let plain = Story {
        headline: "Fees",
        byline: None,
        html: "<p>Fees <ins>rise</ins>.</p>",
        notes: &[],
    };
    assert!(!to_text(&plain).contains(PENDING_NOTICE));
    assert!(to_html(&plain).contains("<ins>rise</ins>"));
}

#[test]
fn reads_blocks_and_styles() {
    let blocks = read_blocks(
        "<h2>Sub</h2><p>One <b>bold</b> and <i>it</i><br>next &amp; <a href=\"https://x.org\">link</a></p><ul><li>a</li></ul>",
    );
    assert_eq!(blocks.len(), 3);
    assert_eq!(blocks[0].kind, BlockKind::Heading(2));
    assert_eq!(blocks[1].text(), "One bold and it\u{2028}next & link");
    assert!(blocks[1].runs.iter().any(|r| r.bold && r.text == "bold"));
    assert!(
        blocks[1]
            .runs
            .iter()
            .any(|r| r.link.as_deref() == Some("https://x.org"))
    );
    assert_eq!(blocks[2].kind, BlockKind::ListItem);
}

#[test]
fn collapses_whitespace_and_skips_scripts() {
    let blocks = read_blocks("<p>  a \n\n b  </p><script>evil()</script><p>c</p>");
    let texts: Vec<String> = blocks.iter().map(Block::text).collect();
    assert_eq!(texts, ["a b", "c"]);
}

#[test]
fn plain_text() {
    let story = Story {
        headline: "Storm",
        byline: Some("By Ann".into()),
        html: "<p>Winds &lt;100&gt; km/h</p><p>Line<br>break</p>",
        notes: &[],
    };
    assert_eq!(
        to_text(&story),
        "Storm\n\nBy Ann\n\nWinds <100> km/h\n\nLine\nbreak\n"
    );
}

#[test]
fn a_photo_is_a_block_of_its_own_in_every_format() {
    let html = "<p>Before</p><figure><img src=\"/files/s1/public.png\" alt=\"Dock  workers\"></figure><p>After <img src=\"javascript:x()\" alt=\"no\">end</p>";
    let blocks = read_blocks(html);
    let kinds: Vec<BlockKind> = blocks.iter().map(|b| b.kind).collect();
    assert_eq!(
        kinds,
        [BlockKind::Paragraph, BlockKind::Image, BlockKind::Paragraph]
    );
    assert_eq!(
        blocks[1].image,
        Some(Picture {
            src: "/files/s1/public.png".into(),
            alt: "Dock  workers".into()
        })
    );
    // An image in the middle of a paragraph splits it; an unsafe one is dropped.
    assert_eq!(
        read_blocks("<p>a <img src=\"/files/s/p.png\" alt=\"x\"> b</p>").len(),
        3
    );
    assert_eq!(blocks[2].text(), "After end");
    let story = Story {
        headline: "Strike",
        byline: None,
        html,
        notes: &[],
    };
    assert_eq!(
        to_text(&story),
        "Strike\n\nBefore\n\n[Photo: Dock workers]\n\nAfter end\n"
    );
    let page = to_html(&story);
    assert!(
        page.contains("<figure><img src=\"/files/s1/public.png\" alt=\"Dock  workers\"></figure>"),
        "{page}"
    );
    assert!(!page.contains("javascript"), "{page}");
    let icml = to_icml(&story).expect("ICML");
    assert!(
        icml.contains("AppliedParagraphStyle=\"ParagraphStyle/Photo\""),
        "{icml}"
    );
    assert!(
        icml.contains("[Photo: Dock workers] /files/s1/public.png"),
        "{icml}"
    );
}

#[test]
fn javascript_links_are_not_links() {
    let blocks = read_blocks("<p><a href=\"javascript:x()\">no</a></p>");
    assert!(blocks[0].runs[0].link.is_none());
}

/// Reads the ICML with a standard XML parser and checks the shapes InCopy
/// writes for tracked changes and notes: each `Change` and `Note` a child
/// of a `CharacterStyleRange`, beside `Content`; an insertion's `Content`
/// inside its `Change`; a deletion's text in a paragraph and character
/// style range of its own inside its `Change`; the story tracking changes.
fn assert_icml_tracks_changes_and_notes(icml: &str) {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(icml);
    let mut path: Vec<(String, Vec<(String, String)>)> = Vec::new();
    let mut found: Vec<String> = Vec::new();
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(tag) => {
                let attributes = tag
                    .attributes()
                    .map(|a| {
                        let a = a.expect("an attribute");
                        let value = a.unescape_value().expect("a value").into_owned();
                        (String::from_utf8_lossy(a.key.as_ref()).into_owned(), value)
                    })
                    .collect();
                let name = String::from_utf8_lossy(tag.name().as_ref()).into_owned();
                path.push((name, attributes));
            }
            Event::End(_) => {
                path.pop();
            }
            Event::Text(text) => {
                let text = text.decode().expect("text").into_owned();
                let names: Vec<&str> = path.iter().map(|(n, _)| n.as_str()).collect();
                let attr = |element: &str, name: &str| {
                    path.iter()
                        .rev()
                        .find(|(n, _)| n == element)
                        .and_then(|(_, a)| a.iter().find(|(k, _)| k == name))
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default()
                };
                let tail = &names[names.len().saturating_sub(5)..];
                match tail {
                    [.., "CharacterStyleRange", "Change", "Content"] => found.push(format!(
                        "{} by {} at {}: {text}",
                        attr("Change", "ChangeType"),
                        attr("Change", "UserName"),
                        attr("Change", "Date")
                    )),
                    [
                        "CharacterStyleRange",
                        "Change",
                        "ParagraphStyleRange",
                        "CharacterStyleRange",
                        "Content",
                    ] => found.push(format!("{}: {text}", attr("Change", "ChangeType"))),
                    [
                        "CharacterStyleRange",
                        "Note",
                        "ParagraphStyleRange",
                        "CharacterStyleRange",
                        "Content",
                    ] => found.push(format!(
                        "Note by {} at {}: {text}",
                        attr("Note", "UserName"),
                        attr("Note", "CreationDate")
                    )),
                    [.., "Story", _, "CharacterStyleRange", "Content"] => found.push(text),
                    _ => {}
                }
                if names.contains(&"Story") {
                    assert_eq!(attr("Story", "TrackChanges"), "true");
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    for want in [
        "InsertedText by Desk at 2026-11-28T08:00:00: sharply ",
        "DeletedText: today",
        "Note by Desk at 2026-11-28T08:05:00: Which fees?",
        "InsertedText by Desk at : A paragraph suggested whole.",
        "rise ",
    ] {
        assert!(
            found.iter().any(|f| f == want),
            "{want:?} not in {found:#?}"
        );
    }
}
