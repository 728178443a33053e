//! The change feed (`GET /v3/changes?since=SEQ`, a Copydesk extension): what changed after a cursor, deletes included.
//!
//! Each record appears once, at the sequence number of its latest change, so
//! a reader that applies the page and keeps `last` as its cursor misses
//! nothing and reads nothing twice. The sequence is this server's order of
//! commits, never a clock: on PostgreSQL, whose writes commit out of order,
//! rows are numbered once no older write can still add one (the store's
//! `number_changes`), before each read of the feed.

use crate::access::Action;
use crate::db::{OptionalExtension as _, params};
use crate::synced::TypeSynced as _;

use crate::Cms;
use crate::access::Principal;
use crate::error::{CoreError, Result};
use crate::record_type::RecordType;

/// The most changes one page carries.
pub const MAX_CHANGES: i64 = 1000;
const DEFAULT_CHANGES: i64 = 500;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub seq: i64,
    pub record_type: RecordType,
    pub uuid: String,
    /// `create`, `update` or `delete`: the latest thing that happened to the record.
    pub operation: String,
    pub changed_at: String,
    /// The record a comment, draft or attachment is read through: a note's
    /// thread reference, an assignment comment's assignment, a draft's or an
    /// attachment's content item (`None` for other records and deletes).
    pub parent: Option<String>,
}

/// The parent of a record read through another one (see [`Change::parent`]).
fn parent_of(
    tx: &crate::db::Transaction<'_>,
    record_type: RecordType,
    uuid: &str,
) -> Result<Option<String>> {
    let Some(sql) = record_type.synced().and_then(|kind| kind.parent_query()) else {
        return Ok(None);
    };
    Ok(tx
        .prepare_cached(sql)?
        .query_row([uuid], |row| row.get(0))
        .optional()?)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeFeed {
    pub items: Vec<Change>,
    /// The cursor the page starts after.
    pub since: i64,
    /// The cursor to ask with next: the last change on this page, or `since` when it is empty.
    pub last: i64,
    /// Whether more changes wait after `last`.
    pub more: bool,
}

fn parse_number(field: &str, raw: Option<&str>, default: i64, max: i64) -> Result<i64> {
    match raw.map(str::trim) {
        None | Some("") => Ok(default),
        Some(raw) => match raw.parse::<i64>() {
            Ok(n) if (0..=max).contains(&n) => Ok(n),
            _ => Err(CoreError::invalid_field(
                field,
                format!("\"{field}\" must be a whole number from 0 to {max}, not \"{raw}\""),
            )),
        },
    }
}

impl Cms {
    /// The changes after `since`, oldest first, at most `limit` records.
    pub fn changes_since(
        &self,
        who: &Principal,
        since: Option<&str>,
        limit: Option<&str>,
    ) -> Result<ChangeFeed> {
        who.require(Action::ChangesList)?;
        let since = parse_number("since", since, 0, i64::MAX)?;
        let limit = parse_number("limit", limit, DEFAULT_CHANGES, MAX_CHANGES)?.max(1);
        self.store.number_changes()?;
        self.feed_after(since, limit)
    }

    /// A page of the feed after `since`, at most `limit` records (checked by the caller).
    fn feed_after(&self, since: i64, limit: i64) -> Result<ChangeFeed> {
        self.read(|tx| {
            // Each record once, at its latest change: the rows after `since`
            // with no later row for the same record, read in seq order, so
            // a page stops reading once it is full.
            let mut stmt = tx.prepare_cached(
                "SELECT c.seq, c.record_type, c.uuid, c.operation, c.changed_at FROM change_log c
                 WHERE c.seq > ?1 AND NOT EXISTS (
                     SELECT 1 FROM change_log later
                     WHERE later.record_type = c.record_type AND later.uuid = c.uuid AND later.seq > c.seq)
                 ORDER BY c.seq LIMIT ?2",
            )?;
            let mut items: Vec<Change> = stmt
                .query_map(params![since, limit + 1], |row| {
                    Ok(Change {
                        seq: row.get(0)?,
                        record_type: row.get(1)?,
                        uuid: row.get(2)?,
                        operation: row.get(3)?,
                        changed_at: row.get(4)?,
                        parent: None,
                    })
                })?
                .collect::<Result<_, _>>()?;
            let more = items.len() as i64 > limit;
            items.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
            let last = items.last().map_or(since, |c| c.seq);
            for item in &mut items {
                if item.operation != "delete" {
                    item.parent = parent_of(tx, item.record_type, &item.uuid)?;
                }
            }
            Ok(ChangeFeed {
                items,
                since,
                last,
                more,
            })
        })
    }
}

/// The action that reads a record of this type: a change stream shows a
/// change only to a caller who holds it, so that a key learns nothing of
/// records it may not read (an attachment and a draft are read through
/// their content item, an assignment comment through its list).
pub fn read_action(record_type: RecordType) -> Action {
    match record_type {
        RecordType::Author => Action::AuthorGet,
        RecordType::Tag => Action::TagGet,
        RecordType::Content | RecordType::Attachment => Action::ContentGet,
        RecordType::Assignment => Action::AssignmentGet,
        RecordType::Container => Action::ContainerGet,
        RecordType::Workflow => Action::WorkflowGet,
        RecordType::Issue => Action::IssueGet,
        RecordType::PrintDocument => Action::PrintDocumentGet,
        RecordType::NoteComment => Action::NoteCommentGet,
        RecordType::AssignmentComment => Action::AssignmentCommentList,
        RecordType::Draft => Action::DraftList,
        RecordType::User => Action::UserGet,
        RecordType::Version => Action::VersionGet,
        RecordType::Export => Action::ExportGet,
        RecordType::LockRequest => Action::LockRequestGet,
        RecordType::WorkflowSection => Action::WorkflowSectionGet,
    }
}

impl Cms {
    /// The change feed after `since` as a change stream gives it: only the
    /// changes of records the caller may read (`last` passes the others).
    /// It reads what [`Cms::change_head`] numbered when it moved.
    pub fn readable_changes_since(&self, who: &Principal, since: i64) -> Result<ChangeFeed> {
        who.require(Action::ChangesList)?;
        let mut feed = self.feed_after(since, DEFAULT_CHANGES)?;
        feed.items
            .retain(|change| who.may(read_action(change.record_type)));
        Ok(feed)
    }

    /// The change log's newest position (0 for none): what a change stream
    /// starts after when it is not resuming, and what it waits to see pass.
    pub fn change_head(&self) -> Result<i64> {
        self.store.number_changes()?;
        self.read(|tx| {
            Ok(tx
                .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM change_log")?
                .query_row([], |row| row.get(0))?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::parse_number;

    #[test]
    fn numbers() {
        assert_eq!(parse_number("since", None, 0, 10).ok(), Some(0));
        assert_eq!(parse_number("since", Some("7"), 0, 10).ok(), Some(7));
        assert!(parse_number("since", Some("-1"), 0, 10).is_err());
        assert!(parse_number("since", Some("11"), 0, 10).is_err());
        assert!(parse_number("since", Some("x"), 0, 10).is_err());
    }
}
