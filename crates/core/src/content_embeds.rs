//! What content items embed (authors, tags, URLs, versions, audit, attachment,
//! lock, export, lead photo), loaded for a whole page of items at once: one
//! query per embedded kind over the page's ids, never one query per item, so a
//! list of 50 costs the same dozen statements as a single item.

use std::collections::HashMap;

use crate::db::{Row, Transaction, id_array, one_per_owner};
use crate::record_type::RecordType;

use crate::Cms;
use crate::error::{CoreError, Result};
use crate::model::attachment::Attachment;
use crate::model::content::{
    AuditEntry, COLUMNS, ContentItem, ContentRecord, ContentUrl, LeadPhoto, MadeNow, VersionSummary,
};
use crate::model::export::Export;
use crate::model::lock::LockRequest;
use crate::users::User;

/// `read` of the items in `ids` (a JSON array), unless there are none.
fn unless_none<T: Default>(ids: &str, read: impl FnOnce(&str) -> Result<T>) -> Result<T> {
    if ids == "[]" {
        Ok(T::default())
    } else {
        read(ids)
    }
}

/// How many columns a `COLUMNS` list selects: the owner's id follows them.
fn column_count(columns: &str) -> usize {
    columns.split(',').count()
}

/// A row of `id, uuid, path, content_id, created_at` from `content_urls`.
pub(crate) fn url_from_row(row: &Row<'_>) -> crate::db::Result<ContentUrl> {
    Ok(ContentUrl {
        id: row.get(0)?,
        uuid: row.get(1)?,
        path: row.get(2)?,
        content_id: row.get(3)?,
        created_at: row.get(4)?,
    })
}

impl Cms {
    /// The item with row id `id` and everything it embeds.
    pub(crate) fn content_item(&self, tx: &Transaction<'_>, id: i64) -> Result<ContentItem> {
        let record = self.content_record(tx, id)?;
        let mut items = self.completed_items(tx, vec![record], None)?;
        items
            .pop()
            .ok_or_else(|| CoreError::Internal("an item read just now is missing".into()))
    }

    pub(crate) fn content_record(&self, tx: &Transaction<'_>, id: i64) -> Result<ContentRecord> {
        let sql = format!("SELECT {COLUMNS} FROM content WHERE content.id = ?1");
        Ok(tx
            .prepare_cached(&sql)?
            .query_row([id], |row| self.content_from_row(row))?)
    }

    pub(crate) fn content_from_row(&self, row: &Row<'_>) -> crate::db::Result<ContentRecord> {
        let uuid: String = row.get(1)?;
        Ok(ContentRecord {
            id: row.get(0)?,
            srn: self.srn(RecordType::Content, &uuid),
            uuid,
            title: row.get(2)?,
            slug: row.get(3)?,
            content_type: row.get(4)?,
            version: row.get(5)?,
            weight: row.get(6)?,
            abstract_text: row.get(7)?,
            abstract_raw: row.get(8)?,
            body: row.get(9)?,
            body_raw: row.get(10)?,
            created_at: row.get(11)?,
            modified_at: row.get(12)?,
            published_at: row.get(13)?,
            state: row.get(14)?,
            user_id: row.get(15)?,
            assignment_id: row.get(16)?,
            workflow_id: row.get(17)?,
            dominant_attachment_id: row.get(18)?,
            container_id: row.get(19)?,
            has_attachment: row.get::<_, i64>(20)? != 0,
            ssts_path: row.get(21)?,
        })
    }

    /// A version's summary from its columns: id, uuid, version, user_id, created_at.
    pub(crate) fn version_summary(&self, row: &Row<'_>) -> crate::db::Result<VersionSummary> {
        let uuid: String = row.get(1)?;
        Ok(VersionSummary {
            id: row.get(0)?,
            srn: self.srn(RecordType::Version, &uuid),
            uuid,
            version: row.get(2)?,
            user_id: row.get(3)?,
            created_at: row.get(4)?,
        })
    }

    /// The items of `records`, each with everything it embeds, in the same order.
    /// A story `made` in this write is not asked for parts it cannot hold.
    pub(crate) fn completed_items(
        &self,
        tx: &Transaction<'_>,
        records: Vec<ContentRecord>,
        made: Option<&MadeNow>,
    ) -> Result<Vec<ContentItem>> {
        if records.is_empty() {
            return Ok(Vec::new());
        }
        let ids = id_array(records.iter().map(|r| r.id));
        let others = made.map(|m| id_array(records.iter().map(|r| r.id).filter(|&id| id != m.id)));
        let of = |holds: fn(&MadeNow) -> bool| match (made, &others) {
            (Some(made), Some(others)) if !holds(made) => others.as_str(),
            _ => ids.as_str(),
        };
        let mut authors = unless_none(of(|m| m.authors), |ids| self.authors_of_items(tx, ids))?;
        let mut tags = unless_none(of(|m| m.tags), |ids| self.tags_of_items(tx, ids))?;
        let mut urls = unless_none(of(|m| m.urls), |ids| self.urls_of_items(tx, ids))?;
        let mut versions = self.versions_of_items(tx, &ids)?;
        let mut audit = self.audit_of_items(tx, &ids)?;
        let mut attachments = unless_none(of(|m| m.attachment), |ids| {
            self.attachments_of_items(tx, ids)
        })?;
        let mut locks = unless_none(of(|_| false), |ids| self.locks_of_items(tx, ids))?;
        let mut exports = unless_none(of(|_| false), |ids| self.exports_of_items(tx, ids))?;
        let lead_photos =
            self.lead_photos(tx, records.iter().filter_map(|r| r.dominant_attachment_id))?;
        Ok(records
            .into_iter()
            .map(|record| {
                let id = record.id;
                let lock_request = locks.remove(&id);
                ContentItem {
                    authors: authors.remove(&id).unwrap_or_default(),
                    tags: tags.remove(&id).unwrap_or_default(),
                    urls: urls.remove(&id).unwrap_or_default(),
                    versions: versions.remove(&id).unwrap_or_default(),
                    audit: audit.remove(&id).unwrap_or_default(),
                    attachment: attachments.remove(&id),
                    lock: lock_request.is_some(),
                    lock_request,
                    export: exports.remove(&id),
                    lead_photo: record
                        .dominant_attachment_id
                        .and_then(|a| lead_photos.get(&a).cloned()),
                    record,
                }
            })
            .collect())
    }

    fn authors_of_items(
        &self,
        tx: &Transaction<'_>,
        ids: &str,
    ) -> Result<HashMap<i64, Vec<crate::authors::Author>>> {
        let columns = crate::authors::COLUMNS;
        let sql = format!(
            "SELECT {columns}, ca.content_id FROM content_authors ca JOIN authors ON authors.id = ca.author_id
             WHERE ca.content_id IN (SELECT value FROM json_each(?1)) ORDER BY ca.position"
        );
        Ok(tx.query_grouped(&sql, ids, column_count(columns), |row| {
            self.author_from_row(row)
        })?)
    }

    fn tags_of_items(
        &self,
        tx: &Transaction<'_>,
        ids: &str,
    ) -> Result<HashMap<i64, Vec<crate::tags::Tag>>> {
        let columns = crate::tags::COLUMNS;
        let sql = format!(
            "SELECT {columns}, l.content_id FROM content_tags l JOIN tags ON tags.id = l.tag_id
             WHERE l.content_id IN (SELECT value FROM json_each(?1)) ORDER BY l.position"
        );
        Ok(tx.query_grouped(&sql, ids, column_count(columns), |row| {
            self.tag_from_row(row)
        })?)
    }

    pub(crate) fn urls_of_items(
        &self,
        tx: &Transaction<'_>,
        ids: &str,
    ) -> Result<HashMap<i64, Vec<ContentUrl>>> {
        Ok(tx.query_grouped(
            "SELECT id, uuid, path, content_id, created_at FROM content_urls
             WHERE content_id IN (SELECT value FROM json_each(?1)) ORDER BY position",
            ids,
            3,
            url_from_row,
        )?)
    }

    fn versions_of_items(
        &self,
        tx: &Transaction<'_>,
        ids: &str,
    ) -> Result<HashMap<i64, Vec<VersionSummary>>> {
        Ok(tx.query_grouped(
            "SELECT id, uuid, version, user_id, created_at, content_id FROM versions
             WHERE content_id IN (SELECT value FROM json_each(?1)) ORDER BY version",
            ids,
            5,
            |row| self.version_summary(row),
        )?)
    }

    fn audit_of_items(
        &self,
        tx: &Transaction<'_>,
        ids: &str,
    ) -> Result<HashMap<i64, Vec<AuditEntry>>> {
        Ok(tx.query_grouped(
            "SELECT a.id, a.uuid, a.action, a.detail, a.user_id, u.name, a.created_at, a.content_id
             FROM audit a LEFT JOIN users u ON u.id = a.user_id
             WHERE a.content_id IN (SELECT value FROM json_each(?1)) ORDER BY a.id",
            ids,
            7,
            AuditEntry::from_row,
        )?)
    }

    pub(crate) fn attachments_of_items(
        &self,
        tx: &Transaction<'_>,
        ids: &str,
    ) -> Result<HashMap<i64, Attachment>> {
        let columns = crate::model::attachment::COLUMNS;
        let sql = format!(
            "SELECT {columns}, a.content_id FROM attachments a
             WHERE a.content_id IN (SELECT value FROM json_each(?1))"
        );
        Ok(one_per_owner(tx.query_grouped(
            &sql,
            ids,
            column_count(columns),
            |row| crate::model::attachment::from_row(row, &self.namespace),
        )?))
    }

    pub(crate) fn locks_of_items(
        &self,
        tx: &Transaction<'_>,
        ids: &str,
    ) -> Result<HashMap<i64, LockRequest>> {
        let (columns, from) = (crate::locks::COLUMNS, crate::locks::FROM);
        let sql = format!(
            "SELECT {columns}, l.content_id FROM {from}
             WHERE l.content_id IN (SELECT value FROM json_each(?1))"
        );
        let mut locks =
            one_per_owner(tx.query_grouped(&sql, ids, column_count(columns), |row| {
                self.lock_from_row(row)
            })?);
        let users = self.users_by_ids(tx, locks.values().map(|l| l.user_id))?;
        for lock in locks.values_mut() {
            lock.user = users.get(&lock.user_id).cloned();
        }
        Ok(locks)
    }

    fn exports_of_items(&self, tx: &Transaction<'_>, ids: &str) -> Result<HashMap<i64, Export>> {
        let columns = crate::model::export::COLUMNS;
        let sql = format!(
            "SELECT {columns}, content_id FROM exports WHERE content_id IN (SELECT value FROM json_each(?1))"
        );
        let mut exports = one_per_owner(tx.query_grouped(
            &sql,
            ids,
            column_count(columns),
            crate::model::export::export_from_row,
        )?);
        let users = self.users_by_ids(
            tx,
            exports
                .values()
                .flat_map(|e| [e.user_id, e.locked_by])
                .flatten(),
        )?;
        for export in exports.values_mut() {
            export.user = export.user_id.and_then(|id| users.get(&id).cloned());
            export.lock_user = export.locked_by.and_then(|id| users.get(&id).cloned());
        }
        Ok(exports)
    }

    /// Users by row id, for embedding; a user that is gone is simply absent.
    fn users_by_ids(
        &self,
        tx: &Transaction<'_>,
        ids: impl IntoIterator<Item = i64>,
    ) -> Result<HashMap<i64, User>> {
        let mut ids: Vec<i64> = ids.into_iter().collect();
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        ids.sort_unstable();
        ids.dedup();
        let columns = crate::users::COLUMNS;
        let sql = format!(
            "SELECT {columns}, users.id FROM users WHERE users.id IN (SELECT value FROM json_each(?1))"
        );
        Ok(one_per_owner(tx.query_grouped(
            &sql,
            &id_array(ids),
            column_count(columns),
            |row| self.user_from_row(row),
        )?))
    }

    /// The media items (with file and authors) holding the attachments
    /// `attachment_ids`, by attachment id: the lead photos of a page.
    fn lead_photos(
        &self,
        tx: &Transaction<'_>,
        attachment_ids: impl IntoIterator<Item = i64>,
    ) -> Result<HashMap<i64, LeadPhoto>> {
        let attachment_ids: Vec<i64> = attachment_ids.into_iter().collect();
        if attachment_ids.is_empty() {
            return Ok(HashMap::new());
        }
        let holders = one_per_owner(tx.query_grouped(
            "SELECT content_id, id FROM attachments WHERE id IN (SELECT value FROM json_each(?1))",
            &id_array(attachment_ids),
            1,
            |row| row.get::<_, i64>(0),
        )?);
        if holders.is_empty() {
            return Ok(HashMap::new());
        }
        let media_ids = id_array(holders.values().copied());
        let sql = format!(
            "SELECT {COLUMNS}, content.id FROM content WHERE content.id IN (SELECT value FROM json_each(?1))"
        );
        let mut media = one_per_owner(tx.query_grouped(
            &sql,
            &media_ids,
            column_count(COLUMNS),
            |row| self.content_from_row(row),
        )?);
        let mut files = self.attachments_of_items(tx, &media_ids)?;
        let mut authors = self.authors_of_items(tx, &media_ids)?;
        let mut out = HashMap::new();
        for (attachment_id, media_id) in holders {
            let (Some(record), Some(attachment)) =
                (media.remove(&media_id), files.remove(&media_id))
            else {
                continue;
            };
            out.insert(
                attachment_id,
                LeadPhoto {
                    uuid: record.uuid,
                    srn: record.srn,
                    title: record.title,
                    caption: record.body,
                    authors: authors.remove(&media_id).unwrap_or_default(),
                    attachment,
                },
            );
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_become_a_json_array() {
        assert_eq!(id_array([]), "[]");
        assert_eq!(id_array([7]), "[7]");
        assert_eq!(id_array([3, -1, 12]), "[3,-1,12]");
    }

    #[test]
    fn columns_are_counted() {
        assert_eq!(column_count("a.id, a.uuid"), 2);
        assert_eq!(column_count(crate::tags::COLUMNS), 6);
    }
}
