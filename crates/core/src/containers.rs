//! Containers: sections, blogs, galleries and manual or automatic collections, with their four type rules.

use crate::access::Action;
use crate::db::{Row, ToSql, Transaction, params};
use crate::record_type::RecordType;

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::db::fetch_page;
use crate::error::{CoreError, Result};
use crate::model::attachment::Attachment;
pub(crate) use crate::model::container::CONTAINERS;
use crate::model::content::audit;
use crate::model::content::{CONTENT, ContentRecord, ContentUrl};
use crate::model::lock::Lockable;
use crate::paging::{ListParams, ListQuery, Page};
use crate::records::{ids_of_field, new_uuid, required_text};
use crate::slug::Slug;
use crate::tags::{TAGS, Tag};

/// What the container list narrows to.
#[derive(Debug, Clone, Default)]
pub struct ContainerFilter {
    /// Container types (none: every type).
    pub types: Vec<String>,
    /// Words each container's title or slug holds.
    pub keywords: Option<String>,
    /// A content item's UUID: only the containers holding it.
    pub content: Option<String>,
}

pub const CONTAINER_TYPES: &[&str] = &["automatic", "manual", "blog", "gallery"];

const SORTABLE: &[&str] = &[
    "id",
    "uuid",
    "title",
    "slug",
    "type",
    "sort_order",
    "published_at",
    "created_at",
    "modified_at",
];
const COLUMNS: &str = "containers.id, containers.uuid, containers.title, containers.slug, containers.description, containers.type, containers.sort_order, containers.published_at, containers.placeholder_id, containers.created_at, containers.modified_at";

/// A content item as a container lists it.
#[derive(Debug, Clone)]
pub struct ContainedContent {
    pub record: ContentRecord,
    pub attachment: Option<Attachment>,
    pub urls: Vec<ContentUrl>,
    pub lock: bool,
}

#[derive(Debug, Clone)]
pub struct Container {
    pub id: i64,
    pub uuid: String,
    pub title: String,
    pub slug: String,
    pub description: String,
    pub container_type: String,
    pub sort_order: Option<String>,
    pub published_at: Option<String>,
    pub placeholder_id: Option<i64>,
    pub created_at: String,
    pub modified_at: String,
    pub srn: String,
    pub lock: bool,
    pub content: Vec<ContainedContent>,
    pub tags: Vec<Tag>,
}

#[derive(Debug, Clone, Default)]
pub struct ContainerInput {
    pub title: Option<String>,
    pub slug: Option<String>,
    pub description: Option<String>,
    pub container_type: Option<String>,
    pub sort_order: Option<Option<String>>,
    pub published_at: Option<Option<String>>,
    pub content: Option<Vec<String>>,
    pub tags: Option<Vec<String>>,
}

fn parse_container_type(field: &str, raw: &str) -> Result<String> {
    let raw = raw.trim();
    if CONTAINER_TYPES.contains(&raw) {
        Ok(raw.to_owned())
    } else {
        Err(CoreError::invalid_field(
            field,
            format!(
                "\"{raw}\" is not a container type; use one of {}",
                CONTAINER_TYPES.join(", ")
            ),
        ))
    }
}

/// The four type rules, on what the container will hold after the write.
pub fn check_type_rules(container_type: &str, has_content: bool, has_tags: bool) -> Result<()> {
    let (takes_content, takes_tags) = match container_type {
        "automatic" | "blog" => (false, true),
        "manual" => (true, false),
        _ => (true, true),
    };
    if has_content && !takes_content {
        return Err(CoreError::invalid_field(
            "content",
            format!(
                "a {container_type} container selects content by tags; it takes no content list"
            ),
        ));
    }
    if has_tags && !takes_tags {
        return Err(CoreError::invalid_field(
            "tags",
            format!("a {container_type} container holds the content you pick; it takes no tags"),
        ));
    }
    Ok(())
}

impl Cms {
    fn container_from_row(&self, row: &Row<'_>) -> crate::db::Result<Container> {
        let uuid: String = row.get(1)?;
        Ok(Container {
            id: row.get(0)?,
            srn: self.srn(RecordType::Container, &uuid),
            uuid,
            title: row.get(2)?,
            slug: row.get(3)?,
            description: row.get(4)?,
            container_type: row.get(5)?,
            sort_order: row.get(6)?,
            published_at: row.get(7)?,
            placeholder_id: row.get(8)?,
            created_at: row.get(9)?,
            modified_at: row.get(10)?,
            lock: false,
            content: Vec::new(),
            tags: Vec::new(),
        })
    }

    fn completed_container(
        &self,
        tx: &Transaction<'_>,
        mut container: Container,
    ) -> Result<Container> {
        container.lock = self.is_locked(tx, Lockable::Container(container.id))?;
        container.tags = self.tags_linked(tx, "container_tags", "container_id", container.id)?;
        let sql = format!(
            "SELECT {} FROM container_content cc JOIN content ON content.id = cc.content_id
             WHERE cc.container_id = +?1 ORDER BY cc.position",
            crate::content::COLUMNS
        );
        let records: Vec<ContentRecord> = tx
            .prepare_cached(&sql)?
            .query_map([container.id], |row| self.content_from_row(row))?
            .collect::<Result<_, _>>()?;
        // What each held item shows, one query per kind over all of them.
        let ids = crate::db::id_array(records.iter().map(|r| r.id));
        let attachments = self.attachments_of_items(tx, &ids)?;
        let urls = self.urls_of_items(tx, &ids)?;
        let locks = self.locks_of_items(tx, &ids)?;
        container.content = records
            .into_iter()
            .map(|record| ContainedContent {
                attachment: attachments.get(&record.id).cloned(),
                urls: urls.get(&record.id).cloned().unwrap_or_default(),
                lock: locks.contains_key(&record.id),
                record,
            })
            .collect();
        Ok(container)
    }

    fn container_by_id(&self, tx: &Transaction<'_>, id: i64) -> Result<Container> {
        let sql = format!("SELECT {COLUMNS} FROM containers WHERE containers.id = ?1");
        let container = tx
            .prepare_cached(&sql)?
            .query_row([id], |row| self.container_from_row(row))?;
        self.completed_container(tx, container)
    }

    /// `GET /v3/container`, limited to `types` when any are given.
    pub fn list_containers(
        &self,
        who: &Principal,
        query: &ListQuery,
        filter: &ContainerFilter,
    ) -> Result<Page<Container>> {
        who.require(Action::ContainerList)?;
        let params = ListParams::parse(query, SORTABLE, "modified_at")?;
        let types = filter
            .types
            .iter()
            .filter(|t| !t.trim().is_empty())
            .map(|t| parse_container_type("type", t))
            .collect::<Result<Vec<_>>>()?;
        let patterns: Vec<String> =
            crate::search::search_words(filter.keywords.as_deref().unwrap_or(""))?
                .into_iter()
                .map(crate::search::like_pattern)
                .collect();
        self.read(|tx| {
            let mut args: Vec<&dyn ToSql> = types.iter().map(|t| t as &dyn ToSql).collect();
            let mut conditions = Vec::new();
            if !types.is_empty() {
                let marks: Vec<String> = (1..=types.len()).map(|n| format!("?{n}")).collect();
                conditions.push(format!("containers.type IN ({})", marks.join(", ")));
            }
            conditions.extend(crate::search::keyword_conditions(
                tx.dialect(),
                &patterns,
                &["containers.title", "containers.slug"],
                args.len() + 1,
            ));
            for pattern in &patterns {
                args.push(pattern);
            }
            let holding = match filter.content.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
                Some(uuid) => Some(CONTENT.id_of_field(tx, "content", uuid)?),
                None => None,
            };
            if let Some(content_id) = &holding {
                args.push(content_id);
                conditions.push(format!(
                    "EXISTS (SELECT 1 FROM container_content cc WHERE cc.container_id = containers.id AND cc.content_id = ?{})",
                    args.len()
                ));
            }
            let where_sql = if conditions.is_empty() {
                String::new()
            } else {
                format!("WHERE {}", conditions.join(" AND "))
            };
            let mut page = fetch_page(tx, "containers", COLUMNS, &where_sql, &args, &params, |row| {
                self.container_from_row(row)
            })?;
            let items = std::mem::take(&mut page.items)
                .into_iter()
                .map(|c| self.completed_container(tx, c))
                .collect::<Result<Vec<_>>>()?;
            Ok(page.with_items(items))
        })
    }

    pub fn get_container(&self, who: &Principal, uuid: &str) -> Result<Container> {
        who.require(Action::ContainerGet)?;
        self.read(|tx| {
            let id = CONTAINERS.id_of(tx, uuid)?;
            self.container_by_id(tx, id)
        })
    }

    pub fn create_container(&self, who: &Principal, input: ContainerInput) -> Result<Container> {
        who.require(Action::ContainerCreate)?;
        let title = required_text("title", input.title.as_deref())?;
        let container_type = parse_container_type(
            "type",
            input
                .container_type
                .as_deref()
                .ok_or_else(|| CoreError::required("type"))?,
        )?;
        let published_at = match input.published_at.clone().flatten() {
            Some(raw) => Some(clock::parse_timestamp("published_at", &raw)?),
            None => None,
        };
        check_type_rules(
            &container_type,
            input.content.as_ref().is_some_and(|c| !c.is_empty()),
            input.tags.as_ref().is_some_and(|t| !t.is_empty()),
        )?;
        let slug = Slug::parse_or_make(input.slug.as_deref(), &title);
        self.write(|tx| {
            let now = clock::now();
            let content_ids = ids_of_field(tx, CONTENT, "content", input.content.as_deref().unwrap_or_default())?;
            let tag_ids = ids_of_field(tx, TAGS, "tags", input.tags.as_deref().unwrap_or_default())?;
            let id = tx.prepare_cached(
                "INSERT INTO containers (uuid, title, slug, description, type, sort_order, published_at, created_at, modified_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8) RETURNING id",
            )?
            .insert(params![
                new_uuid(),
                title,
                slug.as_str(),
                input.description.clone().unwrap_or_default(),
                container_type,
                input.sort_order.clone().flatten(),
                published_at,
                now
            ])?;
            tx.replace_links("container_content", "content_id", id, &content_ids)?;
            tx.replace_links("container_tags", "tag_id", id, &tag_ids)?;
            if container_type == "gallery" {
                self.add_placeholder(tx, who, id, &title)?;
            }
            self.container_by_id(tx, id)
        })
    }

    pub fn update_container(
        &self,
        who: &Principal,
        uuid: &str,
        input: ContainerInput,
    ) -> Result<Container> {
        who.require(Action::ContainerUpdate)?;
        let published_at = match input.published_at.clone() {
            Some(Some(raw)) => Some(Some(clock::parse_timestamp("published_at", &raw)?)),
            other => other,
        };
        self.write(|tx| {
            let id = CONTAINERS.id_of(tx, uuid)?;
            self.check_unlocked_for(tx, who, Lockable::Container(id))?;
            let old = self.container_by_id(tx, id)?;
            let title = match input.title.as_deref() {
                Some(title) => required_text("title", Some(title))?,
                None => old.title.clone(),
            };
            let container_type = match input.container_type.as_deref() {
                Some(raw) => parse_container_type("type", raw)?,
                None => old.container_type.clone(),
            };
            let mut content_ids = match input.content.as_deref() {
                Some(uuids) => ids_of_field(tx, CONTENT, "content", uuids)?,
                None => old.content.iter().map(|c| c.record.id).collect(),
            };
            // The placeholder belongs to the gallery: a list that leaves it out keeps it, first.
            if let Some(placeholder) = old.placeholder_id
                && !content_ids.contains(&placeholder)
            {
                content_ids.insert(0, placeholder);
            }
            let tag_ids = match input.tags.as_deref() {
                Some(uuids) => ids_of_field(tx, TAGS, "tags", uuids)?,
                None => old.tags.iter().map(|t| t.id).collect(),
            };
            // The placeholder belongs to the gallery; it does not count as picked content.
            let picked = content_ids.iter().any(|cid| Some(*cid) != old.placeholder_id);
            check_type_rules(&container_type, picked, !tag_ids.is_empty())?;
            let slug = match input.slug.as_deref() {
                Some(sent) => Slug::parse_or_make(Some(sent), &title).into_string(),
                None => old.slug.clone(),
            };
            let description = input.description.clone().unwrap_or(old.description.clone());
            let sort_order = input.sort_order.clone().unwrap_or(old.sort_order.clone());
            let published_at = published_at.clone().unwrap_or(old.published_at.clone());
            let links_changed = tx.replace_links("container_content", "content_id", id, &content_ids)?
                | tx.replace_links("container_tags", "tag_id", id, &tag_ids)?;
            let fields_changed = title != old.title
                || slug != old.slug
                || description != old.description
                || container_type != old.container_type
                || sort_order != old.sort_order
                || published_at != old.published_at;
            if fields_changed || links_changed {
                tx.prepare_cached(
                    "UPDATE containers SET title = ?2, slug = ?3, description = ?4, type = ?5, sort_order = ?6,
                     published_at = ?7, modified_at = ?8 WHERE id = ?1",
                )?
                .execute(params![id, title, slug, description, container_type, sort_order, published_at, clock::now()])?;
            }
            if container_type == "gallery" && old.placeholder_id.is_none() {
                self.add_placeholder(tx, who, id, &title)?;
            }
            self.container_by_id(tx, id)
        })
    }

    pub fn delete_containers(&self, who: &Principal, uuids: &str) -> Result<()> {
        who.require(Action::ContainerDelete)?;
        self.write(|tx| {
            let ids = CONTAINERS.ids_of_list(tx, uuids)?;
            for id in &ids {
                self.check_unlocked_for(tx, who, Lockable::Container(*id))?;
            }
            for id in ids {
                tx.prepare_cached("UPDATE content SET container_id = NULL, modified_at = ?2 WHERE container_id = ?1")?
                    .execute(params![id, clock::now()])?;
                CONTAINERS.delete(tx, id)?;
            }
            Ok(())
        })
    }

    /// A gallery's media placeholder: a media item the gallery lists first.
    fn add_placeholder(
        &self,
        tx: &Transaction<'_>,
        who: &Principal,
        container_id: i64,
        title: &str,
    ) -> Result<()> {
        let now = clock::now();
        let slug = Slug::parse_or_make(None, title);
        let content_id = tx.prepare_cached(
            "INSERT INTO content (uuid, title, slug, type, version, created_at, modified_at, user_id)
             VALUES (?1, ?2, ?3, 'media', 1, ?4, ?4, ?5) RETURNING id",
        )?
        .insert(params![new_uuid(), title, slug.as_str(), now, who.user_id])?;
        self.snapshot_version(tx, content_id, who)?;
        audit(tx, content_id, who, "create", "gallery placeholder")?;
        tx.prepare_cached(
            "UPDATE container_content SET position = position + 1 WHERE container_id = ?1",
        )?
        .execute([container_id])?;
        tx.prepare_cached(
            "INSERT INTO container_content (container_id, content_id, position) VALUES (?1, ?2, 0)",
        )?
        .execute(params![container_id, content_id])?;
        tx.prepare_cached("UPDATE containers SET placeholder_id = ?2 WHERE id = ?1")?
            .execute(params![container_id, content_id])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::check_type_rules;

    #[test]
    fn type_rules() {
        assert!(check_type_rules("automatic", false, true).is_ok());
        assert!(check_type_rules("automatic", true, false).is_err());
        assert!(check_type_rules("manual", true, false).is_ok());
        assert!(check_type_rules("manual", false, true).is_err());
        assert!(check_type_rules("blog", false, true).is_ok());
        assert!(check_type_rules("blog", true, false).is_err());
        assert!(check_type_rules("gallery", true, true).is_ok());
    }
}
