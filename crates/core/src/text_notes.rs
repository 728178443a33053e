//! The in-content notes of a story: open, resolved, or with their words deleted, each listed with the words it is or was last on.
//!
//! A note's anchor lives in the body, so the body is the one truth for
//! where a note is and whether it is resolved (a resolved note stays on its
//! words, hidden from the page); what a note was on before its words were
//! deleted is in the versions, which every node keeps. So the list is
//! worked out from the text and the versions, on every node alike, and
//! needs no record of its own to sync.

use copydesk_text::merge::annotated::{self, NoteInText};
use copydesk_text::merge::{RawContent, StoredText};

use crate::Cms;
use crate::access::{Action, Principal};
use crate::db::Transaction;
use crate::error::Result;
use crate::model::content::CONTENT;

/// A note of a story, as the notes list gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoryNote {
    /// The note's UUID: its thread is `/v3/note-comment/{uuid}`.
    pub uuid: String,
    /// The words it is on, or was last on.
    pub words: String,
    pub state: NoteState,
    /// The last version that had it on its words (the story's version now when `in_text`).
    pub version: i64,
}

/// Where a note stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteState {
    /// On its words, shown.
    Open,
    /// On its words, hidden: someone resolved it.
    Resolved,
    /// Its words are no longer in the story.
    WordsDeleted,
}

impl NoteState {
    pub fn as_str(self) -> &'static str {
        match self {
            NoteState::Open => "open",
            NoteState::Resolved => "resolved",
            NoteState::WordsDeleted => "words_deleted",
        }
    }
}

/// The notes in one body (HTML and its raw content), each with its words.
fn notes_in(html: &str, raw: Option<&str>) -> Vec<NoteInText> {
    let raw = raw.and_then(RawContent::read);
    let text = StoredText {
        html,
        raw: raw.as_ref(),
    }
    .read();
    annotated::listed(&text).0
}

impl Cms {
    /// `GET /v3/content/{uuid}/notes`: the story's notes on its words (open
    /// or resolved), in the order they stand, then those whose words were
    /// deleted, the most recently seen first.
    pub fn story_notes(&self, who: &Principal, uuid: &str) -> Result<Vec<StoryNote>> {
        who.require(Action::ContentGet)?;
        self.read(|tx| story_notes_in(tx, CONTENT.id_of(tx, uuid)?))
    }
}

fn story_notes_in(tx: &Transaction<'_>, content_id: i64) -> Result<Vec<StoryNote>> {
    let (html, raw, version): (String, Option<String>, i64) = tx
        .prepare_cached("SELECT content, content_raw, version FROM content WHERE id = ?1")?
        .query_row([content_id], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })?;
    let mut notes: Vec<StoryNote> = notes_in(&html, raw.as_deref())
        .into_iter()
        .map(|note| StoryNote {
            uuid: note.id,
            words: note.words,
            state: if note.resolved {
                NoteState::Resolved
            } else {
                NoteState::Open
            },
            version,
        })
        .collect();
    // Only the versions that hold a note are read (most hold none).
    let mut stmt = tx.prepare_cached(
        "SELECT content, content_raw, version FROM versions WHERE content_id = +?1
         AND (content LIKE '%-notes=%' OR content_raw LIKE '%notes\"%')
         ORDER BY version DESC, id DESC",
    )?;
    let older: Vec<(String, Option<String>, i64)> = stmt
        .query_map([content_id], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })?
        .collect::<Result<_, _>>()?;
    for (html, raw, version) in older {
        for note in notes_in(&html, raw.as_deref()) {
            if notes.iter().all(|known| known.uuid != note.id) {
                notes.push(StoryNote {
                    uuid: note.id,
                    words: note.words,
                    state: NoteState::WordsDeleted,
                    version,
                });
            }
        }
    }
    Ok(notes)
}
