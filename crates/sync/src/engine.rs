//! The sync engine: push new records, pull the change feed (merging under pending local edits),
//! then push the other changes; every write is planned, then sent with its idempotency key.
//!
//! One record's failure never blocks another's: a passing failure stays in
//! the outbox for the next round, a refusal is set aside as needing
//! attention with the edit kept.

use std::sync::Arc;

use copydesk_core::Cms;
use copydesk_core::replica::{
    Fields, PendingRecord, RemoteChange, SYNCED_TYPES, field_text, synced_fields,
};
use reqwest::Method;
use serde_json::Value;

use crate::error::SyncError;
use crate::plan::{Step, plan};
use crate::remote::Remote;

/// What one round of sync did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub pushed: usize,
    pub pulled: usize,
    pub conflicts: i64,
    pub needs_attention: i64,
    /// Changes that failed for now and wait for the next round.
    pub waiting: usize,
}

/// What a round reports as it goes, for a progress display.
pub trait Progress: Send + Sync {
    /// Changes brought in so far this round.
    fn pulled(&self, so_far: usize);
    /// Local changes sent so far this round.
    fn pushed(&self, so_far: usize);
}

/// Reports nothing.
pub struct Quiet;

impl Progress for Quiet {
    fn pulled(&self, _so_far: usize) {}
    fn pushed(&self, _so_far: usize) {}
}

/// Runs blocking store work off the async runtime.
async fn blocking<T: Send + 'static>(
    cms: &Arc<Cms>,
    work: impl FnOnce(&Cms) -> copydesk_core::Result<T> + Send + 'static,
) -> Result<T, SyncError> {
    let cms = Arc::clone(cms);
    tokio::task::spawn_blocking(move || work(&cms))
        .await
        .map_err(|err| SyncError::Protocol(format!("a sync task failed: {err}")))?
        .map_err(|err| SyncError::Protocol(format!("the local store: {err}")))
}

/// The synced fields of a record as the remote shows it (each a string; lists as JSON arrays).
fn fields_of_wire(record_type: &str, record: &Value) -> Fields {
    let names = synced_fields(record_type);
    let mut fields: Fields = names
        .iter()
        .map(|name| {
            (
                (*name).to_owned(),
                Value::String(field_text(record.get(*name))),
            )
        })
        .collect();
    if record_type == "content" {
        let list = |field: &str, key: &str| -> Value {
            let items: Vec<Value> = record
                .get(field)
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .map(|item| Value::String(field_text(item.get(key))))
                        .collect()
                })
                .unwrap_or_default();
            Value::String(Value::Array(items).to_string())
        };
        fields.insert("authors".into(), list("authors", "uuid"));
        fields.insert("tags".into(), list("tags", "uuid"));
        fields.insert("urls".into(), list("urls", "url"));
    }
    fields
}

/// The request body for synced fields: lists as arrays, an empty date as `null`.
fn body_of(record_type: &str, fields: &Fields) -> Value {
    let mut body = serde_json::Map::new();
    for (name, value) in fields {
        let text = field_text(Some(value));
        let value = match (record_type, name.as_str()) {
            ("content", "authors" | "tags" | "urls") => {
                serde_json::from_str(&text).unwrap_or(Value::Array(Vec::new()))
            }
            ("content", "published_at") if text.is_empty() => Value::Null,
            _ => Value::String(text),
        };
        body.insert(name.clone(), value);
    }
    Value::Object(body)
}

/// The record of an answer: content answers an object, the others an array holding one.
fn single(answer: Value) -> Result<Value, SyncError> {
    match answer {
        Value::Array(mut items) if items.len() == 1 => Ok(items.remove(0)),
        Value::Object(record) => Ok(Value::Object(record)),
        other => Err(SyncError::Protocol(format!(
            "expected one record, got {other}"
        ))),
    }
}

async fn push_one(
    remote: &Remote,
    record: &PendingRecord,
    step: &Step,
) -> Result<(String, Option<Fields>), SyncError> {
    let kind = record.record_type.as_str();
    match step {
        Step::Create { body } => {
            let answer: Value = remote
                .request(
                    Method::POST,
                    &format!("/v3/{kind}"),
                    Some(&body_of(kind, body)),
                    Some(&record.key),
                )
                .await?;
            let created = single(answer)?;
            let uuid = created["uuid"]
                .as_str()
                .ok_or_else(|| SyncError::Protocol("a created record without a uuid".into()))?
                .to_owned();
            Ok((uuid, Some(fields_of_wire(kind, &created))))
        }
        Step::Update {
            remote_uuid,
            changes,
        } => {
            let answer: Value = remote
                .request(
                    Method::PUT,
                    &format!("/v3/{kind}/{remote_uuid}"),
                    Some(&body_of(kind, changes)),
                    Some(&record.key),
                )
                .await?;
            Ok((
                remote_uuid.clone(),
                Some(fields_of_wire(kind, &single(answer)?)),
            ))
        }
        Step::Delete { remote_uuid } => {
            let sent: Result<Value, SyncError> = remote
                .request::<(), Value>(
                    Method::DELETE,
                    &format!("/v3/{kind}/{remote_uuid}"),
                    None,
                    Some(&record.key),
                )
                .await;
            match sent {
                Ok(_) | Err(SyncError::Remote { status: 404, .. }) => {
                    Ok((remote_uuid.clone(), None))
                }
                Err(err) => Err(err),
            }
        }
        Step::Settle => Ok((
            record.remote_uuid.clone().unwrap_or_default(),
            record.base.clone(),
        )),
    }
}

/// What a push pass did.
#[derive(Debug, Default, Clone, Copy)]
struct Pushed {
    pushed: usize,
    waiting: usize,
    /// A create failed in a way that leaves open whether the server made the record.
    uncertain_create: bool,
}

/// Sends the pending local changes (only the creates when `creates_only`).
async fn push(
    cms: &Arc<Cms>,
    remote: &Remote,
    creates_only: bool,
    already: usize,
    plain: bool,
    progress: &dyn Progress,
) -> Result<Pushed, SyncError> {
    let pending = blocking(cms, |cms| cms.pending_records()).await?;
    let mut done = Pushed::default();
    let mut listed = std::collections::HashMap::new();
    for record in pending {
        // Read it again: the pushes before it may have given its references remote identities.
        let stale = record.clone();
        let record = blocking(cms, move |cms| cms.refresh_pending(&stale)).await?;
        let step = plan(&record);
        let is_create = matches!(step, Step::Create { .. });
        if creates_only && !is_create {
            continue;
        }
        // A plain remote keeps no idempotency keys: a create tried before may
        // have been made already (its answer lost). Look before sending again.
        if plain
            && is_create
            && record.attempts > 0
            && let Some((remote_uuid, answer)) = find_made(remote, &record, &mut listed).await?
        {
            let settled = record.clone();
            blocking(cms, move |cms| {
                cms.record_pushed(&settled, &remote_uuid, Some(&answer))
            })
            .await?;
            done.pushed += 1;
            progress.pushed(already + done.pushed);
            continue;
        }
        match push_one(remote, &record, &step).await {
            Ok((remote_uuid, answer)) => {
                let settled = record.clone();
                blocking(cms, move |cms| {
                    cms.record_pushed(&settled, &remote_uuid, answer.as_ref())
                })
                .await?;
                if step != Step::Settle {
                    done.pushed += 1;
                    progress.pushed(already + done.pushed);
                }
            }
            Err(err) => {
                let permanent = !err.is_transient();
                if !permanent {
                    done.waiting += 1;
                    done.uncertain_create |= is_create;
                }
                let message = err.to_string();
                let failed = record.clone();
                blocking(cms, move |cms| {
                    cms.record_push_failed(&failed, &message, permanent)
                })
                .await?;
                // The remote is gone: the rest would fail the same way.
                if matches!(err, SyncError::Unreachable(_)) {
                    break;
                }
            }
        }
    }
    Ok(done)
}

/// Reads the change feed from the saved cursor and applies it page by page.
async fn pull(
    cms: &Arc<Cms>,
    remote: &Remote,
    progress: &dyn Progress,
) -> Result<usize, SyncError> {
    let mut cursor = blocking(cms, |cms| cms.sync_cursor()).await?;
    let mut pulled = 0;
    loop {
        let feed = remote.changes(cursor, 500).await?;
        let mut changes = Vec::new();
        for change in feed
            .items
            .iter()
            .filter(|c| SYNCED_TYPES.contains(&c.record_type.as_str()))
        {
            let fields = if change.operation == "delete" {
                None
            } else {
                let read: Result<Value, SyncError> = remote
                    .get(&format!("/v3/{}/{}", change.record_type, change.uuid))
                    .await;
                match read {
                    Ok(answer) => Some(fields_of_wire(&change.record_type, &single(answer)?)),
                    Err(SyncError::Remote { status: 404, .. }) => None,
                    Err(err) => return Err(err),
                }
            };
            changes.push(RemoteChange {
                record_type: change.record_type.clone(),
                remote_uuid: change.uuid.clone(),
                fields,
            });
        }
        let last: i64 = feed.last.parse().map_err(|_| {
            SyncError::Protocol(format!("a cursor that is not a number: {}", feed.last))
        })?;
        pulled += changes.len();
        progress.pulled(pulled);
        blocking(cms, move |cms| cms.apply_remote_page(&changes, last)).await?;
        cursor = last;
        if !feed.more {
            return Ok(pulled);
        }
    }
}

/// One round: push creates, pull, push the rest.
pub async fn sync_once(cms: &Arc<Cms>, remote: &Remote) -> Result<Summary, SyncError> {
    sync_with_progress(cms, remote, &Quiet).await
}

/// Every record of `kind` on the remote, oldest change first.
async fn list_all(remote: &Remote, kind: &str) -> Result<Vec<Value>, SyncError> {
    let mut records = Vec::new();
    let mut page = 1u64;
    loop {
        let listed: Value = remote
            .get(&format!(
                "/v3/{kind}?order=modified_at&dir=asc&per_page=500&page={page}"
            ))
            .await?;
        if let Some(items) = listed["items"].as_array() {
            records.extend(items.iter().cloned());
        }
        let last = listed["last"].as_u64().unwrap_or(1);
        if page >= last {
            return Ok(records);
        }
        page += 1;
    }
}

/// The remote record a create whose answer was lost made, if it made one.
/// `listed` keeps each type's listing for the rest of the pass, so several
/// lost creates cost one listing, not one each.
async fn find_made(
    remote: &Remote,
    record: &PendingRecord,
    listed: &mut std::collections::HashMap<String, Vec<Value>>,
) -> Result<Option<(String, Fields)>, SyncError> {
    let kind = record.record_type.as_str();
    let Some(current) = &record.current else {
        return Ok(None);
    };
    let identifying: &[&str] = match kind {
        "author" => &["name", "slug", "email"],
        "tag" => &["name", "slug"],
        _ => &["title", "slug", "type", "content"],
    };
    if !listed.contains_key(kind) {
        listed.insert(kind.to_owned(), list_all(remote, kind).await?);
    }
    for candidate in listed.get(kind).into_iter().flatten() {
        let fields = fields_of_wire(kind, candidate);
        if identifying
            .iter()
            .all(|field| fields.get(*field) == current.get(*field))
            && let Some(uuid) = candidate["uuid"].as_str()
        {
            return Ok(Some((uuid.to_owned(), fields)));
        }
    }
    Ok(None)
}

/// Pulls from a plain remote (no change feed): lists every record and finds
/// deletions by reconciling identifiers with what was synced before.
async fn pull_by_listing(
    cms: &Arc<Cms>,
    remote: &Remote,
    progress: &dyn Progress,
) -> Result<usize, SyncError> {
    let mut changes = Vec::new();
    for kind in SYNCED_TYPES {
        let listed = list_all(remote, kind).await?;
        let mut seen = std::collections::HashSet::new();
        for record in &listed {
            let Some(uuid) = record["uuid"].as_str() else {
                continue;
            };
            seen.insert(uuid.to_owned());
            changes.push(RemoteChange {
                record_type: (*kind).to_owned(),
                remote_uuid: uuid.to_owned(),
                fields: Some(fields_of_wire(kind, record)),
            });
        }
        let kind_name = (*kind).to_owned();
        let synced = blocking(cms, move |cms| cms.synced_remote_uuids(&kind_name)).await?;
        for gone in synced.into_iter().filter(|uuid| !seen.contains(uuid)) {
            changes.push(RemoteChange {
                record_type: (*kind).to_owned(),
                remote_uuid: gone,
                fields: None,
            });
        }
    }
    let pulled = changes.len();
    let cursor = blocking(cms, |cms| cms.sync_cursor()).await?;
    blocking(cms, move |cms| cms.apply_remote_page(&changes, cursor)).await?;
    progress.pulled(pulled);
    Ok(pulled)
}

/// One round, reporting its progress as it goes.
pub async fn sync_with_progress(
    cms: &Arc<Cms>,
    remote: &Remote,
    progress: &dyn Progress,
) -> Result<Summary, SyncError> {
    let round = round(cms, remote, progress).await;
    let reached = !matches!(round, Err(SyncError::Unreachable(_)));
    blocking(cms, move |cms| cms.set_online(reached)).await?;
    round
}

async fn round(
    cms: &Arc<Cms>,
    remote: &Remote,
    progress: &dyn Progress,
) -> Result<Summary, SyncError> {
    let capabilities = remote.capabilities().await?;

    // Creates go first: a record this side made must have its remote identity
    // before the pull brings the server's copy of it. When a create's outcome
    // is unknown (its answer was lost), the pull waits for the next round.
    let plain = !capabilities.change_feed;
    let creates = push(cms, remote, true, 0, plain, progress).await?;
    if creates.uncertain_create {
        let status = blocking(cms, |cms| cms.sync_state()).await?;
        return Ok(Summary {
            pushed: creates.pushed,
            pulled: 0,
            conflicts: status.conflicts,
            needs_attention: status.needs_attention,
            waiting: creates.waiting,
        });
    }
    // Then pull: remote changes are merged under the pending local edits (a
    // rebase), so the push then sends only what is still this side's own.
    let pulled = if plain {
        pull_by_listing(cms, remote, progress).await?
    } else {
        pull(cms, remote, progress).await?
    };
    let rest = push(cms, remote, false, creates.pushed, plain, progress).await?;
    let (pushed, waiting) = (creates.pushed + rest.pushed, creates.waiting + rest.waiting);
    let status = blocking(cms, |cms| cms.sync_state()).await?;
    Ok(Summary {
        pushed,
        pulled,
        conflicts: status.conflicts,
        needs_attention: status.needs_attention,
        waiting,
    })
}
