//! The sync engine: pull the change feed (merging under pending local edits), then push the outbox
//! (planned, then sent with idempotency keys).
//!
//! One record's failure never blocks another's: a passing failure stays in
//! the outbox for the next round, a refusal is set aside as needing
//! attention with the edit kept.

use std::sync::Arc;

use copydesk_core::Cms;
use copydesk_core::replica::{Fields, PendingRecord, RemoteChange, SYNCED_TYPES};
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

/// The synced fields of a record as the remote shows it.
fn fields_of_wire(record_type: &str, record: &Value) -> Fields {
    let names: &[&str] = match record_type {
        "author" => &["slug", "name", "email", "tagline", "description", "status"],
        _ => &["name", "slug"],
    };
    names
        .iter()
        .map(|name| {
            let value = match record.get(*name) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            ((*name).to_owned(), Value::String(value))
        })
        .collect()
}

/// The single record of an answer that wraps it in an array.
fn single(answer: Value) -> Result<Value, SyncError> {
    match answer {
        Value::Array(mut items) if items.len() == 1 => Ok(items.remove(0)),
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
                    Some(&Value::Object(body.clone())),
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
                    Some(&Value::Object(changes.clone())),
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

/// Sends every pending local change; returns (pushed, waiting).
async fn push(cms: &Arc<Cms>, remote: &Remote) -> Result<(usize, usize), SyncError> {
    let pending = blocking(cms, |cms| cms.pending_records()).await?;
    let (mut pushed, mut waiting) = (0, 0);
    for record in pending {
        let step = plan(&record);
        match push_one(remote, &record, &step).await {
            Ok((remote_uuid, answer)) => {
                let settled = record.clone();
                blocking(cms, move |cms| {
                    cms.record_pushed(&settled, &remote_uuid, answer.as_ref())
                })
                .await?;
                if step != Step::Settle {
                    pushed += 1;
                }
            }
            Err(err) => {
                let permanent = !err.is_transient();
                if !permanent {
                    waiting += 1;
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
    Ok((pushed, waiting))
}

/// Reads the change feed from the saved cursor and applies it page by page.
async fn pull(cms: &Arc<Cms>, remote: &Remote) -> Result<usize, SyncError> {
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
        blocking(cms, move |cms| cms.apply_remote_page(&changes, last)).await?;
        cursor = last;
        if !feed.more {
            return Ok(pulled);
        }
    }
}

/// One round: pull, then push.
pub async fn sync_once(cms: &Arc<Cms>, remote: &Remote) -> Result<Summary, SyncError> {
    let round = round(cms, remote).await;
    let reached = !matches!(round, Err(SyncError::Unreachable(_)));
    blocking(cms, move |cms| cms.set_online(reached)).await?;
    round
}

async fn round(cms: &Arc<Cms>, remote: &Remote) -> Result<Summary, SyncError> {
    let capabilities = remote.capabilities().await?;
    if !capabilities.change_feed {
        return Err(SyncError::Protocol(
            "the remote offers no change feed; syncing with a plain /v3 server is not built yet"
                .into(),
        ));
    }
    // Pull first: remote changes are merged under the pending local edits
    // (a rebase), so the push then sends only what is still this side's own.
    let pulled = pull(cms, remote).await?;
    let (pushed, waiting) = push(cms, remote).await?;
    let status = blocking(cms, |cms| cms.sync_state()).await?;
    Ok(Summary {
        pushed,
        pulled,
        conflicts: status.conflicts,
        needs_attention: status.needs_attention,
        waiting,
    })
}
