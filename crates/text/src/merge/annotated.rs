//! Notes and suggested edits on a story's text: carried in raw content's one entity per character, accepted or rejected, printed without them, listed with their words.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::rich_text::{Block, Entity, Marks, RichText};
use crate::annotations::{Annotation, Change, NOTE_ENTITY, SUGGESTION_ENTITY, Suggestion};

/// An entity of raw content as the character's own entity (a link, or
/// none when it was only notes and suggestions) and the notes and
/// suggestions its data holds. Members that are not of their form are left
/// in the data as they were.
pub fn split_entity(entity: Entity) -> (Option<Entity>, BTreeSet<Annotation>) {
    let Ok(Value::Object(mut data)) = serde_json::from_str::<Value>(&entity.data) else {
        return (Some(entity), BTreeSet::new());
    };
    let mut annotations = BTreeSet::new();
    for (member, make) in [
        ("notes", Annotation::Note as fn(String) -> Annotation),
        ("resolved_notes", Annotation::ResolvedNote),
    ] {
        let ids: Option<Vec<String>> = data.get(member).and_then(|ids| {
            ids.as_array()?
                .iter()
                .map(|id| id.as_str().filter(|id| !id.is_empty()).map(str::to_owned))
                .collect()
        });
        if let Some(ids) = ids {
            data.remove(member);
            annotations.extend(ids.into_iter().map(make));
        }
    }
    let suggestions: Option<Vec<Suggestion>> = data
        .get("suggestions")
        .and_then(|list| list.as_array()?.iter().map(Suggestion::from_json).collect());
    if let Some(suggestions) = suggestions {
        data.remove("suggestions");
        annotations.extend(suggestions.into_iter().map(Annotation::Suggestion));
    }
    if annotations.is_empty() {
        return (Some(entity), annotations);
    }
    let own = match entity.kind.as_str() {
        NOTE_ENTITY | SUGGESTION_ENTITY => None,
        _ => Some(Entity {
            data: canonical_object(data),
            ..entity
        }),
    };
    (own, annotations)
}

/// The one entity raw content gives a character with `own` entity and
/// these notes and suggestions (see the module's account).
pub fn joined_entity(own: Option<&Entity>, annotations: &BTreeSet<Annotation>) -> Option<Entity> {
    if annotations.is_empty() {
        return own.cloned();
    }
    let mut notes = Vec::new();
    let mut resolved = Vec::new();
    let mut suggestions = Vec::new();
    for annotation in annotations {
        match annotation {
            Annotation::Note(id) => notes.push(Value::from(id.as_str())),
            Annotation::ResolvedNote(id) => resolved.push(Value::from(id.as_str())),
            Annotation::Suggestion(suggestion) => suggestions.push(suggestion.to_json()),
        }
    }
    let mut data = own
        .and_then(|own| match serde_json::from_str::<Value>(&own.data) {
            Ok(Value::Object(data)) => Some(data),
            _ => None,
        })
        .unwrap_or_default();
    if !notes.is_empty() {
        data.insert("notes".into(), Value::Array(notes));
    }
    if !resolved.is_empty() {
        data.insert("resolved_notes".into(), Value::Array(resolved));
    }
    let kind = if suggestions.is_empty() {
        NOTE_ENTITY
    } else {
        data.insert("suggestions".into(), Value::Array(suggestions));
        SUGGESTION_ENTITY
    };
    Some(match own {
        Some(own) => Entity {
            data: canonical_object(data),
            ..own.clone()
        },
        None => Entity {
            kind: kind.to_owned(),
            mutability: "MUTABLE".to_owned(),
            data: canonical_object(data),
        },
    })
}

/// An object as canonical JSON (serde_json's map keeps its names sorted).
fn canonical_object(data: Map<String, Value>) -> String {
    if data.is_empty() {
        "{}".to_owned()
    } else {
        Value::Object(data).to_string()
    }
}

/// Which suggestions [`settle`] settles.
#[derive(Debug, Clone, Copy)]
pub enum Which<'a> {
    /// The one with this id.
    Id(&'a str),
    /// Every one this author made.
    Author(&'a str),
    /// Every one.
    All,
}

impl Which<'_> {
    fn takes(&self, suggestion: &Suggestion) -> bool {
        match self {
            Which::Id(id) => suggestion.id == *id,
            Which::Author(author) => suggestion.author == *author,
            Which::All => true,
        }
    }
}

/// The text with the suggestions `which` names accepted (`accept`) or
/// rejected: an accepted insertion's words stay and a rejected one's go;
/// an accepted deletion's words go and a rejected one's stay; an accepted
/// style change is made. The suggestions are gone from the text after.
pub fn settle(text: &RichText, which: Which<'_>, accept: bool) -> RichText {
    let blocks = text
        .blocks
        .iter()
        .map(|block| settle_block(block, which, accept))
        .collect();
    RichText { blocks }
}

fn settle_block(block: &Block, which: Which<'_>, accept: bool) -> Block {
    let mut text = Vec::with_capacity(block.text.len());
    let mut marks: Vec<Marks> = Vec::with_capacity(block.marks.len());
    for (c, mark) in block.text.iter().zip(&block.marks) {
        let settled: Vec<&Suggestion> = mark
            .annotations
            .iter()
            .filter_map(|a| match a {
                Annotation::Suggestion(s) if which.takes(s) => Some(s),
                _ => None,
            })
            .collect();
        if settled.is_empty() {
            text.push(*c);
            marks.push(mark.clone());
            continue;
        }
        let goes = settled.iter().any(|s| match s.change {
            Change::Insertion => !accept,
            Change::Deletion => accept,
            Change::Style { .. } => false,
        });
        if goes {
            continue;
        }
        let mut kept = mark.clone();
        for suggestion in &settled {
            if let (true, Change::Style { style, on }) = (accept, &suggestion.change) {
                if *on {
                    kept.styles.insert(style.clone());
                } else {
                    kept.styles.remove(style);
                }
            }
        }
        kept.annotations.retain(|a| match a {
            Annotation::Suggestion(s) => !which.takes(s),
            Annotation::Note(_) | Annotation::ResolvedNote(_) => true,
        });
        text.push(*c);
        marks.push(kept);
    }
    Block {
        key: block.key.clone(),
        kind: block.kind.clone(),
        depth: block.depth,
        data: block.data.clone(),
        text,
        marks,
    }
}

/// The text as it prints: every suggestion rejected and no note.
pub fn as_printed(text: &RichText) -> RichText {
    let mut printed = settle(text, Which::All, false);
    for block in &mut printed.blocks {
        for mark in &mut block.marks {
            if !mark.annotations.is_empty() {
                mark.annotations.clear();
            }
        }
    }
    printed
}

/// A note as the text holds it: its id and the words it is on now, in
/// order (its runs joined by a space where they are apart), and whether it
/// is resolved (on none of its words is it open).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteInText {
    pub id: String,
    pub words: String,
    pub resolved: bool,
}

/// A pending suggestion as the text holds it: what it is, and its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingSuggestion {
    pub suggestion: Suggestion,
    pub words: String,
}

/// The notes anchored in the text and the pending suggestions, each once,
/// in the order they first appear.
pub fn listed(text: &RichText) -> (Vec<NoteInText>, Vec<PendingSuggestion>) {
    let mut notes: Vec<NoteInText> = Vec::new();
    let mut suggestions: Vec<PendingSuggestion> = Vec::new();
    let mut open_notes: BTreeSet<&String> = BTreeSet::new();
    for block in &text.blocks {
        // What each annotation held at the character before, to tell runs apart.
        let mut open: BTreeSet<&Annotation> = BTreeSet::new();
        for (c, mark) in block.text.iter().zip(&block.marks) {
            for annotation in &mark.annotations {
                let words = match annotation {
                    Annotation::Note(id) | Annotation::ResolvedNote(id) => {
                        if matches!(annotation, Annotation::Note(_)) {
                            open_notes.insert(id);
                        }
                        words_in(
                            &mut notes,
                            |n| &n.id == id,
                            || NoteInText {
                                id: id.clone(),
                                words: String::new(),
                                resolved: false,
                            },
                            |n| &mut n.words,
                        )
                    }
                    Annotation::Suggestion(s) => words_in(
                        &mut suggestions,
                        |p| p.suggestion.id == s.id,
                        || PendingSuggestion {
                            suggestion: s.clone(),
                            words: String::new(),
                        },
                        |p| &mut p.words,
                    ),
                };
                if !open.contains(annotation) && !words.is_empty() {
                    words.push(' ');
                }
                words.push(*c);
            }
            open = mark.annotations.iter().collect();
        }
    }
    for note in &mut notes {
        note.resolved = !open_notes.contains(&note.id);
    }
    (notes, suggestions)
}

/// The words of the entry of `list` that `is` finds, made by `make` at the
/// end of the list when there is none.
fn words_in<T>(
    list: &mut Vec<T>,
    is: impl Fn(&T) -> bool,
    make: impl FnOnce() -> T,
    words: impl Fn(&mut T) -> &mut String,
) -> &mut String {
    let at = match list.iter().position(is) {
        Some(at) => at,
        None => {
            list.push(make());
            list.len() - 1
        }
    };
    words(&mut list[at])
}

#[cfg(test)]
mod tests;
