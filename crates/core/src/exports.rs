//! Exports: the print side of a content item, with its own workflow fields, text and versions.
//!
//! An export is made on the first write to it (update, pull or lock), starting
//! from the item's web text. Push copies its text to the web as a new content
//! version; pull copies the web text into it as a new export version. Its lock
//! is a notice of who works on it; it blocks nothing.

use copydesk_text::merge::StoredText;
use copydesk_text::merge::annotated;
use copydesk_text::print_formats::PrintedNote;

use crate::access::Action;
use crate::db::{OptionalExtension as _, Transaction, params};

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::error::{CoreError, Result};
use crate::model::content::audit;
use crate::model::content::{CONTENT, ContentItem};
use crate::model::export::COLUMNS;
pub use crate::model::export::Export;
use crate::planning::{ISSUES, SECTIONS, WORKFLOWS};
use crate::records::new_uuid;
use crate::users::USERS;

/// An export update: `None` leaves a field; references are ids or UUIDs, `0` or null for none.
#[derive(Debug, Clone, Default)]
pub struct ExportInput {
    pub workflow_id: Option<Option<String>>,
    pub assignee_id: Option<Option<String>>,
    pub issue_id: Option<Option<String>>,
    pub workflow_section_id: Option<Option<String>>,
    pub body: Option<String>,
}

impl Cms {
    /// The export of a content item, with its users, if it has one.
    pub(crate) fn export_of(
        &self,
        tx: &Transaction<'_>,
        content_id: i64,
    ) -> Result<Option<Export>> {
        let sql = format!("SELECT {COLUMNS} FROM exports WHERE content_id = ?1");
        let found = tx
            .prepare_cached(&sql)?
            .query_row([content_id], crate::model::export::export_from_row)
            .optional()?;
        match found {
            Some(mut export) => {
                export.user = self.user_by_id(tx, export.user_id)?;
                export.lock_user = self.user_by_id(tx, export.locked_by)?;
                Ok(Some(export))
            }
            None => Ok(None),
        }
    }

    /// The export of `content_id`, made from the web text when it has none yet.
    fn ensure_export(
        &self,
        tx: &Transaction<'_>,
        who: &Principal,
        content_id: i64,
    ) -> Result<Export> {
        if let Some(export) = self.export_of(tx, content_id)? {
            return Ok(export);
        }
        let now = clock::now();
        let export_id = tx.prepare_cached(
            "INSERT INTO exports (uuid, content_id, content, version, user_id, created_at, modified_at)
             SELECT ?1, id, content, 1, ?2, ?3, ?3 FROM content WHERE id = ?4 RETURNING id",
        )?
        .insert(params![new_uuid(), who.user_id, now, content_id])?;
        self.snapshot_export(tx, export_id, who)?;
        self.export_of(tx, content_id)?
            .ok_or_else(|| CoreError::Internal("an export just made is missing".into()))
    }

    fn snapshot_export(&self, tx: &Transaction<'_>, export_id: i64, who: &Principal) -> Result<()> {
        tx.prepare_cached(
            "INSERT INTO export_versions (uuid, export_id, version, content, user_id, created_at)
             SELECT ?1, id, version, content, ?2, modified_at FROM exports WHERE id = ?3",
        )?
        .execute(params![new_uuid(), who.user_id, export_id])?;
        Ok(())
    }

    /// Writes new text into the export as its next version.
    fn set_export_text(
        &self,
        tx: &Transaction<'_>,
        who: &Principal,
        export: &Export,
        text: &str,
    ) -> Result<()> {
        tx.prepare_cached(
            "UPDATE exports SET content = ?2, version = version + 1, user_id = ?3, modified_at = ?4 WHERE id = ?1",
        )?
        .execute(params![export.id, text, who.user_id, clock::now()])?;
        self.snapshot_export(tx, export.id, who)
    }

    fn content_for_export(&self, tx: &Transaction<'_>, uuid: &str) -> Result<i64> {
        CONTENT.id_of(tx, uuid)
    }

    /// `GET /v3/export/{uuid}`: the content item, with its export.
    pub fn get_export(&self, who: &Principal, uuid: &str) -> Result<ContentItem> {
        who.require(Action::ExportGet)?;
        self.read(|tx| {
            let id = self.content_for_export(tx, uuid)?;
            self.content_item(tx, id)
        })
    }

    /// `PUT /v3/export/{uuid}`: workflow fields and text; new text is a new export version.
    pub fn update_export(
        &self,
        who: &Principal,
        uuid: &str,
        input: ExportInput,
    ) -> Result<ContentItem> {
        who.require(Action::ExportUpdate)?;
        self.write(|tx| {
            let content_id = self.content_for_export(tx, uuid)?;
            self.check_writable(tx, who, content_id)?;
            let export = self.ensure_export(tx, who, content_id)?;
            let workflow = WORKFLOWS.updated_ref(tx, "workflow_id", &input.workflow_id, export.workflow_id)?;
            let assignee = USERS.updated_ref(tx, "assignee_id", &input.assignee_id, export.assignee_id)?;
            let issue = ISSUES.updated_ref(tx, "issue_id", &input.issue_id, export.issue_id)?;
            let section = SECTIONS.updated_ref(tx, "workflow_section_id", &input.workflow_section_id, export.workflow_section_id)?;
            let fields_changed = (workflow, assignee, issue, section)
                != (export.workflow_id, export.assignee_id, export.issue_id, export.workflow_section_id);
            if fields_changed {
                tx.prepare_cached(
                    "UPDATE exports SET workflow_id = ?2, assignee_id = ?3, issue_id = ?4, workflow_section_id = ?5,
                     user_id = ?6, modified_at = ?7 WHERE id = ?1",
                )?
                .execute(params![export.id, workflow, assignee, issue, section, who.user_id, clock::now()])?;
            }
            if let Some(text) = &input.body {
                self.set_export_text(tx, who, &export, text)?;
            }
            if fields_changed || input.body.is_some() {
                let detail = if input.body.is_some() { "changed the print text" } else { "changed the print workflow" };
                audit(tx, content_id, who, "export update", detail)?;
            }
            self.content_item(tx, content_id)
        })
    }

    /// `PUT /v3/export/push/{uuid}`: the web text becomes the export text, as a new content version.
    pub fn push_export(&self, who: &Principal, uuid: &str) -> Result<ContentItem> {
        who.require(Action::ExportPush)?;
        self.write(|tx| {
            let content_id = self.content_for_export(tx, uuid)?;
            self.check_writable(tx, who, content_id)?;
            let export = self
                .export_of(tx, content_id)?
                .ok_or_else(|| CoreError::not_found(format!("content {uuid} has no print export to push yet")))?;
            let web: String = tx
                .prepare_cached("SELECT content FROM content WHERE id = ?1")?
                .query_row([content_id], |row| row.get(0))?;
            if web != export.body {
                tx.prepare_cached(
                    "UPDATE content SET content = ?2, version = version + 1, modified_at = ?3 WHERE id = ?1",
                )?
                .execute(params![content_id, export.body, clock::now()])?;
                self.snapshot_version(tx, content_id, who)?;
            }
            audit(tx, content_id, who, "export push", &format!("web text from print version {}", export.version))?;
            self.content_item(tx, content_id)
        })
    }

    /// `PUT /v3/export/pull/{uuid}`: the export text becomes the web text, as a new export version.
    pub fn pull_export(&self, who: &Principal, uuid: &str) -> Result<ContentItem> {
        who.require(Action::ExportPull)?;
        self.write(|tx| {
            let content_id = self.content_for_export(tx, uuid)?;
            self.check_writable(tx, who, content_id)?;
            let export = self.ensure_export(tx, who, content_id)?;
            let web: String = tx
                .prepare_cached("SELECT content FROM content WHERE id = ?1")?
                .query_row([content_id], |row| row.get(0))?;
            if web != export.body {
                self.set_export_text(tx, who, &export, &web)?;
            }
            audit(
                tx,
                content_id,
                who,
                "export pull",
                "print text from the web",
            )?;
            self.content_item(tx, content_id)
        })
    }

    /// `PUT` / `DELETE /v3/export/lock/{uuid}`: a notice of who works on the print side; blocks nothing.
    pub fn set_export_lock(
        &self,
        who: &Principal,
        uuid: &str,
        locked: bool,
    ) -> Result<ContentItem> {
        who.require(Action::ExportLock)?;
        self.write(|tx| {
            let content_id = self.content_for_export(tx, uuid)?;
            let export = self.ensure_export(tx, who, content_id)?;
            let now = clock::now();
            if locked {
                tx.prepare_cached(
                    "UPDATE exports SET locked_by = ?2, locked_at = ?3 WHERE id = ?1",
                )?
                .execute(params![export.id, who.user_id, now])?;
                let detail = match (&export.lock_user, export.locked_by) {
                    (Some(previous), Some(id)) if id != who.user_id => {
                        format!("took the print notice over from {}", previous.name)
                    }
                    _ => "works on the print side".to_owned(),
                };
                audit(tx, content_id, who, "export lock", &detail)?;
            } else if export.locked_by.is_some() {
                tx.prepare_cached(
                    "UPDATE exports SET locked_by = NULL, locked_at = NULL WHERE id = ?1",
                )?
                .execute([export.id])?;
                let detail = match &export.lock_user {
                    Some(previous) if export.locked_by != Some(who.user_id) => {
                        format!("cleared {}'s print notice", previous.name)
                    }
                    _ => "finished on the print side".to_owned(),
                };
                audit(tx, content_id, who, "export unlock", &detail)?;
            }
            self.content_item(tx, content_id)
        })
    }
}

/// The print formats an export can be dumped in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Icml,
    Html,
    Text,
}

impl ExportFormat {
    pub fn parse(raw: &str) -> Result<Self> {
        match raw.to_ascii_lowercase().as_str() {
            "icml" => Ok(Self::Icml),
            "html" => Ok(Self::Html),
            "text" | "txt" => Ok(Self::Text),
            _ => Err(CoreError::not_found(format!(
                "there is no export format \"{raw}\"; use icml, html or text"
            ))),
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Self::Icml => "icml",
            Self::Html => "html",
            Self::Text => "txt",
        }
    }
}

/// An export rendered in one format, with a file name for downloads.
#[derive(Debug, Clone)]
pub struct Dump {
    pub format: ExportFormat,
    pub file_name: String,
    pub body: String,
}

/// What an item prints: its export's text, or the web text while it has no export yet.
fn print_text(item: &ContentItem) -> &str {
    item.export
        .as_ref()
        .map_or(item.record.body.as_str(), |e| e.body.as_str())
}

impl Cms {
    /// `GET /v3/export/{uuid}/as/{type}`: the export's text (the web text while
    /// the item has no export yet) with the headline and byline.
    pub fn dump_export(&self, who: &Principal, uuid: &str, format: &str) -> Result<Dump> {
        who.require(Action::ExportDump)?;
        let format = ExportFormat::parse(format)?;
        let (item, notes) = self.read(|tx| {
            let id = self.content_for_export(tx, uuid)?;
            let item = self.content_item(tx, id)?;
            // Notes' threads go into ICML only for a caller who may read them.
            let notes = match format {
                ExportFormat::Icml if who.may(Action::NoteCommentGet) => {
                    self.printed_notes(tx, print_text(&item))?
                }
                _ => Vec::new(),
            };
            Ok((item, notes))
        })?;
        let html = print_text(&item);
        let names: Vec<&str> = item.authors.iter().map(|a| a.name.as_str()).collect();
        let byline = match names.as_slice() {
            [] => None,
            [one] => Some(format!("By {one}")),
            [rest @ .., last] => Some(format!("By {} and {last}", rest.join(", "))),
        };
        let story = copydesk_text::print_formats::Story {
            headline: &item.record.title,
            byline,
            html,
            notes: &notes,
        };
        let body = match format {
            ExportFormat::Icml => copydesk_text::print_formats::to_icml(&story)?,
            ExportFormat::Html => copydesk_text::print_formats::to_html(&story),
            ExportFormat::Text => copydesk_text::print_formats::to_text(&story),
        };
        Ok(Dump {
            format,
            file_name: format!("{}.{}", item.record.slug, format.extension()),
            body,
        })
    }

    /// The notes in the text with their threads, as ICML prints them: the
    /// note's first writer and time, and each comment of its thread a line
    /// ("Name: words").
    fn printed_notes(&self, tx: &Transaction<'_>, html: &str) -> Result<Vec<PrintedNote>> {
        if !html.contains("data-notes") {
            return Ok(Vec::new());
        }
        let text = StoredText { html, raw: None }.read();
        let mut printed = Vec::new();
        for note in annotated::listed(&text)
            .0
            .into_iter()
            .filter(|n| !n.resolved)
        {
            let thread = self.notes_of(tx, &note.id)?;
            let name = |c: &crate::comments::NoteComment| {
                c.user
                    .as_ref()
                    .map_or_else(|| "Someone".to_owned(), |u| u.name.clone())
            };
            let lines: Vec<String> = thread
                .iter()
                .map(|c| {
                    let said = StoredText {
                        html: &c.comment,
                        raw: None,
                    }
                    .read()
                    .plain_text()
                    .replace('\n', " ");
                    format!("{}: {said}", name(c))
                })
                .collect();
            printed.push(PrintedNote {
                author: thread.first().map(name).unwrap_or_default(),
                at: thread
                    .first()
                    .map(|c| c.created_at.clone())
                    .unwrap_or_default(),
                text: lines.join("\n"),
                id: note.id,
            });
        }
        Ok(printed)
    }
}
