//! Authors: the bylines content items carry.

use crate::access::Action;
use crate::db::{Row, Transaction, params};
use crate::record_type::RecordType;

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::db::fetch_page;
use crate::error::{CoreError, Result};
use crate::paging::{ListParams, ListQuery, Page};
use crate::records::{Table, new_uuid, required_text};
use crate::slug::Slug;

pub(crate) const AUTHORS: Table = Table {
    name: "authors",
    noun: "author",
};

const SORTABLE: &[&str] = &[
    "id",
    "uuid",
    "slug",
    "name",
    "email",
    "status",
    "created_at",
    "modified_at",
];
pub(crate) const COLUMNS: &str = "authors.id, authors.uuid, authors.slug, authors.name, authors.email, authors.tagline, authors.description, authors.status, authors.created_at, authors.modified_at";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Author {
    pub id: i64,
    pub uuid: String,
    pub slug: String,
    pub name: String,
    pub email: String,
    pub tagline: String,
    pub description: String,
    pub status: i64,
    pub created_at: String,
    pub modified_at: String,
    pub srn: String,
}

/// The fields of an author create or update; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct AuthorInput {
    pub slug: Option<String>,
    pub name: Option<String>,
    pub email: Option<String>,
    pub tagline: Option<String>,
    pub description: Option<String>,
    pub status: Option<i64>,
}

/// An e-mail address is optional, but one that is given must look like one.
pub(crate) fn parse_email(raw: &str) -> Result<String> {
    let raw = raw.trim();
    let valid = raw.is_empty()
        || raw.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && !domain.is_empty() && !raw.contains(char::is_whitespace)
        });
    if valid {
        Ok(raw.to_owned())
    } else {
        Err(CoreError::invalid_field(
            "email",
            format!("\"{raw}\" is not an e-mail address"),
        ))
    }
}

impl Cms {
    pub(crate) fn author_from_row(&self, row: &Row<'_>) -> crate::db::Result<Author> {
        let uuid: String = row.get(1)?;
        Ok(Author {
            id: row.get(0)?,
            srn: self.srn(RecordType::Author, &uuid),
            uuid,
            slug: row.get(2)?,
            name: row.get(3)?,
            email: row.get(4)?,
            tagline: row.get(5)?,
            description: row.get(6)?,
            status: row.get(7)?,
            created_at: row.get(8)?,
            modified_at: row.get(9)?,
        })
    }

    pub(crate) fn author_by_id(&self, tx: &Transaction<'_>, id: i64) -> Result<Author> {
        let sql = format!("SELECT {COLUMNS} FROM authors WHERE authors.id = ?1");
        Ok(tx
            .prepare_cached(&sql)?
            .query_row([id], |row| self.author_from_row(row))?)
    }

    pub fn list_authors(&self, who: &Principal, query: &ListQuery) -> Result<Page<Author>> {
        who.require(Action::AuthorList)?;
        let params = ListParams::parse(query, SORTABLE, "modified_at")?;
        self.read(|tx| {
            Ok(fetch_page(
                tx,
                "authors",
                COLUMNS,
                "",
                &[],
                &params,
                |row| self.author_from_row(row),
            )?)
        })
    }

    pub fn get_author(&self, who: &Principal, uuid: &str) -> Result<Author> {
        who.require(Action::AuthorGet)?;
        self.read(|tx| {
            let id = AUTHORS.id_of(tx, uuid)?;
            self.author_by_id(tx, id)
        })
    }

    pub fn create_author(&self, who: &Principal, input: AuthorInput) -> Result<Author> {
        who.require(Action::AuthorCreate)?;
        let name = required_text("name", input.name.as_deref())?;
        let slug = Slug::parse_or_make(input.slug.as_deref(), &name);
        let email = parse_email(input.email.as_deref().unwrap_or(""))?;
        self.write(|tx| {
            let now = clock::now();
            let new_id = tx.prepare_cached(
                "INSERT INTO authors (uuid, slug, name, email, tagline, description, status, created_at, modified_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8) RETURNING id",
            )?
            .insert(params![
                new_uuid(),
                slug.as_str(),
                name,
                email,
                input.tagline.unwrap_or_default(),
                input.description.unwrap_or_default(),
                input.status.unwrap_or(1),
                now
            ])?;
            self.author_by_id(tx, new_id)
        })
    }

    pub fn update_author(&self, who: &Principal, uuid: &str, input: AuthorInput) -> Result<Author> {
        who.require(Action::AuthorUpdate)?;
        self.write(|tx| {
            let id = AUTHORS.id_of(tx, uuid)?;
            let old = self.author_by_id(tx, id)?;
            let name = match input.name.as_deref() {
                Some(name) => required_text("name", Some(name))?,
                None => old.name.clone(),
            };
            let slug = match input.slug.as_deref() {
                Some(sent) => Slug::parse_or_make(Some(sent), &name).into_string(),
                None => old.slug.clone(),
            };
            let email = match input.email.as_deref() {
                Some(email) => parse_email(email)?,
                None => old.email.clone(),
            };
            let new = Author {
                name,
                slug,
                email,
                tagline: input.tagline.unwrap_or(old.tagline.clone()),
                description: input.description.unwrap_or(old.description.clone()),
                status: input.status.unwrap_or(old.status),
                ..old.clone()
            };
            if new != old {
                tx.prepare_cached(
                    "UPDATE authors SET slug = ?2, name = ?3, email = ?4, tagline = ?5, description = ?6,
                     status = ?7, modified_at = ?8 WHERE id = ?1",
                )?
                .execute(params![
                    id,
                    new.slug,
                    new.name,
                    new.email,
                    new.tagline,
                    new.description,
                    new.status,
                    clock::now()
                ])?;
            }
            self.author_by_id(tx, id)
        })
    }

    /// Deletes one or several authors (comma-separated UUIDs): all or nothing.
    pub fn delete_authors(&self, who: &Principal, uuids: &str) -> Result<()> {
        who.require(Action::AuthorDelete)?;
        self.write(|tx| {
            for id in AUTHORS.ids_of_list(tx, uuids)? {
                AUTHORS.delete(tx, id)?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::parse_email;

    #[test]
    fn email() {
        assert!(parse_email("").is_ok());
        assert!(parse_email("a@b.org").is_ok());
        assert!(parse_email("nope").is_err());
        assert!(parse_email("a b@c").is_err());
        assert!(parse_email("@c").is_err());
    }
}
