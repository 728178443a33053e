//! Comment threads: on in-content notes (threaded) and on planning assignments (flat).

use crate::access::Action;
use crate::db::{Row, Transaction, params};

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::content::CONTENT;
use crate::error::{CoreError, Result};
use crate::model::content::audit;
use crate::records::{Table, new_uuid};
use crate::users::User;
use copydesk_text::sanitize::clean_comment;

pub(crate) const NOTE_COMMENTS: Table = Table {
    name: "note_comments",
    noun: "note comment",
};

/// The longest note reference accepted (a content or note UUID in practice).
const MAX_REFERENCE: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteComment {
    pub id: i64,
    pub uuid: String,
    pub reference: String,
    pub user_id: Option<i64>,
    pub comment: String,
    pub created_at: String,
    pub version: i64,
    pub draft_uuid: String,
    pub parent_id: i64,
    pub user: Option<User>,
}

#[derive(Debug, Clone, Default)]
pub struct NoteCommentInput {
    pub comment: Option<String>,
    pub version: Option<i64>,
    pub reference: Option<String>,
    pub draft_uuid: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssignmentComment {
    pub id: i64,
    pub uuid: String,
    pub user_id: Option<i64>,
    pub assignment_id: i64,
    pub comment: String,
    pub created_at: String,
    pub user: Option<User>,
}

fn note_from_row(row: &Row<'_>) -> crate::db::Result<NoteComment> {
    Ok(NoteComment {
        id: row.get(0)?,
        uuid: row.get(1)?,
        reference: row.get(2)?,
        user_id: row.get(3)?,
        comment: row.get(4)?,
        version: row.get(5)?,
        draft_uuid: row.get(6)?,
        parent_id: row.get(7)?,
        created_at: row.get(8)?,
        user: None,
    })
}

fn parse_reference(raw: &str) -> Result<String> {
    let reference = raw.trim();
    if reference.is_empty()
        || reference.len() > MAX_REFERENCE
        || reference.chars().any(char::is_whitespace)
    {
        return Err(CoreError::invalid_field(
            "reference",
            "\"reference\" must be the UUID of the content item or note the thread belongs to",
        ));
    }
    Ok(reference.to_owned())
}

impl Cms {
    pub(crate) fn notes_of(
        &self,
        tx: &Transaction<'_>,
        reference: &str,
    ) -> Result<Vec<NoteComment>> {
        let mut stmt = tx.prepare_cached(
            "SELECT id, uuid, reference, user_id, comment, version, draft_uuid, parent_id, created_at
             FROM note_comments WHERE reference = +?1 ORDER BY id",
        )?;
        let notes: Vec<NoteComment> = stmt
            .query_map([reference], note_from_row)?
            .collect::<Result<_, _>>()?;
        notes
            .into_iter()
            .map(|mut note| {
                note.user = self.user_by_id(tx, note.user_id)?;
                Ok(note)
            })
            .collect()
    }

    /// `GET /v3/note-comment/{reference}`: the thread of a content item or note, oldest first.
    pub fn note_comments(&self, who: &Principal, reference: &str) -> Result<Vec<NoteComment>> {
        who.require(Action::NoteCommentGet)?;
        let reference = parse_reference(reference)
            .map_err(|_| CoreError::not_found(format!("no thread {reference}")))?;
        self.read(|tx| self.notes_of(tx, &reference))
    }

    /// `POST /v3/note-comment/{root | parent uuid}`: a new comment, stored sanitised.
    pub fn create_note_comment(
        &self,
        who: &Principal,
        parent: &str,
        input: NoteCommentInput,
    ) -> Result<Vec<NoteComment>> {
        who.require(Action::NoteCommentCreate)?;
        let comment = clean_comment(
            "comment",
            input
                .comment
                .as_deref()
                .ok_or_else(|| CoreError::required("comment"))?,
        )?;
        let sent_reference = match input.reference.as_deref() {
            Some(raw) => parse_reference(raw)?,
            None => return Err(CoreError::required("reference")),
        };
        if input.version.is_some_and(|v| v < 0) {
            return Err(CoreError::invalid_field(
                "version",
                "\"version\" cannot be negative",
            ));
        }
        self.write(|tx| {
            let (parent_id, reference) = if parent == "root" {
                (0, sent_reference.clone())
            } else {
                let id = NOTE_COMMENTS.id_of(tx, parent)?;
                let parent_reference: String = tx
                    .prepare_cached("SELECT reference FROM note_comments WHERE id = ?1")?
                    .query_row([id], |row| row.get(0))?;
                if parent_reference != sent_reference {
                    return Err(CoreError::invalid_field(
                        "reference",
                        "a reply belongs to the same thread as the comment it answers",
                    ));
                }
                (id, parent_reference)
            };
            // A thread on a content item is part of its history.
            let content_id = CONTENT.try_id_of(tx, &reference)?;
            let version = match (input.version, content_id) {
                (Some(version), _) => version,
                (None, Some(content_id)) => tx
                    .prepare_cached("SELECT version FROM content WHERE id = ?1")?
                    .query_row([content_id], |row| row.get(0))?,
                (None, None) => 0,
            };
            tx.prepare_cached(
                "INSERT INTO note_comments (uuid, reference, user_id, comment, version, draft_uuid, parent_id, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                new_uuid(),
                reference,
                who.user_id,
                comment,
                version,
                input.draft_uuid.clone().unwrap_or_default(),
                parent_id,
                clock::now()
            ])?;
            if let Some(content_id) = content_id {
                let what = if parent_id == 0 { "started a comment thread" } else { "replied in a comment thread" };
                audit(tx, content_id, who, "comment", what)?;
            }
            self.notes_of(tx, &reference)
        })
    }

    fn assignment_comments_of(
        &self,
        tx: &Transaction<'_>,
        assignment_id: i64,
    ) -> Result<Vec<AssignmentComment>> {
        let mut stmt = tx.prepare_cached(
            "SELECT id, uuid, user_id, assignment_id, comment, created_at FROM assignment_comments
             WHERE assignment_id = +?1 ORDER BY id",
        )?;
        let comments: Vec<AssignmentComment> = stmt
            .query_map([assignment_id], |row| {
                Ok(AssignmentComment {
                    id: row.get(0)?,
                    uuid: row.get(1)?,
                    user_id: row.get(2)?,
                    assignment_id: row.get(3)?,
                    comment: row.get(4)?,
                    created_at: row.get(5)?,
                    user: None,
                })
            })?
            .collect::<Result<_, _>>()?;
        comments
            .into_iter()
            .map(|mut c| {
                c.user = self.user_by_id(tx, c.user_id)?;
                Ok(c)
            })
            .collect()
    }

    pub fn assignment_comments(
        &self,
        who: &Principal,
        assignment_uuid: &str,
    ) -> Result<Vec<AssignmentComment>> {
        who.require(Action::AssignmentCommentList)?;
        self.read(|tx| {
            let assignment = self.require_assignment(tx, assignment_uuid)?;
            self.assignment_comments_of(tx, assignment.id)
        })
    }

    /// A comment on an assignment, by the token's user, stored sanitised.
    pub fn create_assignment_comment(
        &self,
        who: &Principal,
        assignment_uuid: &str,
        comment: Option<&str>,
    ) -> Result<AssignmentComment> {
        who.require(Action::AssignmentCommentCreate)?;
        let comment = clean_comment(
            "comment",
            comment.ok_or_else(|| CoreError::required("comment"))?,
        )?;
        self.write(|tx| {
            let assignment = self.require_assignment(tx, assignment_uuid)?;
            let id = tx.prepare_cached(
                "INSERT INTO assignment_comments (uuid, assignment_id, user_id, comment, created_at) VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
            )?
            .insert(params![new_uuid(), assignment.id, who.user_id, comment, clock::now()])?;
            if let Some(content_id) = assignment.content_id {
                audit(tx, content_id, who, "assignment comment", &assignment.title)?;
            }
            self.assignment_comments_of(tx, assignment.id)?
                .into_iter()
                .find(|c| c.id == id)
                .ok_or_else(|| CoreError::Internal("a comment just made is missing".into()))
        })
    }
}
