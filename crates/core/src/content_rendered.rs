//! Each content item's answer kept ready in the database, so that reading an item or a page of items reads stored text instead of assembling a dozen tables each time.
//!
//! The HTTP layer hands the core its renderer (an item to the JSON a client
//! reads) and a format name; the core stores what the renderer made, per
//! item, in `content_rendered`. Migration 0016's triggers delete an item's
//! row in the same transaction as any change to what the item shows (its
//! row, links, URLs, versions, audit, file, lock, export, its authors' and
//! tags' names, the users named in it, its lead photo) and queue the item;
//! every write renders what it queued before it commits. A row of another
//! format (another renderer, another namespace) is not used. An item
//! without a usable row is assembled from its tables, exactly as before.
//!
//! With `check` on (the test suites turn it on), every stored answer served
//! is compared with a fresh assembly, and a difference is an error.

use crate::access::Action;
use std::collections::HashMap;
use std::sync::Arc;

use crate::db::{OptionalExtension as _, Transaction, id_array};

use crate::Cms;
pub use crate::Renderer;
use crate::Rendering;
use crate::access::Principal;
use crate::content::ContentFilter;
use crate::error::{CoreError, Result};
use crate::model::content::{COLUMNS, CONTENT, ContentRecord};
use crate::paging::{ListQuery, Page};

/// How many queued items one write renders (about 20 ms of work); the rest
/// wait for later writes and are assembled when read meanwhile. A database
/// from before migration 0016, or a rename shown in thousands of stories,
/// queues more than that: each write then renders a batch of the queue,
/// newest ids first (so a create still renders its own item), and no write
/// pays for all of it.
const RENDER_BATCH: usize = 100;

pub use crate::model::content::RenderedContent;
use crate::model::content::{MadeNow, Rendered};

impl Cms {
    /// Keeps answers rendered by `renderer`, named `format` (change the name
    /// whenever the renderer's output changes). With `check`, every stored
    /// answer served is compared with a fresh one. Only the first call counts.
    pub fn render_content_with(&self, format: &str, renderer: Renderer, check: bool) {
        let _ = self.rendering.set(Rendering {
            renderer,
            format: format!("{format}|{}", self.namespace()),
            check,
        });
    }

    fn rendering(&self) -> Result<&Rendering> {
        self.rendering
            .get()
            .ok_or_else(|| CoreError::Internal("no content renderer was set".into()))
    }

    /// Renders every item's kept answer again, a batch a transaction
    /// (`render-answers`, after an upgrade); returns how many it rendered.
    pub fn render_kept_answers(&self) -> Result<usize> {
        self.rendering()?;
        self.store.queue_every_render()?;
        let mut rendered = 0;
        while let Some(batch) = self.store.write(|tx| self.render_pending(tx, None))? {
            rendered += batch.len();
        }
        Ok(rendered)
    }

    /// Renders up to a batch of queued items (newest first) and stores them;
    /// the answers it rendered, by item, or `None` when nothing was queued.
    /// A story `made` in this write is read only for the parts it can hold.
    pub(crate) fn render_pending(
        &self,
        tx: &Transaction<'_>,
        mut made: Option<MadeNow>,
    ) -> Result<Option<Rendered>> {
        let Some(rendering) = self.rendering.get() else {
            return Ok(None);
        };
        // A story made alone is all there is to render (it was never queued); others are
        // taken off the queue as they are read, the batch written into the text: SQLite
        // re-prepares a cached statement at every run when its LIMIT is a parameter.
        let ids: Vec<i64> = match tx.made_alone() {
            Some(id) => vec![id],
            None => tx
                .prepare_cached(&format!(
                    "DELETE FROM content_render_pending WHERE content_id IN \
                 (SELECT content_id FROM content_render_pending WHERE {} \
                  ORDER BY content_id DESC LIMIT {RENDER_BATCH}) RETURNING content_id",
                    tx.queued_here()
                ))?
                .query_map([], |row| row.get(0))?
                .collect::<crate::db::Result<_>>()?,
        };
        if ids.is_empty() {
            return Ok(None);
        }
        // When the story made now is all there is to render, it is whole in memory.
        let whole = made
            .as_mut()
            .and_then(|made| made.whole.take_if(|item| ids == [item.record.id]));
        let items = match whole {
            Some(item) => vec![*item],
            None => {
                let records = self.content_records(tx, &id_array(ids))?;
                self.completed_items(tx, records, made.as_ref())?
            }
        };
        let store = "INSERT INTO content_rendered (content_id, format, body) VALUES (?1, ?2, ?3)
             ON CONFLICT (content_id) DO UPDATE SET format = excluded.format, body = excluded.body";
        let mut rendered = Rendered::with_capacity(items.len());
        for item in items {
            let id = item.record.id;
            let body = (rendering.renderer)(item);
            tx.execute_or_defer(store, crate::params![id, rendering.format, body])?;
            rendered.insert(id, body);
        }
        Ok(Some(rendered))
    }

    /// The records of the items in `ids` (a JSON array) that exist, newest first.
    fn content_records(&self, tx: &Transaction<'_>, ids: &str) -> Result<Vec<ContentRecord>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM content WHERE content.id IN (SELECT value FROM json_each(?1))
             ORDER BY content.id DESC"
        );
        let mut stmt = tx.prepare_cached(&sql)?;
        let rows = stmt.query_map([ids], |row| self.content_from_row(row))?;
        Ok(rows.collect::<crate::db::Result<_>>()?)
    }

    /// The answers of the items `ids`, in that order: stored ones where they
    /// are current, the others assembled and rendered now.
    pub(crate) fn rendered_items(
        &self,
        tx: &Transaction<'_>,
        ids: Vec<i64>,
    ) -> Result<Vec<RenderedContent>> {
        let rendering = self.rendering()?;
        let list = id_array(ids.iter().copied());
        let mut stored: HashMap<i64, String> = tx
            .prepare_cached(
                "SELECT content_id, body FROM content_rendered
                 WHERE content_id IN (SELECT value FROM json_each(?1)) AND format = +?2",
            )?
            .query_map(crate::params![list, rendering.format], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })?
            .collect::<crate::db::Result<_>>()?;
        let missing: Vec<i64> = ids
            .iter()
            .copied()
            .filter(|id| rendering.check || !stored.contains_key(id))
            .collect();
        let mut fresh: HashMap<i64, String> = HashMap::new();
        if !missing.is_empty() {
            let records = self.content_records(tx, &id_array(missing))?;
            fresh = self
                .completed_items(tx, records, None)?
                .into_iter()
                .map(|item| (item.record.id, (rendering.renderer)(item)))
                .collect();
        }
        ids.into_iter()
            .map(|id| match (stored.remove(&id), fresh.remove(&id)) {
                (Some(kept), Some(now)) if kept != now => Err(CoreError::Internal(format!(
                    "the stored answer of content item {id} is stale"
                ))),
                (Some(kept), _) => Ok(RenderedContent(kept)),
                (None, Some(now)) => Ok(RenderedContent(now)),
                (None, None) => Err(CoreError::Internal(format!(
                    "content item {id} could not be rendered"
                ))),
            })
            .collect()
    }

    /// [`Cms::get_content`], as the answer's text.
    pub fn get_content_rendered(&self, who: &Principal, uuid: &str) -> Result<RenderedContent> {
        self.store
            .read(|tx| self.rendered_content_in(tx, who, uuid))
    }

    /// [`Cms::get_content_rendered`] for a request's credential, checked in
    /// the same read transaction as the item is read in; with the principal.
    pub fn get_content_rendered_as(
        &self,
        credential: Option<&crate::access::Credential>,
        uuid: &str,
    ) -> Result<(RenderedContent, Arc<Principal>)> {
        self.read_as(credential, |tx, who| {
            self.rendered_content_in(tx, who, uuid)
        })
    }

    /// [`Cms::get_content_rendered`] within a read transaction.
    fn rendered_content_in(
        &self,
        tx: &Transaction<'_>,
        who: &Principal,
        uuid: &str,
    ) -> Result<RenderedContent> {
        who.require(Action::ContentGet)?;
        let rendering = self.rendering()?;
        {
            // `+?1`: see the store's note on statements re-prepared for every value.
            let found: Option<(i64, Option<String>)> = tx
                .prepare_cached(
                    "SELECT c.id, r.body FROM content c
                     LEFT JOIN content_rendered r ON r.content_id = c.id AND r.format = +?2
                     WHERE c.uuid = +?1",
                )?
                .query_row(crate::params![uuid, rendering.format], |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })
                .optional()?;
            let Some((id, stored)) = found else {
                // The same refusal as every other lookup by UUID.
                return Err(CONTENT.id_of(tx, uuid).err().unwrap_or_else(|| {
                    CoreError::Internal(format!("content item {uuid} vanished"))
                }));
            };
            if let Some(body) = stored
                && !rendering.check
            {
                return Ok(RenderedContent(body));
            }
            let mut items = self.rendered_items(tx, vec![id])?;
            items
                .pop()
                .ok_or_else(|| CoreError::Internal("an item read just now is missing".into()))
        }
    }

    /// [`Cms::create_content`], answered with the new item's kept text
    /// (rendered once, in the create's transaction).
    pub fn create_content_rendered(
        &self,
        who: &Principal,
        input: crate::content::ContentInput,
    ) -> Result<RenderedContent> {
        self.create_content_as(who, input, |tx, id, mut rendered| {
            // The answer just rendered, unless every answer is checked.
            match rendered.remove(&id) {
                Some(body) if !self.rendering()?.check => Ok(RenderedContent(body)),
                _ => self
                    .rendered_items(tx, vec![id])?
                    .pop()
                    .ok_or_else(|| CoreError::Internal("an item made just now is missing".into())),
            }
        })
    }

    /// [`Cms::list_content`], each item as its answer's text.
    pub fn list_content_rendered(
        &self,
        who: &Principal,
        query: &ListQuery,
        filter: &ContentFilter,
    ) -> Result<Page<RenderedContent>> {
        self.list_content_as(
            who,
            query,
            filter,
            "content.id",
            |row| row.get(0),
            |tx, ids| self.rendered_items(tx, ids),
        )
    }

    /// Whether the item `uuid` has a current kept answer (for tests).
    #[doc(hidden)]
    pub fn has_rendered(&self, uuid: &str) -> Result<bool> {
        let format = self.rendering()?.format.clone();
        self.read(|tx| {
            let id = CONTENT.id_of(tx, uuid)?;
            Ok(tx
                .prepare_cached(
                    "SELECT 1 FROM content_rendered WHERE content_id = ?1 AND format = +?2",
                )?
                .query_row(crate::params![id, format], |_| Ok(()))
                .optional()?
                .is_some())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::Credential;
    use crate::content::ContentInput;

    /// A renderer that shows every field the item has.
    fn debug_renderer() -> Renderer {
        Arc::new(|item| format!("{item:?}"))
    }

    fn open(check: bool) -> (tempfile::TempDir, Cms, Arc<Principal>) {
        let dir = tempfile::tempdir().expect("works");
        let cms = Cms::open(dir.path(), "test").expect("works");
        cms.render_content_with("debug", debug_renderer(), check);
        let key = cms
            .create_key("ed", &["admin".to_owned()], &[])
            .expect("works");
        let who = cms
            .authenticate(Some(&Credential::PrivateKey(key.private_key)))
            .expect("works");
        (dir, cms, who)
    }

    fn story(cms: &Cms, who: &Principal, title: &str) -> String {
        let input = ContentInput {
            title: Some(title.to_owned()),
            content_type: Some("article".to_owned()),
            body: Some("<p>Words</p>".to_owned()),
            ..ContentInput::default()
        };
        cms.create_content(who, input).expect("works").record.uuid
    }

    /// The answer served equals a fresh assembly of the item.
    fn assert_current(cms: &Cms, who: &Principal, uuid: &str, step: &str) {
        let served = cms.get_content_rendered(who, uuid).expect("works").0;
        let fresh = format!("{:?}", cms.get_content(who, uuid).expect("works"));
        assert_eq!(served, fresh, "after {step}");
    }

    fn sql(cms: &Cms, statement: &str) {
        cms.store()
            .write(|tx| {
                tx.execute_batch(statement)?;
                Ok::<_, CoreError>(())
            })
            .expect("works");
    }

    #[test]
    fn a_write_keeps_its_item_rendered() {
        let (_dir, cms, who) = open(false);
        let uuid = story(&cms, &who, "First");
        assert!(
            cms.has_rendered(&uuid).expect("works"),
            "rendered by its create"
        );
        assert_current(&cms, &who, &uuid, "the create");
        let change = ContentInput {
            title: Some("Second".to_owned()),
            ..ContentInput::default()
        };
        cms.update_content(&who, &uuid, change).expect("works");
        assert!(
            cms.has_rendered(&uuid).expect("works"),
            "rendered again by its update"
        );
        assert_current(&cms, &who, &uuid, "the update");
    }

    /// Every table an item shows, changed behind the use cases' back: the
    /// kept answer is dropped at once, so what is served is never stale.
    #[test]
    fn a_change_to_anything_an_item_shows_drops_its_answer() {
        let (_dir, cms, who) = open(false);
        let uuid = story(&cms, &who, "Lead story");
        let media = story(&cms, &who, "Photo");
        let now = "'2026-01-01 00:00:00'";
        let steps = [
            (
                "an author linked",
                format!(
                    "INSERT INTO authors (id, uuid, slug, name, created_at, modified_at)
                     VALUES (900, '00000000-0000-4000-8000-000000000900', 'ann', 'Ann', {now}, {now});
                     INSERT INTO content_authors (content_id, author_id, position)
                     SELECT id, 900, 0 FROM content WHERE uuid IN ('{uuid}', '{media}');"
                ),
            ),
            (
                "an author renamed",
                "UPDATE authors SET name = 'Ann B.' WHERE id = 900".to_owned(),
            ),
            (
                "a tag linked and renamed",
                format!(
                    "INSERT INTO tags (id, uuid, slug, name, created_at, modified_at)
                     VALUES (901, '00000000-0000-4000-8000-000000000901', 'courts', 'Courts', {now}, {now});
                     INSERT INTO content_tags (content_id, tag_id, position)
                     SELECT id, 901, 0 FROM content WHERE uuid = '{uuid}';
                     UPDATE tags SET name = 'Law' WHERE id = 901;"
                ),
            ),
            (
                "a user renamed",
                "UPDATE users SET name = 'Editor' WHERE name = 'ed'".to_owned(),
            ),
            (
                "a lock taken",
                format!(
                    "INSERT INTO lock_requests (uuid, content_id, user_id, created_at, modified_at)
                     SELECT '00000000-0000-4000-8000-000000000902', id, 1, {now}, {now}
                     FROM content WHERE uuid = '{uuid}';"
                ),
            ),
            (
                "a URL added",
                format!(
                    "INSERT INTO content_urls (uuid, content_id, path, position, created_at)
                     SELECT '00000000-0000-4000-8000-000000000903', id, '/a', 0, {now}
                     FROM content WHERE uuid = '{uuid}';"
                ),
            ),
            (
                "a lead photo set",
                format!(
                    "INSERT INTO attachments (id, uuid, content_id, base_name, salt, extension, preview_extension,
                       type, width, height, size_bytes, created_at, modified_at)
                     SELECT 904, '00000000-0000-4000-8000-000000000904', id, 'photo', 's', 'jpg', 'jpg',
                       'image', 10, 10, 100, {now}, {now} FROM content WHERE uuid = '{media}';
                     UPDATE content SET dominant_attachment_id = 904 WHERE uuid = '{uuid}';"
                ),
            ),
            (
                "the lead photo's file turned",
                "UPDATE attachments SET angle = 90 WHERE id = 904".to_owned(),
            ),
            (
                "the media item renamed",
                format!("UPDATE content SET title = 'Photo, renamed' WHERE uuid = '{media}'"),
            ),
            (
                "the media item's author renamed",
                "UPDATE authors SET name = 'Ann C.' WHERE id = 900".to_owned(),
            ),
            (
                "the lock released",
                "DELETE FROM lock_requests".to_owned(),
            ),
        ];
        for (step, statement) in steps {
            // Render everything again first, so each step starts from kept answers.
            cms.write(|_| Ok(())).expect("works");
            assert!(cms.has_rendered(&uuid).expect("works"));
            sql(&cms, &statement);
            assert!(
                !cms.has_rendered(&uuid).expect("works"),
                "{step} drops the answer"
            );
            assert_current(&cms, &who, &uuid, step);
        }
    }

    #[test]
    fn the_check_finds_a_stale_answer() {
        let (_dir, cms, who) = open(true);
        let uuid = story(&cms, &who, "Checked");
        assert_current(&cms, &who, &uuid, "the create");
        sql(&cms, "UPDATE content_rendered SET body = 'stale'");
        let err = cms.get_content_rendered(&who, &uuid).expect_err("refused");
        assert!(err.to_string().contains("stale"), "{err}");
    }
}
