//! Tracked print documents and their non-exclusive lock, which marks who has a document out.
//!
//! The lock blocks no write. Taking a document another user has out, locking
//! on someone's behalf, and removing someone else's lock all need
//! `PRINTDOCUMENT passThruLock`, and each is recorded in the document's audit.

use crate::access::Action;
use crate::db::{Dialect, OptionalExtension as _, Row, Transaction, params};

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::db::fetch_page;
use crate::error::{CoreError, Result};
use crate::paging::{ListParams, ListQuery, Page};
use crate::planning::{ISSUES, Issue, SECTIONS, WORKFLOWS, Workflow};
use crate::records::{Table, new_uuid, required_text};
use crate::users::{USERS, User};

pub(crate) const PRINT_DOCUMENTS: Table = Table {
    name: "print_documents",
    noun: "print document",
};

const PASS_THRU: Action = Action::PrintDocumentPassThruLock;
const SORTABLE: &[&str] = &[
    "id",
    "uuid",
    "label",
    "tracking_label",
    "created_at",
    "modified_at",
];
const COLUMNS: &str = "print_documents.id, print_documents.uuid, print_documents.label, print_documents.tracking_label, print_documents.issue_id, print_documents.workflow_id, print_documents.assignee_id, print_documents.workflow_section_id, print_documents.print_locked_user, print_documents.created_at, print_documents.modified_at, (SELECT uuid FROM users WHERE users.id = print_documents.print_locked_user), print_documents.tracking_path";

/// A tracking label: the file path stub and name with every non-alphanumeric character removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrackingLabel(String);

impl TrackingLabel {
    pub fn parse(raw: &str) -> Result<Self> {
        let label: String = raw.chars().filter(|c| c.is_alphanumeric()).collect();
        if label.is_empty() {
            return Err(CoreError::invalid_field(
                "tracking_label",
                "a tracking label needs at least one letter or digit",
            ));
        }
        Ok(Self(label))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintAuditEntry {
    pub id: i64,
    pub uuid: String,
    pub action: String,
    pub detail: String,
    pub user_id: Option<i64>,
    pub user_name: Option<String>,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintDocument {
    pub id: i64,
    pub uuid: String,
    pub label: String,
    pub tracking_label: String,
    /// The tracking label as typed (a path and file name); the normalised
    /// one when it was made before it was kept.
    pub tracking_path: String,
    pub issue_id: i64,
    pub workflow_id: i64,
    pub assignee_id: i64,
    pub workflow_section_id: i64,
    pub print_locked_user: Option<String>,
    print_locked_user_id: Option<i64>,
    pub created_at: String,
    pub modified_at: String,
    pub issue: Option<Issue>,
    pub workflow: Option<Workflow>,
    pub audit: Vec<PrintAuditEntry>,
}

#[derive(Debug, Clone, Default)]
pub struct PrintDocumentInput {
    pub label: Option<String>,
    pub tracking_label: Option<String>,
    pub workflow_id: Option<Option<String>>,
    pub issue_id: Option<Option<String>>,
    pub assignee_id: Option<Option<String>>,
    pub workflow_section_id: Option<Option<String>>,
}

fn document_from_row(row: &Row<'_>) -> crate::db::Result<PrintDocument> {
    let tracking: String = row.get(3)?;
    Ok(PrintDocument {
        id: row.get(0)?,
        uuid: row.get(1)?,
        label: row.get(2)?,
        tracking_label: tracking.clone(),
        issue_id: row.get(4)?,
        workflow_id: row.get(5)?,
        assignee_id: row.get(6)?,
        workflow_section_id: row.get(7)?,
        print_locked_user_id: row.get(8)?,
        created_at: row.get(9)?,
        modified_at: row.get(10)?,
        print_locked_user: row.get(11)?,
        tracking_path: Some(row.get::<_, String>(12)?)
            .filter(|typed| !typed.is_empty())
            .unwrap_or_else(|| tracking.clone()),
        issue: None,
        workflow: None,
        audit: Vec::new(),
    })
}

/// A 409 `conflict` when another document already tracks `label` (ignoring ASCII case).
fn ensure_label_free(tx: &Transaction<'_>, label: &str, except: Option<i64>) -> Result<()> {
    // SQLite compares the column case-blind (COLLATE NOCASE); PostgreSQL
    // by its lower() index, which in the column's "C" collation folds ASCII
    // alone, alike (the label sent is folded in that collation too).
    let taken = tx
        .prepare_cached(match tx.dialect() {
            Dialect::Sqlite => "SELECT EXISTS (SELECT 1 FROM print_documents WHERE tracking_label = ?1 AND id IS DISTINCT FROM ?2)",
            Dialect::Postgres => "SELECT EXISTS (SELECT 1 FROM print_documents WHERE lower(tracking_label) = lower(CAST(?1 AS TEXT) COLLATE \"C\") AND id IS DISTINCT FROM ?2)",
        })?
        .query_row(params![label, except], |row| row.get::<_, bool>(0))?;
    if taken {
        return Err(CoreError::Conflict {
            message: format!("the tracking label {label} is already tracked"),
            field: Some("tracking_label".into()),
        });
    }
    Ok(())
}

impl Cms {
    fn completed_document(
        &self,
        tx: &Transaction<'_>,
        mut doc: PrintDocument,
    ) -> Result<PrintDocument> {
        doc.issue = self.issue_by_id(tx, doc.issue_id)?;
        doc.workflow = self.workflow_by_id(tx, doc.workflow_id)?;
        let mut stmt = tx.prepare_cached(
            "SELECT a.id, a.uuid, a.action, a.detail, a.user_id, u.name, a.created_at FROM print_document_audit a
             LEFT JOIN users u ON u.id = a.user_id WHERE a.print_document_id = +?1 ORDER BY a.id",
        )?;
        doc.audit = stmt
            .query_map([doc.id], |row| {
                Ok(PrintAuditEntry {
                    id: row.get(0)?,
                    uuid: row.get(1)?,
                    action: row.get(2)?,
                    detail: row.get(3)?,
                    user_id: row.get(4)?,
                    user_name: row.get(5)?,
                    created_at: row.get(6)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(doc)
    }

    fn document_by_id(&self, tx: &Transaction<'_>, id: i64) -> Result<PrintDocument> {
        let sql = format!("SELECT {COLUMNS} FROM print_documents WHERE print_documents.id = ?1");
        let doc = tx
            .prepare_cached(&sql)?
            .query_row([id], document_from_row)?;
        self.completed_document(tx, doc)
    }

    fn print_audit(
        &self,
        tx: &Transaction<'_>,
        doc_id: i64,
        who: &Principal,
        action: &str,
        detail: &str,
    ) -> Result<()> {
        tx.prepare_cached(
            "INSERT INTO print_document_audit (uuid, print_document_id, user_id, action, detail, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![new_uuid(), doc_id, who.user_id, action, detail, clock::now()])?;
        Ok(())
    }

    fn user_name(&self, tx: &Transaction<'_>, id: Option<i64>) -> Result<String> {
        Ok(self
            .user_by_id(tx, id)?
            .map_or_else(|| "another user".to_owned(), |u: User| u.name))
    }

    pub fn list_print_documents(
        &self,
        who: &Principal,
        query: &ListQuery,
    ) -> Result<Page<PrintDocument>> {
        who.require(Action::PrintDocumentGet)?;
        let params = ListParams::parse(query, SORTABLE, "modified_at")?;
        self.read(|tx| {
            let mut page = fetch_page(
                tx,
                "print_documents",
                COLUMNS,
                "",
                &[],
                &params,
                document_from_row,
            )?;
            let items = std::mem::take(&mut page.items)
                .into_iter()
                .map(|d| self.completed_document(tx, d))
                .collect::<Result<Vec<_>>>()?;
            Ok(page.with_items(items))
        })
    }

    /// `GET /v3/print-document/{identifier}`: by UUID or by tracking label (either form).
    /// The specification guards it with `PRINTDOCUMENT create`, and so does Copydesk.
    pub fn get_print_document(&self, who: &Principal, identifier: &str) -> Result<PrintDocument> {
        who.require(Action::PrintDocumentCreate)?;
        self.read(|tx| {
            let id = match PRINT_DOCUMENTS.try_id_of(tx, identifier)? {
                Some(id) => Some(id),
                None => match TrackingLabel::parse(identifier) {
                    Ok(label) => tx
                        .prepare_cached(match tx.dialect() {
                            Dialect::Sqlite => "SELECT id FROM print_documents WHERE tracking_label = ?1",
                            Dialect::Postgres => {
                                "SELECT id FROM print_documents WHERE lower(tracking_label) = lower(CAST(?1 AS TEXT) COLLATE \"C\")"
                            }
                        })?
                        .query_row([label.as_str()], |row| row.get(0))
                        .optional()?,
                    Err(_) => None,
                },
            };
            let id =
                id.ok_or_else(|| CoreError::not_found(format!("no print document {identifier}")))?;
            self.document_by_id(tx, id)
        })
    }

    pub fn create_print_document(
        &self,
        who: &Principal,
        input: PrintDocumentInput,
    ) -> Result<PrintDocument> {
        who.require(Action::PrintDocumentCreate)?;
        let label = required_text("label", input.label.as_deref())?;
        let typed = input
            .tracking_label
            .as_deref()
            .ok_or_else(|| CoreError::required("tracking_label"))?
            .trim()
            .to_owned();
        let tracking = TrackingLabel::parse(&typed)?;
        let claim = format!("print label {}", tracking.as_str().to_ascii_lowercase());
        self.write_beside(&[&claim], |tx| {
            ensure_label_free(tx, tracking.as_str(), None)?;
            let workflow = WORKFLOWS.updated_ref(tx, "workflow_id", &input.workflow_id, 0)?;
            let issue = ISSUES.updated_ref(tx, "issue_id", &input.issue_id, 0)?;
            let assignee = USERS.updated_ref(tx, "assignee_id", &input.assignee_id, 0)?;
            let section = SECTIONS.updated_ref(tx, "workflow_section_id", &input.workflow_section_id, 0)?;
            let id = tx.prepare_cached(
                "INSERT INTO print_documents (uuid, label, tracking_label, issue_id, workflow_id, assignee_id,
                 workflow_section_id, created_at, modified_at, tracking_path) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9) RETURNING id",
            )?
            .insert(params![new_uuid(), label, tracking.as_str(), issue, workflow, assignee, section, clock::now(), typed])?;
            self.print_audit(tx, id, who, "create", "")?;
            self.document_by_id(tx, id)
        })
    }

    pub fn update_print_document(
        &self,
        who: &Principal,
        uuid: &str,
        input: PrintDocumentInput,
    ) -> Result<PrintDocument> {
        who.require(Action::PrintDocumentUpdate)?;
        self.write(|tx| {
            let id = PRINT_DOCUMENTS.id_of(tx, uuid)?;
            let old = self.document_by_id(tx, id)?;
            let label = match input.label.as_deref() {
                Some(label) => required_text("label", Some(label))?,
                None => old.label.clone(),
            };
            let (tracking, typed) = match input.tracking_label.as_deref() {
                Some(raw) => (TrackingLabel::parse(raw)?.as_str().to_owned(), raw.trim().to_owned()),
                None => (old.tracking_label.clone(), old.tracking_path.clone()),
            };
            if tracking != old.tracking_label {
                ensure_label_free(tx, &tracking, Some(id))?;
            }
            let workflow = WORKFLOWS.updated_ref(tx, "workflow_id", &input.workflow_id, old.workflow_id)?;
            let issue = ISSUES.updated_ref(tx, "issue_id", &input.issue_id, old.issue_id)?;
            let assignee = USERS.updated_ref(tx, "assignee_id", &input.assignee_id, old.assignee_id)?;
            let section =
                SECTIONS.updated_ref(tx, "workflow_section_id", &input.workflow_section_id, old.workflow_section_id)?;
            let changed = label != old.label
                || tracking != old.tracking_label
                || typed != old.tracking_path
                || workflow != old.workflow_id
                || issue != old.issue_id
                || assignee != old.assignee_id
                || section != old.workflow_section_id;
            if changed {
                tx.prepare_cached(
                    "UPDATE print_documents SET label = ?2, tracking_label = ?3, issue_id = ?4, workflow_id = ?5,
                     assignee_id = ?6, workflow_section_id = ?7, modified_at = ?8, tracking_path = ?9 WHERE id = ?1",
                )?
                .execute(params![id, label, tracking, issue, workflow, assignee, section, clock::now(), typed])?;
                self.print_audit(tx, id, who, "update", "")?;
            }
            self.document_by_id(tx, id)
        })
    }

    /// Marks the document as out with `who`, or with `on_behalf_of` (a user UUID) for passThruLock holders.
    pub fn lock_print_document(
        &self,
        who: &Principal,
        uuid: &str,
        on_behalf_of: Option<&str>,
    ) -> Result<PrintDocument> {
        who.require(Action::PrintDocumentUpdate)?;
        let on_behalf_of = on_behalf_of.map(str::trim).filter(|u| !u.is_empty());
        if on_behalf_of.is_some() {
            who.require(PASS_THRU)?;
        }
        // On a replica, the server's lock comes first: a local lock alone would not be real.
        let forwarded = match self.remote_locks.get() {
            Some(remote) => {
                let remote_uuid = self.synced_print_document(uuid)?;
                remote.lock_print_document(&remote_uuid, on_behalf_of)?;
                Some((std::sync::Arc::clone(remote), remote_uuid))
            }
            None => None,
        };
        let locked = self.lock_here(who, uuid, on_behalf_of);
        if locked.is_err()
            && let Some((remote, remote_uuid)) = forwarded
        {
            // The local lock failed: the server's must not outlive it.
            let _ = remote.unlock_print_document(&remote_uuid);
        }
        locked
    }

    /// The central server's UUID of a print document, on a replica.
    fn synced_print_document(&self, uuid: &str) -> Result<String> {
        self.read(|tx| {
            PRINT_DOCUMENTS.id_of(tx, uuid)?;
            tx.prepare_cached(
                "SELECT remote_uuid FROM sync_records WHERE record_type = 'print_document' AND uuid = ?1",
            )?
            .query_row([uuid], |row| row.get(0))
            .optional()?
            .ok_or_else(|| {
                CoreError::Offline(
                    "this print document has not reached the central server yet, and a lock needs it there; sync, then lock it"
                        .into(),
                )
            })
        })
    }

    fn lock_here(
        &self,
        who: &Principal,
        uuid: &str,
        on_behalf_of: Option<&str>,
    ) -> Result<PrintDocument> {
        self.write(|tx| {
            let id = PRINT_DOCUMENTS.id_of(tx, uuid)?;
            let doc = self.document_by_id(tx, id)?;
            let holder = match on_behalf_of {
                Some(user) => USERS.id_of_field(tx, "on_behalf_of", user)?,
                None => who.user_id,
            };
            if doc.print_locked_user_id == Some(holder) {
                return Ok(doc);
            }
            let now = clock::now();
            let holder_name = self.user_name(tx, Some(holder))?;
            if let Some(current) = doc.print_locked_user_id {
                if !who.may(PASS_THRU) {
                    let name = self.user_name(tx, Some(current))?;
                    return Err(CoreError::Locked(format!(
                        "{name} has this print document out; ask them to release it"
                    )));
                }
                let previous = self.user_name(tx, Some(current))?;
                self.print_audit(
                    tx,
                    id,
                    who,
                    "lock takeover",
                    &format!("took the document from {previous} for {holder_name}"),
                )?;
            } else if holder != who.user_id {
                self.print_audit(
                    tx,
                    id,
                    who,
                    "lock",
                    &format!("locked on behalf of {holder_name}"),
                )?;
            } else {
                self.print_audit(tx, id, who, "lock", "")?;
            }
            tx.prepare_cached(
                "UPDATE print_documents SET print_locked_user = ?2, modified_at = ?3 WHERE id = ?1",
            )?
            .execute(params![id, holder, now])?;
            self.document_by_id(tx, id)
        })
    }

    /// Removes the lock: the holder's own, or anyone's for passThruLock holders (recorded as forced).
    pub fn unlock_print_document(&self, who: &Principal, uuid: &str) -> Result<PrintDocument> {
        who.require(Action::PrintDocumentUpdate)?;
        // The server's lock goes first; while the server cannot be reached, the local one stays.
        if let Some(remote) = self.remote_locks.get() {
            let holder: Option<i64> = self.read(|tx| {
                let id = PRINT_DOCUMENTS.id_of(tx, uuid)?;
                Ok(self.document_by_id(tx, id)?.print_locked_user_id)
            })?;
            let releasable = holder.is_some_and(|h| h == who.user_id || who.may(PASS_THRU));
            if releasable {
                remote.unlock_print_document(&self.synced_print_document(uuid)?)?;
            }
        }
        self.write(|tx| {
            let id = PRINT_DOCUMENTS.id_of(tx, uuid)?;
            let doc = self.document_by_id(tx, id)?;
            let Some(current) = doc.print_locked_user_id else {
                return Ok(doc);
            };
            if current != who.user_id {
                let name = self.user_name(tx, Some(current))?;
                if !who.may(PASS_THRU) {
                    return Err(CoreError::Locked(format!(
                        "{name} has this print document out; only they can release it"
                    )));
                }
                self.print_audit(tx, id, who, "forced unlock", &format!("removed {name}'s lock"))?;
            } else {
                self.print_audit(tx, id, who, "unlock", "")?;
            }
            tx.prepare_cached("UPDATE print_documents SET print_locked_user = NULL, modified_at = ?2 WHERE id = ?1")?
                .execute(params![id, clock::now()])?;
            self.document_by_id(tx, id)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::TrackingLabel;

    #[test]
    fn tracking_labels_lose_punctuation() {
        assert_eq!(
            TrackingLabel::parse("Sports/2026-11 Final_page.indd")
                .ok()
                .map(|l| l.as_str().to_owned()),
            Some("Sports202611Finalpageindd".to_owned())
        );
        assert_eq!(
            TrackingLabel::parse("Ä/ö 1")
                .ok()
                .map(|l| l.as_str().to_owned()),
            Some("Äö1".to_owned())
        );
        assert!(TrackingLabel::parse("/-_. ").is_err());
    }
}
