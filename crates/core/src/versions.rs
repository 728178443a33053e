//! Versions: the stored revisions of a content item, listed, read and restored.

use crate::access::Action;
use crate::db::{Row, Transaction, params};
use crate::record_type::RecordType;

use crate::Cms;
use crate::access::Principal;
use crate::authors::{Author, COLUMNS as AUTHOR_COLUMNS};
use crate::clock;
use crate::db::fetch_page;
use crate::error::{CoreError, Result};
use crate::model::content::audit;
use crate::model::content::{CONTENT, ContentItem, VersionSummary};
use crate::paging::{ListParams, ListQuery, Page};
use crate::records::{Table, new_uuid};
use crate::srn::Srn;
use crate::tags::Tag;
use crate::users::User;

pub(crate) const VERSIONS: Table = Table {
    name: "versions",
    noun: "version",
};

const SORTABLE: &[&str] = &[
    "id",
    "uuid",
    "version",
    "title",
    "slug",
    "created_at",
    "modified_at",
    "published_at",
];
const COLUMNS: &str = "versions.id, versions.uuid, versions.content_id, versions.version, versions.title, versions.slug, versions.type, versions.weight, versions.abstract, versions.abstract_raw, versions.content, versions.content_raw, versions.published_at, versions.state, versions.workflow_id, versions.dominant_attachment_id, versions.user_id, versions.created_at, versions.modified_at, (SELECT u.id FROM content_urls u WHERE u.content_id = versions.content_id ORDER BY u.position LIMIT 1)";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub id: i64,
    pub uuid: String,
    pub content_id: i64,
    pub version: i64,
    pub title: String,
    pub slug: String,
    pub content_type: String,
    pub weight: i64,
    pub abstract_text: String,
    pub abstract_raw: String,
    pub body: String,
    pub body_raw: String,
    pub published_at: Option<String>,
    pub state: i64,
    pub workflow_id: i64,
    pub dominant_attachment_id: Option<i64>,
    pub user_id: Option<i64>,
    pub created_at: String,
    pub modified_at: String,
    pub url_id: Option<i64>,
    pub srn: String,
    pub user: Option<User>,
    /// The item's authors when this version was saved, in byline order.
    pub authors: Vec<Author>,
    /// The item's tags when this version was saved, in their order.
    pub tags: Vec<Tag>,
}

/// Stores the item's authors and tags of now as those of the version with row
/// id `version_id`, in the transaction that stored the version: whoever adds a
/// version (a save, a restore, an export push, a pulled change) calls this
/// right after.
pub(crate) fn snapshot_links(tx: &Transaction<'_>, version_id: i64) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO version_authors (version_id, author_id, position)
         SELECT v.id, l.author_id, l.position FROM versions v JOIN content_authors l ON l.content_id = v.content_id
         WHERE v.id = +?1",
    )?
    .execute([version_id])?;
    tx.prepare_cached(
        "INSERT INTO version_tags (version_id, tag_id, position)
         SELECT v.id, l.tag_id, l.position FROM versions v JOIN content_tags l ON l.content_id = v.content_id
         WHERE v.id = +?1",
    )?
    .execute([version_id])?;
    Ok(())
}

/// The row ids in `link_table` (`version_authors`, `version_tags`) of one version, in order.
fn linked_ids(
    tx: &Transaction<'_>,
    link_table: &str,
    column: &str,
    version_id: i64,
) -> Result<Vec<i64>> {
    let sql = format!("SELECT {column} FROM {link_table} WHERE version_id = +?1 ORDER BY position");
    let ids = tx
        .prepare_cached(&sql)?
        .query_map([version_id], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(ids)
}

impl Cms {
    /// Stores the item's current fields, authors and tags as its current version number.
    pub(crate) fn snapshot_version(
        &self,
        tx: &Transaction<'_>,
        content_id: i64,
        who: &Principal,
    ) -> Result<()> {
        let new = self.insert_version(tx, content_id, who)?;
        snapshot_links(tx, new.id)
    }

    /// Stores the item's current fields as its current version number,
    /// without its links; the new version as the item lists it.
    pub(crate) fn insert_version(
        &self,
        tx: &Transaction<'_>,
        content_id: i64,
        who: &Principal,
    ) -> Result<VersionSummary> {
        Ok(tx
            .prepare_cached(
                "INSERT INTO versions (uuid, content_id, version, title, slug, type, weight, abstract, abstract_raw, content,
                 content_raw, published_at, state, workflow_id, dominant_attachment_id, user_id, created_at, modified_at)
                 SELECT ?2, id, version, title, slug, type, weight, abstract, abstract_raw, content, content_raw,
                 published_at, state, workflow_id, dominant_attachment_id, ?3, modified_at, modified_at
                 FROM content WHERE id = ?1 RETURNING id, uuid, version, user_id, created_at",
            )?
            .query_row(params![content_id, new_uuid(), who.user_id], |row| {
                self.version_summary(row)
            })?)
    }

    fn version_from_row(&self, row: &Row<'_>) -> crate::db::Result<Version> {
        let uuid: String = row.get(1)?;
        Ok(Version {
            id: row.get(0)?,
            srn: self.srn(RecordType::Version, &uuid),
            uuid,
            content_id: row.get(2)?,
            version: row.get(3)?,
            title: row.get(4)?,
            slug: row.get(5)?,
            content_type: row.get(6)?,
            weight: row.get(7)?,
            abstract_text: row.get(8)?,
            abstract_raw: row.get(9)?,
            body: row.get(10)?,
            body_raw: row.get(11)?,
            published_at: row.get(12)?,
            state: row.get(13)?,
            workflow_id: row.get(14)?,
            dominant_attachment_id: row.get(15)?,
            user_id: row.get(16)?,
            created_at: row.get(17)?,
            modified_at: row.get(18)?,
            url_id: row.get(19)?,
            user: None,
            authors: Vec::new(),
            tags: Vec::new(),
        })
    }

    /// The authors the item had when a version was saved, in byline order.
    fn authors_of_version(&self, tx: &Transaction<'_>, version_id: i64) -> Result<Vec<Author>> {
        let sql = format!(
            "SELECT {AUTHOR_COLUMNS} FROM version_authors va JOIN authors ON authors.id = va.author_id
             WHERE va.version_id = +?1 ORDER BY va.position"
        );
        let mut stmt = tx.prepare_cached(&sql)?;
        let rows = stmt.query_map([version_id], |row| self.author_from_row(row))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The version with what it embeds: who saved it, and its authors and tags.
    fn with_user(&self, tx: &Transaction<'_>, mut version: Version) -> Result<Version> {
        version.user = self.user_by_id(tx, version.user_id)?;
        version.authors = self.authors_of_version(tx, version.id)?;
        version.tags = self.tags_linked(tx, "version_tags", "version_id", version.id)?;
        Ok(version)
    }

    fn version_by_id(&self, tx: &Transaction<'_>, id: i64) -> Result<Version> {
        let sql = format!("SELECT {COLUMNS} FROM versions WHERE versions.id = ?1");
        let version = tx
            .prepare_cached(&sql)?
            .query_row([id], |row| self.version_from_row(row))?;
        self.with_user(tx, version)
    }

    /// `GET /v3/version?content=SRN`: the versions of one item.
    pub fn list_versions(
        &self,
        who: &Principal,
        content_srn: Option<&str>,
        query: &ListQuery,
    ) -> Result<Page<Version>> {
        who.require(Action::VersionList)?;
        let raw = content_srn
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| CoreError::required("content"))?;
        let srn = Srn::parse_typed("content", raw.trim(), RecordType::Content)?;
        let params = ListParams::parse(query, SORTABLE, "modified_at")?;
        self.read(|tx| {
            let content_id = CONTENT.id_of(tx, &srn.uuid)?;
            let mut page = fetch_page(
                tx,
                "versions",
                COLUMNS,
                "WHERE versions.content_id = +?1",
                &[&content_id],
                &params,
                |row| self.version_from_row(row),
            )?;
            let items = std::mem::take(&mut page.items)
                .into_iter()
                .map(|v| self.with_user(tx, v))
                .collect::<Result<Vec<_>>>()?;
            Ok(page.with_items(items))
        })
    }

    pub fn get_version(&self, who: &Principal, uuid: &str) -> Result<Version> {
        who.require(Action::VersionGet)?;
        self.read(|tx| {
            let id = VERSIONS.id_of(tx, uuid)?;
            self.version_by_id(tx, id)
        })
    }

    /// `PUT /v3/version/{uuid}`: a new version carrying the old one's text,
    /// authors and tags (what the version shows is what a restore brings back).
    /// Publication and type stay as they are: restoring text is not publishing.
    pub fn restore_version(&self, who: &Principal, uuid: &str) -> Result<ContentItem> {
        who.require(Action::VersionRestore)?;
        self.write(|tx| {
            let id = VERSIONS.id_of(tx, uuid)?;
            let old = self.version_by_id(tx, id)?;
            self.check_writable(tx, who, old.content_id)?;
            tx.prepare_cached(
                "UPDATE content SET title = ?2, slug = ?3, weight = ?4, abstract = ?5, abstract_raw = ?6, content = ?7,
                 content_raw = ?8, dominant_attachment_id = ?9, version = version + 1, modified_at = ?10 WHERE id = ?1",
            )?
            .execute(params![
                old.content_id,
                old.title,
                old.slug,
                old.weight,
                old.abstract_text,
                old.abstract_raw,
                old.body,
                old.body_raw,
                old.dominant_attachment_id,
                clock::now()
            ])?;
            let authors = linked_ids(tx, "version_authors", "author_id", id)?;
            let tags = linked_ids(tx, "version_tags", "tag_id", id)?;
            tx.replace_links("content_authors", "author_id", old.content_id, &authors)?;
            tx.replace_links("content_tags", "tag_id", old.content_id, &tags)?;
            self.snapshot_version(tx, old.content_id, who)?;
            audit(tx, old.content_id, who, "restore", &format!("restored version {}", old.version))?;
            self.content_item(tx, old.content_id)
        })
    }
}
