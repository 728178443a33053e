//! The people who use the service, as other records embed them and as `/v3/user` lists them.

use crate::access::Action;
use crate::db::{Row, Transaction};
use crate::record_type::RecordType;

use crate::Cms;
use crate::access::Principal;
use crate::db::fetch_page;
use crate::error::Result;
use crate::paging::{ListParams, ListQuery, Page};
use crate::records::Table;

pub(crate) const USERS: Table = Table {
    name: "users",
    noun: "user",
};

const SORTABLE: &[&str] = &["id", "name", "slug", "email", "created_at", "modified_at"];
pub(crate) const COLUMNS: &str = "users.id, users.uuid, users.name, users.slug, users.email, users.is_vendor, users.avatar, users.created_at, users.modified_at";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub id: i64,
    pub uuid: String,
    pub name: String,
    pub slug: String,
    pub email: String,
    pub is_vendor: bool,
    pub avatar: String,
    pub created_at: String,
    pub modified_at: String,
    pub srn: String,
}

impl Cms {
    pub(crate) fn user_from_row(&self, row: &Row<'_>) -> crate::db::Result<User> {
        let uuid: String = row.get(1)?;
        Ok(User {
            id: row.get(0)?,
            srn: self.srn(RecordType::User, &uuid),
            uuid,
            name: row.get(2)?,
            slug: row.get(3)?,
            email: row.get(4)?,
            is_vendor: row.get::<_, i64>(5)? != 0,
            avatar: row.get(6)?,
            created_at: row.get(7)?,
            modified_at: row.get(8)?,
        })
    }

    /// The user with row id `id`, for embedding; `None` when it is gone.
    pub(crate) fn user_by_id(&self, tx: &Transaction<'_>, id: Option<i64>) -> Result<Option<User>> {
        let Some(id) = id else { return Ok(None) };
        let sql = format!("SELECT {COLUMNS} FROM users WHERE users.id = ?1");
        use crate::db::OptionalExtension as _;
        Ok(tx
            .prepare_cached(&sql)?
            .query_row([id], |row| self.user_from_row(row))
            .optional()?)
    }

    pub fn list_users(&self, who: &Principal, query: &ListQuery) -> Result<Page<User>> {
        who.require(Action::UserList)?;
        let params = ListParams::parse(query, SORTABLE, "modified_at")?;
        self.read(|tx| {
            Ok(fetch_page(tx, "users", COLUMNS, "", &[], &params, |row| {
                self.user_from_row(row)
            })?)
        })
    }

    pub fn get_user(&self, who: &Principal, uuid: &str) -> Result<User> {
        who.require(Action::UserGet)?;
        self.read(|tx| {
            let id = USERS.id_of(tx, uuid)?;
            self.user_by_id(tx, Some(id))?
                .ok_or_else(|| crate::CoreError::not_found(format!("no user with UUID {uuid}")))
        })
    }

    /// A desktop app's key for one launch: the person at the laptop (`name`,
    /// who administers their own copy) gets a fresh key pair, and the keys of
    /// earlier launches stop working. Its token is the launch's secret.
    pub fn launch_key(&self, name: &str) -> Result<crate::access::NewKeyPair> {
        self.write(|tx| {
            let key = crate::access::create_key(tx, name, &["admin".to_owned()], &[])?;
            tx.execute(
                "DELETE FROM key_pairs WHERE user_id = (SELECT user_id FROM key_pairs WHERE public_key = ?1)
                 AND public_key <> ?1",
                [&key.public_key],
            )?;
            Ok(key)
        })
    }

    /// `GET /v3/me` (a Copydesk extension): the caller, with what they may do,
    /// so a client can hide what would be refused. Any valid token may ask.
    pub fn whoami(&self, who: &Principal) -> Result<Me> {
        let user = self
            .store
            .read(|tx| self.user_by_id(tx, Some(who.user_id)))?
            .ok_or_else(|| crate::CoreError::not_found("the token's user is gone".to_owned()))?;
        Ok(Me {
            user,
            roles: who.roles().map(str::to_owned).collect(),
            actions: who.granted_actions(),
        })
    }
}

/// The caller and what they may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Me {
    pub user: User,
    pub roles: Vec<String>,
    pub actions: Vec<crate::access::Action>,
}
