//! Each synced record type as a remote `/v3` service reads and writes it:
//! its fields in an answer, where one is read, and the requests that send it.
//!
//! Comments, drafts and attachments are read through the record they belong
//! to (a thread, an assignment, a content item), as the specification has
//! them; everything else at `/v3/{type}/{uuid}`.

use std::sync::Arc;

use base64::Engine as _;
use copydesk_core::replica::{
    Fields, PendingRecord, RecordType, RemoteAccess, SyncedType, field_text,
};
use copydesk_core::synced::TypeSynced as _;
use copydesk_core::synced::canonical_json;
use copydesk_core::{Cms, CoreError};
use reqwest::Method;
use serde_json::{Value, json};

use crate::error::SyncError;
use crate::plan::Step;
use crate::remote::Remote;

/// The synced fields of a record as the remote shows it (each a string; lists as JSON arrays).
pub fn fields_of_wire(kind: &dyn SyncedType, record: &Value) -> Fields {
    kind.fields_of_answer(record)
}

/// An attachment's fields, with the remote content item it belongs to.
pub fn attachment_fields(content: &str, attachment: &Value) -> Fields {
    let text = |name: &str| Value::String(field_text(attachment.get(name)));
    let metadata = match attachment.get("metadata") {
        Some(Value::Null) | None => String::new(),
        Some(value) => canonical_json(Some(&value.to_string())),
    };
    let mut fields = Fields::new();
    fields.insert("content".into(), Value::String(content.to_owned()));
    fields.insert(
        "name".into(),
        Value::String(format!(
            "{}.{}",
            field_text(attachment.get("base_name")),
            field_text(attachment.get("extension"))
        )),
    );
    fields.insert("sha256".into(), text("sha256"));
    let angle = field_text(attachment.get("angle"));
    fields.insert(
        "angle".into(),
        Value::String(if angle.is_empty() { "0".into() } else { angle }),
    );
    fields.insert("metadata".into(), Value::String(metadata));
    fields
}

/// A note comment's fields; its parent is found in its thread by numeric id.
fn note_fields(note: &Value, thread: &[Value]) -> Fields {
    let parent_id = field_text(note.get("parent_id"));
    let parent = if parent_id.is_empty() || parent_id == "0" {
        "root".to_owned()
    } else {
        thread
            .iter()
            .find(|n| field_text(n.get("id")) == parent_id)
            .map(|n| field_text(n.get("uuid")))
            .unwrap_or_else(|| "root".to_owned())
    };
    let mut fields = Fields::new();
    for name in ["comment", "reference", "draft_uuid"] {
        fields.insert(name.into(), Value::String(field_text(note.get(name))));
    }
    fields.insert("parent".into(), Value::String(parent));
    fields
}

fn assignment_comment_fields(assignment: &str, comment: &Value) -> Fields {
    let mut fields = Fields::new();
    fields.insert(
        "comment".into(),
        Value::String(field_text(comment.get("comment"))),
    );
    fields.insert("assignment".into(), Value::String(assignment.to_owned()));
    fields
}

fn draft_fields(item: &str, draft: &Value) -> Fields {
    let mut fields = Fields::new();
    fields.insert(
        "content".into(),
        Value::String(field_text(draft.get("content"))),
    );
    fields.insert(
        "content_raw".into(),
        Value::String(field_text(draft.get("content_raw"))),
    );
    fields.insert("item".into(), Value::String(item.to_owned()));
    // The rest of the form, as JSON text (empty for none), as the replica keeps it.
    fields.insert(
        "fields".into(),
        Value::String(field_text(draft.get("fields"))),
    );
    fields
}

/// The record of an answer: some answer an object, others an array holding one.
pub fn single(answer: Value) -> Result<Value, SyncError> {
    match answer {
        Value::Array(mut items) if items.len() == 1 => Ok(items.remove(0)),
        Value::Object(record) => Ok(Value::Object(record)),
        other => Err(SyncError::Protocol(format!(
            "expected one record, got {other}"
        ))),
    }
}

fn items(answer: &Value) -> Vec<Value> {
    answer["items"].as_array().cloned().unwrap_or_default()
}

/// The remote content item's SRN (drafts are addressed by it).
async fn content_srn(remote: &Remote, uuid: &str) -> Result<String, SyncError> {
    let item: Value = remote.get(&format!("/v3/content/{uuid}")).await?;
    Ok(field_text(item.get("srn")))
}

/// A record read from the remote: its fields, and for an attachment the URL of its file.
pub struct Read {
    pub fields: Fields,
    pub file_url: Option<String>,
}

/// Reads one record (`parent`: the record it is read through, from the change feed).
/// `None`: it is gone, or (a draft) a newer one has replaced it.
pub async fn read(
    remote: &Remote,
    record_type: RecordType,
    uuid: &str,
    parent: Option<&str>,
) -> Result<Option<Read>, SyncError> {
    let kind = record_type.carried().map_err(SyncError::Local)?;
    let plain = |fields| {
        Some(Read {
            fields,
            file_url: None,
        })
    };
    let gone = |err: SyncError| match err {
        SyncError::Remote { status: 404, .. } => Ok(None),
        err => Err(err),
    };
    let parent = parent.unwrap_or_default();
    match kind.remote_access() {
        RemoteAccess::ContentAttachment => {
            match remote.get::<Value>(&format!("/v3/content/{parent}")).await {
                Ok(item) => {
                    Ok(attachment_read(parent, &item)
                        .filter(|_| item["attachment"]["uuid"] == uuid))
                }
                Err(err) => gone(err),
            }
        }
        RemoteAccess::NoteThread => match remote
            .get::<Value>(&format!("/v3/note-comment/{parent}"))
            .await
        {
            Ok(answer) => {
                let thread = items(&answer);
                Ok(thread
                    .iter()
                    .find(|n| n["uuid"] == uuid)
                    .map(|n| note_fields(n, &thread))
                    .and_then(plain))
            }
            Err(err) => gone(err),
        },
        RemoteAccess::AssignmentComments => {
            match remote
                .get::<Value>(&format!("/v3/assignment-comment/{parent}"))
                .await
            {
                Ok(answer) => Ok(items(&answer)
                    .iter()
                    .find(|c| c["uuid"] == uuid)
                    .map(|c| assignment_comment_fields(parent, c))
                    .and_then(plain)),
                Err(err) => gone(err),
            }
        }
        RemoteAccess::ContentDrafts => {
            let srn = match content_srn(remote, parent).await {
                Ok(srn) => srn,
                Err(err) => return gone(err),
            };
            match remote
                .get::<Value>(&format!("/v3/draft?content={srn}"))
                .await
            {
                Ok(answer) => Ok(answer
                    .as_array()
                    .and_then(|drafts| drafts.iter().find(|d| d["uuid"] == uuid))
                    .map(|d| draft_fields(parent, d))
                    .and_then(plain)),
                Err(err) => gone(err),
            }
        }
        RemoteAccess::Own => match remote
            .get::<Value>(&format!("/v3/{}/{uuid}", record_type.path()))
            .await
        {
            Ok(answer) => Ok(plain(kind.fields_of_answer(&single(answer)?))),
            Err(err) => gone(err),
        },
    }
}

/// A content item's attachment, read from the item.
pub fn attachment_read(content: &str, item: &Value) -> Option<Read> {
    let attachment = item.get("attachment").filter(|a| a.is_object())?;
    Some(Read {
        fields: attachment_fields(content, attachment),
        file_url: Some(field_text(attachment.get("original_url"))),
    })
}

/// The records read through one content item of a plain remote: its
/// attachment, its note thread and its last draft. A kind the key may not
/// read is left out and added to `refused` with the action it lacks; a
/// kind already there is not asked for again.
pub async fn read_children(
    remote: &Remote,
    item: &Value,
    refused: &mut Vec<(RecordType, String)>,
) -> Result<Vec<(RecordType, String, Read)>, SyncError> {
    let uuid = field_text(item.get("uuid"));
    let mut found = Vec::new();
    if let Some(read) = attachment_read(&uuid, item) {
        found.push((
            RecordType::Attachment,
            field_text(item["attachment"].get("uuid")),
            read,
        ));
    }
    let thread = match readable(
        remote,
        RecordType::NoteComment,
        &format!("/v3/note-comment/{uuid}"),
        refused,
    )
    .await?
    {
        Some(answer) => items(&answer),
        None => Vec::new(),
    };
    for note in &thread {
        found.push((
            RecordType::NoteComment,
            field_text(note.get("uuid")),
            Read {
                fields: note_fields(note, &thread),
                file_url: None,
            },
        ));
    }
    let srn = field_text(item.get("srn"));
    let drafts = readable(
        remote,
        RecordType::Draft,
        &format!("/v3/draft?content={srn}"),
        refused,
    )
    .await?
    .unwrap_or_default();
    for draft in drafts.as_array().into_iter().flatten() {
        found.push((
            RecordType::Draft,
            field_text(draft.get("uuid")),
            Read {
                fields: draft_fields(&uuid, draft),
                file_url: None,
            },
        ));
    }
    Ok(found)
}

/// The answer at `path`, or `None` when the key may not read `kind` (added
/// to `refused` with the action it lacks) or was refused it before.
async fn readable(
    remote: &Remote,
    kind: RecordType,
    path: &str,
    refused: &mut Vec<(RecordType, String)>,
) -> Result<Option<Value>, SyncError> {
    if refused.iter().any(|(k, _)| *k == kind) {
        return Ok(None);
    }
    match remote.get::<Value>(path).await {
        Ok(answer) => Ok(Some(answer)),
        Err(err) => match err.missing_action() {
            Some(action) => {
                refused.push((kind, action));
                Ok(None)
            }
            None => Err(err),
        },
    }
}

/// The comments of one assignment on a plain remote.
pub async fn read_assignment_comments(
    remote: &Remote,
    assignment: &str,
) -> Result<Vec<(String, Fields)>, SyncError> {
    let answer: Value = remote
        .get(&format!("/v3/assignment-comment/{assignment}"))
        .await?;
    Ok(items(&answer)
        .iter()
        .map(|c| {
            (
                field_text(c.get("uuid")),
                assignment_comment_fields(assignment, c),
            )
        })
        .collect())
}

/// Sends one record's step; returns its remote UUID and the remote's state
/// of it (`None`: gone on both sides, or settled without an answer).
pub async fn send(
    cms: &Arc<Cms>,
    remote: &Remote,
    record: &PendingRecord,
    step: &Step,
    plain: bool,
) -> Result<(String, Option<Fields>), SyncError> {
    let record_type = record.record_type;
    let kind = record_type.carried().map_err(SyncError::Local)?;
    let key = record.key.as_str();
    match (kind.remote_access(), step) {
        (_, Step::Settle) => Ok((
            record.remote_uuid.clone().unwrap_or_default(),
            record.base.clone(),
        )),
        // Comments, drafts and attachments go with what they belong to.
        (
            RemoteAccess::ContentAttachment
            | RemoteAccess::NoteThread
            | RemoteAccess::AssignmentComments
            | RemoteAccess::ContentDrafts,
            Step::Delete { remote_uuid },
        ) => Ok((remote_uuid.clone(), None)),
        // Workflows and issues have no update or delete endpoint: a change stays here.
        (_, Step::Delete { remote_uuid }) if kind.append_only() => Ok((remote_uuid.clone(), None)),
        (_, Step::Update { remote_uuid, .. }) if kind.append_only() => {
            Ok((remote_uuid.clone(), record.base.clone()))
        }
        (RemoteAccess::ContentAttachment, Step::Create { body }) => {
            send_attachment(cms, remote, record, body, body, plain).await
        }
        (RemoteAccess::ContentAttachment, Step::Update { changes, .. }) => {
            let current = record.current.clone().unwrap_or_default();
            send_attachment(cms, remote, record, &current, changes, plain).await
        }
        (RemoteAccess::NoteThread, Step::Create { body }) => {
            let parent = field_text(body.get("parent"));
            let sent = json!({
                "comment": field_text(body.get("comment")),
                "reference": field_text(body.get("reference")),
                "draft_uuid": field_text(body.get("draft_uuid")),
            });
            let answer: Value = remote
                .request(
                    Method::POST,
                    &format!("/v3/note-comment/{parent}"),
                    Some(&sent),
                    Some(key),
                )
                .await?;
            let thread = items(&answer);
            let number = |n: &Value| field_text(n.get("id")).parse::<u64>().unwrap_or(0);
            let mine = thread
                .iter()
                .filter(|n| n["comment"] == sent["comment"])
                .max_by_key(|n| number(n))
                .or_else(|| thread.iter().max_by_key(|n| number(n)))
                .ok_or_else(|| SyncError::Protocol("a comment thread came back empty".into()))?;
            Ok((
                field_text(mine.get("uuid")),
                Some(note_fields(mine, &thread)),
            ))
        }
        (RemoteAccess::AssignmentComments, Step::Create { body }) => {
            let assignment = field_text(body.get("assignment"));
            let sent = json!({ "comment": field_text(body.get("comment")) });
            let answer: Value = remote
                .request(
                    Method::POST,
                    &format!("/v3/assignment-comment/{assignment}"),
                    Some(&sent),
                    Some(key),
                )
                .await?;
            let made = single(answer)?;
            Ok((
                field_text(made.get("uuid")),
                Some(assignment_comment_fields(&assignment, &made)),
            ))
        }
        (RemoteAccess::ContentDrafts, Step::Create { body }) => {
            let item = field_text(body.get("item"));
            let srn = content_srn(remote, &item).await?;
            let form = serde_json::from_str::<Value>(&field_text(body.get("fields")))
                .ok()
                .filter(Value::is_object);
            let sent = json!({
                "content": field_text(body.get("content")),
                "content_raw": field_text(body.get("content_raw")),
                "fields": form,
            });
            let answer: Value = remote
                .request(
                    Method::POST,
                    &format!("/v3/draft?content={srn}"),
                    Some(&sent),
                    Some(key),
                )
                .await?;
            let made = single(answer)?;
            Ok((
                field_text(made.get("uuid")),
                Some(draft_fields(&item, &made)),
            ))
        }
        // A read-through type is only ever created, or goes with what it belongs to.
        (
            RemoteAccess::NoteThread
            | RemoteAccess::AssignmentComments
            | RemoteAccess::ContentDrafts,
            Step::Update { remote_uuid, .. },
        ) => Ok((remote_uuid.clone(), record.base.clone())),
        (RemoteAccess::Own, Step::Create { body }) => {
            let answer: Value = remote
                .request(
                    Method::POST,
                    &format!("/v3/{}", record_type.path()),
                    Some(&kind.request_body(body)),
                    Some(key),
                )
                .await?;
            let created = single(answer)?;
            let uuid = created["uuid"]
                .as_str()
                .ok_or_else(|| SyncError::Protocol("a created record without a uuid".into()))?
                .to_owned();
            Ok((uuid, Some(kind.fields_of_answer(&created))))
        }
        (
            RemoteAccess::Own,
            Step::Update {
                remote_uuid,
                changes,
            },
        ) => {
            let answer: Value = remote
                .request(
                    Method::PUT,
                    &format!("/v3/{}/{remote_uuid}", record_type.path()),
                    Some(&kind.request_body(changes)),
                    Some(key),
                )
                .await?;
            Ok((
                remote_uuid.clone(),
                Some(kind.fields_of_answer(&single(answer)?)),
            ))
        }
        (RemoteAccess::Own, Step::Delete { remote_uuid }) => {
            let sent: Result<Value, SyncError> = remote
                .request::<(), Value>(
                    Method::DELETE,
                    &format!("/v3/{}/{remote_uuid}", record_type.path()),
                    None,
                    Some(key),
                )
                .await;
            match sent {
                Ok(_) | Err(SyncError::Remote { status: 404, .. }) => {
                    Ok((remote_uuid.clone(), None))
                }
                Err(err) => Err(err),
            }
        }
    }
}

/// Sends an attachment: its file when it changed (streamed from disk to a
/// Copydesk server; base64 in the body, as the specification has it, to a
/// plain one), then its angle and its preview settings when they changed.
async fn send_attachment(
    cms: &Arc<Cms>,
    remote: &Remote,
    record: &PendingRecord,
    current: &Fields,
    changed: &Fields,
    plain: bool,
) -> Result<(String, Option<Fields>), SyncError> {
    let content = field_text(current.get("content"));
    let name = field_text(current.get("name"));
    let path_of = format!("/v3/attachment/{content}");
    let mut answer: Option<Value> = None;
    if changed.contains_key("sha256") {
        let local = record.uuid.clone();
        let cms = Arc::clone(cms);
        let path = tokio::task::spawn_blocking(move || cms.attachment_original(&local))
            .await
            .map_err(|err| SyncError::Local(CoreError::Internal(err.to_string())))?
            .map_err(SyncError::Local)?
            .ok_or_else(|| {
                SyncError::Local(CoreError::not_found(format!(
                    "the file of attachment {} is missing",
                    record.uuid
                )))
            })?;
        let key = format!("{}-file", record.key);
        answer = Some(if plain {
            let bytes = tokio::fs::read(&path)
                .await
                .map_err(|err| SyncError::Local(CoreError::from(err)))?;
            let sent = json!({ "name": name, "file": base64::engine::general_purpose::STANDARD.encode(bytes) });
            remote
                .request(Method::PUT, &path_of, Some(&sent), Some(&key))
                .await?
        } else {
            remote.upload_file(&content, &name, &path, &key).await?
        });
    }
    let angle = field_text(current.get("angle"));
    // A new attachment starts unturned: only a turn is sent.
    if changed.contains_key("angle") && (angle != "0" || record.remote_uuid.is_some()) {
        let sent = json!({ "angle": angle });
        let key = format!("{}-angle", record.key);
        answer = Some(
            remote
                .request(Method::PUT, &path_of, Some(&sent), Some(&key))
                .await?,
        );
    }
    let metadata = field_text(current.get("metadata"));
    if changed.contains_key("metadata") && !metadata.is_empty() {
        let parsed: Value = serde_json::from_str(&metadata).unwrap_or(Value::Null);
        let sent = json!({ "metadata": parsed });
        let key = format!("{}-metadata", record.key);
        answer = Some(
            remote
                .request(Method::PUT, &path_of, Some(&sent), Some(&key))
                .await?,
        );
    }
    let item = match answer {
        Some(item) => item,
        None => remote.get(&format!("/v3/content/{content}")).await?,
    };
    let attachment = item
        .get("attachment")
        .filter(|a| a.is_object())
        .ok_or_else(|| {
            SyncError::Protocol(format!(
                "content {content} came back without its attachment"
            ))
        })?;
    Ok((
        field_text(attachment.get("uuid")),
        Some(attachment_fields(&content, attachment)),
    ))
}
