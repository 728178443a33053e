//! The export's text in the print formats: a complete HTML document, clean plain text, and ICML for InDesign.
//!
//! All three start from one reading of the export's HTML (with `scraper`,
//! which parses as browsers do) into blocks of styled runs. ICML is written
//! with `quick-xml`, so every character that needs escaping is escaped by the
//! library, never by string concatenation.
//!
//! HTML and plain text print the text as it would be with each pending
//! suggested edit rejected, and say when some are pending; ICML hands them
//! to InCopy as its own tracked changes, and notes as its notes. Notes
//! never print.
//!
//! A photo placed in the body (`<figure><img src alt></figure>`, an image
//! block of its own) stays a photo in HTML; plain text writes its caption as
//! `[Photo: caption]`; ICML writes that line in the paragraph style `Photo`
//! as a placeholder (the file is not embedded: the layout places it).

use std::io::Cursor;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesPI, BytesStart, BytesText, Event};
use scraper::{Html, Node};

use std::collections::BTreeSet;

use crate::annotations::{Annotation, Change, Suggestion};
use crate::error::{Result, TextError};
use crate::sanitize::{clean_body, safe_image_src};

/// What a paragraph is, for its paragraph style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    Paragraph,
    Heading(u8),
    ListItem,
    Quote,
    /// A photo: no runs, its [`Picture`] instead.
    Image,
}

/// A photo placed in the text: its address (one [`safe_image_src`] allows)
/// and its caption (the image's `alt`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    pub src: String,
    pub alt: String,
}

/// A stretch of text with one set of character styles.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Run {
    pub text: String,
    pub bold: bool,
    pub italic: bool,
    pub underline: bool,
    pub link: Option<String>,
    /// The notes on the run and the suggested edits pending on it.
    pub annotations: BTreeSet<Annotation>,
}

impl Run {
    /// Whether the run is words someone suggested inserting (left out of
    /// the text as it prints).
    pub fn is_suggested_insertion(&self) -> bool {
        self.annotations
            .iter()
            .any(|a| matches!(a, Annotation::Suggestion(s) if s.change == Change::Insertion))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub kind: BlockKind,
    pub runs: Vec<Run>,
    /// The photo of a [`BlockKind::Image`] block.
    pub image: Option<Picture>,
}

impl Block {
    pub fn text(&self) -> String {
        self.runs.iter().map(|r| r.text.as_str()).collect()
    }

    /// How a photo reads in text: `[Photo: caption]`, or `[Photo]`.
    fn photo_line(picture: &Picture) -> String {
        let caption = picture.alt.split_whitespace().collect::<Vec<_>>().join(" ");
        if caption.is_empty() {
            "[Photo]".to_owned()
        } else {
            format!("[Photo: {caption}]")
        }
    }
}

/// A forced line break inside a paragraph (`<br>`).
const LINE_BREAK: char = '\u{2028}';

#[derive(Debug, Clone, Default)]
struct Style {
    bold: bool,
    italic: bool,
    underline: bool,
    link: Option<String>,
    annotations: BTreeSet<Annotation>,
}

struct Reader {
    blocks: Vec<Block>,
    current: Option<Block>,
    /// Whether a link's address is kept (else its text stands unlinked).
    keeps_link: fn(&str) -> bool,
    /// How many links were not kept.
    links_dropped: usize,
}

/// The links print keeps: web and mail addresses.
fn printed_link(href: &str) -> bool {
    let lower = href.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("mailto:")
}

impl Reader {
    fn start_block(&mut self, kind: BlockKind) {
        self.finish_block();
        self.current = Some(Block {
            kind,
            runs: Vec::new(),
            image: None,
        });
    }

    /// A photo is a block of its own: the block it stood in goes on after it.
    fn push_image(&mut self, picture: Picture) {
        let resume = self.current.as_ref().map(|b| b.kind);
        self.finish_block();
        self.blocks.push(Block {
            kind: BlockKind::Image,
            runs: Vec::new(),
            image: Some(picture),
        });
        if let Some(kind) = resume {
            self.start_block(kind);
        }
    }

    fn finish_block(&mut self) {
        if let Some(mut block) = self.current.take() {
            trim_block(&mut block);
            if !block.runs.is_empty() {
                self.blocks.push(block);
            }
        }
    }

    fn push_text(&mut self, text: &str, style: &Style) {
        let block = self.current.get_or_insert_with(|| Block {
            kind: BlockKind::Paragraph,
            runs: Vec::new(),
            image: None,
        });
        let previous_ends_in_space = block
            .runs
            .last()
            .is_none_or(|r| r.text.ends_with(' ') || r.text.ends_with(LINE_BREAK));
        let mut collapsed = String::with_capacity(text.len());
        let mut in_space = previous_ends_in_space;
        for c in text.chars() {
            // HTML's own white space collapses; a no-break space is a character.
            if matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c') {
                if !in_space {
                    collapsed.push(' ');
                }
                in_space = true;
            } else {
                collapsed.push(c);
                in_space = c == LINE_BREAK;
            }
        }
        if collapsed.is_empty() {
            return;
        }
        match block.runs.last_mut() {
            Some(last)
                if last.bold == style.bold
                    && last.italic == style.italic
                    && last.underline == style.underline
                    && last.link == style.link
                    && last.annotations == style.annotations =>
            {
                last.text.push_str(&collapsed);
            }
            _ => block.runs.push(Run {
                text: collapsed,
                bold: style.bold,
                italic: style.italic,
                underline: style.underline,
                link: style.link.clone(),
                annotations: style.annotations.clone(),
            }),
        }
    }

    fn walk(&mut self, node: ego_tree::NodeRef<'_, Node>, style: &Style) {
        for child in node.children() {
            match child.value() {
                Node::Text(text) => self.push_text(text, style),
                Node::Element(element) => {
                    let name = element.name();
                    let mut inner = style.clone();
                    let block = match name {
                        "p" | "div" | "pre" => Some(BlockKind::Paragraph),
                        "h1" => Some(BlockKind::Heading(1)),
                        "h2" => Some(BlockKind::Heading(2)),
                        "h3" => Some(BlockKind::Heading(3)),
                        "h4" => Some(BlockKind::Heading(4)),
                        "h5" => Some(BlockKind::Heading(5)),
                        "h6" => Some(BlockKind::Heading(6)),
                        "li" => Some(BlockKind::ListItem),
                        "blockquote" => Some(BlockKind::Quote),
                        _ => None,
                    };
                    match name {
                        "script" | "style" | "template" | "head" => continue,
                        "br" => {
                            self.push_text(&LINE_BREAK.to_string(), style);
                            continue;
                        }
                        "img" => {
                            // An image whose address is not safe is dropped.
                            let src = element.attr("src").map_or("", str::trim);
                            if safe_image_src(src) {
                                self.push_image(Picture {
                                    src: src.to_owned(),
                                    alt: element.attr("alt").unwrap_or("").trim().to_owned(),
                                });
                            }
                            continue;
                        }
                        "ins" | "del" | "span" if element.attr("data-suggestion").is_some() => {
                            if let Some(suggestion) = suggestion_of(element) {
                                inner.annotations.insert(Annotation::Suggestion(suggestion));
                            }
                        }
                        "span"
                            if element.attr("data-notes").is_some()
                                || element.attr("data-resolved-notes").is_some() =>
                        {
                            let ids = |name| element.attr(name).unwrap_or("").split_whitespace();
                            inner.annotations.extend(
                                ids("data-notes").map(|id| Annotation::Note(id.to_owned())),
                            );
                            inner.annotations.extend(
                                ids("data-resolved-notes")
                                    .map(|id| Annotation::ResolvedNote(id.to_owned())),
                            );
                        }
                        "b" | "strong" => inner.bold = true,
                        "i" | "em" => inner.italic = true,
                        "u" | "ins" => inner.underline = true,
                        "a" => {
                            inner.link = element
                                .attr("href")
                                .map(str::trim)
                                .filter(|href| (self.keeps_link)(href))
                                .map(str::to_owned);
                            if inner.link.is_none() {
                                self.links_dropped += 1;
                            }
                        }
                        _ => {}
                    }
                    if let Some(kind) = block {
                        self.start_block(kind);
                        self.walk(child, &inner);
                        self.finish_block();
                    } else {
                        self.walk(child, &inner);
                    }
                }
                _ => {}
            }
        }
    }
}

/// The suggested edit an `<ins>`, `<del>` or `<span>` with
/// `data-suggestion` stands for (see `merge::html`), when it is one.
fn suggestion_of(element: &scraper::node::Element) -> Option<Suggestion> {
    let attr = |name: &str| element.attr(name).map(str::to_owned);
    let change = match element.name() {
        "ins" => Change::Insertion,
        "del" => Change::Deletion,
        _ => Change::Style {
            style: attr("data-style").filter(|s| !s.is_empty())?,
            on: element.attr("data-on") != Some("false"),
        },
    };
    Some(Suggestion {
        id: attr("data-suggestion").filter(|id| !id.is_empty())?,
        change,
        author: attr("data-author").unwrap_or_default(),
        at: attr("data-at").unwrap_or_default(),
    })
}

/// Removes spaces and line breaks at the edges of a block.
fn trim_block(block: &mut Block) {
    let edge = |c: char| c == ' ' || c == LINE_BREAK;
    if let Some(first) = block.runs.first_mut() {
        first.text = first.text.trim_start_matches(edge).to_owned();
    }
    if let Some(last) = block.runs.last_mut() {
        last.text = last.text.trim_end_matches(edge).to_owned();
    }
    block.runs.retain(|r| !r.text.is_empty());
}

/// Reads HTML into paragraphs of styled runs.
pub fn read_blocks(html: &str) -> Vec<Block> {
    read_blocks_linking(html, printed_link).0
}

/// Reads HTML into blocks (see [`read_blocks`]), keeping the links
/// `keeps_link` allows; and how many links (`<a>` elements) it did not keep.
pub fn read_blocks_linking(html: &str, keeps_link: fn(&str) -> bool) -> (Vec<Block>, usize) {
    let fragment = Html::parse_fragment(html);
    let mut reader = Reader {
        blocks: Vec::new(),
        current: None,
        keeps_link,
        links_dropped: 0,
    };
    reader.walk(fragment.tree.root(), &Style::default());
    reader.finish_block();
    (reader.blocks, reader.links_dropped)
}

/// What a printed story carries besides its text.
#[derive(Debug, Clone)]
pub struct Story<'a> {
    pub headline: &'a str,
    pub byline: Option<String>,
    pub html: &'a str,
    /// The notes anchored in the text, for ICML (which carries them as
    /// InCopy notes); a note not among them is carried without its words.
    pub notes: &'a [PrintedNote],
}

/// A note as ICML carries it: its id (as the text anchors it), who wrote
/// it, when (RFC 3339) and what it says (plain text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintedNote {
    pub id: String,
    pub author: String,
    pub at: String,
    pub text: String,
}

/// What a printed text says when its story has suggested edits pending.
pub const PENDING_NOTICE: &str = "Suggested edits are pending: this text is printed without them.";

/// Whether the HTML holds suggested edits no one has accepted or rejected.
pub fn has_pending_suggestions(html: &str) -> bool {
    // Most stories have none, and are not read for them.
    html.contains("data-suggestion") && pending_in(&read_blocks(html))
}

/// Whether the blocks hold suggested edits.
fn pending_in(blocks: &[Block]) -> bool {
    blocks.iter().any(|block| {
        block.runs.iter().any(|run| {
            run.annotations
                .iter()
                .any(|a| matches!(a, Annotation::Suggestion(_)))
        })
    })
}

/// The blocks as they print: every suggested edit rejected (suggested
/// words left out, words suggested for deletion kept, styles as they
/// were), notes unmarked.
fn printed(mut blocks: Vec<Block>) -> Vec<Block> {
    for block in &mut blocks {
        let had_runs = !block.runs.is_empty();
        block.runs.retain(|run| !run.is_suggested_insertion());
        let runs = std::mem::take(&mut block.runs);
        for mut run in runs {
            run.annotations.clear();
            match block.runs.last_mut() {
                // Runs apart only by their notes or suggestions are one now.
                Some(last)
                    if (&last.bold, &last.italic, &last.underline, &last.link)
                        == (&run.bold, &run.italic, &run.underline, &run.link) =>
                {
                    last.text.push_str(&run.text);
                }
                _ => block.runs.push(run),
            }
        }
        if had_runs {
            trim_block(block);
        }
    }
    blocks.retain(|block| block.image.is_some() || !block.runs.is_empty());
    blocks
}

/// The HTML as it prints (see [`printed`]), before it is sanitised:
/// each suggested insertion taken out with its words, each suggested
/// deletion, style change and note's span left as its words.
fn html_printed(html: &str) -> String {
    if !html.contains("data-suggestion") && !html.contains("-notes") {
        return html.to_owned();
    }
    let mut fragment = Html::parse_fragment(html);
    let marked: Vec<(ego_tree::NodeId, bool)> = fragment
        .tree
        .nodes()
        .filter_map(|node| {
            let element = node.value().as_element()?;
            let suggested = element.attr("data-suggestion").is_some();
            let noted = element.name() == "span"
                && (element.attr("data-notes").is_some()
                    || element.attr("data-resolved-notes").is_some());
            if element.name() == "ins" && suggested {
                Some((node.id(), true))
            } else if suggested || noted {
                Some((node.id(), false))
            } else {
                None
            }
        })
        .collect();
    for (id, with_words) in marked {
        if !with_words {
            let children: Vec<ego_tree::NodeId> = fragment
                .tree
                .get(id)
                .map(|node| node.children().map(|child| child.id()).collect())
                .unwrap_or_default();
            for child in children {
                if let Some(mut node) = fragment.tree.get_mut(id) {
                    node.insert_id_before(child);
                }
            }
        }
        if let Some(mut node) = fragment.tree.get_mut(id) {
            node.detach();
        }
    }
    fragment.root_element().inner_html()
}

/// Plain text: headline, byline, then the paragraphs separated by blank
/// lines; with a line saying so when suggested edits are pending.
pub fn to_text(story: &Story<'_>) -> String {
    let mut parts = vec![story.headline.trim().to_owned()];
    if let Some(byline) = &story.byline {
        parts.push(byline.clone());
    }
    let blocks = read_blocks(story.html);
    if pending_in(&blocks) {
        parts.push(format!("[{PENDING_NOTICE}]"));
    }
    for block in printed(blocks) {
        if let Some(picture) = &block.image {
            parts.push(Block::photo_line(picture));
            continue;
        }
        let text = block.text().replace(LINE_BREAK, "\n");
        parts.push(match block.kind {
            BlockKind::ListItem => format!("- {text}"),
            _ => text,
        });
    }
    let mut out = parts.join("\n\n");
    out.push('\n');
    out
}

/// A complete HTML document with the headline, the byline and the sanitised
/// text as it prints (see [`printed`]), with a line saying so when
/// suggested edits are pending.
pub fn to_html(story: &Story<'_>) -> String {
    let title = quick_xml::escape::escape(story.headline.trim());
    let byline = story
        .byline
        .as_deref()
        .map(|b| format!("<p class=\"byline\">{}</p>\n", quick_xml::escape::escape(b)))
        .unwrap_or_default();
    let pending = if has_pending_suggestions(story.html) {
        format!("<p class=\"pending-suggestions\">{PENDING_NOTICE}</p>\n")
    } else {
        String::new()
    };
    let body = clean_body(&html_printed(story.html));
    format!(
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n</head>\n<body>\n<article>\n<h1>{title}</h1>\n{byline}{pending}{body}\n</article>\n</body>\n</html>\n"
    )
}

const NO_CHARACTER_STYLE: &str = "CharacterStyle/$ID/[No character style]";

fn paragraph_style(kind: BlockKind) -> &'static str {
    match kind {
        BlockKind::Paragraph => "ParagraphStyle/Body",
        BlockKind::Heading(1) => "ParagraphStyle/Heading 1",
        BlockKind::Heading(2) => "ParagraphStyle/Heading 2",
        BlockKind::Heading(3) => "ParagraphStyle/Heading 3",
        BlockKind::Heading(_) => "ParagraphStyle/Heading 4",
        BlockKind::ListItem => "ParagraphStyle/List Item",
        BlockKind::Quote => "ParagraphStyle/Quote",
        BlockKind::Image => "ParagraphStyle/Photo",
    }
}

fn character_style(run: &Run) -> &'static str {
    match (run.bold, run.italic) {
        (true, true) => "CharacterStyle/Bold Italic",
        (true, false) => "CharacterStyle/Bold",
        (false, true) => "CharacterStyle/Italic",
        (false, false) if run.link.is_some() => "CharacterStyle/Link",
        (false, false) => NO_CHARACTER_STYLE,
    }
}

type XmlWriter = Writer<Cursor<Vec<u8>>>;

fn xml_error(err: impl std::fmt::Display) -> TextError {
    TextError::Internal(format!("writing ICML: {err}"))
}

fn empty(writer: &mut XmlWriter, name: &str, attributes: &[(&str, &str)]) -> Result<()> {
    let mut element = BytesStart::new(name);
    for (key, value) in attributes {
        element.push_attribute((*key, *value));
    }
    writer.write_event(Event::Empty(element)).map_err(xml_error)
}

fn open(writer: &mut XmlWriter, name: &str, attributes: &[(&str, &str)]) -> Result<()> {
    let mut element = BytesStart::new(name);
    for (key, value) in attributes {
        element.push_attribute((*key, *value));
    }
    writer.write_event(Event::Start(element)).map_err(xml_error)
}

fn close(writer: &mut XmlWriter, name: &str) -> Result<()> {
    writer
        .write_event(Event::End(BytesEnd::new(name)))
        .map_err(xml_error)
}

fn content(writer: &mut XmlWriter, text: &str) -> Result<()> {
    open(writer, "Content", &[])?;
    writer
        .write_event(Event::Text(BytesText::new(text)))
        .map_err(xml_error)?;
    close(writer, "Content")
}

/// A time as ICML writes it: to the second, with no zone (`2026-11-28T08:00:00`).
fn icml_date(rfc3339: &str) -> String {
    rfc3339.chars().take(19).collect()
}

/// What a story's runs carry for ICML besides their text: the notes (and
/// which are written already: each once, where its words start).
struct Tracked<'a> {
    notes: &'a [PrintedNote],
    written: BTreeSet<String>,
}

/// An InCopy note, anchored where the run starts.
fn write_note(writer: &mut XmlWriter, note: Option<&PrintedNote>) -> Result<()> {
    let date = note.map(|n| icml_date(&n.at)).unwrap_or_default();
    let user = note.map_or("", |n| n.author.as_str());
    open(
        writer,
        "Note",
        &[
            ("Collapsed", "false"),
            ("CreationDate", &date),
            ("ModificationDate", &date),
            ("UserName", user),
        ],
    )?;
    open(
        writer,
        "ParagraphStyleRange",
        &[(
            "AppliedParagraphStyle",
            "ParagraphStyle/$ID/[No paragraph style]",
        )],
    )?;
    open(
        writer,
        "CharacterStyleRange",
        &[("AppliedCharacterStyle", NO_CHARACTER_STYLE)],
    )?;
    // A line of the note (a comment of its thread) each, apart as InCopy's paragraphs are.
    for (i, line) in note.map_or("", |n| n.text.as_str()).split('\n').enumerate() {
        if i > 0 {
            empty(writer, "Br", &[])?;
        }
        content(writer, line)?;
    }
    close(writer, "CharacterStyleRange")?;
    close(writer, "ParagraphStyleRange")?;
    close(writer, "Note")
}

/// The run's text as InCopy tracks it: a suggested insertion in a
/// `Change` of `InsertedText` around its content; a suggested deletion in a
/// `Change` of `DeletedText` holding its own paragraph and character style
/// ranges (the shapes InDesign itself writes); else the content alone.
fn write_tracked_content(
    writer: &mut XmlWriter,
    run: &Run,
    paragraph_style: &str,
    attributes: &[(&str, &str)],
) -> Result<()> {
    let change = run.annotations.iter().find_map(|a| match a {
        Annotation::Suggestion(s) if matches!(s.change, Change::Insertion | Change::Deletion) => {
            Some(s)
        }
        _ => None,
    });
    let Some(suggestion) = change else {
        return content(writer, &run.text);
    };
    let date = icml_date(&suggestion.at);
    let kind = if suggestion.change == Change::Insertion {
        "InsertedText"
    } else {
        "DeletedText"
    };
    open(
        writer,
        "Change",
        &[
            ("Date", &date),
            ("ChangeType", kind),
            ("UserName", &suggestion.author),
        ],
    )?;
    if suggestion.change == Change::Insertion {
        content(writer, &run.text)?;
    } else {
        open(
            writer,
            "ParagraphStyleRange",
            &[("AppliedParagraphStyle", paragraph_style)],
        )?;
        open(writer, "CharacterStyleRange", attributes)?;
        content(writer, &run.text)?;
        close(writer, "CharacterStyleRange")?;
        close(writer, "ParagraphStyleRange")?;
    }
    close(writer, "Change")
}

/// One run as a character style range; a linked run sits in a hyperlink text source.
fn write_run(
    writer: &mut XmlWriter,
    run: &Run,
    paragraph_style: &str,
    tracked: &mut Tracked<'_>,
    link_number: &mut usize,
    links: &mut Vec<(String, String)>,
) -> Result<()> {
    let mut attributes = vec![("AppliedCharacterStyle", character_style(run))];
    if run.underline {
        attributes.push(("Underline", "true"));
    }
    let source = run.link.as_ref().map(|url| {
        *link_number += 1;
        let id = format!("HyperlinkTextSource/{link_number}");
        links.push((id.clone(), url.clone()));
        id
    });
    if let Some(source) = &source {
        open(
            writer,
            "HyperlinkTextSource",
            &[("Self", source), ("Name", source), ("Hidden", "false")],
        )?;
    }
    open(writer, "CharacterStyleRange", &attributes)?;
    for annotation in &run.annotations {
        if let Annotation::Note(id) = annotation
            && tracked.written.insert(id.clone())
        {
            write_note(writer, tracked.notes.iter().find(|n| &n.id == id))?;
        }
    }
    write_tracked_content(writer, run, paragraph_style, &attributes)?;
    close(writer, "CharacterStyleRange")?;
    if source.is_some() {
        close(writer, "HyperlinkTextSource")?;
    }
    Ok(())
}

fn write_paragraph(
    writer: &mut XmlWriter,
    style: &str,
    runs: &[Run],
    last: bool,
    tracked: &mut Tracked<'_>,
    link_number: &mut usize,
    links: &mut Vec<(String, String)>,
) -> Result<()> {
    open(
        writer,
        "ParagraphStyleRange",
        &[("AppliedParagraphStyle", style)],
    )?;
    for run in runs {
        write_run(writer, run, style, tracked, link_number, links)?;
    }
    if !last {
        open(
            writer,
            "CharacterStyleRange",
            &[("AppliedCharacterStyle", NO_CHARACTER_STYLE)],
        )?;
        empty(writer, "Br", &[])?;
        close(writer, "CharacterStyleRange")?;
    }
    close(writer, "ParagraphStyleRange")
}

/// An InCopy Markup Language document (a story InDesign can place): the
/// headline, the byline, and each paragraph with its paragraph style, with
/// bold, italic, underline and links as character style ranges and hyperlinks.
pub fn to_icml(story: &Story<'_>) -> Result<String> {
    let mut writer = Writer::new_with_indent(Cursor::new(Vec::new()), b' ', 1);
    writer
        .write_event(Event::Decl(BytesDecl::new(
            "1.0",
            Some("UTF-8"),
            Some("yes"),
        )))
        .map_err(xml_error)?;
    writer
        .write_event(Event::PI(BytesPI::new(
            r#"aid style="50" type="snippet" readerVersion="6.0" featureSet="513" product="8.0(370)" "#,
        )))
        .map_err(xml_error)?;
    writer
        .write_event(Event::PI(BytesPI::new(
            r#"aid SnippetType="InCopyInterchange""#,
        )))
        .map_err(xml_error)?;
    open(
        &mut writer,
        "Document",
        &[("DOMVersion", "8.0"), ("Self", "copydesk_document")],
    )?;

    open(
        &mut writer,
        "RootCharacterStyleGroup",
        &[("Self", "copydesk_character_styles")],
    )?;
    for (id, name) in [
        (NO_CHARACTER_STYLE, "$ID/[No character style]"),
        ("CharacterStyle/Bold", "Bold"),
        ("CharacterStyle/Italic", "Italic"),
        ("CharacterStyle/Bold Italic", "Bold Italic"),
        ("CharacterStyle/Link", "Link"),
    ] {
        let mut attributes = vec![("Self", id), ("Name", name)];
        match name {
            "Bold" => attributes.push(("FontStyle", "Bold")),
            "Italic" => attributes.push(("FontStyle", "Italic")),
            "Bold Italic" => attributes.push(("FontStyle", "Bold Italic")),
            "Link" => attributes.push(("Underline", "true")),
            _ => {}
        }
        empty(&mut writer, "CharacterStyle", &attributes)?;
    }
    close(&mut writer, "RootCharacterStyleGroup")?;

    open(
        &mut writer,
        "RootParagraphStyleGroup",
        &[("Self", "copydesk_paragraph_styles")],
    )?;
    for name in [
        "$ID/NormalParagraphStyle",
        "Headline",
        "Byline",
        "Body",
        "Heading 1",
        "Heading 2",
        "Heading 3",
        "Heading 4",
        "List Item",
        "Quote",
        "Photo",
    ] {
        let id = format!("ParagraphStyle/{name}");
        empty(
            &mut writer,
            "ParagraphStyle",
            &[("Self", &id), ("Name", name)],
        )?;
    }
    close(&mut writer, "RootParagraphStyleGroup")?;

    // InCopy shows the pending suggestions as its own tracked changes and
    // the notes as its notes.
    let blocks = read_blocks(story.html);
    let tracks_changes = blocks.iter().flat_map(|b| &b.runs).any(|run| {
        run.annotations.iter().any(|a| {
            matches!(a, Annotation::Suggestion(s) if matches!(s.change, Change::Insertion | Change::Deletion))
        })
    });
    let mut tracked = Tracked {
        notes: story.notes,
        written: BTreeSet::new(),
    };
    let mut paragraphs: Vec<(&str, Vec<Run>)> = vec![(
        "ParagraphStyle/Headline",
        vec![Run {
            text: story.headline.trim().to_owned(),
            ..Run::default()
        }],
    )];
    if let Some(byline) = &story.byline {
        paragraphs.push((
            "ParagraphStyle/Byline",
            vec![Run {
                text: byline.clone(),
                ..Run::default()
            }],
        ));
    }
    for block in &blocks {
        let runs = match &block.image {
            // A placeholder where the photo goes, naming its file.
            Some(picture) => vec![Run {
                text: format!("{} {}", Block::photo_line(picture), picture.src),
                ..Run::default()
            }],
            None => block.runs.clone(),
        };
        paragraphs.push((paragraph_style(block.kind), runs));
    }

    let mut links = Vec::new();
    let mut link_number = 0;
    open(
        &mut writer,
        "Story",
        &[
            ("Self", "copydesk_story"),
            ("AppliedTOCStyle", "n"),
            (
                "TrackChanges",
                if tracks_changes { "true" } else { "false" },
            ),
            ("StoryTitle", story.headline.trim()),
            ("AppliedNamedGrid", "n"),
        ],
    )?;
    empty(
        &mut writer,
        "StoryPreference",
        &[
            ("OpticalMarginAlignment", "false"),
            ("OpticalMarginSize", "12"),
            ("FrameType", "TextFrameType"),
            ("StoryOrientation", "Horizontal"),
            ("StoryDirection", "LeftToRightDirection"),
        ],
    )?;
    let count = paragraphs.len();
    for (index, (style, runs)) in paragraphs.iter().enumerate() {
        write_paragraph(
            &mut writer,
            style,
            runs,
            index + 1 == count,
            &mut tracked,
            &mut link_number,
            &mut links,
        )?;
    }
    close(&mut writer, "Story")?;

    for (index, (source, url)) in links.iter().enumerate() {
        let destination = format!("HyperlinkURLDestination/{}", index + 1);
        empty(
            &mut writer,
            "HyperlinkURLDestination",
            &[
                ("Self", &destination),
                ("Name", url),
                ("DestinationURL", url),
            ],
        )?;
        let hyperlink = format!("Hyperlink/{}", index + 1);
        open(
            &mut writer,
            "Hyperlink",
            &[
                ("Self", &hyperlink),
                ("Name", url),
                ("Source", source),
                ("Visible", "false"),
            ],
        )?;
        open(&mut writer, "Properties", &[])?;
        open(&mut writer, "Destination", &[("type", "object")])?;
        writer
            .write_event(Event::Text(BytesText::new(&destination)))
            .map_err(xml_error)?;
        close(&mut writer, "Destination")?;
        close(&mut writer, "Properties")?;
        close(&mut writer, "Hyperlink")?;
    }
    close(&mut writer, "Document")?;
    String::from_utf8(writer.into_inner().into_inner()).map_err(xml_error)
}

#[cfg(test)]
mod tests;
