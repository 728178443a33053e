//! A replica's side of sync: its remote, the outbox of local changes, the base of each synced record,
//! applying pulled changes with a three-way merge, and the conflicts a person must settle.
//!
//! What each record type carries is in `synced.rs`: fields travel as JSON
//! objects of strings, the same on both sides, so that base, mine and theirs
//! compare field by field.

use crate::access::Action;
use crate::db::{OptionalExtension as _, Transaction, params};
use crate::synced::TypeSynced as _;
use serde_json::Value;

use crate::Cms;
pub use crate::SyncProgress;
use crate::access::Principal;
use crate::clock;
use crate::error::{CoreError, Result};
use crate::records::new_uuid;
use std::collections::HashMap;

use crate::skipped::{forget, keep, not_readable, relink, restore_unreadable};
use crate::store::uploads::{Oversized, WrittenFiles, remove_folder, write_from_reader};
use crate::synced::FieldReader;

pub use crate::skipped::{NotReadable, Skipped};
pub use crate::synced::{
    Fields, RecordType, RemoteAccess, SyncedType, body_of, field_text, synced_types,
};
pub use copydesk_text::merge::fields::{BlockPlace, FieldConflict};
use copydesk_text::merge::fields::{raw_of, stored_text};

/// A local record with changes waiting in the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingRecord {
    pub record_type: RecordType,
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
    /// It refers to a record made here that the remote does not have yet: it waits for it.
    pub waits: bool,
}

/// A change read from the remote: the record's fields, or `None` when it is gone.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteChange {
    pub record_type: RecordType,
    pub remote_uuid: String,
    pub fields: Option<Fields>,
    /// An attachment's master file, downloaded to a place [`Cms::incoming_file`] gave.
    pub file: Option<std::path::PathBuf>,
}

/// One page of a pull: the changes read, the records the key may not read
/// (skipped, so that the cursor moves on), and records gone from the remote
/// that are not applied (a draft a newer one replaced): none of those is
/// skipped any longer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RemotePage {
    pub changes: Vec<RemoteChange>,
    pub skipped: Vec<Skipped>,
    pub gone: Vec<(RecordType, String)>,
}

/// How a sync round ended, as the sync state keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoundEnd {
    /// It ran to its end: now is the last good sync.
    Completed,
    /// It failed: why, in words, and why it did not reach the remote, when it did not.
    Failed {
        error: String,
        unreached: Option<Unreached>,
    },
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
    pub record: RecordLabel,
    pub field: String,
    pub mine: String,
    pub theirs: String,
    pub created_at: String,
    /// Set when the conflict is one paragraph of a story's body or abstract.
    pub block: Option<BlockPlace>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncStatus {
    pub online: bool,
    /// Why the last round did not reach the remote (`None` once one has).
    pub offline: Option<Unreached>,
    pub remote: Option<String>,
    /// When the last round that succeeded ended.
    pub last_sync_at: Option<String>,
    /// Why the last round failed, and when (`None` once one succeeds).
    pub last_error: Option<(String, String)>,
    /// What this replica does not receive because its key may not read it.
    pub not_readable: Vec<NotReadable>,
    pub pending: i64,
    pub conflicts: i64,
    pub needs_attention: i64,
    /// A round running in this process now, with its counts so far.
    pub progress: Option<SyncProgress>,
    /// Whether this process listens to the central server's change stream
    /// now, so that the desk's changes arrive as they are made.
    pub live: bool,
}

/// Why a sync round did not reach its remote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreached {
    /// The failure in words, with its causes (`None`: not recorded, as
    /// before the round that records it, or a copy that never synced).
    pub reason: Option<String>,
    /// The remote's certificate is not one this copy trusts: not an outage
    /// that passes, but something a person must look at (the newsroom's
    /// authority missing here, or a network that intercepts HTTPS).
    pub certificate_untrusted: bool,
}

/// A change the server refused, set aside with the edit kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeedsAttention {
    pub record_type: RecordType,
    pub uuid: String,
    pub srn: String,
    pub record: RecordLabel,
    pub error: String,
    pub attempts: i64,
    pub since: String,
}

/// A local change waiting to go to the central server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitingChange {
    pub srn: String,
    pub record: RecordLabel,
    /// `create`, `update` or `delete`: the latest change made here.
    pub operation: String,
    /// How often sending it failed for a passing reason, and the last reason.
    pub attempts: i64,
    pub last_error: Option<String>,
    pub since: String,
}

/// What a person calls a synced record, and the story it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordLabel {
    pub record_type: RecordType,
    pub uuid: String,
    /// Its headline, name or label (for a record of a story, the story's
    /// headline); empty when the record is gone here.
    pub headline: String,
    /// The story it is or belongs to, to open it.
    pub story: Option<String>,
}

/// What a person calls the record `uuid` of `record_type`.
fn label_of(tx: &Transaction<'_>, record_type: RecordType, uuid: &str) -> Result<RecordLabel> {
    let found: Option<(Option<String>, Option<String>)> = match record_type.synced() {
        Some(kind) => tx
            .prepare_cached(kind.label_query())?
            .query_row([uuid], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?,
        None => None,
    };
    let (headline, story) = found.unwrap_or_default();
    Ok(RecordLabel {
        record_type,
        uuid: uuid.to_owned(),
        headline: headline.unwrap_or_default(),
        story,
    })
}

/// Merges `mine` and `theirs`, both changed from `base`, field by field
/// (see [`copydesk_text::merge::fields::three_way`]), with the record type's rich
/// text merged paragraph by paragraph and word by word.
pub fn three_way(
    record_type: RecordType,
    base: &Fields,
    mine: &Fields,
    theirs: &Fields,
) -> (Fields, Vec<FieldConflict>) {
    let rich = record_type
        .synced()
        .map_or(&[][..], |kind| kind.rich_text());
    copydesk_text::merge::fields::three_way(rich, base, mine, theirs)
}

/// A record's synced fields now, and whether it refers to a record not yet sent.
fn fields_of(
    tx: &Transaction<'_>,
    record_type: RecordType,
    uuid: &str,
) -> Result<(Option<Fields>, bool)> {
    let mut reader = FieldReader::new(tx);
    let fields = reader.fields(record_type, uuid)?;
    let mut waits = reader.unsent_reference;
    // A gallery's placeholder is made by the server with the gallery: it waits for it.
    if record_type == RecordType::Content && !waits {
        waits = tx
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM containers k JOIN content c ON c.id = k.placeholder_id
                 WHERE c.uuid = ?1 AND NOT EXISTS
                 (SELECT 1 FROM sync_records s WHERE s.record_type = 'container' AND s.uuid = k.uuid))",
            )?
            .query_row([uuid], |row| row.get(0))?;
    }
    Ok((fields, waits))
}

fn current_fields(
    tx: &Transaction<'_>,
    record_type: RecordType,
    uuid: &str,
) -> Result<Option<Fields>> {
    FieldReader::new(tx).fields(record_type, uuid)
}

/// The remote UUID and the base of a synced record (`None`s when never synced).
fn synced_state(
    tx: &Transaction<'_>,
    record_type: RecordType,
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
    record_type: RecordType,
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

/// Makes the local record `uuid` the remote's `remote_uuid`, synced at `base`.
/// A pull may have brought the server's copy of it before (an answer lost,
/// then a later round): that copy is this record, so it goes.
fn adopt(
    tx: &Transaction<'_>,
    kind: RecordType,
    uuid: &str,
    remote_uuid: &str,
    base: &Fields,
) -> Result<()> {
    let copy: Option<String> = tx
        .prepare_cached("SELECT uuid FROM sync_records WHERE record_type = ?1 AND remote_uuid = ?2 AND uuid <> ?3")?
        .query_row(params![kind, remote_uuid, uuid], |row| row.get(0))
        .optional()?;
    if let Some(copy) = copy {
        as_remote(tx, || kind.carried()?.delete(tx, &copy))?;
        tx.prepare_cached("DELETE FROM sync_records WHERE record_type = ?1 AND uuid = ?2")?
            .execute(params![kind, copy])?;
    }
    set_base(tx, kind, uuid, remote_uuid, base)
}

/// Tells the story's readers (its audit, which the editor shows) that its
/// text now holds the server's changes merged with the edits made here.
fn note_merge(tx: &Transaction<'_>, uuid: &str, conflicts: usize) -> Result<()> {
    let detail = match conflicts {
        0 => "your edits here were merged with the newsroom server's changes".to_owned(),
        1 => "your edits here were merged with the newsroom server's changes; one conflict to settle (Sync)".to_owned(),
        n => format!("your edits here were merged with the newsroom server's changes; {n} conflicts to settle (Sync)"),
    };
    tx.prepare_cached(
        "INSERT INTO audit (uuid, content_id, user_id, action, detail, created_at)
         SELECT ?1, id, NULL, 'merged', ?2, ?3 FROM content WHERE uuid = ?4",
    )?
    .execute(params![new_uuid(), detail, clock::now(), uuid])?;
    Ok(())
}

fn has_pending(tx: &Transaction<'_>, record_type: RecordType, uuid: &str) -> Result<bool> {
    Ok(tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM outbox WHERE record_type = ?1 AND uuid = ?2)",
        )?
        .query_row(params![record_type, uuid], |row| row.get(0))?)
}

impl Cms {
    /// Makes this instance a replica of `url` (once; another remote later is refused).
    pub fn set_remote(&self, url: &str) -> Result<()> {
        self.write(|tx| {
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
                    // Work done before the instance had a remote goes up too, referred-to records first.
                    for kind in synced_types() {
                        tx.execute(
                            &format!(
                                "INSERT INTO outbox (record_type, uuid, operation) SELECT ?1, uuid, 'create' FROM {} ORDER BY id",
                                kind.table()
                            ),
                            [kind.record_type()],
                        )?;
                    }
                    Ok(())
                }
            }
        })
    }

    /// The change-feed cursor of the last complete pull.
    pub fn sync_cursor(&self) -> Result<i64> {
        self.read(|tx| {
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
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT record_type, uuid, group_concat(id), MIN(id) FROM outbox WHERE state = 'pending'
                 GROUP BY record_type, uuid ORDER BY MIN(id)",
            )?;
            let groups: Vec<(RecordType, String, String)> = stmt
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
                .collect::<Result<_, _>>()?;
            let mut records = Vec::with_capacity(groups.len());
            for (record_type, uuid, ids) in groups {
                let outbox_ids: Vec<i64> = ids.split(',').filter_map(|id| id.parse().ok()).collect();
                let (key, attempts): (String, i64) = tx
                    .prepare_cached("SELECT idempotency_key, attempts FROM outbox WHERE id = ?1")?
                    .query_row([outbox_ids.iter().min().copied().unwrap_or(0)], |row| Ok((row.get(0)?, row.get(1)?)))?;
                let (remote_uuid, base) = synced_state(tx, record_type, &uuid)?;
                let (current, waits) = fields_of(tx, record_type, &uuid)?;
                let current = restore_unreadable(tx, record_type, base.as_ref(), current)?;
                records.push(PendingRecord {
                    current,
                    waits,
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
    pub fn synced_remote_uuids(&self, record_type: RecordType) -> Result<Vec<String>> {
        self.read(|tx| {
            let mut stmt =
                tx.prepare_cached("SELECT remote_uuid FROM sync_records WHERE record_type = ?1")?;
            let rows = stmt.query_map([record_type], |row| row.get::<_, String>(0))?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
    }

    /// The record as it is now, with references mapped by the pushes made so far.
    pub fn refresh_pending(&self, record: &PendingRecord) -> Result<PendingRecord> {
        self.read(|tx| {
            let (remote_uuid, base) = synced_state(tx, record.record_type, &record.uuid)?;
            let (current, waits) = fields_of(tx, record.record_type, &record.uuid)?;
            let current = restore_unreadable(tx, record.record_type, base.as_ref(), current)?;
            Ok(PendingRecord {
                current,
                waits,
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
        self.write(|tx| {
            for id in &record.outbox_ids {
                tx.prepare_cached("DELETE FROM outbox WHERE id = ?1")?
                    .execute([id])?;
            }
            match answer {
                Some(fields) => {
                    adopt(tx, record.record_type, &record.uuid, remote_uuid, fields)?;
                    // The server made the gallery's placeholder with it: the local one is that one.
                    if record.record_type == RecordType::Container {
                        let remote_placeholder = field_text(fields.get("placeholder"));
                        let local_placeholder: Option<String> = tx
                            .prepare_cached(
                                "SELECT c.uuid FROM containers k JOIN content c ON c.id = k.placeholder_id WHERE k.uuid = ?1
                                 AND NOT EXISTS (SELECT 1 FROM sync_records s WHERE s.record_type = 'content' AND s.uuid = c.uuid)",
                            )?
                            .query_row([&record.uuid], |row| row.get(0))
                            .optional()?;
                        if let (Some(local), false) = (local_placeholder, remote_placeholder.is_empty()) {
                            let base = current_fields(tx, RecordType::Content, &local)?.unwrap_or_default();
                            adopt(tx, RecordType::Content, &local, &remote_placeholder, &base)?;
                        }
                    }
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
        self.write(|tx| {
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

    /// Applies one page of remote changes, what it skipped, and the cursor
    /// after it (`None`: the cursor stays, as for records tried again), in
    /// one transaction. Records come in [`RecordType`] order, so a record's
    /// references are written before it; attachment files are copied in
    /// before the transaction, so a refused page leaves none behind. A
    /// record skipped before that arrives now is linked wherever a record
    /// here names it.
    pub fn apply_remote_page(&self, page: &RemotePage, cursor: Option<i64>) -> Result<ApplyReport> {
        let changes = &page.changes;
        let mut order: Vec<usize> = (0..changes.len()).collect();
        order.sort_by_key(|i| changes[*i].record_type);
        let files_dir = self.store.files_dir().to_owned();
        let mut files: HashMap<usize, WrittenFiles> = HashMap::new();
        for (i, change) in changes.iter().enumerate() {
            if let (Some(path), Some(fields)) = (&change.file, &change.fields) {
                let name = field_text(fields.get("name"));
                let angle = field_text(fields.get("angle")).parse().unwrap_or(0);
                let mut source = std::fs::File::open(path)?;
                files.insert(
                    i,
                    write_from_reader(
                        &files_dir,
                        &name,
                        &mut source,
                        u64::MAX,
                        angle,
                        Oversized::KeepUnscaled,
                    )?,
                );
            }
        }
        let mut replaced = Vec::new();
        let mut recovered = std::collections::HashSet::new();
        let report = self.write(|tx| {
            let report = as_remote(tx, || {
                let mut report = ApplyReport::default();
                for i in &order {
                    let change = &changes[*i];
                    let file = files.get(i);
                    let (conflicts, old_salt) = match (file, &change.fields) {
                        // The base holds the file that came, whatever the listing said.
                        (Some(file), Some(fields)) => {
                            let mut fields = fields.clone();
                            fields.insert("sha256".into(), Value::String(file.sha256.clone()));
                            let change = RemoteChange {
                                fields: Some(fields),
                                ..change.clone()
                            };
                            self.apply_change(tx, &change, Some(file))?
                        }
                        _ => self.apply_change(tx, change, None)?,
                    };
                    replaced.extend(old_salt);
                    report.conflicts += conflicts;
                    report.applied += 1;
                    if forget(tx, change.record_type, &change.remote_uuid)?
                        && change.fields.is_some()
                    {
                        recovered.insert((change.record_type, change.remote_uuid.clone()));
                    }
                }
                for (kind, uuid) in &page.gone {
                    forget(tx, *kind, uuid)?;
                }
                keep(tx, &page.skipped)?;
                relink(tx, &recovered)?;
                Ok(report)
            })?;
            if let Some(cursor) = cursor {
                tx.execute("UPDATE sync_remote SET cursor = ?1 WHERE id = 1", [cursor])?;
            }
            Ok(report)
        })?;
        for (_, written) in files {
            written.keep();
        }
        for salt in replaced {
            remove_folder(&files_dir, &salt);
        }
        Ok(report)
    }

    /// A fresh path in the files folder for a file on its way in (the caller removes it).
    pub fn incoming_file(&self) -> Result<std::path::PathBuf> {
        let dir = self.store.files_dir().join("incoming");
        std::fs::create_dir_all(&dir)?;
        Ok(dir.join(new_uuid()))
    }

    /// The master file of a local attachment, to send.
    pub fn attachment_original(&self, uuid: &str) -> Result<Option<std::path::PathBuf>> {
        let found: Option<(String, String)> = self.read(|tx| {
            Ok(tx
                .prepare_cached("SELECT salt, extension FROM attachments WHERE uuid = ?1")?
                .query_row([uuid], |row| Ok((row.get(0)?, row.get(1)?)))
                .optional()?)
        })?;
        Ok(found.map(|(salt, extension)| {
            self.store
                .files_dir()
                .join(salt)
                .join(format!("original.{extension}"))
        }))
    }

    /// The SHA-256 of the local copy of a remote attachment's file, if it is here.
    pub fn local_attachment_sha(&self, remote_uuid: &str) -> Result<Option<String>> {
        self.read(|tx| {
            let local = crate::synced::local_of(tx, RecordType::Attachment, remote_uuid)?;
            Ok(tx
                .prepare_cached("SELECT sha256 FROM attachments WHERE uuid = ?1")?
                .query_row([local], |row| row.get(0))
                .optional()?)
        })
    }

    /// Which of these remote records (type, remote UUID) are here already.
    pub fn known_remote_records(
        &self,
        records: &[(RecordType, String)],
    ) -> Result<std::collections::HashSet<(RecordType, String)>> {
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM sync_records WHERE record_type = ?1 AND remote_uuid = ?2)",
            )?;
            let mut known = std::collections::HashSet::new();
            for (kind, uuid) in records {
                if stmt.query_row(params![kind, uuid], |row| row.get::<_, bool>(0))? {
                    known.insert((*kind, uuid.clone()));
                }
            }
            Ok(known)
        })
    }

    /// Applies one change; returns the conflicts it made and replaced attachment files.
    fn apply_change(
        &self,
        tx: &Transaction<'_>,
        change: &RemoteChange,
        file: Option<&WrittenFiles>,
    ) -> Result<(usize, Option<String>)> {
        let kind = change.record_type;
        let carried = kind.carried()?;
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
        let mut replaced = None;
        let mut write = |tx: &Transaction<'_>, uuid: &str, fields: &Fields| -> Result<String> {
            let written = carried.write(tx, uuid, fields, file)?;
            replaced = replaced.take().or(written.old_salt);
            Ok(written.uuid)
        };
        let conflicts = match (&change.fields, local) {
            (Some(theirs), None) => {
                let uuid = write(tx, &change.remote_uuid, theirs)?;
                set_base(tx, kind, &uuid, &change.remote_uuid, theirs)?;
                0
            }
            (Some(theirs), Some(uuid)) if !pending => {
                // An echo of this side's own push changes nothing.
                if current_fields(tx, kind, &uuid)?.as_ref() != Some(theirs) {
                    write(tx, &uuid, theirs)?;
                }
                set_base(tx, kind, &uuid, &change.remote_uuid, theirs)?;
                0
            }
            (Some(theirs), Some(uuid)) => {
                // A link this copy could not make (its record unreadable) is no edit of mine.
                let mine =
                    restore_unreadable(tx, kind, Some(&base), current_fields(tx, kind, &uuid)?)?;
                let conflicts = match mine {
                    // Mine stays in the item's history: every local save made a version.
                    Some(mine) => {
                        let (merged, conflicts) = three_way(kind, &base, &mine, theirs);
                        write(tx, &uuid, &merged)?;
                        if kind == RecordType::Content {
                            note_merge(tx, &uuid, conflicts.len())?;
                        }
                        conflicts
                    }
                    // Deleted here, edited there: the edit survives.
                    None => {
                        write(tx, &uuid, theirs)?;
                        tx.prepare_cached(
                            "DELETE FROM outbox WHERE record_type = ?1 AND uuid = ?2",
                        )?
                        .execute(params![kind, uuid])?;
                        vec![FieldConflict {
                            field: "*".into(),
                            mine: "deleted here".into(),
                            theirs: "edited on the server; kept".into(),
                            block: None,
                        }]
                    }
                };
                set_base(tx, kind, &uuid, &change.remote_uuid, theirs)?;
                for conflict in &conflicts {
                    self.record_conflict(tx, kind, &uuid, conflict)?;
                }
                conflicts.len()
            }
            (None, None) => 0,
            (None, Some(uuid)) if !pending => {
                carried.delete(tx, &uuid)?;
                tx.prepare_cached("DELETE FROM sync_records WHERE record_type = ?1 AND uuid = ?2")?
                    .execute(params![kind, uuid])?;
                0
            }
            (None, Some(uuid)) => {
                // Edited here, deleted there: the edit survives and goes up again as a new record.
                tx.prepare_cached("DELETE FROM sync_records WHERE record_type = ?1 AND uuid = ?2")?
                    .execute(params![kind, uuid])?;
                let conflict = FieldConflict {
                    field: "*".into(),
                    mine: "edited here; kept and sent again".into(),
                    theirs: "deleted on the server".into(),
                    block: None,
                };
                self.record_conflict(tx, kind, &uuid, &conflict)?;
                1
            }
        };
        Ok((conflicts, replaced))
    }

    fn record_conflict(
        &self,
        tx: &Transaction<'_>,
        kind: RecordType,
        uuid: &str,
        conflict: &FieldConflict,
    ) -> Result<()> {
        let block = conflict.block.as_ref();
        tx.prepare_cached(
            "INSERT INTO sync_conflicts (uuid, record_type, record_uuid, field, mine, theirs, created_at,
                                         block_position, block_key, block_before, block_after)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?
        .execute(params![
            new_uuid(),
            kind,
            uuid,
            conflict.field,
            conflict.mine,
            conflict.theirs,
            clock::now(),
            block.map(|b| i64::try_from(b.position).unwrap_or(i64::MAX)),
            block.and_then(|b| b.key.clone()),
            block.and_then(|b| b.before.clone()),
            block.and_then(|b| b.after.clone()),
        ])?;
        Ok(())
    }

    /// `GET /v3/sync/status`: the replica's sync state (nothing pending on a server without a remote).
    pub fn sync_status(&self, who: &Principal) -> Result<SyncStatus> {
        who.require(Action::SyncGet)?;
        self.sync_state()
    }

    /// The sync state, for the engine itself.
    pub fn sync_state(&self) -> Result<SyncStatus> {
        self.read(|tx| {
            type RemoteRow = (String, Option<String>, bool, Option<String>, bool);
            let remote: Option<RemoteRow> = tx
                .query_row(
                    "SELECT url, last_sync_at, online, offline_reason, certificate_untrusted
                     FROM sync_remote WHERE id = 1",
                    [],
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?)),
                )
                .optional()?;
            let last_error: Option<(Option<String>, Option<String>)> = tx
                .query_row("SELECT last_error, last_error_at FROM sync_remote WHERE id = 1", [], |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })
                .optional()?;
            let count = |sql: &str| -> Result<i64> { Ok(tx.query_row(sql, [], |row| row.get(0))?) };
            Ok(SyncStatus {
                // A server with no remote is its own source of truth: online.
                online: remote.as_ref().is_none_or(|(_, _, online, _, _)| *online),
                offline: remote.as_ref().and_then(|(_, _, online, reason, untrusted)| {
                    (!online).then(|| Unreached {
                        reason: reason.clone().filter(|reason| !reason.is_empty()),
                        certificate_untrusted: *untrusted,
                    })
                }),
                last_sync_at: remote.as_ref().and_then(|(_, at, _, _, _)| at.clone()),
                last_error: match last_error {
                    Some((Some(error), at)) => Some((error, at.unwrap_or_default())),
                    _ => None,
                },
                not_readable: not_readable(tx)?,
                remote: remote.map(|(url, _, _, _, _)| url),
                pending: count("SELECT COUNT(DISTINCT record_type || ':' || uuid) FROM outbox WHERE state = 'pending'")?,
                conflicts: count("SELECT COUNT(*) FROM sync_conflicts WHERE resolved_at IS NULL")?,
                needs_attention: count("SELECT COUNT(DISTINCT record_type || ':' || uuid) FROM outbox WHERE state = 'attention'")?,
                progress: self.sync_progress(),
                live: self.listening.load(std::sync::atomic::Ordering::Relaxed),
            })
        })
    }

    /// How far the round running in this process has come (`None`: none runs).
    pub fn sync_progress(&self) -> Option<SyncProgress> {
        self.sync_progress.lock().ok().and_then(|p| *p)
    }

    /// Records whether the central server's change stream is open in this process.
    pub fn set_listening(&self, live: bool) {
        self.listening
            .store(live, std::sync::atomic::Ordering::Relaxed);
    }

    /// Records how far the running round has come (`None`: no round runs).
    pub fn set_sync_progress(&self, progress: Option<SyncProgress>) {
        if let Ok(mut current) = self.sync_progress.lock() {
            *current = progress;
        }
    }

    /// `GET /v3/sync/attention`: the changes the server refused, with the
    /// reason, each record once, oldest first. The edits are kept.
    pub fn sync_attention(&self, who: &Principal) -> Result<Vec<NeedsAttention>> {
        who.require(Action::SyncGet)?;
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT record_type, uuid, MAX(last_error), MAX(attempts), MIN(created_at) FROM outbox
                 WHERE state = 'attention' GROUP BY record_type, uuid ORDER BY MIN(id)",
            )?;
            let rows = stmt.query_map([], |row| {
                let record_type: RecordType = row.get(0)?;
                let uuid: String = row.get(1)?;
                Ok(NeedsAttention {
                    srn: self.srn(record_type, &uuid),
                    record: RecordLabel {
                        record_type,
                        uuid: uuid.clone(),
                        headline: String::new(),
                        story: None,
                    },
                    record_type,
                    uuid,
                    error: row.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    attempts: row.get(3)?,
                    since: row.get(4)?,
                })
            })?;
            let mut found: Vec<NeedsAttention> = rows.collect::<Result<_, _>>()?;
            for refused in &mut found {
                refused.record = label_of(tx, refused.record_type, &refused.uuid)?;
            }
            Ok(found)
        })
    }

    /// `GET /v3/sync/waiting`: the local changes waiting to go, each record
    /// once, oldest first, with what a person calls it.
    pub fn sync_waiting(&self, who: &Principal) -> Result<Vec<WaitingChange>> {
        who.require(Action::SyncGet)?;
        self.read(|tx| {
            // The latest change's operation and error, each from the record's newest row.
            let mut stmt = tx.prepare_cached(
                "SELECT o.record_type, o.uuid,
                        (SELECT l.operation FROM outbox l WHERE l.record_type = o.record_type AND l.uuid = o.uuid
                         AND l.state = 'pending' ORDER BY l.id DESC LIMIT 1),
                        MAX(o.attempts),
                        (SELECT l.last_error FROM outbox l WHERE l.record_type = o.record_type AND l.uuid = o.uuid
                         AND l.state = 'pending' AND l.last_error IS NOT NULL ORDER BY l.id DESC LIMIT 1),
                        MIN(o.created_at)
                 FROM outbox o WHERE o.state = 'pending' GROUP BY o.record_type, o.uuid ORDER BY MIN(o.id)",
            )?;
            let rows: Vec<(RecordType, String, String, i64, Option<String>, String)> = stmt
                .query_map([], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?))
                })?
                .collect::<Result<_, _>>()?;
            let mut waiting = Vec::with_capacity(rows.len());
            for (record_type, uuid, operation, attempts, last_error, since) in rows {
                waiting.push(WaitingChange {
                    srn: self.srn(record_type, &uuid),
                    record: label_of(tx, record_type, &uuid)?,
                    operation,
                    attempts,
                    last_error,
                    since,
                });
            }
            Ok(waiting)
        })
    }

    /// Records how the last round ended: whether it reached the remote and
    /// why not, why it failed, or (it succeeded) the time of the last good sync.
    pub fn record_round(&self, end: &RoundEnd) -> Result<()> {
        let now = clock::now();
        self.write(|tx| {
            match end {
                RoundEnd::Completed => tx.execute(
                    "UPDATE sync_remote SET online = ?1, offline_reason = NULL, certificate_untrusted = ?2,
                     last_error = NULL, last_error_at = NULL, last_sync_at = ?3 WHERE id = 1",
                    params![true, false, now],
                )?,
                RoundEnd::Failed { error, unreached } => tx.execute(
                    "UPDATE sync_remote SET online = ?1, offline_reason = ?2, certificate_untrusted = ?3,
                     last_error = ?4, last_error_at = ?5 WHERE id = 1",
                    params![
                        unreached.is_none(),
                        unreached.as_ref().and_then(|u| u.reason.as_deref()),
                        unreached.as_ref().is_some_and(|u| u.certificate_untrusted),
                        error,
                        now
                    ],
                )?,
            };
            Ok(())
        })
    }
}

mod conflicts;

#[cfg(test)]
mod tests;
