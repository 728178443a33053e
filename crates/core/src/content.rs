//! Content items (articles, posts, media, pages): their fields, links, versions and audit.

use crate::access::Action;
use crate::db::{OptionalExtension as _, Transaction, params};

use crate::Cms;
use crate::access::Principal;
use crate::authors::AUTHORS;
use crate::clock;
use crate::error::{CoreError, Result};
use crate::model::attachment::Upload;
use crate::model::container::CONTAINERS;
pub use crate::model::content::{
    AuditEntry, CONTENT_TYPES, ContentItem, ContentRecord, ContentUrl, LeadPhoto, VersionSummary,
};
pub(crate) use crate::model::content::{COLUMNS, CONTENT};
use crate::model::content::{MadeNow, audit};
use crate::records::{ids_of_field, new_uuid, required_text};
use crate::slug::Slug;
use crate::store::uploads::{remove_folder, write_upload};
use crate::tags::TAGS;
pub use listing::ContentFilter;

/// A content create or update. `None` leaves a field as it is; for the
/// nullable fields `Some(None)` clears it.
#[derive(Debug, Clone, Default)]
pub struct ContentInput {
    pub title: Option<String>,
    pub slug: Option<String>,
    pub content_type: Option<String>,
    pub weight: Option<i64>,
    pub abstract_text: Option<String>,
    pub abstract_raw: Option<String>,
    pub body: Option<String>,
    pub body_raw: Option<String>,
    pub published_at: Option<Option<String>>,
    pub state: Option<i64>,
    pub dominant_attachment: Option<Option<String>>,
    pub authors: Option<Vec<String>>,
    pub tags: Option<Vec<String>>,
    pub urls: Option<Vec<String>>,
    pub attachment: Option<Upload>,
    /// The blog container a post belongs to.
    pub container: Option<Option<String>>,
    /// The version the writer started from (a Copydesk extension). When
    /// someone saved a newer one since, the save is merged onto it; what
    /// cannot merge refuses the save, with nothing replaced.
    pub base_version: Option<i64>,
}

/// A new item's input with what was checked before its transaction.
struct NewContent {
    title: String,
    content_type: String,
    published_at: Option<String>,
    urls: Vec<String>,
    slug: String,
    input: ContentInput,
}

impl NewContent {
    /// Whether the story, made with `file` or not, embeds nothing but its own rows.
    fn stands_alone(&self, file: bool) -> bool {
        let input = &self.input;
        let linked = input.authors.is_some() || input.tags.is_some() || !self.urls.is_empty();
        !(linked || file || matches!(input.dominant_attachment, Some(Some(_))))
    }
}

impl ContentInput {
    /// Refuses (413) a body or abstract beyond what one field holds (see `text_size`).
    fn check_text_sizes(&self) -> Result<()> {
        for (field, text) in [
            ("content", &self.body),
            ("content_raw", &self.body_raw),
            ("abstract", &self.abstract_text),
            ("abstract_raw", &self.abstract_raw),
        ] {
            crate::text_size::check(field, text.as_deref())?;
        }
        Ok(())
    }
}

/// The fields a version snapshots and an update may change.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Editable {
    title: String,
    slug: String,
    content_type: String,
    weight: i64,
    abstract_text: String,
    abstract_raw: String,
    body: String,
    body_raw: String,
    published_at: Option<String>,
    state: i64,
    dominant_attachment_id: Option<i64>,
    container_id: Option<i64>,
}

impl Editable {
    fn of(record: &ContentRecord) -> Self {
        Self {
            title: record.title.clone(),
            slug: record.slug.clone(),
            content_type: record.content_type.clone(),
            weight: record.weight,
            abstract_text: record.abstract_text.clone(),
            abstract_raw: record.abstract_raw.clone(),
            body: record.body.clone(),
            body_raw: record.body_raw.clone(),
            published_at: record.published_at.clone(),
            state: record.state,
            dominant_attachment_id: record.dominant_attachment_id,
            container_id: record.container_id,
        }
    }
}

/// The attachment a UUID names: the attachment's own, or (as clients of
/// the hosted service send it) the media item's that holds it.
pub(crate) fn attachment_named(tx: &Transaction<'_>, uuid: &str) -> Result<Option<i64>> {
    Ok(tx
        .prepare_cached(
            "SELECT id FROM attachments WHERE uuid = ?1
             UNION ALL
             SELECT a.id FROM attachments a JOIN content c ON c.id = a.content_id WHERE c.uuid = ?1
             LIMIT 1",
        )?
        .query_row([uuid], |row| row.get::<_, i64>(0))
        .optional()?)
}

/// The action that writing content of `content_type` needs (`CONTENT type_article`, ...).
fn type_action(content_type: &str) -> Result<Action> {
    Action::named(&format!("CONTENT type_{content_type}")).ok_or_else(|| {
        CoreError::invalid_field("type", format!("\"{content_type}\" is not a content type"))
    })
}

pub(crate) fn parse_content_type(raw: &str) -> Result<String> {
    let raw = raw.trim();
    if CONTENT_TYPES.contains(&raw) {
        Ok(raw.to_owned())
    } else {
        Err(CoreError::invalid_field(
            "type",
            format!(
                "\"{raw}\" is not a content type; use one of {}",
                CONTENT_TYPES.join(", ")
            ),
        ))
    }
}

fn parse_url_path(raw: &str) -> Result<String> {
    let path = raw.trim();
    if path.is_empty() || path.chars().any(char::is_whitespace) {
        return Err(CoreError::invalid_field(
            "urls",
            format!("\"{raw}\" is not a URL path"),
        ));
    }
    Ok(if path.starts_with('/') || path.contains("://") {
        path.to_owned()
    } else {
        format!("/{path}")
    })
}

/// The list of distinct URL paths, in the order sent.
fn parse_url_paths(raw: &[String]) -> Result<Vec<String>> {
    let mut paths: Vec<String> = Vec::with_capacity(raw.len());
    for path in raw {
        let path = parse_url_path(path)?;
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    Ok(paths)
}

impl Cms {
    pub(crate) fn urls_of_content(
        &self,
        tx: &Transaction<'_>,
        content_id: i64,
    ) -> Result<Vec<ContentUrl>> {
        let mut stmt = tx.prepare_cached(
            "SELECT id, uuid, path, content_id, created_at FROM content_urls WHERE content_id = +?1 ORDER BY position",
        )?;
        let rows = stmt.query_map([content_id], crate::content_embeds::url_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn get_content(&self, who: &Principal, uuid: &str) -> Result<ContentItem> {
        who.require(Action::ContentGet)?;
        self.read(|tx| {
            let id = CONTENT.id_of(tx, uuid)?;
            self.content_item(tx, id)
        })
    }

    pub fn create_content(&self, who: &Principal, input: ContentInput) -> Result<ContentItem> {
        self.create_content_as(who, input, |tx, id, _| self.content_item(tx, id))
    }

    /// Creates an item and answers with what `finish` reads of it, in the
    /// create's own transaction.
    pub(crate) fn create_content_as<T>(
        &self,
        who: &Principal,
        input: ContentInput,
        finish: impl FnOnce(&Transaction<'_>, i64, crate::model::content::Rendered) -> Result<T>,
    ) -> Result<T> {
        let mut checked = self.check_new_content(who, input)?;
        let files = match &checked.input.attachment {
            Some(upload) => Some(write_upload(
                self.store.files_dir(),
                &upload.name,
                &upload.file_base64,
                0,
            )?),
            None => None,
        };
        let alone = checked.stands_alone(files.is_some());
        let item = self.write_making_story(
            alone,
            |tx| self.insert_content(tx, who, &mut checked, files.as_ref()),
            finish,
        )?;
        if let Some(files) = files {
            files.keep();
        }
        Ok(item)
    }

    /// Creates many items (without attachments) in one transaction, each as
    /// `create_content` would: for importing an archive. All or nothing;
    /// returns how many it made.
    pub fn create_contents(&self, who: &Principal, inputs: Vec<ContentInput>) -> Result<usize> {
        let mut checked = inputs
            .into_iter()
            .map(|input| {
                if input.attachment.is_some() {
                    return Err(CoreError::invalid_field(
                        "attachment",
                        "items made together cannot carry files; upload them one by one",
                    ));
                }
                self.check_new_content(who, input)
            })
            .collect::<Result<Vec<_>>>()?;
        // Every item made here is served from its kept answer at once.
        self.write_rendering_all(|tx| {
            for one in &mut checked {
                self.insert_content(tx, who, one, None)?;
            }
            Ok(checked.len())
        })
    }

    /// What a create needs that can be checked before the transaction.
    fn check_new_content(&self, who: &Principal, input: ContentInput) -> Result<NewContent> {
        who.require(Action::ContentCreate)?;
        input.check_text_sizes()?;
        let title = required_text("title", input.title.as_deref())?;
        let content_type = parse_content_type(
            input
                .content_type
                .as_deref()
                .ok_or_else(|| CoreError::required("type"))?,
        )?;
        who.require(type_action(&content_type)?)?;
        let published_at = match input.published_at.clone().flatten() {
            Some(raw) => {
                who.require(Action::ContentPublish)?;
                Some(clock::parse_timestamp("published_at", &raw)?)
            }
            None => None,
        };
        let urls = parse_url_paths(input.urls.as_deref().unwrap_or_default())?;
        let slug = Slug::parse_or_make(input.slug.as_deref(), &title);
        Ok(NewContent {
            title,
            content_type,
            published_at,
            urls,
            slug: slug.into_string(),
            input,
        })
    }

    /// Stores one checked new item with its links, first version and audit: the story as made
    /// (declared made alone when it embeds nothing else).
    fn insert_content(
        &self,
        tx: &Transaction<'_>,
        who: &Principal,
        new: &mut NewContent,
        files: Option<&crate::store::uploads::WrittenFiles>,
    ) -> Result<MadeNow> {
        let input = &new.input;
        let now = clock::now();
        let fields = Editable {
            slug: std::mem::take(&mut new.slug),
            title: std::mem::take(&mut new.title),
            content_type: std::mem::take(&mut new.content_type),
            weight: input.weight.unwrap_or(0),
            abstract_text: input.abstract_text.clone().unwrap_or_default(),
            abstract_raw: input.abstract_raw.clone().unwrap_or_default(),
            body: input.body.clone().unwrap_or_default(),
            body_raw: input.body_raw.clone().unwrap_or_default(),
            published_at: new.published_at.take(),
            state: input.state.unwrap_or(0),
            dominant_attachment_id: self
                .dominant_attachment_id(tx, input.dominant_attachment.clone().flatten())?,
            container_id: self.blog_container_id(tx, input.container.clone().flatten())?,
        };
        check_post_container(&fields)?;
        let record = tx
            .prepare_cached(&format!(
                "INSERT INTO content (uuid, title, slug, type, version, weight, abstract, abstract_raw, content,
                 content_raw, created_at, modified_at, published_at, state, user_id, dominant_attachment_id, container_id)
                 VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11, ?12, ?13, ?14, ?15) RETURNING {COLUMNS}"
            ))?
            .query_row(params![
            new_uuid(),
            fields.title,
            fields.slug,
            fields.content_type,
            fields.weight,
            fields.abstract_text,
            fields.abstract_raw,
            fields.body,
            fields.body_raw,
            now,
            fields.published_at,
            fields.state,
            who.user_id,
            fields.dominant_attachment_id,
            fields.container_id
        ], |row| self.content_from_row(row))?;
        let id = record.id;
        let authors = input
            .authors
            .as_deref()
            .map(|sent| ids_of_field(tx, AUTHORS, "authors", sent))
            .transpose()?;
        let tags = input
            .tags
            .as_deref()
            .map(|sent| ids_of_field(tx, TAGS, "tags", sent))
            .transpose()?;
        // A new item has no URLs to compare the ones sent with.
        let urls = (!new.urls.is_empty()).then_some(new.urls.as_slice());
        self.set_links(tx, id, authors.as_deref(), tags.as_deref(), urls)?;
        if let Some(files) = files {
            crate::attachments::record_files(tx, id, files, 0, None)?;
            if fields.dominant_attachment_id.is_none() {
                tx.prepare_cached(
                    "UPDATE content SET dominant_attachment_id = (SELECT id FROM attachments WHERE content_id = ?1)
                     WHERE id = ?1",
                )?
                .execute([id])?;
            }
        }
        // The first version's links are the ones just set: none to copy
        // when none were sent.
        let version = self.insert_version(tx, id, who)?;
        let linked = |ids: &Option<Vec<i64>>| ids.as_ref().is_some_and(|ids| !ids.is_empty());
        if linked(&authors) || linked(&tags) {
            crate::versions::snapshot_links(tx, version.id)?;
        }
        let mut entries = vec![audit(tx, id, who, "create", "")?];
        if let Some(published_at) = &fields.published_at {
            entries.push(audit(tx, id, who, "publish", published_at)?);
        }
        let mut made = MadeNow {
            id,
            authors: authors.is_some(),
            tags: tags.is_some(),
            urls: !new.urls.is_empty(),
            attachment: files.is_some(),
            whole: None,
        };
        // With nothing else to embed, the story is whole as its rows were written.
        if new.stands_alone(files.is_some()) {
            let r = &record;
            tx.declare_made_alone(id, [&r.title, &r.abstract_text, &r.body, &r.slug]);
            made.whole = Some(Box::new(ContentItem {
                record,
                versions: vec![version],
                audit: entries,
                ..Default::default()
            }));
        }
        Ok(made)
    }

    pub fn update_content(
        &self,
        who: &Principal,
        uuid: &str,
        input: ContentInput,
    ) -> Result<ContentItem> {
        who.require(Action::ContentUpdate)?;
        input.check_text_sizes()?;
        if let Some(content_type) = &input.content_type {
            let content_type = parse_content_type(content_type)?;
            who.require(type_action(&content_type)?)?;
        }
        let published_at = match input.published_at.clone() {
            Some(Some(raw)) => Some(Some(clock::parse_timestamp("published_at", &raw)?)),
            other => other,
        };
        let urls = match &input.urls {
            Some(urls) => Some(parse_url_paths(urls)?),
            None => None,
        };
        if let Some(title) = &input.title {
            required_text("title", Some(title))?;
        }
        let files = match &input.attachment {
            Some(upload) => Some(write_upload(
                self.store.files_dir(),
                &upload.name,
                &upload.file_base64,
                0,
            )?),
            None => None,
        };
        let (item, old_salt) = self.write(|tx| {
            let id = CONTENT.id_of(tx, uuid)?;
            self.check_writable(tx, who, id)?;
            let old = self.content_record(tx, id)?;
            let before = Editable::of(&old);
            let title = input.title.as_deref().map(str::trim).map(str::to_owned).unwrap_or(before.title.clone());
            let mut after = Editable {
                slug: match input.slug.as_deref() {
                    Some(sent) => Slug::parse_or_make(Some(sent), &title).into_string(),
                    None => before.slug.clone(),
                },
                title,
                content_type: match &input.content_type {
                    Some(content_type) => parse_content_type(content_type)?,
                    None => before.content_type.clone(),
                },
                weight: input.weight.unwrap_or(before.weight),
                abstract_text: input.abstract_text.clone().unwrap_or(before.abstract_text.clone()),
                abstract_raw: twin_raw(&input.abstract_text, &input.abstract_raw, &before.abstract_text, &before.abstract_raw),
                body: input.body.clone().unwrap_or(before.body.clone()),
                body_raw: twin_raw(&input.body, &input.body_raw, &before.body, &before.body_raw),
                published_at: published_at.clone().unwrap_or(before.published_at.clone()),
                state: input.state.unwrap_or(before.state),
                dominant_attachment_id: match input.dominant_attachment.clone() {
                    Some(sent) => self.dominant_attachment_id(tx, sent)?,
                    None => before.dominant_attachment_id,
                },
                container_id: match input.container.clone() {
                    Some(sent) => self.blog_container_id(tx, sent)?,
                    None => before.container_id,
                },
            };
            let mut authors = input.authors.as_deref().map(|sent| ids_of_field(tx, AUTHORS, "authors", sent)).transpose()?;
            let mut tags = input.tags.as_deref().map(|sent| ids_of_field(tx, TAGS, "tags", sent)).transpose()?;
            let mut merged_onto = None;
            if let Some(base_version) = input.base_version.filter(|base| *base != old.version) {
                let raw_sent = SentRaw { abstract_raw: input.abstract_raw.is_some(), body_raw: input.body_raw.is_some() };
                merge_onto_current(tx, (id, old.version, base_version), &before, (&mut after, raw_sent), (&mut authors, &mut tags))?;
                merged_onto = Some(base_version);
            }
            check_post_container(&after)?;
            if after.published_at != before.published_at {
                who.require(Action::ContentPublish)?;
            }
            let links_changed = self.set_links(tx, id, authors.as_deref(), tags.as_deref(), urls.as_deref())?;
            let old_salt = match &files {
                Some(files) => crate::attachments::record_files(tx, id, files, 0, None)?,
                None => None,
            };
            if after != before || links_changed || files.is_some() {
                tx.prepare_cached(
                    "UPDATE content SET title = ?2, slug = ?3, type = ?4, weight = ?5, abstract = ?6, abstract_raw = ?7,
                     content = ?8, content_raw = ?9, published_at = ?10, state = ?11, dominant_attachment_id = ?12,
                     container_id = ?13, version = version + 1, modified_at = ?14 WHERE id = ?1",
                )?
                .execute(params![
                    id,
                    after.title,
                    after.slug,
                    after.content_type,
                    after.weight,
                    after.abstract_text,
                    after.abstract_raw,
                    after.body,
                    after.body_raw,
                    after.published_at,
                    after.state,
                    after.dominant_attachment_id,
                    after.container_id,
                    clock::now()
                ])?;
                self.snapshot_version(tx, id, who)?;
                audit(tx, id, who, "update", "")?;
                if let Some(base_version) = merged_onto {
                    let detail = format!(
                        "{}'s edits of version {base_version} were merged with version {}, saved since",
                        who.name, old.version
                    );
                    audit(tx, id, who, "merged", &detail)?;
                }
                match (&before.published_at, &after.published_at) {
                    (None, Some(at)) => _ = audit(tx, id, who, "publish", at)?,
                    (Some(_), None) => _ = audit(tx, id, who, "unpublish", "")?,
                    (Some(old), Some(new)) if old != new => {
                        _ = audit(tx, id, who, "publish", new)?;
                    }
                    _ => {}
                }
            }
            // A save with a body is its writer's text: their drafts of the
            // item are in a version now (a save of other fields alone, the
            // lead photo say, leaves them unsaved text).
            if input.body.is_some() {
                tx.prepare_cached("UPDATE drafts SET saved = 1 WHERE content_id = ?1 AND user_id = ?2 AND saved = 0")?
                    .execute(params![id, who.user_id])?;
            }
            Ok((self.content_item(tx, id)?, old_salt))
        })?;
        if let Some(files) = files {
            files.keep();
        }
        if let Some(salt) = old_salt {
            remove_folder(self.store.files_dir(), &salt);
        }
        Ok(item)
    }

    /// Deletes the item, its versions, drafts and audit, and its attachment files.
    pub fn delete_content(&self, who: &Principal, uuid: &str) -> Result<()> {
        who.require(Action::ContentDelete)?;
        let salt = self.write(|tx| {
            let id = CONTENT.id_of(tx, uuid)?;
            self.check_writable(tx, who, id)?;
            let salt = self.attachment_of_content(tx, id)?.map(|a| a.salt);
            CONTENT.delete(tx, id)?;
            Ok(salt)
        })?;
        if let Some(salt) = salt {
            remove_folder(self.store.files_dir(), &salt);
        }
        Ok(())
    }

    /// The attachment `dominantAttachment` names: by the attachment's own
    /// UUID, or (as clients of the hosted service send it) by the UUID of
    /// the media item that holds it.
    fn dominant_attachment_id(
        &self,
        tx: &Transaction<'_>,
        uuid: Option<String>,
    ) -> Result<Option<i64>> {
        match uuid.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(uuid) => {
                let id = attachment_named(tx, uuid)?;
                id.map(Some).ok_or_else(|| {
                    CoreError::not_found_field(
                        "dominantAttachment",
                        format!("no attachment, or media item with one, has UUID {uuid}"),
                    )
                })
            }
        }
    }

    /// The blog container a post picks; any other container type is refused.
    fn blog_container_id(&self, tx: &Transaction<'_>, uuid: Option<String>) -> Result<Option<i64>> {
        match uuid.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(uuid) => {
                let id = CONTAINERS.id_of_field(tx, "container", uuid)?;
                let container_type: String = tx
                    .prepare_cached("SELECT type FROM containers WHERE id = ?1")?
                    .query_row([id], |row| row.get(0))?;
                if container_type != "blog" {
                    return Err(CoreError::invalid_field(
                        "container",
                        format!(
                            "a post belongs to a blog container, and {uuid} is a {container_type} container"
                        ),
                    ));
                }
                Ok(Some(id))
            }
        }
    }
}

/// The raw content a rich-text field keeps after an update: the raw sent;
/// with new HTML and no raw, raw content made from that HTML (or none),
/// never the raw that told the old text (see `merge::raw_for_sent_html`);
/// else the raw it had.
fn twin_raw(html: &Option<String>, raw: &Option<String>, old_html: &str, old_raw: &str) -> String {
    match (html, raw) {
        (_, Some(raw)) => raw.clone(),
        (Some(html), None) if html != old_html => {
            copydesk_text::merge::raw_for_sent_html(html, old_raw)
        }
        _ => old_raw.to_owned(),
    }
}

fn check_post_container(fields: &Editable) -> Result<()> {
    if fields.container_id.is_some() && fields.content_type != "post" {
        return Err(CoreError::invalid_field(
            "container",
            "only a post picks a blog container",
        ));
    }
    Ok(())
}

mod links;
mod listing;
mod save_merge;
use save_merge::{SentRaw, merge_onto_current};

#[cfg(test)]
mod tests;
