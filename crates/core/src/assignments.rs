//! Planning assignments (`/v3/assignment`, an extension the contract names): who writes what, by when.

use crate::access::Action;
use crate::db::{OptionalExtension as _, Row, Transaction, params};
use crate::record_type::RecordType;

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::content::CONTENT;
use crate::db::fetch_page;
use crate::error::{CoreError, Result};
use crate::model::content::audit;
use crate::paging::{ListParams, ListQuery, Page};
use crate::records::{Table, new_uuid, required_text};
use crate::users::{USERS, User};

pub(crate) const ASSIGNMENTS: Table = Table {
    name: "assignments",
    noun: "assignment",
};

const SORTABLE: &[&str] = &["id", "uuid", "title", "due_at", "created_at", "modified_at"];
const COLUMNS: &str = "assignments.id, assignments.uuid, assignments.title, assignments.description, assignments.due_at, assignments.assignee_id, assignments.content_id, assignments.user_id, assignments.created_at, assignments.modified_at, (SELECT uuid FROM content WHERE content.id = assignments.content_id)";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub id: i64,
    pub uuid: String,
    pub title: String,
    pub description: String,
    pub due_at: Option<String>,
    pub assignee_id: Option<i64>,
    pub content_id: Option<i64>,
    /// The UUID of the content item, so a client can follow it without a second lookup.
    pub content_uuid: Option<String>,
    pub user_id: Option<i64>,
    pub created_at: String,
    pub modified_at: String,
    pub srn: String,
    pub assignee: Option<User>,
}

/// An assignment create or update; references are numeric ids or UUIDs.
#[derive(Debug, Clone, Default)]
pub struct AssignmentInput {
    pub title: Option<String>,
    pub description: Option<String>,
    pub due_at: Option<Option<String>>,
    pub assignee_id: Option<Option<String>>,
    pub content_id: Option<Option<String>>,
}

impl Cms {
    fn assignment_from_row(&self, row: &Row<'_>) -> crate::db::Result<Assignment> {
        let uuid: String = row.get(1)?;
        Ok(Assignment {
            id: row.get(0)?,
            srn: self.srn(RecordType::Assignment, &uuid),
            uuid,
            title: row.get(2)?,
            description: row.get(3)?,
            due_at: row.get(4)?,
            assignee_id: row.get(5)?,
            content_id: row.get(6)?,
            content_uuid: row.get(10)?,
            user_id: row.get(7)?,
            created_at: row.get(8)?,
            modified_at: row.get(9)?,
            assignee: None,
        })
    }

    pub(crate) fn assignment_by_id(&self, tx: &Transaction<'_>, id: i64) -> Result<Assignment> {
        let sql = format!("SELECT {COLUMNS} FROM assignments WHERE assignments.id = ?1");
        let mut assignment = tx
            .prepare_cached(&sql)?
            .query_row([id], |row| self.assignment_from_row(row))?;
        assignment.assignee = self.user_by_id(tx, assignment.assignee_id)?;
        Ok(assignment)
    }

    pub fn list_assignments(&self, who: &Principal, query: &ListQuery) -> Result<Page<Assignment>> {
        who.require(Action::AssignmentList)?;
        let params = ListParams::parse(query, SORTABLE, "modified_at")?;
        self.read(|tx| {
            let mut page = fetch_page(tx, "assignments", COLUMNS, "", &[], &params, |row| {
                self.assignment_from_row(row)
            })?;
            let items = std::mem::take(&mut page.items)
                .into_iter()
                .map(|mut a| {
                    a.assignee = self.user_by_id(tx, a.assignee_id)?;
                    Ok(a)
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(page.with_items(items))
        })
    }

    /// By UUID, or by the numeric id a content item's `assignment_id` names.
    pub fn get_assignment(&self, who: &Principal, identifier: &str) -> Result<Assignment> {
        who.require(Action::AssignmentGet)?;
        self.read(|tx| {
            let id = match identifier.parse::<i64>() {
                Ok(id) => tx
                    .prepare_cached("SELECT id FROM assignments WHERE id = ?1")?
                    .query_row([id], |row| row.get(0))
                    .optional()?
                    .ok_or_else(|| CoreError::not_found(format!("no assignment {identifier}")))?,
                Err(_) => ASSIGNMENTS.id_of(tx, identifier)?,
            };
            self.assignment_by_id(tx, id)
        })
    }

    /// Points the content item at its assignment (and away from an old one).
    fn link_content(
        &self,
        tx: &Transaction<'_>,
        assignment_id: i64,
        old: Option<i64>,
        new: Option<i64>,
    ) -> Result<()> {
        if old == new {
            return Ok(());
        }
        let now = clock::now();
        if let Some(old) = old {
            tx.prepare_cached("UPDATE content SET assignment_id = NULL, modified_at = ?2 WHERE id = ?1 AND assignment_id = ?3")?
                .execute(params![old, now, assignment_id])?;
        }
        if let Some(new) = new {
            tx.prepare_cached(
                "UPDATE content SET assignment_id = ?2, modified_at = ?3 WHERE id = ?1",
            )?
            .execute(params![new, assignment_id, now])?;
        }
        Ok(())
    }

    pub fn create_assignment(&self, who: &Principal, input: AssignmentInput) -> Result<Assignment> {
        who.require(Action::AssignmentCreate)?;
        let title = required_text("title", input.title.as_deref())?;
        let due_at = match input
            .due_at
            .clone()
            .flatten()
            .filter(|d| !d.trim().is_empty())
        {
            Some(raw) => Some(clock::parse_timestamp("due_at", &raw)?),
            None => None,
        };
        self.write(|tx| {
            let assignee = USERS.optional_ref(tx, "assignee_id", input.assignee_id.clone().flatten().as_deref())?;
            let content = CONTENT.optional_ref(tx, "content_id", input.content_id.clone().flatten().as_deref())?;
            if let Some(content_id) = content {
                self.check_writable(tx, who, content_id)?;
            }
            let id = tx.prepare_cached(
                "INSERT INTO assignments (uuid, title, description, due_at, assignee_id, content_id, user_id, created_at, modified_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8) RETURNING id",
            )?
            .insert(params![
                new_uuid(),
                title,
                input.description.clone().unwrap_or_default(),
                due_at,
                assignee,
                content,
                who.user_id,
                clock::now()
            ])?;
            self.link_content(tx, id, None, content)?;
            if let Some(content_id) = content {
                audit(tx, content_id, who, "assignment", &format!("assigned \"{title}\""))?;
            }
            self.assignment_by_id(tx, id)
        })
    }

    pub fn update_assignment(
        &self,
        who: &Principal,
        uuid: &str,
        input: AssignmentInput,
    ) -> Result<Assignment> {
        who.require(Action::AssignmentUpdate)?;
        self.write(|tx| {
            let id = ASSIGNMENTS.id_of(tx, uuid)?;
            let old = self.assignment_by_id(tx, id)?;
            let title = match input.title.as_deref() {
                Some(title) => required_text("title", Some(title))?,
                None => old.title.clone(),
            };
            let due_at = match input.due_at.clone() {
                Some(Some(raw)) if !raw.trim().is_empty() => Some(clock::parse_timestamp("due_at", &raw)?),
                Some(_) => None,
                None => old.due_at.clone(),
            };
            let assignee = match input.assignee_id.clone() {
                Some(raw) => USERS.optional_ref(tx, "assignee_id", raw.as_deref())?,
                None => old.assignee_id,
            };
            let content = match input.content_id.clone() {
                Some(raw) => CONTENT.optional_ref(tx, "content_id", raw.as_deref())?,
                None => old.content_id,
            };
            if let Some(content_id) = content {
                self.check_writable(tx, who, content_id)?;
            }
            let description = input.description.clone().unwrap_or(old.description.clone());
            let changed = title != old.title
                || description != old.description
                || due_at != old.due_at
                || assignee != old.assignee_id
                || content != old.content_id;
            if changed {
                tx.prepare_cached(
                    "UPDATE assignments SET title = ?2, description = ?3, due_at = ?4, assignee_id = ?5, content_id = ?6,
                     modified_at = ?7 WHERE id = ?1",
                )?
                .execute(params![id, title, description, due_at, assignee, content, clock::now()])?;
                self.link_content(tx, id, old.content_id, content)?;
                if let Some(content_id) = content {
                    audit(tx, content_id, who, "assignment", &format!("changed \"{title}\""))?;
                }
            }
            self.assignment_by_id(tx, id)
        })
    }

    pub fn delete_assignments(&self, who: &Principal, uuids: &str) -> Result<()> {
        who.require(Action::AssignmentDelete)?;
        self.write(|tx| {
            for id in ASSIGNMENTS.ids_of_list(tx, uuids)? {
                let content_id: Option<i64> = tx
                    .prepare_cached("SELECT content_id FROM assignments WHERE id = ?1")?
                    .query_row([id], |row| row.get(0))
                    .optional()?
                    .flatten();
                self.link_content(tx, id, content_id, None)?;
                ASSIGNMENTS.delete(tx, id)?;
            }
            Ok(())
        })
    }

    /// The assignment with row id `id` must exist (for comments).
    pub(crate) fn require_assignment(
        &self,
        tx: &Transaction<'_>,
        uuid: &str,
    ) -> Result<Assignment> {
        let id = ASSIGNMENTS.id_of(tx, uuid)?;
        self.assignment_by_id(tx, id)
            .map_err(|_| CoreError::not_found(format!("no assignment with UUID {uuid}")))
    }
}
