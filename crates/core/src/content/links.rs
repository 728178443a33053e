//! An item's authors, tags and URLs replaced by a create or an update.

use crate::db::{Transaction, params};

use crate::Cms;
use crate::clock;
use crate::error::Result;
use crate::records::new_uuid;

impl Cms {
    /// Replaces whichever of the item's authors, tags and URLs were sent; true when any changed.
    pub(super) fn set_links(
        &self,
        tx: &Transaction<'_>,
        content_id: i64,
        authors: Option<&[i64]>,
        tags: Option<&[i64]>,
        urls: Option<&[String]>,
    ) -> Result<bool> {
        let mut changed = false;
        if let Some(ids) = authors {
            changed |= tx.replace_links("content_authors", "author_id", content_id, ids)?;
        }
        if let Some(ids) = tags {
            changed |= tx.replace_links("content_tags", "tag_id", content_id, ids)?;
        }
        if let Some(urls) = urls {
            let old: Vec<String> = self
                .urls_of_content(tx, content_id)?
                .into_iter()
                .map(|u| u.path)
                .collect();
            if old != urls {
                changed = true;
                tx.prepare_cached("DELETE FROM content_urls WHERE content_id = ?1")?
                    .execute([content_id])?;
                let now = clock::now();
                for (position, path) in urls.iter().enumerate() {
                    tx.prepare_cached(
                        "INSERT INTO content_urls (uuid, content_id, path, position, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                    )?
                    .execute(params![new_uuid(), content_id, path, position as i64, now])?;
                }
            }
        }
        Ok(changed)
    }
}
