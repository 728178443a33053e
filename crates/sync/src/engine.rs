//! The sync engine: push new records, pull the change feed (merging under pending local edits),
//! then push the other changes; every write is planned, then sent with its idempotency key.
//!
//! One record's failure never blocks another's: a passing failure stays in
//! the outbox for the next round, a refusal is set aside as needing
//! attention with the edit kept. A record the key may not read is skipped
//! (the cursor moves on), kept, and tried again each round.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use copydesk_core::Cms;
use copydesk_core::replica::{
    Fields, PendingRecord, RecordType, RemoteAccess, RemoteChange, RemotePage, RoundEnd, Skipped,
    SyncProgress, SyncedType, field_text, synced_types,
};
use copydesk_core::synced::TypeSynced as _;
use serde_json::Value;

use crate::error::SyncError;
use crate::local::blocking;
use crate::plan::{Step, plan};
use crate::remote::Remote;
use crate::remote_records::{Read, read, read_assignment_comments, read_children, send};

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

/// Keeps the running round's counts where `/v3/sync/status` reads them, and passes them on.
struct Recorded<'a> {
    cms: Arc<Cms>,
    shown: &'a dyn Progress,
}

impl Progress for Recorded<'_> {
    fn pulled(&self, so_far: usize) {
        let pushed = self.cms.sync_progress().map_or(0, |p| p.pushed);
        self.cms.set_sync_progress(Some(SyncProgress {
            pulled: so_far,
            pushed,
        }));
        self.shown.pulled(so_far);
    }
    fn pushed(&self, so_far: usize) {
        let pulled = self.cms.sync_progress().map_or(0, |p| p.pulled);
        self.cms.set_sync_progress(Some(SyncProgress {
            pulled,
            pushed: so_far,
        }));
        self.shown.pushed(so_far);
    }
}

/// Reports nothing.
pub struct Quiet;

impl Progress for Quiet {
    fn pulled(&self, _so_far: usize) {}
    fn pushed(&self, _so_far: usize) {}
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
    let superseded = superseded_drafts(&pending);
    let mut done = Pushed::default();
    let mut listed = HashMap::new();
    for record in pending {
        // An autosave another one replaced before it was sent is not sent.
        if superseded.contains(&record.uuid) {
            let settled = record.clone();
            blocking(cms, move |cms| cms.record_pushed(&settled, "", None)).await?;
            continue;
        }
        // Read it again: the pushes before it may have given its references remote identities.
        let stale = record.clone();
        let record = blocking(cms, move |cms| cms.refresh_pending(&stale)).await?;
        let step = plan(&record);
        let is_create = matches!(step, Step::Create { .. });
        if creates_only && !is_create {
            continue;
        }
        // It refers to a record the remote does not have yet: it waits for it.
        if record.waits && step != Step::Settle && !matches!(step, Step::Delete { .. }) {
            done.waiting += 1;
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
        match send(cms, remote, &record, &step, plain).await {
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
                if err.is_unreached() {
                    break;
                }
            }
        }
    }
    Ok(done)
}

/// The pending drafts a later pending draft of the same item replaces.
fn superseded_drafts(pending: &[PendingRecord]) -> HashSet<String> {
    let mut latest: HashMap<String, (i64, &str)> = HashMap::new();
    for record in pending
        .iter()
        .filter(|r| r.record_type == RecordType::Draft && r.remote_uuid.is_none())
    {
        let Some(item) = record.current.as_ref().map(|f| field_text(f.get("item"))) else {
            continue;
        };
        let newest = record.outbox_ids.iter().copied().max().unwrap_or(0);
        let entry = latest.entry(item).or_insert((newest, &record.uuid));
        if newest >= entry.0 {
            *entry = (newest, &record.uuid);
        }
    }
    let keep: HashSet<&str> = latest.values().map(|(_, uuid)| *uuid).collect();
    pending
        .iter()
        .filter(|r| {
            r.record_type == RecordType::Draft && r.remote_uuid.is_none() && r.current.is_some()
        })
        .filter(|r| !keep.contains(r.uuid.as_str()))
        .map(|r| r.uuid.clone())
        .collect()
}

/// A record read from the remote, or the access action the key lacks to read it.
enum Fetched {
    /// Its fields (`None`: gone, or a draft a newer one replaced).
    Found(Option<Read>),
    Refused(String),
}

/// The types the remote refused to read this round, each with the action
/// it named. An action covers a whole type, so the rest of that type is
/// skipped without asking again: a thousand print documents cost one request.
type Refused = HashMap<RecordType, String>;

/// Reads one record; a refusal for a missing action is an answer, not a failure of the round.
async fn fetch(
    remote: &Remote,
    refused: &mut Refused,
    kind: RecordType,
    uuid: &str,
    parent: Option<&str>,
) -> Result<Fetched, SyncError> {
    if let Some(action) = refused.get(&kind) {
        return Ok(Fetched::Refused(action.clone()));
    }
    match read(remote, kind, uuid, parent).await {
        Ok(found) => Ok(Fetched::Found(found)),
        Err(err) => match err.missing_action() {
            Some(action) => {
                refused.insert(kind, action.clone());
                Ok(Fetched::Refused(action))
            }
            None => Err(err),
        },
    }
}

/// Puts what was fetched of one record (`(type, remote UUID, parent)`) into
/// `page`: a change, a record gone, or one skipped.
async fn take(
    cms: &Arc<Cms>,
    remote: &Remote,
    page: &mut RemotePage,
    (kind, uuid, parent): (RecordType, &str, &str),
    fetched: Fetched,
) -> Result<(), SyncError> {
    match fetched {
        Fetched::Refused(action) => page.skipped.push(Skipped {
            record_type: kind,
            remote_uuid: uuid.to_owned(),
            parent: parent.to_owned(),
            action,
        }),
        // A draft a newer one replaced: the newer one is in the feed too.
        Fetched::Found(None) if kind.append_only() => page.gone.push((kind, uuid.to_owned())),
        Fetched::Found(found) => page
            .changes
            .push(remote_change(cms, remote, kind, uuid, found).await?),
    }
    Ok(())
}

/// Reads the change feed from the saved cursor and applies it page by page.
async fn pull(
    cms: &Arc<Cms>,
    remote: &Remote,
    refused: &mut Refused,
    progress: &dyn Progress,
) -> Result<usize, SyncError> {
    let mut cursor = blocking(cms, |cms| cms.sync_cursor()).await?;
    let mut pulled = 0;
    loop {
        let feed = remote.changes(cursor, 500).await?;
        let mut page = RemotePage::default();
        // Types this side does not know or does not sync are left out.
        let carried = feed.items.iter().filter_map(|change| {
            let kind = change.record_type.parse::<RecordType>().ok()?;
            kind.is_synced().then_some((kind, change))
        });
        for (kind, change) in carried {
            if change.operation == "delete" {
                // Gone: nothing to read, and nothing to skip any longer.
                page.changes.push(RemoteChange {
                    record_type: kind,
                    remote_uuid: change.uuid.clone(),
                    fields: None,
                    file: None,
                });
                continue;
            }
            let fetched = fetch(
                remote,
                refused,
                kind,
                &change.uuid,
                change.parent.as_deref(),
            )
            .await?;
            let parent = change.parent.as_deref().unwrap_or_default();
            take(
                cms,
                remote,
                &mut page,
                (kind, &change.uuid, parent),
                fetched,
            )
            .await?;
        }
        complete(cms, remote, refused, &mut page).await?;
        let last: i64 = feed.last.parse().map_err(|_| {
            SyncError::Protocol(format!("a cursor that is not a number: {}", feed.last))
        })?;
        pulled += page.changes.len();
        progress.pulled(pulled);
        apply(cms, page, Some(last)).await?;
        cursor = last;
        if !feed.more {
            return Ok(pulled);
        }
    }
}

/// How many records a retry applies in one transaction.
const RETRY_PAGE: usize = 200;

/// Tries again what the key could not read, type by type in the order pages
/// apply (a story before its notes): the oldest skipped record of a type
/// first; still refused, the rest of that type waits for the next round (a
/// request a type a round); read, the rest is read too. The cursor stays.
async fn retry_skipped(
    cms: &Arc<Cms>,
    remote: &Remote,
    refused: &mut Refused,
    progress: &dyn Progress,
    pulled: usize,
) -> Result<usize, SyncError> {
    let parent = |record: &Skipped| Some(record.parent.clone()).filter(|p| !p.is_empty());
    let mut brought = 0;
    for kind in blocking(cms, |cms| cms.skipped_types()).await? {
        let mut waiting = blocking(cms, move |cms| cms.skipped_to_retry(kind))
            .await?
            .into_iter();
        let Some(first) = waiting.next() else {
            continue;
        };
        // Refused already this round (in the feed): no need to ask again.
        if refused.contains_key(&kind) {
            continue;
        }
        let fetched = fetch(
            remote,
            refused,
            kind,
            &first.remote_uuid,
            parent(&first).as_deref(),
        )
        .await?;
        if let Fetched::Refused(action) = fetched {
            blocking(cms, move |cms| {
                cms.still_refused(kind, &first.remote_uuid, &action)
            })
            .await?;
            continue;
        }
        let mut page = RemotePage::default();
        let key = (kind, first.remote_uuid.as_str(), first.parent.as_str());
        take(cms, remote, &mut page, key, fetched).await?;
        for record in waiting {
            let fetched = fetch(
                remote,
                refused,
                kind,
                &record.remote_uuid,
                parent(&record).as_deref(),
            )
            .await?;
            let key = (kind, record.remote_uuid.as_str(), record.parent.as_str());
            take(cms, remote, &mut page, key, fetched).await?;
            if page.changes.len() + page.skipped.len() + page.gone.len() >= RETRY_PAGE {
                let full = std::mem::take(&mut page);
                brought += apply_retried(cms, remote, refused, full).await?;
                progress.pulled(pulled + brought);
            }
        }
        brought += apply_retried(cms, remote, refused, page).await?;
        progress.pulled(pulled + brought);
    }
    Ok(brought)
}

/// Applies records tried again, with what they refer to; how many arrived.
async fn apply_retried(
    cms: &Arc<Cms>,
    remote: &Remote,
    refused: &mut Refused,
    mut page: RemotePage,
) -> Result<usize, SyncError> {
    complete(cms, remote, refused, &mut page).await?;
    let arrived = page.changes.len();
    apply(cms, page, None).await?;
    Ok(arrived)
}

/// Completes a page before it is applied: the records it refers to that are
/// not here yet, and the comments, drafts and attachments whose record the
/// key may not read set aside with it.
async fn complete(
    cms: &Arc<Cms>,
    remote: &Remote,
    refused: &mut Refused,
    page: &mut RemotePage,
) -> Result<(), SyncError> {
    add_missing_references(cms, remote, refused, page).await?;
    defer_orphans(cms, page).await
}

/// The record a comment, draft or attachment is read through, as `(type, remote UUID)`.
fn parent_of(change: &RemoteChange) -> Option<(RecordType, String)> {
    let kind = change.record_type.synced()?;
    let parent_type = kind.remote_access().parent_type()?;
    let uuid = field_text(change.fields.as_ref()?.get(kind.parent_field()?));
    (!uuid.is_empty()).then_some((parent_type, uuid))
}

/// Sets aside the comments, drafts and attachments of records the key may
/// not read (skipped in this page or before): they cannot be written here
/// without them, so they wait with them, under the same missing action, and
/// come once their record does.
async fn defer_orphans(cms: &Arc<Cms>, page: &mut RemotePage) -> Result<(), SyncError> {
    let parents: Vec<(RecordType, String)> = page.changes.iter().filter_map(parent_of).collect();
    if parents.is_empty() {
        return Ok(());
    }
    let mut refused: HashMap<(RecordType, String), String> = page
        .skipped
        .iter()
        .map(|s| ((s.record_type, s.remote_uuid.clone()), s.action.clone()))
        .collect();
    refused.extend(blocking(cms, move |cms| cms.skipped_among(&parents)).await?);
    // A record skipped before that this page brings is no longer refused.
    for change in page.changes.iter().filter(|c| c.fields.is_some()) {
        refused.remove(&(change.record_type, change.remote_uuid.clone()));
    }
    if refused.is_empty() {
        return Ok(());
    }
    let mut kept = Vec::with_capacity(page.changes.len());
    for change in std::mem::take(&mut page.changes) {
        let waits_for = parent_of(&change).and_then(|p| refused.get(&p).map(|a| (p.1, a)));
        match waits_for {
            Some((parent, action)) => {
                if let Some(file) = &change.file {
                    let _ = std::fs::remove_file(file);
                }
                page.skipped.push(Skipped {
                    record_type: change.record_type,
                    remote_uuid: change.remote_uuid,
                    parent,
                    action: action.clone(),
                });
            }
            None => kept.push(change),
        }
    }
    page.changes = kept;
    Ok(())
}

/// A change to apply; an attachment whose file is not here yet brings it (downloaded, streamed).
async fn remote_change(
    cms: &Arc<Cms>,
    remote: &Remote,
    record_type: RecordType,
    remote_uuid: &str,
    found: Option<Read>,
) -> Result<RemoteChange, SyncError> {
    let mut change = RemoteChange {
        record_type,
        remote_uuid: remote_uuid.to_owned(),
        fields: None,
        file: None,
    };
    let Some(found) = found else {
        return Ok(change);
    };
    if let Some(url) = found.file_url.filter(|url| !url.is_empty()) {
        let wanted = field_text(found.fields.get("sha256"));
        let uuid = remote_uuid.to_owned();
        let have = blocking(cms, move |cms| cms.local_attachment_sha(&uuid)).await?;
        if have.as_deref() != Some(wanted.as_str()) {
            let dest = blocking(cms, |cms| cms.incoming_file()).await?;
            if let Err(err) = remote.download(&url, &dest).await {
                let _ = std::fs::remove_file(&dest);
                return Err(err);
            }
            change.file = Some(dest);
        }
    }
    change.fields = Some(found.fields);
    Ok(change)
}

/// Reads the records a page refers to that are neither here nor in the page
/// (a page boundary can fall between a record and what it names). One the
/// key may not read is skipped; one skipped before is left to the retry, and
/// what names it is written without the link meanwhile.
async fn add_missing_references(
    cms: &Arc<Cms>,
    remote: &Remote,
    refused: &mut Refused,
    page: &mut RemotePage,
) -> Result<(), SyncError> {
    let mut known: HashSet<(RecordType, String)> = page
        .changes
        .iter()
        .map(|c| (c.record_type, c.remote_uuid.clone()))
        .chain(
            page.skipped
                .iter()
                .map(|s| (s.record_type, s.remote_uuid.clone())),
        )
        .collect();
    let mut next = 0;
    while next < page.changes.len() {
        let mut wanted: Vec<(RecordType, String)> = Vec::new();
        for change in &page.changes[next..] {
            let Some(fields) = &change.fields else {
                continue;
            };
            let Some(carried) = change.record_type.synced() else {
                continue;
            };
            for (kind, uuid) in carried.references(fields) {
                // A note's parent is in its own thread, earlier in the feed.
                if kind != RecordType::NoteComment && known.insert((kind, uuid.clone())) {
                    wanted.push((kind, uuid));
                }
            }
        }
        next = page.changes.len();
        if wanted.is_empty() {
            break;
        }
        let missing = blocking(cms, move |cms| {
            let here = cms.known_remote_records(&wanted)?;
            let wanted: Vec<_> = wanted.into_iter().filter(|r| !here.contains(r)).collect();
            let skipped: HashSet<_> = cms
                .skipped_among(&wanted)?
                .into_iter()
                .map(|(record, _)| record)
                .collect();
            Ok(wanted
                .into_iter()
                .filter(|r| !skipped.contains(r))
                .collect::<Vec<_>>())
        })
        .await?;
        for (kind, uuid) in missing {
            match fetch(remote, refused, kind, &uuid, None).await? {
                Fetched::Found(None) => {}
                fetched => take(cms, remote, page, (kind, &uuid, ""), fetched).await?,
            }
        }
    }
    Ok(())
}

/// Applies a page of changes with its cursor (`None`: it stays); downloaded files are removed after.
async fn apply(cms: &Arc<Cms>, page: RemotePage, cursor: Option<i64>) -> Result<(), SyncError> {
    let incoming: Vec<std::path::PathBuf> =
        page.changes.iter().filter_map(|c| c.file.clone()).collect();
    let applied = blocking(cms, move |cms| cms.apply_remote_page(&page, cursor)).await;
    for path in incoming {
        let _ = std::fs::remove_file(path);
    }
    applied.map(|_| ())
}

/// One round: push creates, pull, push the rest.
pub async fn sync_once(cms: &Arc<Cms>, remote: &Remote) -> Result<Summary, SyncError> {
    sync_with_progress(cms, remote, &Quiet).await
}

/// Every record of `kind` on the remote, oldest change first.
async fn list_all(remote: &Remote, kind: &dyn SyncedType) -> Result<Vec<Value>, SyncError> {
    let mut records = Vec::new();
    let mut page = 1u64;
    let order = kind.list_order();
    loop {
        let listed: Value = remote
            .get(&format!(
                "/v3/{}?order={order}&dir=asc&per_page=500&page={page}",
                kind.record_type().path()
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
/// `listed` keeps each listing for the rest of the pass, so several lost
/// creates cost one listing, not one each.
async fn find_made(
    remote: &Remote,
    record: &PendingRecord,
    listed: &mut HashMap<String, Vec<(String, Fields)>>,
) -> Result<Option<(String, Fields)>, SyncError> {
    let kind = record.record_type.carried().map_err(SyncError::Local)?;
    let Some(current) = &record.current else {
        return Ok(None);
    };
    let identifying = kind.identifying();
    if identifying.is_empty() {
        return Ok(None);
    }
    // Comments and drafts are listed through what they belong to.
    let parent = kind
        .parent_field()
        .map(|field| field_text(current.get(field)))
        .unwrap_or_default();
    let scope = record.record_type;
    let listing = format!("{scope}:{parent}");
    if !listed.contains_key(&listing) {
        let found = match made_by_kind(remote, kind, record.record_type, &parent).await {
            Ok(found) => found,
            // Not to be listed with this key: the create itself will say whether it may be made.
            Err(err) if err.missing_action().is_some() => Vec::new(),
            Err(err) => return Err(err),
        };
        listed.insert(listing.clone(), found);
    }
    Ok(listed
        .get(&listing)
        .into_iter()
        .flatten()
        .find(|(uuid, fields)| {
            !uuid.is_empty()
                && identifying
                    .iter()
                    .all(|field| fields.get(*field) == current.get(*field))
        })
        .cloned())
}

/// The remote's records of `kind` a lost create could have made (for a
/// comment or a draft, those of its `parent`).
async fn made_by_kind(
    remote: &Remote,
    kind: &dyn SyncedType,
    record_type: RecordType,
    parent: &str,
) -> Result<Vec<(String, Fields)>, SyncError> {
    Ok(match kind.remote_access() {
        RemoteAccess::NoteThread | RemoteAccess::ContentDrafts => {
            let item: Value = match remote.get(&format!("/v3/content/{parent}")).await {
                Ok(item) => item,
                Err(SyncError::Remote { status: 404, .. }) => Value::Null,
                Err(err) => return Err(err),
            };
            read_children(remote, &item, &mut Vec::new())
                .await?
                .into_iter()
                .filter(|(k, _, _)| *k == record_type)
                .map(|(_, uuid, read)| (uuid, read.fields))
                .collect()
        }
        RemoteAccess::AssignmentComments => read_assignment_comments(remote, parent).await?,
        // An attachment is its content item's: it is never doubled.
        RemoteAccess::ContentAttachment => Vec::new(),
        RemoteAccess::Own => list_all(remote, kind)
            .await?
            .iter()
            .map(|record| {
                (
                    field_text(record.get("uuid")),
                    kind.fields_of_answer(record),
                )
            })
            .collect(),
    })
}

/// Pulls from a plain remote (no change feed): lists every record and finds
/// deletions by reconciling identifiers with what was synced before.
/// Comments, drafts and attachments are read through their content items and
/// assignments, and go with them.
async fn pull_by_listing(
    cms: &Arc<Cms>,
    remote: &Remote,
    progress: &dyn Progress,
) -> Result<usize, SyncError> {
    let mut changes = Vec::new();
    // The kinds the key may not list or read, with the action it lacks.
    let mut refused: Vec<(RecordType, String)> = Vec::new();
    for kind in synced_types().filter(|kind| kind.remote_access() == RemoteAccess::Own) {
        let record_type = kind.record_type();
        let listed = match list_all(remote, kind).await {
            Ok(listed) => listed,
            // Not listed says nothing of what was deleted: what is here stays.
            Err(err) => match err.missing_action() {
                Some(action) => {
                    refused.push((record_type, action));
                    continue;
                }
                None => return Err(err),
            },
        };
        let mut seen = HashSet::new();
        for record in &listed {
            let Some(uuid) = record["uuid"].as_str() else {
                continue;
            };
            seen.insert(uuid.to_owned());
            changes.push(RemoteChange {
                record_type,
                remote_uuid: uuid.to_owned(),
                fields: Some(kind.fields_of_answer(record)),
                file: None,
            });
            let children: Vec<(RecordType, String, Read)> = match record_type {
                RecordType::Content => read_children(remote, record, &mut refused).await?,
                RecordType::Assignment => assignment_comments(remote, uuid, &mut refused)
                    .await?
                    .into_iter()
                    .map(|(c, fields)| {
                        (
                            RecordType::AssignmentComment,
                            c,
                            Read {
                                fields,
                                file_url: None,
                            },
                        )
                    })
                    .collect(),
                // Read with the record above, or never listed on their own.
                RecordType::Author
                | RecordType::Tag
                | RecordType::Container
                | RecordType::Workflow
                | RecordType::Issue
                | RecordType::PrintDocument
                | RecordType::Attachment
                | RecordType::NoteComment
                | RecordType::AssignmentComment
                | RecordType::Draft
                | RecordType::User
                | RecordType::Version
                | RecordType::Export
                | RecordType::LockRequest
                | RecordType::WorkflowSection => Vec::new(),
            };
            for (child_kind, child, read) in children {
                changes.push(remote_change(cms, remote, child_kind, &child, Some(read)).await?);
            }
        }
        let synced = blocking(cms, move |cms| cms.synced_remote_uuids(record_type)).await?;
        for gone in synced.into_iter().filter(|uuid| !seen.contains(uuid)) {
            changes.push(RemoteChange {
                record_type,
                remote_uuid: gone,
                fields: None,
                file: None,
            });
        }
    }
    let pulled = changes.len();
    let page = RemotePage {
        changes,
        ..RemotePage::default()
    };
    apply(cms, page, None).await?;
    blocking(cms, move |cms| cms.set_unlisted_types(&refused)).await?;
    progress.pulled(pulled);
    Ok(pulled)
}

/// An assignment's comments on a plain remote; none when the key may not
/// read them (noted in `refused`, and not asked for again this round).
async fn assignment_comments(
    remote: &Remote,
    assignment: &str,
    refused: &mut Vec<(RecordType, String)>,
) -> Result<Vec<(String, Fields)>, SyncError> {
    if refused
        .iter()
        .any(|(kind, _)| *kind == RecordType::AssignmentComment)
    {
        return Ok(Vec::new());
    }
    match read_assignment_comments(remote, assignment).await {
        Ok(comments) => Ok(comments),
        Err(err) => match err.missing_action() {
            Some(action) => {
                refused.push((RecordType::AssignmentComment, action));
                Ok(Vec::new())
            }
            None => Err(err),
        },
    }
}

/// One round, reporting its progress as it goes.
pub async fn sync_with_progress(
    cms: &Arc<Cms>,
    remote: &Remote,
    progress: &dyn Progress,
) -> Result<Summary, SyncError> {
    cms.set_sync_progress(Some(SyncProgress::default()));
    let recorded = Recorded {
        cms: Arc::clone(cms),
        shown: progress,
    };
    let round = round(cms, remote, &recorded).await;
    cms.set_sync_progress(None);
    // A round that failed, for whatever reason, is never shown as a good sync.
    let end = match &round {
        Ok(_) => RoundEnd::Completed,
        Err(err) => RoundEnd::Failed {
            error: err.to_string(),
            unreached: err.unreached(),
        },
    };
    if let Err(err) = blocking(cms, move |cms| cms.record_round(&end)).await {
        // The round's own failure says more than this one, which follows from it.
        if round.is_ok() {
            return Err(err);
        }
        tracing::warn!(%err, "how the sync round ended could not be recorded");
    }
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
        let mut refused = Refused::new();
        let pulled = pull(cms, remote, &mut refused, progress).await?;
        pulled + retry_skipped(cms, remote, &mut refused, progress, pulled).await?
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

/// Syncs every `every`, and as soon as the central server's change stream
/// says something changed, for as long as it runs (the desktop app): a
/// round that fails is logged and tried again next time.
pub async fn keep_synced(cms: Arc<Cms>, remote: Arc<Remote>, every: std::time::Duration) {
    let listener = crate::listen::Listener::start(&cms, Arc::clone(&remote));
    loop {
        match sync_once(&cms, &remote).await {
            Ok(summary) if summary.pushed + summary.pulled > 0 => tracing::info!(
                pushed = summary.pushed,
                pulled = summary.pulled,
                conflicts = summary.conflicts,
                needs_attention = summary.needs_attention,
                "synced with {}",
                remote.base()
            ),
            Ok(_) => {}
            Err(err) => tracing::warn!(%err, "sync with {} failed; trying again", remote.base()),
        }
        tokio::select! {
            () = tokio::time::sleep(every.max(std::time::Duration::from_millis(50))) => {}
            () = listener.changed() => {}
        }
    }
}
