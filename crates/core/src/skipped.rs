//! Records of the central server this replica's key may not read. A pull
//! skips them (the cursor moves on; the rest of the feed still arrives),
//! keeps them here with the access action the server named, tries them
//! again each round, and the sync status names them by type.
//!
//! What refers to a record that is not here cannot link it locally. So a
//! comment, draft or attachment of a skipped record waits with it (skipped
//! too, under its action); a record that merely names one (a story's
//! author, a print document's workflow) is written without the link, keeps
//! it when its own edits go up (the server never loses what this key cannot
//! see), and gets it back when the skipped record is fetched at last.

use std::collections::HashSet;

use serde_json::Value;

use crate::Cms;
use crate::clock;
use crate::db::{OptionalExtension as _, Transaction, params};
use crate::error::Result;
use crate::synced::TypeSynced as _;
use crate::synced::{FieldReader, Fields, RecordType, SyncedType, field_text, synced_types};

/// A record the key may not read, as a pull skipped it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub record_type: RecordType,
    /// Its UUID on the remote; empty for a whole type a plain remote would not list.
    pub remote_uuid: String,
    /// The record it is read through (a note's story, a comment's assignment), empty for none.
    pub parent: String,
    /// The access action the key lacks, as the refusal named it.
    pub action: String,
}

/// What this replica does not receive, by type and missing action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotReadable {
    pub record_type: RecordType,
    pub action: String,
    /// How many records (`None`: a whole type a plain remote would not list, count unknown).
    pub count: Option<i64>,
}

/// Keeps the skipped records (again: a record skipped before keeps when it
/// was first skipped, and takes the action named now).
pub(crate) fn keep(tx: &Transaction<'_>, skipped: &[Skipped]) -> Result<()> {
    let now = clock::now();
    for record in skipped {
        tx.prepare_cached(
            "INSERT INTO sync_skipped (record_type, remote_uuid, parent, action, skipped_at, tried_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?5)
             ON CONFLICT (record_type, remote_uuid) DO UPDATE SET parent = excluded.parent,
             action = excluded.action, tried_at = excluded.tried_at",
        )?
        .execute(params![
            record.record_type,
            record.remote_uuid,
            record.parent,
            record.action,
            now
        ])?;
    }
    Ok(())
}

/// Forgets a skipped record (fetched at last, or gone); whether it was skipped.
pub(crate) fn forget(tx: &Transaction<'_>, kind: RecordType, remote_uuid: &str) -> Result<bool> {
    Ok(tx
        .prepare_cached("DELETE FROM sync_skipped WHERE record_type = ?1 AND remote_uuid = ?2")?
        .execute(params![kind, remote_uuid])?
        > 0)
}

/// The action a record was skipped for, if it was (or its whole type was).
fn skipped_for(
    tx: &Transaction<'_>,
    kind: RecordType,
    remote_uuid: &str,
) -> Result<Option<String>> {
    Ok(tx
        .prepare_cached(
            "SELECT action FROM sync_skipped WHERE record_type = ?1 AND remote_uuid IN (?2, '')
             ORDER BY remote_uuid DESC LIMIT 1",
        )?
        .query_row(params![kind, remote_uuid], |row| row.get(0))
        .optional()?)
}

/// The records one field of a record names.
fn field_references(kind: &dyn SyncedType, name: &str, value: &Value) -> Vec<(RecordType, String)> {
    // Each type's `references` reads its fields by name: given one field, it
    // names that field's records only.
    let mut one = Fields::new();
    one.insert(name.to_owned(), value.clone());
    kind.references(&one)
}

/// `mine` with the references of `base` that `keep` picks put back where
/// `base` had them: a list gets each missing one at its place in `base`, a
/// single reference left empty gets `base`'s. Pure, so that what a record
/// sends and merges never drops a link this copy could not make.
pub fn restore_references(
    kind: &dyn SyncedType,
    base: &Fields,
    mut mine: Fields,
    keep: impl Fn(&(RecordType, String)) -> bool,
) -> Fields {
    for (name, value) in base {
        let kept: Vec<(RecordType, String)> = field_references(kind, name, value)
            .into_iter()
            .filter(|reference| keep(reference))
            .collect();
        if kept.is_empty() {
            continue;
        }
        if kind.list_fields().contains(&name.as_str()) {
            let in_base: Vec<String> =
                serde_json::from_str(&field_text(Some(value))).unwrap_or_default();
            let mut list: Vec<String> =
                serde_json::from_str(&field_text(mine.get(name))).unwrap_or_default();
            for (at, uuid) in in_base.iter().enumerate() {
                if kept.iter().any(|(_, k)| k == uuid) && !list.contains(uuid) {
                    list.insert(at.min(list.len()), uuid.clone());
                }
            }
            let list = Value::Array(list.into_iter().map(Value::String).collect());
            mine.insert(name.clone(), Value::String(list.to_string()));
        } else if field_text(mine.get(name)).is_empty() {
            mine.insert(name.clone(), value.clone());
        }
    }
    mine
}

/// `mine` with the references of `base` to records this key may not read
/// put back (they were never linked here; a person here cannot have removed them).
pub(crate) fn restore_unreadable(
    tx: &Transaction<'_>,
    kind: RecordType,
    base: Option<&Fields>,
    mine: Option<Fields>,
) -> Result<Option<Fields>> {
    let Some(base) = base else {
        return Ok(mine);
    };
    let Some(mine) = mine else {
        return Ok(None);
    };
    let carried = kind.carried()?;
    let mut unreadable = HashSet::new();
    for reference in carried.references(base) {
        if skipped_for(tx, reference.0, &reference.1)?.is_some() {
            unreadable.insert(reference);
        }
    }
    if unreadable.is_empty() {
        return Ok(Some(mine));
    }
    Ok(Some(restore_references(carried, base, mine, |r| {
        unreadable.contains(r)
    })))
}

/// Links the records fetched at last (`recovered`) wherever a record here
/// names them: each local record whose synced state names one is written
/// again with the link (its own pending edits kept).
pub(crate) fn relink(
    tx: &Transaction<'_>,
    recovered: &HashSet<(RecordType, String)>,
) -> Result<()> {
    if recovered.is_empty() {
        return Ok(());
    }
    for kind in synced_types() {
        // Comments, drafts and attachments wait with what they belong to: never written without it.
        if kind.remote_access().parent_type().is_some() {
            continue;
        }
        let mut stmt =
            tx.prepare_cached("SELECT uuid, base FROM sync_records WHERE record_type = ?1")?;
        let rows: Vec<(String, String)> = stmt
            .query_map([kind.record_type()], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<std::result::Result<_, _>>()?;
        for (uuid, base) in rows {
            let Ok(base) = serde_json::from_str::<Fields>(&base) else {
                continue;
            };
            if !kind.references(&base).iter().any(|r| recovered.contains(r)) {
                continue;
            }
            let Some(mine) = FieldReader::new(tx).fields(kind.record_type(), &uuid)? else {
                continue;
            };
            let linked = restore_references(kind, &base, mine.clone(), |r| recovered.contains(r));
            if linked != mine {
                kind.write(tx, &uuid, &linked, None)?;
            }
        }
    }
    Ok(())
}

/// Names the types a plain remote would not list this round, replacing the last round's.
fn set_unlisted(tx: &Transaction<'_>, refused: &[(RecordType, String)]) -> Result<()> {
    tx.execute("DELETE FROM sync_skipped WHERE remote_uuid = ''", [])?;
    let whole: Vec<Skipped> = refused
        .iter()
        .map(|(record_type, action)| Skipped {
            record_type: *record_type,
            remote_uuid: String::new(),
            parent: String::new(),
            action: action.clone(),
        })
        .collect();
    keep(tx, &whole)
}

/// What is not synced, by type (in the order pages apply) and action.
pub(crate) fn not_readable(tx: &Transaction<'_>) -> Result<Vec<NotReadable>> {
    let mut stmt = tx.prepare_cached(
        "SELECT record_type, action, SUM(CASE WHEN remote_uuid = '' THEN 0 ELSE 1 END),
                SUM(CASE WHEN remote_uuid = '' THEN 1 ELSE 0 END)
         FROM sync_skipped GROUP BY record_type, action",
    )?;
    let mut found: Vec<NotReadable> = stmt
        .query_map([], |row| {
            let records: i64 = row.get(2)?;
            let whole: i64 = row.get(3)?;
            Ok(NotReadable {
                record_type: row.get(0)?,
                action: row.get(1)?,
                count: (whole == 0).then_some(records),
            })
        })?
        .collect::<std::result::Result<_, _>>()?;
    found.sort_by(|a, b| (a.record_type, &a.action).cmp(&(b.record_type, &b.action)));
    Ok(found)
}

impl Cms {
    /// Which of these remote records are skipped, with the action each was skipped for.
    pub fn skipped_among(
        &self,
        records: &[(RecordType, String)],
    ) -> Result<Vec<((RecordType, String), String)>> {
        self.read(|tx| {
            let mut found = Vec::new();
            for (kind, uuid) in records {
                if let Some(action) = skipped_for(tx, *kind, uuid)? {
                    found.push(((*kind, uuid.clone()), action));
                }
            }
            Ok(found)
        })
    }

    /// The types with skipped records, in the order pages apply.
    pub fn skipped_types(&self) -> Result<Vec<RecordType>> {
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT DISTINCT record_type FROM sync_skipped WHERE remote_uuid <> ''",
            )?;
            let mut types: Vec<RecordType> = stmt
                .query_map([], |row| row.get(0))?
                .collect::<std::result::Result<_, _>>()?;
            types.sort();
            Ok(types)
        })
    }

    /// The skipped records of `kind` worth trying again, oldest first: those
    /// whose parent is itself still skipped wait for it and are left out.
    pub fn skipped_to_retry(&self, kind: RecordType) -> Result<Vec<Skipped>> {
        let parent_type = kind.carried()?.remote_access().parent_type();
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT remote_uuid, parent, action FROM sync_skipped
                 WHERE record_type = ?1 AND remote_uuid <> '' ORDER BY skipped_at, remote_uuid",
            )?;
            let rows: Vec<(String, String, String)> = stmt
                .query_map([kind], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
                .collect::<std::result::Result<_, _>>()?;
            let mut ready = Vec::with_capacity(rows.len());
            for (remote_uuid, parent, action) in rows {
                if let Some(parent_type) = parent_type
                    && !parent.is_empty()
                    && skipped_for(tx, parent_type, &parent)?.is_some()
                {
                    continue;
                }
                ready.push(Skipped {
                    record_type: kind,
                    remote_uuid,
                    parent,
                    action,
                });
            }
            Ok(ready)
        })
    }

    /// Notes that the skipped records of `kind` were tried again and still
    /// refused (the first of them for `action`).
    pub fn still_refused(&self, kind: RecordType, remote_uuid: &str, action: &str) -> Result<()> {
        self.write(|tx| {
            let now = clock::now();
            tx.prepare_cached(
                "UPDATE sync_skipped SET tried_at = ?2 WHERE record_type = ?1 AND remote_uuid <> ''",
            )?
            .execute(params![kind, now])?;
            tx.prepare_cached(
                "UPDATE sync_skipped SET action = ?3 WHERE record_type = ?1 AND remote_uuid = ?2",
            )?
            .execute(params![kind, remote_uuid, action])?;
            Ok(())
        })
    }

    /// Names the types a plain remote would not list this round (each with
    /// the action it named), replacing the last round's.
    pub fn set_unlisted_types(&self, refused: &[(RecordType, String)]) -> Result<()> {
        self.write(|tx| set_unlisted(tx, refused))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Fields, RecordType, restore_references};
    use crate::synced::TypeSynced as _;

    fn fields(value: serde_json::Value) -> Fields {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_link_this_copy_could_not_make_is_put_back_where_it_was() {
        let story = RecordType::Content.carried().expect("synced");
        let base =
            fields(json!({"title": "Dam", "authors": "[\"a\",\"b\",\"c\"]", "tags": "[\"t\"]"}));
        // "a" and "c" could not be read here; "b" was removed here, "d" added.
        let mine = fields(json!({"title": "Dam holds", "authors": "[\"d\"]", "tags": "[]"}));
        let unreadable = |r: &(RecordType, String)| r.0 == RecordType::Author && r.1 != "b";
        let restored = restore_references(story, &base, mine, unreadable);
        assert_eq!(restored["title"], "Dam holds");
        assert_eq!(restored["authors"], "[\"a\",\"d\",\"c\"]");
        assert_eq!(restored["tags"], "[]", "a tag it could read stays removed");
    }

    #[test]
    fn a_single_reference_left_empty_takes_the_base() {
        let document = RecordType::PrintDocument.carried().expect("synced");
        let base = fields(json!({"label": "Page 1", "workflow_id": "w", "issue_id": "i"}));
        let mine = fields(json!({"label": "Page one", "workflow_id": "", "issue_id": ""}));
        let restored = restore_references(document, &base, mine, |r| r.0 == RecordType::Workflow);
        assert_eq!(restored["workflow_id"], "w");
        assert_eq!(
            restored["issue_id"], "",
            "an issue it could read was unset here"
        );
        assert_eq!(restored["label"], "Page one");
    }
}
