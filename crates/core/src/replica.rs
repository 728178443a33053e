//! A replica's side of sync: its remote, the outbox of local changes, the base of each synced record,
//! applying pulled changes with a three-way merge, and the conflicts a person must settle.
//!
//! Synced so far: authors, tags and content items (their text, fields,
//! authors, tags and URLs; not yet their attachments). Their fields travel as JSON objects of
//! strings, the same on both sides, so that base, mine and theirs compare
//! field by field.

use rusqlite::{OptionalExtension as _, Transaction, params};
use serde_json::{Map, Value};

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::error::{CoreError, Result};
use crate::records::new_uuid;
use crate::slug::Slug;

/// The record types sync carries so far.
pub const SYNCED_TYPES: &[&str] = &["author", "tag", "content"];

/// A record's synced fields, each a string.
pub type Fields = Map<String, Value>;

/// A local record with changes waiting in the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingRecord {
    pub record_type: String,
    pub uuid: String,
    pub remote_uuid: Option<String>,
    /// The record now (`None`: deleted here).
    pub current: Option<Fields>,
    /// The remote state it was last synced at (`None`: never synced).
    pub base: Option<Fields>,
    /// The idempotency key of the record's first pending change, stable across retries.
    pub key: String,
    pub outbox_ids: Vec<i64>,
    /// How often sending it failed before: a create tried before may have
    /// been made on a server that keeps no idempotency keys.
    pub attempts: i64,
}

/// A change read from the remote: the record's fields, or `None` when it is gone.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteChange {
    pub record_type: String,
    pub remote_uuid: String,
    pub fields: Option<Fields>,
}

/// One field changed on both sides since the base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldConflict {
    pub field: String,
    pub mine: String,
    pub theirs: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApplyReport {
    pub applied: usize,
    pub conflicts: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncConflict {
    pub uuid: String,
    pub srn: String,
    pub field: String,
    pub mine: String,
    pub theirs: String,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncStatus {
    pub online: bool,
    pub remote: Option<String>,
    pub last_sync_at: Option<String>,
    pub pending: i64,
    pub conflicts: i64,
    pub needs_attention: i64,
}

/// The scalar fields sync carries for each record type, as both sides name
/// them (content also carries `authors`, `tags` and `urls` as JSON arrays).
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
        ],
        _ => &["name", "slug"],
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

/// Merges `mine` and `theirs`, both changed from `base`, field by field: a
/// field changed on one side takes that side; changed on both to different
/// values, it takes theirs (the server's order wins) and is a conflict.
pub fn three_way(base: &Fields, mine: &Fields, theirs: &Fields) -> (Fields, Vec<FieldConflict>) {
    let mut merged = theirs.clone();
    let mut conflicts = Vec::new();
    let mut fields: Vec<&String> = base
        .keys()
        .chain(mine.keys())
        .chain(theirs.keys())
        .collect();
    fields.sort();
    fields.dedup();
    for field in fields {
        let (b, m, t) = (base.get(field), mine.get(field), theirs.get(field));
        if m == b || m == t {
            continue;
        }
        if t == b {
            if let Some(m) = m {
                merged.insert(field.clone(), m.clone());
            }
            continue;
        }
        conflicts.push(FieldConflict {
            field: field.clone(),
            mine: field_text(m),
            theirs: field_text(t),
        });
    }
    (merged, conflicts)
}

fn fields_of(tx: &Transaction<'_>, record_type: &str, uuid: &str) -> Result<Option<Fields>> {
    let found = match record_type {
        "author" => tx
            .prepare_cached("SELECT slug, name, email, tagline, description, status FROM authors WHERE uuid = ?1")?
            .query_row([uuid], |row| {
                let mut f = Fields::new();
                for (i, name) in ["slug", "name", "email", "tagline", "description"].iter().enumerate() {
                    f.insert((*name).into(), Value::String(row.get(i)?));
                }
                f.insert("status".into(), Value::String(row.get::<_, i64>(5)?.to_string()));
                Ok(f)
            })
            .optional()?,
        "tag" => tx
            .prepare_cached("SELECT name, slug FROM tags WHERE uuid = ?1")?
            .query_row([uuid], |row| {
                let mut f = Fields::new();
                f.insert("name".into(), Value::String(row.get(0)?));
                f.insert("slug".into(), Value::String(row.get(1)?));
                Ok(f)
            })
            .optional()?,
        "content" => return content_fields(tx, uuid),
        other => return Err(CoreError::Internal(format!("sync does not carry {other} records yet"))),
    };
    Ok(found)
}

/// A list field as the remote names it: a JSON array of the remote's UUIDs.
fn remote_list(tx: &Transaction<'_>, record_type: &str, local: Vec<String>) -> Result<String> {
    let mut remote = Vec::with_capacity(local.len());
    for uuid in local {
        let mapped: Option<String> = tx
            .prepare_cached(
                "SELECT remote_uuid FROM sync_records WHERE record_type = ?1 AND uuid = ?2",
            )?
            .query_row(params![record_type, uuid], |row| row.get(0))
            .optional()?;
        remote.push(Value::String(mapped.unwrap_or(uuid)));
    }
    Ok(Value::Array(remote).to_string())
}

fn content_fields(tx: &Transaction<'_>, uuid: &str) -> Result<Option<Fields>> {
    let row = tx
        .prepare_cached(
            "SELECT id, title, slug, type, weight, abstract, abstract_raw, content, content_raw, published_at, state
             FROM content WHERE uuid = ?1",
        )?
        .query_row([uuid], |row| {
            let mut f = Fields::new();
            for (i, name) in ["title", "slug", "type"].iter().enumerate() {
                f.insert((*name).into(), Value::String(row.get(i + 1)?));
            }
            f.insert("weight".into(), Value::String(row.get::<_, i64>(4)?.to_string()));
            for (i, name) in ["abstract", "abstract_raw", "content", "content_raw"].iter().enumerate() {
                f.insert((*name).into(), Value::String(row.get(i + 5)?));
            }
            f.insert("published_at".into(), Value::String(row.get::<_, Option<String>>(9)?.unwrap_or_default()));
            f.insert("state".into(), Value::String(row.get::<_, i64>(10)?.to_string()));
            Ok((row.get::<_, i64>(0)?, f))
        })
        .optional()?;
    let Some((id, mut fields)) = row else {
        return Ok(None);
    };
    let linked = |sql: &str| -> Result<Vec<String>> {
        let mut stmt = tx.prepare_cached(sql)?;
        let rows = stmt.query_map([id], |row| row.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    };
    let authors = linked(
        "SELECT a.uuid FROM content_authors l JOIN authors a ON a.id = l.author_id WHERE l.content_id = +?1 ORDER BY l.position",
    )?;
    let tags = linked(
        "SELECT t.uuid FROM content_tags l JOIN tags t ON t.id = l.tag_id WHERE l.content_id = +?1 ORDER BY l.position",
    )?;
    let urls = linked("SELECT path FROM content_urls WHERE content_id = +?1 ORDER BY position")?;
    fields.insert(
        "authors".into(),
        Value::String(remote_list(tx, "author", authors)?),
    );
    fields.insert("tags".into(), Value::String(remote_list(tx, "tag", tags)?));
    fields.insert(
        "urls".into(),
        Value::String(Value::Array(urls.into_iter().map(Value::String).collect()).to_string()),
    );
    Ok(Some(fields))
}

/// The local row ids of a remote list field's records (records not here yet are left out).
fn local_ids(tx: &Transaction<'_>, record_type: &str, table: &str, list: &str) -> Result<Vec<i64>> {
    let remote: Vec<String> = serde_json::from_str(list).unwrap_or_default();
    let mut ids = Vec::with_capacity(remote.len());
    for remote_uuid in remote {
        let local: String = tx
            .prepare_cached(
                "SELECT uuid FROM sync_records WHERE record_type = ?1 AND remote_uuid = ?2",
            )?
            .query_row(params![record_type, remote_uuid], |row| row.get(0))
            .optional()?
            .unwrap_or(remote_uuid);
        let sql = format!("SELECT id FROM {table} WHERE uuid = ?1");
        if let Some(id) = tx
            .prepare_cached(&sql)?
            .query_row([local], |row| row.get::<_, i64>(0))
            .optional()?
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
    let changed = tx
        .prepare_cached(
            "UPDATE content SET title = ?2, slug = ?3, type = ?4, weight = ?5, abstract = ?6, abstract_raw = ?7,
             content = ?8, content_raw = ?9, published_at = ?10, state = ?11, version = version + 1, modified_at = ?12
             WHERE uuid = ?1",
        )?
        .execute(params![
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
        ])?;
    if changed == 0 {
        tx.prepare_cached(
            "INSERT INTO content (uuid, title, slug, type, version, weight, abstract, abstract_raw, content, content_raw,
             published_at, state, created_at, modified_at) VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)",
        )?
        .execute(params![
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
        ])?;
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

/// Writes pulled fields into the local record with `uuid`, creating it when missing.
fn write_fields(
    tx: &Transaction<'_>,
    record_type: &str,
    uuid: &str,
    fields: &Fields,
) -> Result<()> {
    let now = clock::now();
    let get = |name: &str| field_text(fields.get(name));
    match record_type {
        "author" => {
            let name = get("name");
            let slug = Slug::parse_or_make(Some(&get("slug")), &name).into_string();
            let status: i64 = get("status").parse().unwrap_or(1);
            let changed = tx
                .prepare_cached(
                    "UPDATE authors SET slug = ?2, name = ?3, email = ?4, tagline = ?5, description = ?6, status = ?7,
                     modified_at = ?8 WHERE uuid = ?1",
                )?
                .execute(params![uuid, slug, name, get("email"), get("tagline"), get("description"), status, now])?;
            if changed == 0 {
                tx.prepare_cached(
                    "INSERT INTO authors (uuid, slug, name, email, tagline, description, status, created_at, modified_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
                )?
                .execute(params![uuid, slug, name, get("email"), get("tagline"), get("description"), status, now])?;
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
        other => {
            return Err(CoreError::Internal(format!(
                "sync does not carry {other} records yet"
            )));
        }
    }
    Ok(())
}

fn delete_local(tx: &Transaction<'_>, record_type: &str, uuid: &str) -> Result<()> {
    let sql = match record_type {
        "author" => "DELETE FROM authors WHERE uuid = ?1",
        "tag" => "DELETE FROM tags WHERE uuid = ?1",
        "content" => "DELETE FROM content WHERE uuid = ?1",
        other => {
            return Err(CoreError::Internal(format!(
                "sync does not carry {other} records yet"
            )));
        }
    };
    tx.prepare_cached(sql)?.execute([uuid])?;
    Ok(())
}

/// The remote UUID and the base of a synced record (`None`s when never synced).
fn synced_state(
    tx: &Transaction<'_>,
    record_type: &str,
    uuid: &str,
) -> Result<(Option<String>, Option<Fields>)> {
    let synced: Option<(String, String)> = tx
        .prepare_cached(
            "SELECT remote_uuid, base FROM sync_records WHERE record_type = ?1 AND uuid = ?2",
        )?
        .query_row(params![record_type, uuid], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    Ok(match synced {
        Some((remote, base)) => (Some(remote), serde_json::from_str::<Fields>(&base).ok()),
        None => (None, None),
    })
}

/// Runs `work` as the application of remote changes: the outbox trigger skips
/// what it writes, and the marker never outlives the transaction.
fn as_remote<T>(tx: &Transaction<'_>, work: impl FnOnce() -> Result<T>) -> Result<T> {
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ('applying_remote', '1')",
        [],
    )?;
    let out = work()?;
    tx.execute("DELETE FROM meta WHERE key = 'applying_remote'", [])?;
    Ok(out)
}

fn set_base(
    tx: &Transaction<'_>,
    record_type: &str,
    uuid: &str,
    remote_uuid: &str,
    base: &Fields,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO sync_records (record_type, uuid, remote_uuid, base) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (record_type, uuid) DO UPDATE SET remote_uuid = excluded.remote_uuid, base = excluded.base",
    )?
    .execute(params![record_type, uuid, remote_uuid, Value::Object(base.clone()).to_string()])?;
    Ok(())
}

fn has_pending(tx: &Transaction<'_>, record_type: &str, uuid: &str) -> Result<bool> {
    Ok(tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM outbox WHERE record_type = ?1 AND uuid = ?2)",
        )?
        .query_row(params![record_type, uuid], |row| row.get(0))?)
}

impl Cms {
    /// Makes this instance a replica of `url` (once; another remote later is refused).
    pub fn set_remote(&self, url: &str) -> Result<()> {
        self.store.write(|tx| {
            let current: Option<String> = tx
                .query_row("SELECT url FROM sync_remote WHERE id = 1", [], |row| row.get(0))
                .optional()?;
            match current {
                Some(current) if current == url => Ok(()),
                Some(current) => Err(CoreError::invalid_field(
                    "remote",
                    format!("this replica syncs with {current}; use another data directory for {url}"),
                )),
                None => {
                    tx.execute("INSERT INTO sync_remote (id, url) VALUES (1, ?1)", [url])?;
                    // Work done before the instance had a remote goes up too.
                    tx.execute_batch(
                        "INSERT INTO outbox (record_type, uuid, operation) SELECT 'author', uuid, 'create' FROM authors;
                         INSERT INTO outbox (record_type, uuid, operation) SELECT 'tag', uuid, 'create' FROM tags;
                         INSERT INTO outbox (record_type, uuid, operation) SELECT 'content', uuid, 'create' FROM content;",
                    )?;
                    Ok(())
                }
            }
        })
    }

    /// The change-feed cursor of the last complete pull.
    pub fn sync_cursor(&self) -> Result<i64> {
        self.store.read(|tx| {
            Ok(tx
                .query_row("SELECT cursor FROM sync_remote WHERE id = 1", [], |row| {
                    row.get(0)
                })
                .optional()?
                .unwrap_or(0))
        })
    }

    /// The local records with pending changes, oldest change first.
    pub fn pending_records(&self) -> Result<Vec<PendingRecord>> {
        self.store.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT record_type, uuid, group_concat(id), MIN(id) FROM outbox WHERE state = 'pending'
                 GROUP BY record_type, uuid ORDER BY MIN(id)",
            )?;
            let groups: Vec<(String, String, String)> = stmt
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
                .collect::<Result<_, _>>()?;
            let mut records = Vec::with_capacity(groups.len());
            for (record_type, uuid, ids) in groups {
                let outbox_ids: Vec<i64> = ids.split(',').filter_map(|id| id.parse().ok()).collect();
                let (key, attempts): (String, i64) = tx
                    .prepare_cached("SELECT idempotency_key, attempts FROM outbox WHERE id = ?1")?
                    .query_row([outbox_ids.iter().min().copied().unwrap_or(0)], |row| Ok((row.get(0)?, row.get(1)?)))?;
                let (remote_uuid, base) = synced_state(tx, &record_type, &uuid)?;
                records.push(PendingRecord {
                    current: fields_of(tx, &record_type, &uuid)?,
                    record_type,
                    uuid,
                    remote_uuid,
                    base,
                    key,
                    outbox_ids,
                    attempts,
                });
            }
            Ok(records)
        })
    }

    /// The remote UUIDs of the records of `record_type` synced so far (to find what a plain remote deleted).
    pub fn synced_remote_uuids(&self, record_type: &str) -> Result<Vec<String>> {
        self.store.read(|tx| {
            let mut stmt =
                tx.prepare_cached("SELECT remote_uuid FROM sync_records WHERE record_type = ?1")?;
            let rows = stmt.query_map([record_type], |row| row.get::<_, String>(0))?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
    }

    /// The record as it is now, with references mapped by the pushes made so far.
    pub fn refresh_pending(&self, record: &PendingRecord) -> Result<PendingRecord> {
        self.store.read(|tx| {
            let (remote_uuid, base) = synced_state(tx, &record.record_type, &record.uuid)?;
            Ok(PendingRecord {
                current: fields_of(tx, &record.record_type, &record.uuid)?,
                remote_uuid,
                base,
                ..record.clone()
            })
        })
    }

    /// Records a push: the outbox entries are done and the record's base is the remote's answer
    /// (`None` when the record is gone on both sides).
    pub fn record_pushed(
        &self,
        record: &PendingRecord,
        remote_uuid: &str,
        answer: Option<&Fields>,
    ) -> Result<()> {
        self.store.write(|tx| {
            for id in &record.outbox_ids {
                tx.prepare_cached("DELETE FROM outbox WHERE id = ?1")?
                    .execute([id])?;
            }
            match answer {
                Some(fields) => {
                    // A pull may have brought the server's copy of this record before its
                    // push was recorded (an answer lost, then a later round): that copy is
                    // this record, so it goes.
                    let copy: Option<String> = tx
                        .prepare_cached(
                            "SELECT uuid FROM sync_records WHERE record_type = ?1 AND remote_uuid = ?2 AND uuid <> ?3",
                        )?
                        .query_row(params![record.record_type, remote_uuid, record.uuid], |row| row.get(0))
                        .optional()?;
                    if let Some(copy) = copy {
                        as_remote(tx, || delete_local(tx, &record.record_type, &copy))?;
                        tx.prepare_cached("DELETE FROM sync_records WHERE record_type = ?1 AND uuid = ?2")?
                            .execute(params![record.record_type, copy])?;
                    }
                    set_base(tx, &record.record_type, &record.uuid, remote_uuid, fields)?
                }
                None => {
                    tx.prepare_cached(
                        "DELETE FROM sync_records WHERE record_type = ?1 AND uuid = ?2",
                    )?
                    .execute(params![record.record_type, record.uuid])?;
                }
            }
            Ok(())
        })
    }

    /// Records a failed push: a passing failure stays pending; a refusal needs attention, the edit kept.
    pub fn record_push_failed(
        &self,
        record: &PendingRecord,
        error: &str,
        permanent: bool,
    ) -> Result<()> {
        self.store.write(|tx| {
            for id in &record.outbox_ids {
                tx.prepare_cached(
                    "UPDATE outbox SET attempts = attempts + 1, last_error = ?2,
                     state = CASE WHEN ?3 THEN 'attention' ELSE state END WHERE id = ?1",
                )?
                .execute(params![id, error, permanent])?;
            }
            Ok(())
        })
    }

    /// Applies one page of remote changes and the cursor after it, in one transaction.
    pub fn apply_remote_page(&self, changes: &[RemoteChange], cursor: i64) -> Result<ApplyReport> {
        self.store.write(|tx| {
            let report = as_remote(tx, || {
                let mut report = ApplyReport::default();
                for change in changes {
                    report.conflicts += self.apply_change(tx, change)?;
                    report.applied += 1;
                }
                Ok(report)
            })?;
            tx.execute(
                "UPDATE sync_remote SET cursor = ?1, last_sync_at = ?2 WHERE id = 1",
                params![cursor, clock::now()],
            )?;
            Ok(report)
        })
    }

    fn apply_change(&self, tx: &Transaction<'_>, change: &RemoteChange) -> Result<usize> {
        let kind = change.record_type.as_str();
        let mapped: Option<(String, String)> = tx
            .prepare_cached(
                "SELECT uuid, base FROM sync_records WHERE record_type = ?1 AND remote_uuid = ?2",
            )?
            .query_row(params![kind, change.remote_uuid], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .optional()?;
        let (local, base) = match mapped {
            Some((uuid, base)) => (
                Some(uuid),
                serde_json::from_str::<Fields>(&base).unwrap_or_default(),
            ),
            None => (None, Fields::new()),
        };
        let pending = match &local {
            Some(uuid) => has_pending(tx, kind, uuid)?,
            None => false,
        };
        match (&change.fields, local) {
            (Some(theirs), None) => {
                write_fields(tx, kind, &change.remote_uuid, theirs)?;
                set_base(tx, kind, &change.remote_uuid, &change.remote_uuid, theirs)?;
                Ok(0)
            }
            (Some(theirs), Some(uuid)) if !pending => {
                // An echo of this side's own push changes nothing.
                if fields_of(tx, kind, &uuid)?.as_ref() != Some(theirs) {
                    write_fields(tx, kind, &uuid, theirs)?;
                }
                set_base(tx, kind, &uuid, &change.remote_uuid, theirs)?;
                Ok(0)
            }
            (Some(theirs), Some(uuid)) => {
                let conflicts = match fields_of(tx, kind, &uuid)? {
                    Some(mine) => {
                        let (merged, conflicts) = three_way(&base, &mine, theirs);
                        write_fields(tx, kind, &uuid, &merged)?;
                        conflicts
                    }
                    // Deleted here, edited there: the edit survives.
                    None => {
                        write_fields(tx, kind, &uuid, theirs)?;
                        tx.prepare_cached(
                            "DELETE FROM outbox WHERE record_type = ?1 AND uuid = ?2",
                        )?
                        .execute(params![kind, uuid])?;
                        vec![FieldConflict {
                            field: "*".into(),
                            mine: "deleted here".into(),
                            theirs: "edited on the server; kept".into(),
                        }]
                    }
                };
                set_base(tx, kind, &uuid, &change.remote_uuid, theirs)?;
                for conflict in &conflicts {
                    self.record_conflict(tx, kind, &uuid, conflict)?;
                }
                Ok(conflicts.len())
            }
            (None, None) => Ok(0),
            (None, Some(uuid)) if !pending => {
                delete_local(tx, kind, &uuid)?;
                tx.prepare_cached("DELETE FROM sync_records WHERE record_type = ?1 AND uuid = ?2")?
                    .execute(params![kind, uuid])?;
                Ok(0)
            }
            (None, Some(uuid)) => {
                // Edited here, deleted there: the edit survives and goes up again as a new record.
                tx.prepare_cached("DELETE FROM sync_records WHERE record_type = ?1 AND uuid = ?2")?
                    .execute(params![kind, uuid])?;
                let conflict = FieldConflict {
                    field: "*".into(),
                    mine: "edited here; kept and sent again".into(),
                    theirs: "deleted on the server".into(),
                };
                self.record_conflict(tx, kind, &uuid, &conflict)?;
                Ok(1)
            }
        }
    }

    fn record_conflict(
        &self,
        tx: &Transaction<'_>,
        kind: &str,
        uuid: &str,
        conflict: &FieldConflict,
    ) -> Result<()> {
        tx.prepare_cached(
            "INSERT INTO sync_conflicts (uuid, record_type, record_uuid, field, mine, theirs, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?
        .execute(params![new_uuid(), kind, uuid, conflict.field, conflict.mine, conflict.theirs, clock::now()])?;
        Ok(())
    }

    /// `GET /v3/sync/status`: the replica's sync state (nothing pending on a server without a remote).
    pub fn sync_status(&self, who: &Principal) -> Result<SyncStatus> {
        who.require("SYNC get")?;
        self.sync_state()
    }

    /// The sync state, for the engine itself.
    pub fn sync_state(&self) -> Result<SyncStatus> {
        self.store.read(|tx| {
            let remote: Option<(String, Option<String>, bool)> = tx
                .query_row("SELECT url, last_sync_at, online FROM sync_remote WHERE id = 1", [], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                })
                .optional()?;
            let count = |sql: &str| -> Result<i64> { Ok(tx.query_row(sql, [], |row| row.get(0))?) };
            Ok(SyncStatus {
                // A server with no remote is its own source of truth: online.
                online: remote.as_ref().is_none_or(|(_, _, online)| *online),
                last_sync_at: remote.as_ref().and_then(|(_, at, _)| at.clone()),
                remote: remote.map(|(url, _, _)| url),
                pending: count("SELECT COUNT(DISTINCT record_type || ':' || uuid) FROM outbox WHERE state = 'pending'")?,
                conflicts: count("SELECT COUNT(*) FROM sync_conflicts WHERE resolved_at IS NULL")?,
                needs_attention: count("SELECT COUNT(DISTINCT record_type || ':' || uuid) FROM outbox WHERE state = 'attention'")?,
            })
        })
    }

    /// `POST /v3/sync/conflicts/{uuid}/resolve`: keep `theirs` (as it already is) or
    /// `mine` (written back as a local edit, so the next sync sends it).
    pub fn resolve_conflict(&self, who: &Principal, uuid: &str, keep: Option<&str>) -> Result<()> {
        who.require("SYNC resolve")?;
        let keep_mine = match keep.map(str::trim) {
            Some("mine") => true,
            Some("theirs") => false,
            Some(other) => {
                return Err(CoreError::invalid_field(
                    "keep",
                    format!("\"keep\" is mine or theirs, not \"{other}\""),
                ));
            }
            None => return Err(CoreError::required("keep")),
        };
        self.store.write(|tx| {
            let found: Option<(i64, String, String, String, String, Option<String>)> = tx
                .prepare_cached(
                    "SELECT id, record_type, record_uuid, field, mine, resolved_at FROM sync_conflicts WHERE uuid = ?1",
                )?
                .query_row([uuid], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?)))
                .optional()?;
            let (id, kind, record_uuid, field, mine, resolved) =
                found.ok_or_else(|| CoreError::not_found(format!("no conflict with UUID {uuid}")))?;
            if resolved.is_some() {
                return Err(CoreError::Conflict {
                    message: "this conflict is already settled".into(),
                    field: None,
                });
            }
            if keep_mine && field != "*" {
                let mut fields = fields_of(tx, &kind, &record_uuid)?
                    .ok_or_else(|| CoreError::not_found(format!("the {kind} {record_uuid} is gone")))?;
                fields.insert(field.clone(), Value::String(mine));
                write_fields(tx, &kind, &record_uuid, &fields)?;
            }
            tx.prepare_cached("UPDATE sync_conflicts SET resolved_at = ?2, resolution = ?3 WHERE id = ?1")?
                .execute(params![id, clock::now(), if keep_mine { "mine" } else { "theirs" }])?;
            Ok(())
        })
    }

    /// Records whether the last round reached the remote.
    pub fn set_online(&self, online: bool) -> Result<()> {
        self.store.write(|tx| {
            tx.execute("UPDATE sync_remote SET online = ?1 WHERE id = 1", [online])?;
            Ok(())
        })
    }

    /// `GET /v3/sync/conflicts`: the conflicts still to settle, oldest first.
    pub fn sync_conflicts(&self, who: &Principal) -> Result<Vec<SyncConflict>> {
        who.require("SYNC get")?;
        self.store.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT uuid, record_type, record_uuid, field, mine, theirs, created_at FROM sync_conflicts
                 WHERE resolved_at IS NULL ORDER BY id",
            )?;
            let rows = stmt.query_map([], |row| {
                let record_type: String = row.get(1)?;
                let record_uuid: String = row.get(2)?;
                Ok(SyncConflict {
                    uuid: row.get(0)?,
                    srn: self.srn(&record_type, &record_uuid),
                    field: row.get(3)?,
                    mine: row.get(4)?,
                    theirs: row.get(5)?,
                    created_at: row.get(6)?,
                })
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(value: Value) -> Fields {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn different_fields_merge() {
        let base = fields(json!({"name": "Ann", "tagline": "Courts"}));
        let mine = fields(json!({"name": "Ann B.", "tagline": "Courts"}));
        let theirs = fields(json!({"name": "Ann", "tagline": "Politics"}));
        let (merged, conflicts) = three_way(&base, &mine, &theirs);
        assert_eq!(
            merged,
            fields(json!({"name": "Ann B.", "tagline": "Politics"}))
        );
        assert!(conflicts.is_empty());
    }

    #[test]
    fn the_same_field_is_a_conflict_and_theirs_stays() {
        let base = fields(json!({"name": "Ann"}));
        let mine = fields(json!({"name": "Anne"}));
        let theirs = fields(json!({"name": "Annie"}));
        let (merged, conflicts) = three_way(&base, &mine, &theirs);
        assert_eq!(merged["name"], "Annie");
        assert_eq!(
            conflicts,
            vec![FieldConflict {
                field: "name".into(),
                mine: "Anne".into(),
                theirs: "Annie".into()
            }]
        );
    }

    #[test]
    fn the_same_change_on_both_sides_is_no_conflict() {
        let base = fields(json!({"name": "Ann"}));
        let both = fields(json!({"name": "Anne"}));
        let (merged, conflicts) = three_way(&base, &both, &both);
        assert_eq!(merged, both);
        assert!(conflicts.is_empty());
    }
}
