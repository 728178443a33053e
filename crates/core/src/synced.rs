//! How each record type sync carries reads and writes its fields, so that
//! the replica's side of sync (`replica.rs`) and the engine can treat every
//! type alike: a record is a JSON object of strings, references written as
//! the remote's UUIDs.
//!
//! Two families: records that change (authors, tags, content, containers,
//! assignments, attachments) merge field by field; records that are only
//! ever added (note comments, assignment comments, drafts) are created once
//! and then left alone.

use rusqlite::{OptionalExtension as _, Transaction, params};
use serde_json::{Map, Value};

use crate::attachments::WrittenFiles;
use crate::clock;
use crate::error::{CoreError, Result};
use crate::records::new_uuid;
use crate::slug::Slug;

/// The record types sync carries, in the order a page of remote changes is
/// applied: a record comes after every type it can refer to.
pub const SYNCED_TYPES: &[&str] = &[
    "author",
    "tag",
    "content",
    "assignment",
    "container",
    "workflow",
    "issue",
    "print_document",
    "attachment",
    "note_comment",
    "assignment_comment",
    "draft",
];

/// A record's synced fields, each a string.
pub type Fields = Map<String, Value>;

/// Whether records of `record_type` are only ever added, never changed
/// through the API (workflows and issues have no update).
pub fn append_only(record_type: &str) -> bool {
    matches!(
        record_type,
        "note_comment" | "assignment_comment" | "draft" | "workflow" | "issue"
    )
}

/// The path segment of a record type's endpoints (`/v3/{segment}`).
pub fn path_of(record_type: &str) -> String {
    record_type.replace('_', "-")
}

/// Whether records of `record_type` are read only through the record they
/// belong to (a thread, an assignment, a content item), never listed alone.
pub fn read_through(record_type: &str) -> bool {
    matches!(
        record_type,
        "attachment" | "note_comment" | "assignment_comment" | "draft"
    )
}

/// Where `record_type` comes in [`SYNCED_TYPES`] (unknown types last).
pub fn apply_rank(record_type: &str) -> usize {
    SYNCED_TYPES
        .iter()
        .position(|t| *t == record_type)
        .unwrap_or(SYNCED_TYPES.len())
}

/// The fields sync carries for each record type, as both sides name them.
/// List fields hold JSON arrays of the remote's UUIDs; a reference holds one.
pub fn synced_fields(record_type: &str) -> &'static [&'static str] {
    match record_type {
        "author" => &["slug", "name", "email", "tagline", "description", "status"],
        "content" => &[
            "title",
            "slug",
            "type",
            "weight",
            "abstract",
            "abstract_raw",
            "content",
            "content_raw",
            "published_at",
            "state",
            "authors",
            "tags",
            "urls",
        ],
        "container" => &[
            "title",
            "slug",
            "description",
            "type",
            "published_at",
            "content",
            "tags",
            "placeholder",
        ],
        "assignment" => &["title", "description", "due_at", "content_id"],
        "workflow" => &[
            "slug",
            "name",
            "status",
            "is_web",
            "is_print",
            "priority",
            "is_content",
            "is_assignment",
        ],
        "issue" => &[
            "label",
            "description",
            "status",
            "published_at",
            "decorated_label",
        ],
        "print_document" => &["label", "tracking_label", "workflow_id", "issue_id"],
        "attachment" => &["content", "name", "sha256", "angle", "metadata"],
        "note_comment" => &["comment", "reference", "parent", "draft_uuid"],
        "assignment_comment" => &["comment", "assignment"],
        "draft" => &["content", "content_raw", "item"],
        _ => &["name", "slug"],
    }
}

/// The records a record refers to, as `(type, remote UUID)`: they must be
/// here before it is written, and on the remote before it is sent.
pub fn references(record_type: &str, fields: &Fields) -> Vec<(&'static str, String)> {
    let one = |kind: &'static str, field: &str| -> Vec<(&'static str, String)> {
        let value = field_text(fields.get(field));
        if value.is_empty() || value == "root" {
            Vec::new()
        } else {
            vec![(kind, value)]
        }
    };
    let list = |kind: &'static str, field: &str| -> Vec<(&'static str, String)> {
        serde_json::from_str::<Vec<String>>(&field_text(fields.get(field)))
            .unwrap_or_default()
            .into_iter()
            .map(|uuid| (kind, uuid))
            .collect()
    };
    match record_type {
        "content" => [list("author", "authors"), list("tag", "tags")].concat(),
        "container" => [
            list("content", "content"),
            list("tag", "tags"),
            one("content", "placeholder"),
        ]
        .concat(),
        "assignment" => one("content", "content_id"),
        "print_document" => [one("workflow", "workflow_id"), one("issue", "issue_id")].concat(),
        "attachment" => one("content", "content"),
        "note_comment" => [one("content", "reference"), one("note_comment", "parent")].concat(),
        "assignment_comment" => one("assignment", "assignment"),
        "draft" => one("content", "item"),
        _ => Vec::new(),
    }
}

/// A field's value as text (a missing or `null` value is empty).
pub fn field_text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn text(value: impl Into<String>) -> Value {
    Value::String(value.into())
}

/// Reads fields, mapping local references to the remote's UUIDs and noting
/// whether any refers to a record the remote does not have yet.
pub(crate) struct FieldReader<'a, 'tx> {
    tx: &'a Transaction<'tx>,
    /// A reference points at a record made here and not yet sent.
    pub unsent_reference: bool,
}

impl<'a, 'tx> FieldReader<'a, 'tx> {
    pub fn new(tx: &'a Transaction<'tx>) -> Self {
        Self {
            tx,
            unsent_reference: false,
        }
    }

    /// The remote UUID of a local record (its own UUID when it came from the remote).
    fn remote_of(&mut self, record_type: &str, uuid: &str) -> Result<String> {
        let mapped: Option<String> = self
            .tx
            .prepare_cached(
                "SELECT remote_uuid FROM sync_records WHERE record_type = ?1 AND uuid = ?2",
            )?
            .query_row(params![record_type, uuid], |row| row.get(0))
            .optional()?;
        match mapped {
            Some(remote) => Ok(remote),
            None => {
                self.unsent_reference = true;
                Ok(uuid.to_owned())
            }
        }
    }

    fn remote_list(&mut self, record_type: &str, local: Vec<String>) -> Result<Value> {
        let mut remote = Vec::with_capacity(local.len());
        for uuid in local {
            remote.push(Value::String(self.remote_of(record_type, &uuid)?));
        }
        Ok(text(Value::Array(remote).to_string()))
    }

    fn uuids(&self, sql: &str, id: i64) -> Result<Vec<String>> {
        let mut stmt = self.tx.prepare_cached(sql)?;
        let rows = stmt.query_map([id], |row| row.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The record's synced fields now (`None`: not here).
    pub fn fields(&mut self, record_type: &str, uuid: &str) -> Result<Option<Fields>> {
        let tx = self.tx;
        match record_type {
            "author" => Ok(tx
                .prepare_cached("SELECT slug, name, email, tagline, description, status FROM authors WHERE uuid = ?1")?
                .query_row([uuid], |row| {
                    let mut f = Fields::new();
                    for (i, name) in ["slug", "name", "email", "tagline", "description"].iter().enumerate() {
                        f.insert((*name).into(), text(row.get::<_, String>(i)?));
                    }
                    f.insert("status".into(), text(row.get::<_, i64>(5)?.to_string()));
                    Ok(f)
                })
                .optional()?),
            "tag" => Ok(tx
                .prepare_cached("SELECT name, slug FROM tags WHERE uuid = ?1")?
                .query_row([uuid], |row| {
                    let mut f = Fields::new();
                    f.insert("name".into(), text(row.get::<_, String>(0)?));
                    f.insert("slug".into(), text(row.get::<_, String>(1)?));
                    Ok(f)
                })
                .optional()?),
            "content" => self.content(uuid),
            "container" => self.container(uuid),
            "assignment" => {
                let row: Option<(String, String, Option<String>, Option<String>)> = tx
                    .prepare_cached(
                        "SELECT a.title, a.description, a.due_at, c.uuid FROM assignments a
                         LEFT JOIN content c ON c.id = a.content_id WHERE a.uuid = ?1",
                    )?
                    .query_row([uuid], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)))
                    .optional()?;
                let Some((title, description, due_at, content)) = row else {
                    return Ok(None);
                };
                let content = match content {
                    Some(content) => self.remote_of("content", &content)?,
                    None => String::new(),
                };
                Ok(Some(fields_from([
                    ("title", title),
                    ("description", description),
                    ("due_at", due_at.unwrap_or_default()),
                    ("content_id", content),
                ])))
            }
            "workflow" => Ok(tx
                .prepare_cached(
                    "SELECT slug, name, status, is_web, is_print, priority, is_content, is_assignment FROM workflows
                     WHERE uuid = ?1",
                )?
                .query_row([uuid], |row| {
                    let mut f = Fields::new();
                    f.insert("slug".into(), text(row.get::<_, String>(0)?));
                    f.insert("name".into(), text(row.get::<_, String>(1)?));
                    for (i, name) in ["status", "is_web", "is_print", "priority", "is_content", "is_assignment"]
                        .iter()
                        .enumerate()
                    {
                        f.insert((*name).into(), text(row.get::<_, i64>(i + 2)?.to_string()));
                    }
                    Ok(f)
                })
                .optional()?),
            "issue" => Ok(tx
                .prepare_cached(
                    "SELECT label, description, status, published_at, decorated_label FROM issues WHERE uuid = ?1",
                )?
                .query_row([uuid], |row| {
                    Ok(fields_from([
                        ("label", row.get(0)?),
                        ("description", row.get(1)?),
                        ("status", row.get::<_, i64>(2)?.to_string()),
                        ("published_at", row.get::<_, Option<String>>(3)?.unwrap_or_default()),
                        ("decorated_label", row.get(4)?),
                    ]))
                })
                .optional()?),
            "print_document" => {
                let row: Option<(String, String, Option<String>, Option<String>)> = tx
                    .prepare_cached(
                        "SELECT d.label, d.tracking_label, w.uuid, i.uuid FROM print_documents d
                         LEFT JOIN workflows w ON w.id = d.workflow_id LEFT JOIN issues i ON i.id = d.issue_id
                         WHERE d.uuid = ?1",
                    )?
                    .query_row([uuid], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)))
                    .optional()?;
                let Some((label, tracking_label, workflow, issue)) = row else {
                    return Ok(None);
                };
                let workflow = match workflow {
                    Some(w) => self.remote_of("workflow", &w)?,
                    None => String::new(),
                };
                let issue = match issue {
                    Some(i) => self.remote_of("issue", &i)?,
                    None => String::new(),
                };
                Ok(Some(fields_from([
                    ("label", label),
                    ("tracking_label", tracking_label),
                    ("workflow_id", workflow),
                    ("issue_id", issue),
                ])))
            }
            "attachment" => {
                let row: Option<(String, String, String, i64, Option<String>, String)> = tx
                    .prepare_cached(
                        "SELECT a.base_name, a.extension, a.sha256, a.angle, a.metadata, c.uuid FROM attachments a
                         JOIN content c ON c.id = a.content_id WHERE a.uuid = ?1",
                    )?
                    .query_row([uuid], |row| {
                        Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?))
                    })
                    .optional()?;
                let Some((base_name, extension, sha256, angle, metadata, content)) = row else {
                    return Ok(None);
                };
                let content = self.remote_of("content", &content)?;
                Ok(Some(fields_from([
                    ("content", content),
                    ("name", format!("{base_name}.{extension}")),
                    ("sha256", sha256),
                    ("angle", angle.to_string()),
                    ("metadata", canonical_json(metadata.as_deref())),
                ])))
            }
            "note_comment" => {
                let row: Option<(String, String, String, i64)> = tx
                    .prepare_cached(
                        "SELECT comment, reference, draft_uuid, parent_id FROM note_comments WHERE uuid = ?1",
                    )?
                    .query_row([uuid], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)))
                    .optional()?;
                let Some((comment, reference, draft_uuid, parent_id)) = row else {
                    return Ok(None);
                };
                let reference = self.reference_of_note(&reference)?;
                let parent = if parent_id == 0 {
                    "root".to_owned()
                } else {
                    let parent: String = tx
                        .prepare_cached("SELECT uuid FROM note_comments WHERE id = ?1")?
                        .query_row([parent_id], |row| row.get(0))?;
                    self.remote_of("note_comment", &parent)?
                };
                Ok(Some(fields_from([
                    ("comment", comment),
                    ("reference", reference),
                    ("parent", parent),
                    ("draft_uuid", draft_uuid),
                ])))
            }
            "assignment_comment" => {
                let row: Option<(String, String)> = tx
                    .prepare_cached(
                        "SELECT x.comment, a.uuid FROM assignment_comments x JOIN assignments a ON a.id = x.assignment_id
                         WHERE x.uuid = ?1",
                    )?
                    .query_row([uuid], |row| Ok((row.get(0)?, row.get(1)?)))
                    .optional()?;
                let Some((comment, assignment)) = row else {
                    return Ok(None);
                };
                let assignment = self.remote_of("assignment", &assignment)?;
                Ok(Some(fields_from([("comment", comment), ("assignment", assignment)])))
            }
            "draft" => {
                let row: Option<(String, String, String)> = tx
                    .prepare_cached(
                        "SELECT d.content, d.content_raw, c.uuid FROM drafts d JOIN content c ON c.id = d.content_id
                         WHERE d.uuid = ?1",
                    )?
                    .query_row([uuid], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
                    .optional()?;
                let Some((content, content_raw, item)) = row else {
                    return Ok(None);
                };
                let item = self.remote_of("content", &item)?;
                Ok(Some(fields_from([
                    ("content", content),
                    ("content_raw", content_raw),
                    ("item", item),
                ])))
            }
            other => Err(CoreError::Internal(format!("sync does not carry {other} records"))),
        }
    }

    /// A note thread's reference as the remote knows it: a content item's or
    /// a note's remote UUID, anything else as written.
    fn reference_of_note(&mut self, reference: &str) -> Result<String> {
        for (kind, table) in [("content", "content"), ("note_comment", "note_comments")] {
            let sql = format!("SELECT EXISTS (SELECT 1 FROM {table} WHERE uuid = ?1)");
            let found: bool = self
                .tx
                .prepare_cached(&sql)?
                .query_row([reference], |row| row.get(0))?;
            if found {
                return self.remote_of(kind, reference);
            }
        }
        Ok(reference.to_owned())
    }

    fn content(&mut self, uuid: &str) -> Result<Option<Fields>> {
        let row = self
            .tx
            .prepare_cached(
                "SELECT id, title, slug, type, weight, abstract, abstract_raw, content, content_raw, published_at, state
                 FROM content WHERE uuid = ?1",
            )?
            .query_row([uuid], |row| {
                let mut f = Fields::new();
                for (i, name) in ["title", "slug", "type"].iter().enumerate() {
                    f.insert((*name).into(), text(row.get::<_, String>(i + 1)?));
                }
                f.insert("weight".into(), text(row.get::<_, i64>(4)?.to_string()));
                for (i, name) in ["abstract", "abstract_raw", "content", "content_raw"].iter().enumerate() {
                    f.insert((*name).into(), text(row.get::<_, String>(i + 5)?));
                }
                f.insert("published_at".into(), text(row.get::<_, Option<String>>(9)?.unwrap_or_default()));
                f.insert("state".into(), text(row.get::<_, i64>(10)?.to_string()));
                Ok((row.get::<_, i64>(0)?, f))
            })
            .optional()?;
        let Some((id, mut fields)) = row else {
            return Ok(None);
        };
        let authors = self.uuids(
            "SELECT a.uuid FROM content_authors l JOIN authors a ON a.id = l.author_id WHERE l.content_id = +?1 ORDER BY l.position",
            id,
        )?;
        let tags = self.uuids(
            "SELECT t.uuid FROM content_tags l JOIN tags t ON t.id = l.tag_id WHERE l.content_id = +?1 ORDER BY l.position",
            id,
        )?;
        let urls = self.uuids(
            "SELECT path FROM content_urls WHERE content_id = +?1 ORDER BY position",
            id,
        )?;
        fields.insert("authors".into(), self.remote_list("author", authors)?);
        fields.insert("tags".into(), self.remote_list("tag", tags)?);
        fields.insert(
            "urls".into(),
            text(Value::Array(urls.into_iter().map(Value::String).collect()).to_string()),
        );
        Ok(Some(fields))
    }

    fn container(&mut self, uuid: &str) -> Result<Option<Fields>> {
        let row = self
            .tx
            .prepare_cached(
                "SELECT k.id, k.title, k.slug, k.description, k.type, k.published_at, p.uuid
                 FROM containers k LEFT JOIN content p ON p.id = k.placeholder_id WHERE k.uuid = ?1",
            )?
            .query_row([uuid], |row| {
                let fields = fields_from([
                    ("title", row.get(1)?),
                    ("slug", row.get(2)?),
                    ("description", row.get(3)?),
                    ("type", row.get(4)?),
                    ("published_at", row.get::<_, Option<String>>(5)?.unwrap_or_default()),
                ]);
                Ok((row.get::<_, i64>(0)?, fields, row.get::<_, Option<String>>(6)?))
            })
            .optional()?;
        let Some((id, mut fields, placeholder)) = row else {
            return Ok(None);
        };
        // The gallery's placeholder belongs to it: it is not picked content.
        let content = self.uuids(
            "SELECT c.uuid FROM container_content l JOIN content c ON c.id = l.content_id
             JOIN containers k ON k.id = l.container_id
             WHERE l.container_id = +?1 AND c.id IS NOT k.placeholder_id ORDER BY l.position",
            id,
        )?;
        let tags = self.uuids(
            "SELECT t.uuid FROM container_tags l JOIN tags t ON t.id = l.tag_id WHERE l.container_id = +?1 ORDER BY l.position",
            id,
        )?;
        fields.insert("content".into(), self.remote_list("content", content)?);
        fields.insert("tags".into(), self.remote_list("tag", tags)?);
        let placeholder = match placeholder {
            // A placeholder is made by whichever side makes the gallery: it is
            // never waited for.
            Some(local) => {
                let before = self.unsent_reference;
                let remote = self.remote_of("content", &local)?;
                self.unsent_reference = before;
                remote
            }
            None => String::new(),
        };
        fields.insert("placeholder".into(), text(placeholder));
        Ok(Some(fields))
    }
}

fn fields_from<const N: usize>(pairs: [(&str, String); N]) -> Fields {
    pairs
        .into_iter()
        .map(|(name, value)| (name.to_owned(), Value::String(value)))
        .collect()
}

/// JSON text written the same way on both sides (keys sorted), empty for none.
pub fn canonical_json(raw: Option<&str>) -> String {
    match raw.map(serde_json::from_str::<Value>) {
        Some(Ok(Value::Null)) | None => String::new(),
        Some(Ok(value)) => value.to_string(),
        Some(Err(_)) => raw.unwrap_or_default().to_owned(),
    }
}

/// The local UUID of a remote record (the remote's UUID when it is not mapped).
pub(crate) fn local_of(
    tx: &Transaction<'_>,
    record_type: &str,
    remote_uuid: &str,
) -> Result<String> {
    Ok(tx
        .prepare_cached(
            "SELECT uuid FROM sync_records WHERE record_type = ?1 AND remote_uuid = ?2",
        )?
        .query_row(params![record_type, remote_uuid], |row| row.get(0))
        .optional()?
        .unwrap_or_else(|| remote_uuid.to_owned()))
}

/// The local row id of a remote record, if it is here.
fn local_id(
    tx: &Transaction<'_>,
    record_type: &str,
    table: &str,
    remote_uuid: &str,
) -> Result<Option<i64>> {
    if remote_uuid.is_empty() {
        return Ok(None);
    }
    let local = local_of(tx, record_type, remote_uuid)?;
    let sql = format!("SELECT id FROM {table} WHERE uuid = ?1");
    Ok(tx
        .prepare_cached(&sql)?
        .query_row([local], |row| row.get(0))
        .optional()?)
}

/// The local row ids of a remote list field's records (records not here are left out).
fn local_ids(tx: &Transaction<'_>, record_type: &str, table: &str, list: &str) -> Result<Vec<i64>> {
    let remote: Vec<String> = serde_json::from_str(list).unwrap_or_default();
    let mut ids = Vec::with_capacity(remote.len());
    for remote_uuid in remote {
        if let Some(id) = local_id(tx, record_type, table, &remote_uuid)?
            && !ids.contains(&id)
        {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// Writes pulled content fields, with its links, as the item's next local version.
fn write_content(tx: &Transaction<'_>, uuid: &str, fields: &Fields) -> Result<()> {
    let now = clock::now();
    let get = |name: &str| field_text(fields.get(name));
    let number = |name: &str| get(name).parse::<i64>().unwrap_or(0);
    let title = get("title");
    let slug = Slug::parse_or_make(Some(&get("slug")), &title).into_string();
    let content_type = match get("type").as_str() {
        t @ ("article" | "post" | "media" | "page") => t.to_owned(),
        _ => "article".to_owned(),
    };
    let published = Some(get("published_at")).filter(|p| !p.is_empty());
    let values = params![
        uuid,
        title,
        slug,
        content_type,
        number("weight"),
        get("abstract"),
        get("abstract_raw"),
        get("content"),
        get("content_raw"),
        published,
        number("state"),
        now
    ];
    let changed = tx
        .prepare_cached(
            "UPDATE content SET title = ?2, slug = ?3, type = ?4, weight = ?5, abstract = ?6, abstract_raw = ?7,
             content = ?8, content_raw = ?9, published_at = ?10, state = ?11, version = version + 1, modified_at = ?12
             WHERE uuid = ?1",
        )?
        .execute(values)?;
    if changed == 0 {
        tx.prepare_cached(
            "INSERT INTO content (uuid, title, slug, type, version, weight, abstract, abstract_raw, content, content_raw,
             published_at, state, created_at, modified_at) VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)",
        )?
        .execute(values)?;
    }
    let id: i64 = tx
        .prepare_cached("SELECT id FROM content WHERE uuid = ?1")?
        .query_row([uuid], |row| row.get(0))?;
    let authors = local_ids(tx, "author", "authors", &get("authors"))?;
    let tags = local_ids(tx, "tag", "tags", &get("tags"))?;
    crate::content::replace_links(tx, "content_authors", "author_id", id, &authors)?;
    crate::content::replace_links(tx, "content_tags", "tag_id", id, &tags)?;
    let urls: Vec<String> = serde_json::from_str(&get("urls")).unwrap_or_default();
    tx.prepare_cached("DELETE FROM content_urls WHERE content_id = ?1")?
        .execute([id])?;
    for (position, path) in urls.iter().enumerate() {
        tx.prepare_cached(
            "INSERT INTO content_urls (uuid, content_id, path, position, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![new_uuid(), id, path, position as i64, now])?;
    }
    // The pulled state is part of the item's local history.
    tx.prepare_cached(
        "INSERT INTO versions (uuid, content_id, version, title, slug, type, weight, abstract, abstract_raw, content,
         content_raw, published_at, state, workflow_id, dominant_attachment_id, user_id, created_at, modified_at)
         SELECT ?2, id, version, title, slug, type, weight, abstract, abstract_raw, content, content_raw,
         published_at, state, workflow_id, dominant_attachment_id, NULL, modified_at, modified_at
         FROM content WHERE id = ?1",
    )?
    .execute(params![id, new_uuid()])?;
    Ok(())
}

fn write_container(tx: &Transaction<'_>, uuid: &str, fields: &Fields) -> Result<()> {
    let now = clock::now();
    let get = |name: &str| field_text(fields.get(name));
    let title = get("title");
    let slug = Slug::parse_or_make(Some(&get("slug")), &title).into_string();
    let kind = match get("type").as_str() {
        t @ ("automatic" | "manual" | "blog" | "gallery") => t.to_owned(),
        _ => "manual".to_owned(),
    };
    let published = Some(get("published_at")).filter(|p| !p.is_empty());
    let placeholder = local_id(tx, "content", "content", &get("placeholder"))?;
    let values = params![
        uuid,
        title,
        slug,
        get("description"),
        kind,
        published,
        placeholder,
        now
    ];
    let changed = tx
        .prepare_cached(
            "UPDATE containers SET title = ?2, slug = ?3, description = ?4, type = ?5, published_at = ?6,
             placeholder_id = ?7, modified_at = ?8 WHERE uuid = ?1",
        )?
        .execute(values)?;
    if changed == 0 {
        tx.prepare_cached(
            "INSERT INTO containers (uuid, title, slug, description, type, published_at, placeholder_id, created_at, modified_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
        )?
        .execute(values)?;
    }
    let id: i64 = tx
        .prepare_cached("SELECT id FROM containers WHERE uuid = ?1")?
        .query_row([uuid], |row| row.get(0))?;
    let mut content = placeholder.into_iter().collect::<Vec<_>>();
    for picked in local_ids(tx, "content", "content", &get("content"))? {
        if !content.contains(&picked) {
            content.push(picked);
        }
    }
    let tags = local_ids(tx, "tag", "tags", &get("tags"))?;
    crate::content::replace_links(tx, "container_content", "content_id", id, &content)?;
    crate::content::replace_links(tx, "container_tags", "tag_id", id, &tags)?;
    Ok(())
}

/// Writes a pulled attachment: its files (already written, when they changed)
/// and its settings. Returns the salt of replaced files, to remove after commit.
fn write_attachment(
    tx: &Transaction<'_>,
    uuid: &str,
    fields: &Fields,
    files: Option<&WrittenFiles>,
) -> Result<(String, Option<String>)> {
    let get = |name: &str| field_text(fields.get(name));
    let Some(content_id) = local_id(tx, "content", "content", &get("content"))? else {
        return Ok((uuid.to_owned(), None));
    };
    let angle: i64 = get("angle").parse().unwrap_or(0);
    let existing: Option<String> = tx
        .prepare_cached("SELECT uuid FROM attachments WHERE content_id = ?1")?
        .query_row([content_id], |row| row.get(0))
        .optional()?;
    let mut old_salt = None;
    if let Some(files) = files {
        old_salt = crate::attachments::record_files(tx, content_id, files, 0, Some(uuid))?;
    } else if existing.is_none() {
        // No file came (it could not be read): nothing to show without it.
        return Ok((uuid.to_owned(), None));
    }
    let metadata = Some(get("metadata")).filter(|m| !m.is_empty());
    tx.prepare_cached("UPDATE attachments SET angle = ?2, metadata = ?3 WHERE content_id = ?1")?
        .execute(params![content_id, angle, metadata])?;
    let local = existing.unwrap_or_else(|| uuid.to_owned());
    Ok((local, old_salt))
}

/// What writing a pulled record did.
pub(crate) struct Written {
    /// The local record the remote one is (its own UUID unless it was already here under another).
    pub uuid: String,
    /// Attachment files replaced, to remove after commit.
    pub old_salt: Option<String>,
}

/// Writes pulled fields into the local record with `uuid`, creating it when missing.
pub(crate) fn write_fields(
    tx: &Transaction<'_>,
    record_type: &str,
    uuid: &str,
    fields: &Fields,
    files: Option<&WrittenFiles>,
) -> Result<Written> {
    let now = clock::now();
    let get = |name: &str| field_text(fields.get(name));
    let same = |uuid: &str| Written {
        uuid: uuid.to_owned(),
        old_salt: None,
    };
    match record_type {
        "author" => {
            let name = get("name");
            let slug = Slug::parse_or_make(Some(&get("slug")), &name).into_string();
            let status: i64 = get("status").parse().unwrap_or(1);
            let values = params![
                uuid,
                slug,
                name,
                get("email"),
                get("tagline"),
                get("description"),
                status,
                now
            ];
            let changed = tx
                .prepare_cached(
                    "UPDATE authors SET slug = ?2, name = ?3, email = ?4, tagline = ?5, description = ?6, status = ?7,
                     modified_at = ?8 WHERE uuid = ?1",
                )?
                .execute(values)?;
            if changed == 0 {
                tx.prepare_cached(
                    "INSERT INTO authors (uuid, slug, name, email, tagline, description, status, created_at, modified_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
                )?
                .execute(values)?;
            }
        }
        "tag" => {
            let name = get("name");
            let slug = Slug::parse_or_make(Some(&get("slug")), &name).into_string();
            let changed = tx
                .prepare_cached(
                    "UPDATE tags SET name = ?2, slug = ?3, modified_at = ?4 WHERE uuid = ?1",
                )?
                .execute(params![uuid, name, slug, now])?;
            if changed == 0 {
                tx.prepare_cached("INSERT INTO tags (uuid, name, slug, created_at, modified_at) VALUES (?1, ?2, ?3, ?4, ?4)")?
                    .execute(params![uuid, name, slug, now])?;
            }
        }
        "content" => write_content(tx, uuid, fields)?,
        "container" => write_container(tx, uuid, fields)?,
        "assignment" => {
            let content = local_id(tx, "content", "content", &get("content_id"))?;
            let due = Some(get("due_at")).filter(|d| !d.is_empty());
            let values = params![uuid, get("title"), get("description"), due, content, now];
            let changed = tx
                .prepare_cached(
                    "UPDATE assignments SET title = ?2, description = ?3, due_at = ?4, content_id = ?5, modified_at = ?6
                     WHERE uuid = ?1",
                )?
                .execute(values)?;
            if changed == 0 {
                tx.prepare_cached(
                    "INSERT INTO assignments (uuid, title, description, due_at, content_id, created_at, modified_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
                )?
                .execute(values)?;
            }
            let id: i64 = tx
                .prepare_cached("SELECT id FROM assignments WHERE uuid = ?1")?
                .query_row([uuid], |row| row.get(0))?;
            tx.prepare_cached(
                "UPDATE content SET assignment_id = NULL WHERE assignment_id = ?1 AND id IS NOT ?2",
            )?
            .execute(params![id, content])?;
            if let Some(content) = content {
                tx.prepare_cached("UPDATE content SET assignment_id = ?2 WHERE id = ?1")?
                    .execute(params![content, id])?;
            }
        }
        "workflow" => {
            let number = |name: &str| get(name).parse::<i64>().unwrap_or(0);
            let values = params![
                uuid,
                get("slug"),
                get("name"),
                number("status"),
                number("is_web"),
                number("is_print"),
                number("priority"),
                number("is_content"),
                number("is_assignment"),
                now
            ];
            let changed = tx
                .prepare_cached(
                    "UPDATE workflows SET slug = ?2, name = ?3, status = ?4, is_web = ?5, is_print = ?6, priority = ?7,
                     is_content = ?8, is_assignment = ?9, modified_at = ?10 WHERE uuid = ?1",
                )?
                .execute(values)?;
            if changed == 0 {
                tx.prepare_cached(
                    "INSERT INTO workflows (uuid, slug, name, status, is_web, is_print, priority, is_content, is_assignment,
                     created_at, modified_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
                )?
                .execute(values)?;
            }
        }
        "issue" => {
            let published = Some(get("published_at")).filter(|p| !p.is_empty());
            let status: i64 = get("status").parse().unwrap_or(1);
            let values = params![
                uuid,
                get("label"),
                get("description"),
                status,
                published,
                get("decorated_label"),
                now
            ];
            let changed = tx
                .prepare_cached(
                    "UPDATE issues SET label = ?2, description = ?3, status = ?4, published_at = ?5, decorated_label = ?6,
                     modified_at = ?7 WHERE uuid = ?1",
                )?
                .execute(values)?;
            if changed == 0 {
                tx.prepare_cached(
                    "INSERT INTO issues (uuid, label, description, status, published_at, decorated_label, created_at,
                     modified_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
                )?
                .execute(values)?;
            }
        }
        "print_document" => {
            let workflow = local_id(tx, "workflow", "workflows", &get("workflow_id"))?.unwrap_or(0);
            let issue = local_id(tx, "issue", "issues", &get("issue_id"))?.unwrap_or(0);
            let values = params![
                uuid,
                get("label"),
                get("tracking_label"),
                workflow,
                issue,
                now
            ];
            let changed = tx
                .prepare_cached(
                    "UPDATE print_documents SET label = ?2, tracking_label = ?3, workflow_id = ?4, issue_id = ?5,
                     modified_at = ?6 WHERE uuid = ?1",
                )?
                .execute(values)?;
            if changed == 0 {
                tx.prepare_cached(
                    "INSERT INTO print_documents (uuid, label, tracking_label, workflow_id, issue_id, created_at, modified_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
                )?
                .execute(values)?;
            }
        }
        "attachment" => {
            let (uuid, old_salt) = write_attachment(tx, uuid, fields, files)?;
            return Ok(Written { uuid, old_salt });
        }
        "note_comment" => {
            let exists: bool = tx
                .prepare_cached("SELECT EXISTS (SELECT 1 FROM note_comments WHERE uuid = ?1)")?
                .query_row([uuid], |row| row.get(0))?;
            if !exists {
                let reference = get("reference");
                let reference = match local_id(tx, "content", "content", &reference)? {
                    Some(_) => local_of(tx, "content", &reference)?,
                    None => local_of(tx, "note_comment", &reference)?,
                };
                let parent = match get("parent").as_str() {
                    "root" | "" => 0,
                    parent => local_id(tx, "note_comment", "note_comments", parent)?.unwrap_or(0),
                };
                tx.prepare_cached(
                    "INSERT INTO note_comments (uuid, reference, comment, version, draft_uuid, parent_id, created_at)
                     VALUES (?1, ?2, ?3, COALESCE((SELECT version FROM content WHERE uuid = ?2), 0), ?4, ?5, ?6)",
                )?
                .execute(params![uuid, reference, get("comment"), get("draft_uuid"), parent, now])?;
            }
        }
        "assignment_comment" => {
            let exists: bool = tx
                .prepare_cached(
                    "SELECT EXISTS (SELECT 1 FROM assignment_comments WHERE uuid = ?1)",
                )?
                .query_row([uuid], |row| row.get(0))?;
            if let (false, Some(assignment)) = (
                exists,
                local_id(tx, "assignment", "assignments", &get("assignment"))?,
            ) {
                tx.prepare_cached(
                    "INSERT INTO assignment_comments (uuid, assignment_id, comment, created_at) VALUES (?1, ?2, ?3, ?4)",
                )?
                .execute(params![uuid, assignment, get("comment"), now])?;
            }
        }
        "draft" => {
            let exists: bool = tx
                .prepare_cached("SELECT EXISTS (SELECT 1 FROM drafts WHERE uuid = ?1)")?
                .query_row([uuid], |row| row.get(0))?;
            if let (false, Some(content)) =
                (exists, local_id(tx, "content", "content", &get("item"))?)
            {
                tx.prepare_cached(
                    "INSERT INTO drafts (uuid, content_id, content, content_raw, version, created_at)
                     SELECT ?1, id, ?2, ?3, version, ?4 FROM content WHERE id = ?5",
                )?
                .execute(params![uuid, get("content"), get("content_raw"), now, content])?;
            }
        }
        other => {
            return Err(CoreError::Internal(format!(
                "sync does not carry {other} records"
            )));
        }
    }
    Ok(same(uuid))
}

/// Removes the local record with `uuid` (what depends on it goes with it).
pub(crate) fn delete_local(tx: &Transaction<'_>, record_type: &str, uuid: &str) -> Result<()> {
    let table = match record_type {
        "author" => "authors",
        "tag" => "tags",
        "content" => "content",
        "container" => "containers",
        "assignment" => "assignments",
        "attachment" => "attachments",
        "note_comment" => "note_comments",
        "assignment_comment" => "assignment_comments",
        "draft" => "drafts",
        "workflow" => "workflows",
        "issue" => "issues",
        "print_document" => "print_documents",
        other => {
            return Err(CoreError::Internal(format!(
                "sync does not carry {other} records"
            )));
        }
    };
    if record_type == "attachment" {
        tx.prepare_cached(
            "UPDATE content SET has_attachment = 0 WHERE id = (SELECT content_id FROM attachments WHERE uuid = ?1)",
        )?
        .execute([uuid])?;
    }
    let sql = format!("DELETE FROM {table} WHERE uuid = ?1");
    tx.prepare_cached(&sql)?.execute([uuid])?;
    Ok(())
}
