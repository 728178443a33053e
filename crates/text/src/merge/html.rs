//! The merge's blocks read from a body's HTML (for clients that send only HTML) and written as HTML (so `content` and `content_raw` of a merged item tell the same text).

use std::collections::BTreeSet;

use super::rich_text::{Annotation, Block, Change, Entity, Marks, RichText};
use crate::print_formats::{BlockKind, read_blocks_linking};

const HEADINGS: [&str; 6] = ["one", "two", "three", "four", "five", "six"];

fn link(url: &str) -> Entity {
    Entity {
        kind: "LINK".to_owned(),
        mutability: "MUTABLE".to_owned(),
        data: serde_json::json!({ "url": url }).to_string(),
    }
}

/// Reads HTML the way the print formats read it: blocks of styled runs,
/// with every link the sanitiser keeps (see [`from_html_counting`]).
pub fn from_html(html: &str) -> RichText {
    from_html_counting(html).0
}

/// Reads HTML (see [`from_html`]); and whether every link was kept (a
/// `javascript:` link is not, and would be lost by a merge).
pub fn from_html_counting(html: &str) -> (RichText, bool) {
    let (blocks, links_dropped) = read_blocks_linking(html, crate::sanitize::kept_link);
    let blocks = blocks
        .into_iter()
        .map(|block| {
            let kind = match block.kind {
                BlockKind::Paragraph => "unstyled".to_owned(),
                BlockKind::Heading(level) => {
                    let name = HEADINGS[usize::from(level.clamp(1, 6)) - 1];
                    format!("header-{name}")
                }
                BlockKind::ListItem => "unordered-list-item".to_owned(),
                BlockKind::Quote => "blockquote".to_owned(),
                BlockKind::Image => {
                    let picture = block.image.as_ref();
                    return Block::image(
                        picture.map_or("", |p| p.src.as_str()),
                        picture.map_or("", |p| p.alt.as_str()),
                    );
                }
            };
            let mut text = Vec::new();
            let mut marks = Vec::new();
            for run in &block.runs {
                let mut mark = Marks::default();
                for (on, style) in [
                    (run.bold, "BOLD"),
                    (run.italic, "ITALIC"),
                    (run.underline, "UNDERLINE"),
                ] {
                    if on {
                        mark.styles.insert(style.to_owned());
                    }
                }
                mark.entity = run.link.as_deref().map(link);
                mark.annotations.clone_from(&run.annotations);
                for c in run.text.chars() {
                    text.push(if c == '\u{2028}' { '\n' } else { c });
                    marks.push(mark.clone());
                }
            }
            Block {
                key: None,
                kind,
                depth: 0,
                data: "{}".to_owned(),
                text,
                marks,
            }
        })
        .collect();
    (RichText { blocks }, links_dropped == 0)
}

/// The tag a block is written in, and the list it belongs to.
fn block_tags(kind: &str) -> (&'static str, Option<&'static str>) {
    match kind {
        "header-one" => ("h1", None),
        "header-two" => ("h2", None),
        "header-three" => ("h3", None),
        "header-four" => ("h4", None),
        "header-five" => ("h5", None),
        "header-six" => ("h6", None),
        "blockquote" => ("blockquote", None),
        "code-block" => ("pre", None),
        "unordered-list-item" => ("li", Some("ul")),
        "ordered-list-item" => ("li", Some("ol")),
        _ => ("p", None),
    }
}

const STYLE_TAGS: [(&str, &str); 5] = [
    ("BOLD", "strong"),
    ("ITALIC", "em"),
    ("UNDERLINE", "u"),
    ("STRIKETHROUGH", "s"),
    ("CODE", "code"),
];

fn escape(text: &str) -> String {
    quick_xml::escape::escape(text).into_owned()
}

/// A link's address, when an entity is one.
fn href(entity: &Entity) -> Option<String> {
    if entity.kind != "LINK" {
        return None;
    }
    let data: serde_json::Value = serde_json::from_str(&entity.data).ok()?;
    data.get("url")
        .or_else(|| data.get("href"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
}

/// Writes one block's characters: runs of equal marks, each in its tags.
fn write_inline(block: &Block, out: &mut String) {
    let mut i = 0;
    while i < block.text.len() {
        let marks = &block.marks[i];
        let start = i;
        while i < block.text.len() && block.marks[i] == *marks {
            i += 1;
        }
        let text: String = block.text[start..i].iter().collect();
        let mut inner = escape(&text).replace('\n', "<br>");
        for (style, tag) in STYLE_TAGS.iter().rev() {
            if marks.styles.contains(*style) {
                inner = format!("<{tag}>{inner}</{tag}>");
            }
        }
        if let Some(url) = marks.entity.as_ref().and_then(href) {
            inner = format!("<a href=\"{}\">{inner}</a>", escape(&url));
        }
        if !marks.annotations.is_empty() {
            inner = annotated(&marks.annotations, inner);
        }
        out.push_str(&inner);
    }
}

/// `inner` in the elements of its notes and suggested edits: an insertion
/// in `<ins>`, a deletion in `<del>`, a style change in a `<span>`, each
/// with `data-suggestion` (its id), `data-author` and `data-at`; the notes
/// outermost, in a `<span data-notes>` of their ids (resolved ones in its
/// `data-resolved-notes`).
fn annotated(annotations: &BTreeSet<Annotation>, mut inner: String) -> String {
    let mut notes = Vec::new();
    let mut resolved = Vec::new();
    for annotation in annotations.iter().rev() {
        match annotation {
            Annotation::Note(id) => notes.push(escape(id)),
            Annotation::ResolvedNote(id) => resolved.push(escape(id)),
            Annotation::Suggestion(s) => {
                let (tag, more) = match &s.change {
                    Change::Insertion => ("ins", String::new()),
                    Change::Deletion => ("del", String::new()),
                    Change::Style { style, on } => (
                        "span",
                        format!(" data-style=\"{}\" data-on=\"{on}\"", escape(style)),
                    ),
                };
                inner = format!(
                    "<{tag} data-suggestion=\"{}\"{more} data-author=\"{}\" data-at=\"{}\">{inner}</{tag}>",
                    escape(&s.id),
                    escape(&s.author),
                    escape(&s.at),
                );
            }
        }
    }
    if notes.is_empty() && resolved.is_empty() {
        return inner;
    }
    notes.reverse();
    resolved.reverse();
    let mut attributes = String::new();
    if !notes.is_empty() {
        attributes.push_str(&format!(" data-notes=\"{}\"", notes.join(" ")));
    }
    if !resolved.is_empty() {
        attributes.push_str(&format!(" data-resolved-notes=\"{}\"", resolved.join(" ")));
    }
    format!("<span{attributes}>{inner}</span>")
}

/// Writes the blocks as HTML: paragraphs, headings, quotes, lists, photos.
pub fn to_html(text: &RichText) -> String {
    let mut out = String::new();
    let mut open_list: Option<&str> = None;
    for block in &text.blocks {
        let image = block.image_parts();
        let (tag, list) = if image.is_some() {
            ("figure", None)
        } else {
            block_tags(&block.kind)
        };
        if open_list != list {
            if let Some(old) = open_list {
                out.push_str(&format!("</{old}>"));
            }
            if let Some(new) = list {
                out.push_str(&format!("<{new}>"));
            }
            open_list = list;
        }
        out.push_str(&format!("<{tag}>"));
        match image {
            // As the editor writes a photo: a figure holding the image.
            Some((src, alt)) => out.push_str(&format!(
                "<img src=\"{}\" alt=\"{}\">",
                escape(&src),
                escape(&alt)
            )),
            None => write_inline(block, &mut out),
        }
        out.push_str(&format!("</{tag}>"));
    }
    if let Some(old) = open_list {
        out.push_str(&format!("</{old}>"));
    }
    out
}
