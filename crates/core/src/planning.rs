//! Workflows, workflow sections and issues: the print side's planning records
//! (`/v3/workflow`, `/v3/workflow-section`, `/v3/issue`, extensions the contract names).

use crate::access::Action;
use crate::db::{OptionalExtension as _, Row, Transaction, params};
use crate::record_type::RecordType;

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::db::fetch_page;
use crate::error::{CoreError, Result};
use crate::paging::{ListParams, ListQuery, Page};
use crate::records::{Table, new_uuid, required_text};
use crate::slug::Slug;

pub(crate) const WORKFLOWS: Table = Table {
    name: "workflows",
    noun: "workflow",
};
pub(crate) const SECTIONS: Table = Table {
    name: "workflow_sections",
    noun: "workflow section",
};
pub(crate) const ISSUES: Table = Table {
    name: "issues",
    noun: "issue",
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workflow {
    pub id: i64,
    pub uuid: String,
    pub slug: String,
    pub name: String,
    pub status: i64,
    pub is_web: bool,
    pub is_print: bool,
    pub priority: i64,
    pub is_content: bool,
    pub is_assignment: bool,
    pub srn: String,
}

#[derive(Debug, Clone, Default)]
pub struct WorkflowInput {
    pub slug: Option<String>,
    pub name: Option<String>,
    pub status: Option<i64>,
    pub is_web: Option<bool>,
    pub is_print: Option<bool>,
    pub priority: Option<i64>,
    pub is_content: Option<bool>,
    pub is_assignment: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkflowSection {
    pub id: i64,
    pub uuid: String,
    pub workflow_id: Option<i64>,
    pub name: String,
    pub slug: String,
    pub created_at: String,
    pub modified_at: String,
    pub srn: String,
    /// For print pages, for the web, or both.
    pub is_print: bool,
    pub is_web: bool,
}

#[derive(Debug, Clone, Default)]
pub struct SectionInput {
    pub name: Option<String>,
    pub slug: Option<String>,
    pub workflow_id: Option<String>,
    /// Unsaid: both.
    pub is_print: Option<bool>,
    pub is_web: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub id: i64,
    pub uuid: String,
    pub label: String,
    pub description: String,
    pub status: i64,
    pub created_at: String,
    pub modified_at: String,
    pub published_at: Option<String>,
    pub decorated_label: String,
    pub srn: String,
}

#[derive(Debug, Clone, Default)]
pub struct IssueInput {
    pub label: Option<String>,
    pub description: Option<String>,
    pub status: Option<i64>,
    pub published_at: Option<String>,
    pub decorated_label: Option<String>,
}

const WORKFLOW_COLUMNS: &str = "workflows.id, workflows.uuid, workflows.slug, workflows.name, workflows.status, workflows.is_web, workflows.is_print, workflows.priority, workflows.is_content, workflows.is_assignment";
const SECTION_COLUMNS: &str = "workflow_sections.id, workflow_sections.uuid, workflow_sections.workflow_id, workflow_sections.name, workflow_sections.slug, workflow_sections.created_at, workflow_sections.modified_at, workflow_sections.is_print, workflow_sections.is_web";
const ISSUE_COLUMNS: &str = "issues.id, issues.uuid, issues.label, issues.description, issues.status, issues.created_at, issues.modified_at, issues.published_at, issues.decorated_label";

impl Cms {
    fn workflow_from_row(&self, row: &Row<'_>) -> crate::db::Result<Workflow> {
        let uuid: String = row.get(1)?;
        Ok(Workflow {
            id: row.get(0)?,
            srn: self.srn(RecordType::Workflow, &uuid),
            uuid,
            slug: row.get(2)?,
            name: row.get(3)?,
            status: row.get(4)?,
            is_web: row.get(5)?,
            is_print: row.get(6)?,
            priority: row.get(7)?,
            is_content: row.get(8)?,
            is_assignment: row.get(9)?,
        })
    }

    fn section_from_row(&self, row: &Row<'_>) -> crate::db::Result<WorkflowSection> {
        let uuid: String = row.get(1)?;
        Ok(WorkflowSection {
            id: row.get(0)?,
            srn: self.srn(RecordType::WorkflowSection, &uuid),
            uuid,
            workflow_id: row.get(2)?,
            name: row.get(3)?,
            slug: row.get(4)?,
            created_at: row.get(5)?,
            modified_at: row.get(6)?,
            is_print: row.get(7)?,
            is_web: row.get(8)?,
        })
    }

    fn issue_from_row(&self, row: &Row<'_>) -> crate::db::Result<Issue> {
        let uuid: String = row.get(1)?;
        Ok(Issue {
            id: row.get(0)?,
            srn: self.srn(RecordType::Issue, &uuid),
            uuid,
            label: row.get(2)?,
            description: row.get(3)?,
            status: row.get(4)?,
            created_at: row.get(5)?,
            modified_at: row.get(6)?,
            published_at: row.get(7)?,
            decorated_label: row.get(8)?,
        })
    }

    pub(crate) fn workflow_by_id(&self, tx: &Transaction<'_>, id: i64) -> Result<Option<Workflow>> {
        let sql = format!("SELECT {WORKFLOW_COLUMNS} FROM workflows WHERE workflows.id = ?1");
        Ok(tx
            .prepare_cached(&sql)?
            .query_row([id], |row| self.workflow_from_row(row))
            .optional()?)
    }

    pub(crate) fn issue_by_id(&self, tx: &Transaction<'_>, id: i64) -> Result<Option<Issue>> {
        let sql = format!("SELECT {ISSUE_COLUMNS} FROM issues WHERE issues.id = ?1");
        Ok(tx
            .prepare_cached(&sql)?
            .query_row([id], |row| self.issue_from_row(row))
            .optional()?)
    }

    fn section_by_id(&self, tx: &Transaction<'_>, id: i64) -> Result<WorkflowSection> {
        let sql = format!(
            "SELECT {SECTION_COLUMNS} FROM workflow_sections WHERE workflow_sections.id = ?1"
        );
        Ok(tx
            .prepare_cached(&sql)?
            .query_row([id], |row| self.section_from_row(row))?)
    }

    pub fn list_workflows(&self, who: &Principal, query: &ListQuery) -> Result<Page<Workflow>> {
        who.require(Action::WorkflowList)?;
        let params = ListParams::parse(
            query,
            &["id", "uuid", "name", "slug", "priority", "status"],
            "id",
        )?;
        self.read(|tx| {
            Ok(fetch_page(
                tx,
                "workflows",
                WORKFLOW_COLUMNS,
                "",
                &[],
                &params,
                |row| self.workflow_from_row(row),
            )?)
        })
    }

    pub fn get_workflow(&self, who: &Principal, uuid: &str) -> Result<Workflow> {
        who.require(Action::WorkflowGet)?;
        self.read(|tx| {
            let id = WORKFLOWS.id_of(tx, uuid)?;
            self.workflow_by_id(tx, id)?
                .ok_or_else(|| CoreError::not_found(format!("no workflow with UUID {uuid}")))
        })
    }

    pub fn create_workflow(&self, who: &Principal, input: WorkflowInput) -> Result<Workflow> {
        who.require(Action::WorkflowCreate)?;
        let name = required_text("name", input.name.as_deref())?;
        let slug = Slug::parse_or_make(input.slug.as_deref(), &name);
        self.write(|tx| {
            let now = clock::now();
            let new_id = tx.prepare_cached(
                "INSERT INTO workflows (uuid, slug, name, status, is_web, is_print, priority, is_content, is_assignment,
                 created_at, modified_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10) RETURNING id",
            )?
            .insert(params![
                new_uuid(),
                slug.as_str(),
                name,
                input.status.unwrap_or(1),
                input.is_web.unwrap_or(false),
                input.is_print.unwrap_or(true),
                input.priority.unwrap_or(0),
                input.is_content.unwrap_or(true),
                input.is_assignment.unwrap_or(false),
                now
            ])?;
            self.workflow_by_id(tx, new_id)?
                .ok_or_else(|| CoreError::Internal("a workflow just made is missing".into()))
        })
    }

    pub fn list_sections(
        &self,
        who: &Principal,
        query: &ListQuery,
    ) -> Result<Page<WorkflowSection>> {
        who.require(Action::WorkflowSectionList)?;
        let params = ListParams::parse(
            query,
            &["id", "uuid", "name", "slug", "created_at", "modified_at"],
            "modified_at",
        )?;
        self.read(|tx| {
            Ok(fetch_page(
                tx,
                "workflow_sections",
                SECTION_COLUMNS,
                "",
                &[],
                &params,
                |row| self.section_from_row(row),
            )?)
        })
    }

    pub fn get_section(&self, who: &Principal, uuid: &str) -> Result<WorkflowSection> {
        who.require(Action::WorkflowSectionGet)?;
        self.read(|tx| {
            let id = SECTIONS.id_of(tx, uuid)?;
            self.section_by_id(tx, id)
        })
    }

    pub fn create_section(&self, who: &Principal, input: SectionInput) -> Result<WorkflowSection> {
        who.require(Action::WorkflowSectionCreate)?;
        let name = required_text("name", input.name.as_deref())?;
        let slug = Slug::parse_or_make(input.slug.as_deref(), &name);
        self.write(|tx| {
            let workflow_id = match input.workflow_id.as_deref().map(str::trim) {
                None | Some("") | Some("0") => None,
                Some(raw) => Some(WORKFLOWS.id_of_ref(tx, "workflow_id", raw)?),
            };
            let new_id = tx.prepare_cached(
                "INSERT INTO workflow_sections (uuid, workflow_id, name, slug, created_at, modified_at, is_print, is_web)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7) RETURNING id",
            )?
            .insert(params![
                new_uuid(),
                workflow_id,
                name,
                slug.as_str(),
                clock::now(),
                input.is_print.unwrap_or(true),
                input.is_web.unwrap_or(true)
            ])?;
            self.section_by_id(tx, new_id)
        })
    }

    pub fn list_issues(&self, who: &Principal, query: &ListQuery) -> Result<Page<Issue>> {
        who.require(Action::IssueList)?;
        let params = ListParams::parse(
            query,
            &[
                "id",
                "uuid",
                "label",
                "status",
                "published_at",
                "created_at",
                "modified_at",
            ],
            "modified_at",
        )?;
        self.read(|tx| {
            Ok(fetch_page(
                tx,
                "issues",
                ISSUE_COLUMNS,
                "",
                &[],
                &params,
                |row| self.issue_from_row(row),
            )?)
        })
    }

    pub fn get_issue(&self, who: &Principal, uuid: &str) -> Result<Issue> {
        who.require(Action::IssueGet)?;
        self.read(|tx| {
            let id = ISSUES.id_of(tx, uuid)?;
            self.issue_by_id(tx, id)?
                .ok_or_else(|| CoreError::not_found(format!("no issue with UUID {uuid}")))
        })
    }

    pub fn create_issue(&self, who: &Principal, input: IssueInput) -> Result<Issue> {
        who.require(Action::IssueCreate)?;
        let label = required_text("label", input.label.as_deref())?;
        let published_at = match input
            .published_at
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            Some(raw) => Some(clock::parse_timestamp("published_at", raw)?),
            None => None,
        };
        self.write(|tx| {
            let decorated = input
                .decorated_label
                .clone()
                .filter(|d| !d.trim().is_empty())
                .unwrap_or_else(|| label.clone());
            let new_id = tx.prepare_cached(
                "INSERT INTO issues (uuid, label, description, status, decorated_label, published_at, created_at, modified_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7) RETURNING id",
            )?
            .insert(params![
                new_uuid(),
                label,
                input.description.clone().unwrap_or_default(),
                input.status.unwrap_or(1),
                decorated,
                published_at,
                clock::now()
            ])?;
            self.issue_by_id(tx, new_id)?
                .ok_or_else(|| CoreError::Internal("an issue just made is missing".into()))
        })
    }
}
