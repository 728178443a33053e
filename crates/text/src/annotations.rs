//! In-content notes and suggested edits: what they are on a character, and the JSON form a suggestion takes in raw content.
//!
//! A note is anchored on the words it was made on; its thread is the
//! specification's note comments (`/v3/note-comment/{note uuid}`). A
//! suggested edit is an insertion, a deletion or a style change that waits
//! for the story's writer to accept or reject it; until then the text holds
//! the inserted words, the deleted words (marked), and the styles as they
//! were, the suggested change beside them. Both are part of the text, so
//! they travel through versions, drafts, sync and the three-way merge on
//! their words, and their ids are UUIDs, so that two laptops offline never
//! make the same one.
//!
//! **In raw content** a character carries one entity at most (Draft.js
//! holds one per character), so a character's notes and suggestions ride
//! in its entity's `data`: `"notes"` (note UUIDs), `"resolved_notes"`
//! (resolved notes' UUIDs: a resolved note stays on its words, hidden from
//! the page, so it can be reopened where it was) and `"suggestions"` (one
//! object each). A character with a link keeps its `LINK` entity, with
//! those members added, so that a client that knows only links still sees
//! the link; a character with no other entity gets a `NOTE` entity (notes
//! alone) or a `SUGGESTION` entity (see `merge::annotated`, which also
//! accepts and rejects them).

use serde_json::{Map, Value};

/// The entity type of characters whose only entity is notes.
pub const NOTE_ENTITY: &str = "NOTE";
/// The entity type of characters with a suggested edit and no link.
pub const SUGGESTION_ENTITY: &str = "SUGGESTION";

/// One note or suggested edit on a character.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Annotation {
    /// An in-content note, by its UUID.
    Note(String),
    /// A note someone resolved: still on its words, no longer shown on them.
    ResolvedNote(String),
    Suggestion(Suggestion),
}

/// A suggested edit, its author and when it was made.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Suggestion {
    /// A UUID: the characters of one suggestion share it.
    pub id: String,
    pub change: Change,
    /// Who suggested it (the user's name as the editor shows it).
    pub author: String,
    /// When, as RFC 3339.
    pub at: String,
}

/// What a suggestion would do to its characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Change {
    /// The characters are suggested words: accepted, they stay; rejected,
    /// they go.
    Insertion,
    /// The characters are words suggested for deletion: accepted, they go;
    /// rejected, they stay.
    Deletion,
    /// A Draft.js style put on (`on`) or taken off the characters.
    Style { style: String, on: bool },
}

impl Suggestion {
    /// The suggestion as raw content's entity data holds it.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("id".into(), Value::from(self.id.as_str()));
        let kind = match &self.change {
            Change::Insertion => "insertion",
            Change::Deletion => "deletion",
            Change::Style { style, on } => {
                out.insert("style".into(), Value::from(style.as_str()));
                out.insert("on".into(), Value::from(*on));
                "style"
            }
        };
        out.insert("kind".into(), Value::from(kind));
        out.insert("author".into(), Value::from(self.author.as_str()));
        out.insert("at".into(), Value::from(self.at.as_str()));
        Value::Object(out)
    }

    /// Reads [`Suggestion::to_json`]'s form; `None` when it is not one.
    pub fn from_json(value: &Value) -> Option<Self> {
        let text = |name: &str| value.get(name).and_then(Value::as_str).map(str::to_owned);
        let change = match value.get("kind")?.as_str()? {
            "insertion" => Change::Insertion,
            "deletion" => Change::Deletion,
            "style" => Change::Style {
                style: text("style")?,
                on: value.get("on")?.as_bool()?,
            },
            _ => return None,
        };
        let id = text("id").filter(|id| !id.is_empty())?;
        Some(Self {
            id,
            change,
            author: text("author").unwrap_or_default(),
            at: text("at").unwrap_or_default(),
        })
    }
}
