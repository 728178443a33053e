//! Tags: the labels content items carry and automatic and blog containers select by.

use crate::access::Action;
use crate::db::{Row, Transaction, params};
use crate::record_type::RecordType;

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::db::fetch_page;
use crate::error::Result;
use crate::paging::{ListParams, ListQuery, Page};
use crate::records::{Table, new_uuid, required_text};
use crate::slug::Slug;

pub(crate) const TAGS: Table = Table {
    name: "tags",
    noun: "tag",
};

const SORTABLE: &[&str] = &["id", "uuid", "name", "slug", "created_at", "modified_at"];
pub(crate) const COLUMNS: &str =
    "tags.id, tags.uuid, tags.name, tags.slug, tags.created_at, tags.modified_at";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    pub id: i64,
    pub uuid: String,
    pub name: String,
    pub slug: String,
    pub created_at: String,
    pub modified_at: String,
    pub srn: String,
}

#[derive(Debug, Clone, Default)]
pub struct TagInput {
    pub name: Option<String>,
    pub slug: Option<String>,
}

impl Cms {
    pub(crate) fn tag_from_row(&self, row: &Row<'_>) -> crate::db::Result<Tag> {
        let uuid: String = row.get(1)?;
        Ok(Tag {
            id: row.get(0)?,
            srn: self.srn(RecordType::Tag, &uuid),
            uuid,
            name: row.get(2)?,
            slug: row.get(3)?,
            created_at: row.get(4)?,
            modified_at: row.get(5)?,
        })
    }

    fn tag_by_id(&self, tx: &Transaction<'_>, id: i64) -> Result<Tag> {
        let sql = format!("SELECT {COLUMNS} FROM tags WHERE tags.id = ?1");
        Ok(tx
            .prepare_cached(&sql)?
            .query_row([id], |row| self.tag_from_row(row))?)
    }

    /// The tags of a content item or a container, through `link_table` (`content_tags`, `container_tags`).
    pub(crate) fn tags_linked(
        &self,
        tx: &Transaction<'_>,
        link_table: &str,
        owner_column: &str,
        owner_id: i64,
    ) -> Result<Vec<Tag>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM {link_table} l JOIN tags ON tags.id = l.tag_id
             WHERE l.{owner_column} = +?1 ORDER BY l.position"
        );
        let mut stmt = tx.prepare_cached(&sql)?;
        let rows = stmt.query_map([owner_id], |row| self.tag_from_row(row))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn list_tags(&self, who: &Principal, query: &ListQuery) -> Result<Page<Tag>> {
        who.require(Action::TagList)?;
        let params = ListParams::parse(query, SORTABLE, "modified_at")?;
        self.read(|tx| {
            Ok(fetch_page(tx, "tags", COLUMNS, "", &[], &params, |row| {
                self.tag_from_row(row)
            })?)
        })
    }

    pub fn get_tag(&self, who: &Principal, uuid: &str) -> Result<Tag> {
        who.require(Action::TagGet)?;
        self.read(|tx| {
            let id = TAGS.id_of(tx, uuid)?;
            self.tag_by_id(tx, id)
        })
    }

    pub fn create_tag(&self, who: &Principal, input: TagInput) -> Result<Tag> {
        who.require(Action::TagCreate)?;
        let name = required_text("name", input.name.as_deref())?;
        let slug = Slug::parse_or_make(input.slug.as_deref(), &name);
        self.write(|tx| {
            let new_id = tx.prepare_cached(
                "INSERT INTO tags (uuid, name, slug, created_at, modified_at) VALUES (?1, ?2, ?3, ?4, ?4) RETURNING id",
            )?
            .insert(params![new_uuid(), name, slug.as_str(), clock::now()])?;
            self.tag_by_id(tx, new_id)
        })
    }

    pub fn update_tag(&self, who: &Principal, uuid: &str, input: TagInput) -> Result<Tag> {
        who.require(Action::TagUpdate)?;
        self.write(|tx| {
            let id = TAGS.id_of(tx, uuid)?;
            let old = self.tag_by_id(tx, id)?;
            let name = match input.name.as_deref() {
                Some(name) => required_text("name", Some(name))?,
                None => old.name.clone(),
            };
            let slug = match input.slug.as_deref() {
                Some(sent) => Slug::parse_or_make(Some(sent), &name).into_string(),
                None => old.slug.clone(),
            };
            if name != old.name || slug != old.slug {
                tx.prepare_cached(
                    "UPDATE tags SET name = ?2, slug = ?3, modified_at = ?4 WHERE id = ?1",
                )?
                .execute(params![id, name, slug, clock::now()])?;
            }
            self.tag_by_id(tx, id)
        })
    }

    pub fn delete_tags(&self, who: &Principal, uuids: &str) -> Result<()> {
        who.require(Action::TagDelete)?;
        self.write(|tx| {
            for id in TAGS.ids_of_list(tx, uuids)? {
                TAGS.delete(tx, id)?;
            }
            Ok(())
        })
    }
}
