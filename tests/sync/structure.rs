//! A story's structure and formatting changed on one side and its words on the other (paragraphs joined or split, a link's address fixed, a word bolded, HTML sent without raw content, Japanese) merge end to end through real `copydesk-server sync` runs.

use serde_json::{Map, Value, json};

use super::merge::{Desk, as_editor_writes, html};

/// A paragraph: its Draft.js key (used only where raw content is sent),
/// its text, a word in bold and a run of words linked to an address.
#[derive(Clone, Copy)]
struct Para<'a> {
    key: &'a str,
    text: &'a str,
    bold: Option<&'a str>,
    link: Option<(&'a str, &'a str)>,
}

fn para<'a>(key: &'a str, text: &'a str) -> Para<'a> {
    Para {
        key,
        text,
        bold: None,
        link: None,
    }
}

/// Where `words` stand in `text`: their bytes, and their code points (as Draft.js counts).
fn place(text: &str, words: &str) -> (std::ops::Range<usize>, usize, usize) {
    let at = text.find(words).expect("the words are in the paragraph");
    (
        at..at + words.len(),
        text[..at].chars().count(),
        words.chars().count(),
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\u{a0}', "&nbsp;")
}

impl<'a> Para<'a> {
    fn bold(self, word: &'a str) -> Self {
        Self {
            bold: Some(word),
            ..self
        }
    }

    fn link(self, words: &'a str, url: &'a str) -> Self {
        Self {
            link: Some((words, url)),
            ..self
        }
    }

    /// The paragraph as the editor's HTML: `<p>`, `<strong>` and `<a href>`.
    fn html(&self) -> String {
        let mut spans: Vec<(std::ops::Range<usize>, String, &str)> = Vec::new();
        if let Some(word) = self.bold {
            spans.push((place(self.text, word).0, "<strong>".into(), "</strong>"));
        }
        if let Some((words, url)) = self.link {
            let open = format!("<a href=\"{}\">", escape(url));
            spans.push((place(self.text, words).0, open, "</a>"));
        }
        spans.sort_by_key(|(range, _, _)| range.start);
        let mut out = String::from("<p>");
        let mut at = 0;
        for (range, open, close) in spans {
            assert!(range.start >= at, "bold and link do not overlap here");
            out.push_str(&escape(&self.text[at..range.start]));
            out.push_str(&open);
            out.push_str(&escape(&self.text[range.clone()]));
            out.push_str(close);
            at = range.end;
        }
        out.push_str(&escape(&self.text[at..]));
        out.push_str("</p>");
        out
    }

    /// The paragraph as a raw content block; its link goes into `entities`.
    fn raw_block(&self, entities: &mut Map<String, Value>) -> Value {
        let styles: Vec<Value> = self
            .bold
            .map(|word| {
                let (_, offset, length) = place(self.text, word);
                json!({"offset": offset, "length": length, "style": "BOLD"})
            })
            .into_iter()
            .collect();
        let links: Vec<Value> = self
            .link
            .map(|(words, url)| {
                let (_, offset, length) = place(self.text, words);
                let key = entities.len();
                entities.insert(
                    key.to_string(),
                    json!({"type": "LINK", "mutability": "MUTABLE", "data": {"url": url}}),
                );
                json!({"offset": offset, "length": length, "key": key})
            })
            .into_iter()
            .collect();
        json!({"key": self.key, "text": self.text, "type": "unstyled", "depth": 0,
               "inlineStyleRanges": styles, "entityRanges": links, "data": {}})
    }
}

fn html_of(paragraphs: &[Para<'_>]) -> String {
    paragraphs.iter().map(Para::html).collect()
}

/// How a client sends a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// As the web editor does: HTML and Draft.js raw content with keys.
    Editor,
    /// HTML alone, as other clients of the API do.
    HtmlOnly,
}

impl Form {
    fn body(self, paragraphs: &[Para<'_>]) -> Value {
        match self {
            Self::Editor => {
                let mut entities = Map::new();
                let blocks: Vec<Value> = paragraphs
                    .iter()
                    .map(|p| p.raw_block(&mut entities))
                    .collect();
                let raw = json!({"blocks": blocks, "entityMap": entities});
                json!({"content": html_of(paragraphs), "content_raw": raw.to_string()})
            }
            Self::HtmlOnly => json!({"content": html_of(paragraphs)}),
        }
    }
}

/// A story's raw content, parsed.
fn raw_of(story: &Value) -> Value {
    serde_json::from_str(story["content_raw"].as_str().expect("raw content text"))
        .expect("raw content is JSON")
}

/// The raw content on both sides, asserted equal.
fn raw_both_sides(desk: &Desk) -> Value {
    let (central, local) = (raw_of(&desk.central_story()), raw_of(&desk.local_story()));
    assert_eq!(central, local, "both sides hold the same raw content");
    central
}

fn blocks(raw: &Value) -> &Vec<Value> {
    raw["blocks"].as_array().expect("blocks")
}

fn raw_texts(raw: &Value) -> Vec<String> {
    blocks(raw)
        .iter()
        .map(|b| b["text"].as_str().expect("a block's text").to_owned())
        .collect()
}

fn raw_keys(raw: &Value) -> Vec<String> {
    blocks(raw)
        .iter()
        .map(|b| b["key"].as_str().expect("a block's key").to_owned())
        .collect()
}

/// The characters a range of a block covers.
fn covered(block: &Value, range: &Value) -> String {
    let number = |name: &str| {
        usize::try_from(range[name].as_u64().expect("a number")).expect("a small number")
    };
    block["text"]
        .as_str()
        .expect("text")
        .chars()
        .skip(number("offset"))
        .take(number("length"))
        .collect()
}

/// Every link of the raw content: the words it covers and its address.
fn raw_links(raw: &Value) -> Vec<(String, String)> {
    blocks(raw)
        .iter()
        .flat_map(|block| {
            block["entityRanges"]
                .as_array()
                .expect("entity ranges")
                .iter()
                .map(|range| {
                    let entity = &raw["entityMap"][range["key"].to_string()];
                    assert_eq!(entity["type"], "LINK", "{raw}");
                    let url = entity["data"]["url"].as_str().expect("a url").to_owned();
                    (covered(block, range), url)
                })
        })
        .collect()
}

/// Every run of bold words of the raw content.
fn raw_bold(raw: &Value) -> Vec<String> {
    blocks(raw)
        .iter()
        .flat_map(|block| {
            block["inlineStyleRanges"]
                .as_array()
                .expect("style ranges")
                .iter()
                .filter(|range| range["style"] == "BOLD")
                .map(|range| covered(block, range))
        })
        .collect()
}

/// Asserts that the sync merged without a conflict and that both sides
/// hold `expected`: as HTML, and (when written the editor's way) as raw
/// content with the same texts, links and bold words. Returns the raw
/// content, if any.
fn assert_merged(desk: &Desk, out: &str, expected: &[Para<'_>], form: Form) -> Option<Value> {
    assert!(out.contains("conflicts 0"), "{form:?}: {out}");
    assert!(
        desk.conflicts().is_empty(),
        "{form:?}: {:?}",
        desk.conflicts()
    );
    let body = desk.body();
    assert_eq!(
        body.replace('\u{a0}', "&nbsp;"),
        html_of(expected),
        "{form:?}"
    );
    if form == Form::HtmlOnly {
        return None;
    }
    let raw = raw_both_sides(desk);
    let texts: Vec<&str> = expected.iter().map(|p| p.text).collect();
    assert_eq!(raw_texts(&raw), texts, "{form:?}");
    let links: Vec<(String, String)> = expected
        .iter()
        .filter_map(|p| p.link)
        .map(|(words, url)| (words.to_owned(), url.to_owned()))
        .collect();
    assert_eq!(raw_links(&raw), links, "{form:?}");
    let bold: Vec<&str> = expected.iter().filter_map(|p| p.bold).collect();
    assert_eq!(raw_bold(&raw), bold, "{form:?}");
    Some(raw)
}

/// How many times `needle` stands in `haystack`.
fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

const LEDE: &str = "The council met on Tuesday night.";
const FEES: &str = "Fees will rise by seven percent next spring.";
const WALL: &str = "The money pays for the harbour wall.";
const WALL_EDITED: &str = "The money pays for the new sea wall.";
const KICKER: &str = "The mayor did not comment.";

#[test]
fn paragraphs_joined_on_the_laptop_and_a_word_edited_in_the_second_at_the_desk_stand_once_joined_with_the_edit()
 {
    let joined = format!("{FEES} {WALL}");
    let joined_edited = format!("{FEES} {WALL_EDITED}");
    for form in [Form::Editor, Form::HtmlOnly] {
        let desk = Desk::with_story(form.body(&[
            para("k0", LEDE),
            para("k1", FEES),
            para("k2", WALL),
            para("k3", KICKER),
        ]));
        // The join keeps the first paragraph's key.
        desk.reporter_edits(form.body(&[
            para("k0", LEDE),
            para("k1", &joined),
            para("k3", KICKER),
        ]));
        desk.desk_edits(form.body(&[
            para("k0", LEDE),
            para("k1", FEES),
            para("k2", WALL_EDITED),
            para("k3", KICKER),
        ]));
        let out = desk.sync();
        let expected = [
            para("k0", LEDE),
            para("k1", &joined_edited),
            para("k3", KICKER),
        ];
        let raw = assert_merged(&desk, &out, &expected, form);
        let body = desk.body();
        assert_eq!(count(&body, "<p>"), 3, "{form:?}: {body}");
        for words in ["Fees will rise", "The money pays", "harbour"] {
            assert!(count(&body, words) <= 1, "{form:?}: {words} twice: {body}");
        }
        if let Some(raw) = raw {
            assert_eq!(raw_keys(&raw), ["k0", "k1", "k3"], "{raw}");
        }
    }
}

#[test]
fn a_paragraph_split_on_the_laptop_and_a_word_edited_in_its_second_half_at_the_desk_stand_once_each_with_the_edit()
 {
    let long = format!("{FEES} {WALL}");
    let long_edited = format!("{FEES} {WALL_EDITED}");
    for form in [Form::Editor, Form::HtmlOnly] {
        let desk =
            Desk::with_story(form.body(&[para("k0", LEDE), para("k1", &long), para("k2", KICKER)]));
        // The second half is a new block, with a key of its own.
        desk.reporter_edits(form.body(&[
            para("k0", LEDE),
            para("k1", FEES),
            para("n7q2x", WALL),
            para("k2", KICKER),
        ]));
        desk.desk_edits(form.body(&[
            para("k0", LEDE),
            para("k1", &long_edited),
            para("k2", KICKER),
        ]));
        let out = desk.sync();
        let expected = [
            para("k0", LEDE),
            para("k1", FEES),
            para("n7q2x", WALL_EDITED),
            para("k2", KICKER),
        ];
        let raw = assert_merged(&desk, &out, &expected, form);
        let body = desk.body();
        for words in ["Fees will rise", "The money pays"] {
            assert_eq!(count(&body, words), 1, "{form:?}: {body}");
        }
        assert_eq!(count(&body, "harbour"), 0, "{form:?}: {body}");
        if let Some(raw) = raw {
            assert_eq!(raw_keys(&raw), ["k0", "k1", "n7q2x", "k2"], "{raw}");
        }
    }
}

const READ: &str = "Read the city council report here.";
const OLD_URL: &str = "https://example.org/report-2023";
const NEW_URL: &str = "https://example.org/report-2024";

/// A fixed address on one side and reworded link text on the other, each
/// way round and in both forms: one link, to the new address, over the
/// new words.
fn a_fixed_address_and_reworded_link_text_merge(
    linked: &str,
    reworded: &str,
    reworded_linked: &str,
) {
    for form in [Form::Editor, Form::HtmlOnly] {
        for laptop_fixes in [true, false] {
            let desk = Desk::with_story(
                form.body(&[para("k0", LEDE), para("k1", READ).link(linked, OLD_URL)]),
            );
            let fixed = form.body(&[para("k0", LEDE), para("k1", READ).link(linked, NEW_URL)]);
            let changed = form.body(&[
                para("k0", LEDE),
                para("k1", reworded).link(reworded_linked, OLD_URL),
            ]);
            let (laptop, central) = if laptop_fixes {
                (fixed, changed)
            } else {
                (changed, fixed)
            };
            desk.reporter_edits(laptop);
            desk.desk_edits(central);
            let out = desk.sync();
            let case = format!("{form:?}, the laptop fixed the address: {laptop_fixes}");
            let body = desk.body();
            assert_eq!(count(&body, "<a "), 1, "{case}: {body}");
            assert!(
                body.contains(&format!("<a href=\"{NEW_URL}\">{reworded_linked}</a>")),
                "{case}: {body}"
            );
            assert_merged(
                &desk,
                &out,
                &[
                    para("k0", LEDE),
                    para("k1", reworded).link(reworded_linked, NEW_URL),
                ],
                form,
            );
        }
    }
}

#[test]
fn a_links_address_fixed_on_one_side_and_a_word_of_its_text_changed_on_the_other_give_one_link_to_the_new_address()
 {
    a_fixed_address_and_reworded_link_text_merge(
        "city council report",
        "Read the city board report here.",
        "city board report",
    );
}

#[test]
fn a_links_address_fixed_on_one_side_and_its_last_word_changed_on_the_other_give_one_link_over_the_new_words()
 {
    a_fixed_address_and_reworded_link_text_merge(
        "city council report",
        "Read the city council budget here.",
        "city council budget",
    );
}

#[test]
fn bold_and_a_new_address_sent_as_html_alone_at_the_desk_merge_with_the_laptops_edit_in_raw_content()
 {
    let base = [
        para("k0", LEDE),
        para("k1", READ).link("city council report", OLD_URL),
        para("k2", KICKER),
    ];
    let desk = Desk::with_story(Form::Editor.body(&base));
    // A client of the API that knows nothing of raw content.
    desk.desk_edits(Form::HtmlOnly.body(&[
        para("k0", LEDE).bold("council"),
        para("k1", READ).link("city council report", NEW_URL),
        para("k2", KICKER),
    ]));
    let stored = desk.central_story();
    assert_eq!(
        raw_bold(&raw_of(&stored)),
        ["council"],
        "the central server wrote the HTML's own raw content: {}",
        stored["content_raw"]
    );
    desk.reporter_edits(Form::Editor.body(&[
        para("k0", LEDE),
        para("k1", READ).link("city council report", OLD_URL),
        para("k2", "The mayor declined to comment."),
    ]));
    let out = desk.sync();
    assert_merged(
        &desk,
        &out,
        &[
            para("k0", LEDE).bold("council"),
            para("k1", READ).link("city council report", NEW_URL),
            para("k2", "The mayor declined to comment."),
        ],
        Form::Editor,
    );
    assert!(!desk.body().contains(OLD_URL));
}

#[test]
fn relative_phone_and_anchor_links_in_a_paragraph_nobody_touched_survive_a_merge_of_html_alone() {
    let links = r##"<p>See <a href="/news/42">the story</a>, <a href="#map">the map</a> or call <a href="tel:+15551234">the desk</a>.</p>"##;
    let body = |second: &str, third: &str| json!({"content": format!("{links}{}", html(&[second, third]))});
    let desk = Desk::with_story(body("First draft.", "The ferry runs hourly."));
    desk.reporter_edits(body("Second draft.", "The ferry runs hourly."));
    desk.desk_edits(body("First draft.", "The ferry runs every hour."));
    let out = desk.sync();
    assert!(out.contains("conflicts 0"), "{out}");
    assert!(desk.conflicts().is_empty());
    let merged = desk.body();
    for link in [
        r#"<a href="/news/42">the story</a>"#,
        r##"<a href="#map">the map</a>"##,
        r#"<a href="tel:+15551234">the desk</a>"#,
    ] {
        assert_eq!(count(&merged, link), 1, "{link}: {merged}");
    }
    assert_eq!(
        merged,
        format!(
            "{links}{}",
            html(&["Second draft.", "The ferry runs every hour."])
        )
    );
}

#[test]
fn a_no_break_space_in_raw_content_and_as_nbsp_in_its_html_stays_one_through_a_merge() {
    let trail = "The trail is 10\u{a0}km long.";
    let base = [
        para("k0", trail),
        para("k1", "First draft."),
        para("k2", "The ferry runs hourly."),
    ];
    let sent = Form::Editor.body(&base);
    assert!(
        sent["content"]
            .as_str()
            .expect("html")
            .contains("10&nbsp;km")
    );
    let desk = Desk::with_story(sent);
    desk.reporter_edits(Form::Editor.body(&[
        para("k0", trail),
        para("k1", "Second draft."),
        para("k2", "The ferry runs hourly."),
    ]));
    desk.desk_edits(Form::Editor.body(&[
        para("k0", trail),
        para("k1", "First draft."),
        para("k2", "The ferry runs every hour."),
    ]));
    let out = desk.sync();
    let raw = assert_merged(
        &desk,
        &out,
        &[
            para("k0", trail),
            para("k1", "Second draft."),
            para("k2", "The ferry runs every hour."),
        ],
        Form::Editor,
    )
    .expect("raw content");
    let body = desk.body();
    assert!(
        body.contains("10\u{a0}km") || body.contains("10&nbsp;km"),
        "{body}"
    );
    assert!(raw_texts(&raw)[0].contains("10\u{a0}km"), "{raw}");
}

#[test]
fn a_word_bolded_on_one_side_and_reworded_on_the_other_is_bold_in_its_new_wording() {
    let reworded = "Read the city board report here.";
    for form in [Form::Editor, Form::HtmlOnly] {
        for laptop_bolds in [true, false] {
            let desk = Desk::with_story(form.body(&[para("k0", READ), para("k1", KICKER)]));
            let bolded = form.body(&[para("k0", READ).bold("council"), para("k1", KICKER)]);
            let changed = form.body(&[para("k0", reworded), para("k1", KICKER)]);
            let (laptop, central) = if laptop_bolds {
                (bolded, changed)
            } else {
                (changed, bolded)
            };
            desk.reporter_edits(laptop);
            desk.desk_edits(central);
            let out = desk.sync();
            let body = desk.body();
            assert!(
                body.contains("<strong>board</strong>"),
                "{form:?}, the laptop bolded: {laptop_bolds}: {body}"
            );
            assert_merged(
                &desk,
                &out,
                &[para("k0", reworded).bold("board"), para("k1", KICKER)],
                form,
            );
        }
    }
}

#[test]
fn two_edits_in_one_japanese_sentence_merge_without_a_conflict() {
    let base = ["東京都の予算は来年度に増える。", "詳細は未定だ。"];
    let laptop = ["大阪府の予算は来年度に増える。", "詳細は未定だ。"];
    let central = ["東京都の予算は再来年度に増える。", "詳細は未定だ。"];
    let expected = ["大阪府の予算は再来年度に増える。", "詳細は未定だ。"];
    let html_only = |paragraphs: &[&str]| json!({"content": html(paragraphs)});
    for with_raw in [true, false] {
        let body = |paragraphs: &[&str]| {
            if with_raw {
                as_editor_writes(paragraphs)
            } else {
                html_only(paragraphs)
            }
        };
        let desk = Desk::with_story(body(&base));
        desk.reporter_edits(body(&laptop));
        desk.desk_edits(body(&central));
        let out = desk.sync();
        assert!(out.contains("conflicts 0"), "with raw: {with_raw}: {out}");
        assert!(desk.conflicts().is_empty());
        assert_eq!(desk.body(), html(&expected), "with raw: {with_raw}");
        if with_raw {
            assert_eq!(raw_texts(&raw_both_sides(&desk)), expected);
        }
    }
}

/// A body as the editor writes it, each paragraph with its own stable key.
fn keyed_body(paragraphs: &[(String, String)]) -> Value {
    let blocks: Vec<Value> = paragraphs
        .iter()
        .map(|(key, text)| {
            json!({"key": key, "text": text, "type": "unstyled", "depth": 0,
                   "inlineStyleRanges": [], "entityRanges": [], "data": {}})
        })
        .collect();
    let texts: Vec<&str> = paragraphs.iter().map(|(_, text)| text.as_str()).collect();
    json!({"content": html(&texts), "content_raw": json!({"blocks": blocks, "entityMap": {}}).to_string()})
}

#[test]
fn a_long_story_with_a_thousand_paragraphs_added_on_each_side_merges_whole_in_one_sync() {
    // 4,000 paragraphs of ten words; the laptop adds one after every even
    // paragraph of the first 2,000, the desk one after every odd one.
    let base: Vec<(String, String)> = (0..4000)
        .map(|i| {
            (
                format!("k{i}"),
                format!("p{i} the council voted on the harbour fees again today"),
            )
        })
        .collect();
    let with_added = |side: &str, parity: usize| -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (i, paragraph) in base.iter().enumerate() {
            out.push(paragraph.clone());
            if i < 2000 && i % 2 == parity {
                out.push((
                    format!("{side}{i}"),
                    format!("{side}{i} a new paragraph written after p{i}"),
                ));
            }
        }
        out
    };
    let desk = Desk::with_story(keyed_body(&base));
    desk.reporter_edits(keyed_body(&with_added("laptop", 0)));
    desk.desk_edits(keyed_body(&with_added("desk", 1)));
    let out = desk.sync();
    assert!(out.contains("conflicts 0"), "{out}");
    assert!(desk.conflicts().is_empty());
    let body = desk.body();
    let paragraphs: Vec<&str> = body
        .trim_start_matches("<p>")
        .trim_end_matches("</p>")
        .split("</p><p>")
        .collect();
    assert_eq!(paragraphs.len(), 4000 + 2000);
    // Every paragraph once, each added one right after the one it follows.
    let mut expected = Vec::new();
    for (i, (_, text)) in base.iter().enumerate() {
        expected.push(text.clone());
        if i < 2000 {
            let side = if i % 2 == 0 { "laptop" } else { "desk" };
            expected.push(format!("{side}{i} a new paragraph written after p{i}"));
        }
    }
    assert_eq!(paragraphs, expected);
}
