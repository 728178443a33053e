//! Exclusive lock requests: while one is granted on an item, every other user's write to it is refused.
//!
//! The check and the write happen in the same write transaction, which
//! holds the item's claim ([`item_claim`]) where writes run side by side,
//! and a unique index allows one lock per item, so two racing writers can
//! never both pass.

use crate::access::Action;
use crate::db::{OptionalExtension as _, Row, Transaction, params};

use crate::Cms;
pub use crate::RemoteLocks;
use crate::access::Principal;
use crate::clock;
use crate::error::{CoreError, Result};
use crate::model::container::CONTAINERS;
use crate::model::content::CONTENT;
use crate::model::content::audit;
pub use crate::model::lock::LockRequest;
pub(crate) use crate::model::lock::Lockable;
use crate::record_type::RecordType;
use crate::records::{Table, new_uuid};
use crate::srn::Srn;

pub(crate) const LOCK_REQUESTS: Table = Table {
    name: "lock_requests",
    noun: "lock request",
};

/// What a write that runs beside others holds while it reads and changes
/// one story's lock, drafts or writability (see `Cms::write_beside`).
pub(crate) fn item_claim(content_id: i64) -> String {
    format!("content #{content_id}")
}

pub(crate) const COLUMNS: &str = "l.id, l.uuid, l.content_id, l.container_id, l.user_id, l.state, l.created_at, l.modified_at, c.uuid, k.uuid";
pub(crate) const FROM: &str = "lock_requests l LEFT JOIN content c ON c.id = l.content_id LEFT JOIN containers k ON k.id = l.container_id";

impl Cms {
    /// Whether `who` may write to the item now: not while another user holds its lock.
    pub(crate) fn check_writable(
        &self,
        tx: &Transaction<'_>,
        who: &Principal,
        content_id: i64,
    ) -> Result<()> {
        self.check_unlocked_for(tx, who, Lockable::Content(content_id))
    }

    pub(crate) fn lock_from_row(&self, row: &Row<'_>) -> crate::db::Result<LockRequest> {
        let content_uuid: Option<String> = row.get(8)?;
        let container_uuid: Option<String> = row.get(9)?;
        let srn = match (content_uuid, container_uuid) {
            (Some(uuid), _) => self.srn(RecordType::Content, &uuid),
            (None, Some(uuid)) => self.srn(RecordType::Container, &uuid),
            (None, None) => String::new(),
        };
        Ok(LockRequest {
            id: row.get(0)?,
            uuid: row.get(1)?,
            srn,
            user_id: row.get(4)?,
            state: row.get(5)?,
            created_at: row.get(6)?,
            modified_at: row.get(7)?,
            user: None,
        })
    }

    fn lock_by(
        &self,
        tx: &Transaction<'_>,
        condition: &str,
        id: i64,
    ) -> Result<Option<LockRequest>> {
        let sql = format!("SELECT {COLUMNS} FROM {FROM} WHERE {condition} = ?1");
        let found = tx
            .prepare_cached(&sql)?
            .query_row([id], |row| self.lock_from_row(row))
            .optional()?;
        match found {
            Some(mut lock) => {
                lock.user = self.user_by_id(tx, Some(lock.user_id))?;
                Ok(Some(lock))
            }
            None => Ok(None),
        }
    }

    pub(crate) fn lock_on(
        &self,
        tx: &Transaction<'_>,
        item: Lockable,
    ) -> Result<Option<LockRequest>> {
        match item {
            Lockable::Content(id) => self.lock_by(tx, "l.content_id", id),
            Lockable::Container(id) => self.lock_by(tx, "l.container_id", id),
        }
    }

    /// Whether `item` is locked (by anyone), for the `lock` flag of records.
    pub(crate) fn is_locked(&self, tx: &Transaction<'_>, item: Lockable) -> Result<bool> {
        let sql = match item {
            Lockable::Content(_) => {
                "SELECT EXISTS (SELECT 1 FROM lock_requests WHERE content_id = ?1)"
            }
            Lockable::Container(_) => {
                "SELECT EXISTS (SELECT 1 FROM lock_requests WHERE container_id = ?1)"
            }
        };
        let (Lockable::Content(id) | Lockable::Container(id)) = item;
        Ok(tx
            .prepare_cached(sql)?
            .query_row([id], |row| row.get::<_, bool>(0))?)
    }

    /// A 409 `locked` when someone other than `who` holds a lock on `item`.
    pub(crate) fn check_unlocked_for(
        &self,
        tx: &Transaction<'_>,
        who: &Principal,
        item: Lockable,
    ) -> Result<()> {
        if let Some(lock) = self.lock_on(tx, item)?
            && lock.user_id != who.user_id
        {
            let holder = lock
                .user
                .map_or_else(|| "another user".to_owned(), |u| u.name);
            return Err(CoreError::Locked(format!(
                "{holder} has this item locked since {}; ask them to release it",
                lock.created_at
            )));
        }
        Ok(())
    }

    fn lockable_of_srn(&self, tx: &Transaction<'_>, raw: &str) -> Result<Lockable> {
        let srn = Srn::parse("srn", raw.trim())?;
        match srn.record_type {
            RecordType::Content => Ok(Lockable::Content(
                CONTENT.id_of_field(tx, "srn", &srn.uuid)?,
            )),
            RecordType::Container => Ok(Lockable::Container(
                CONTAINERS.id_of_field(tx, "srn", &srn.uuid)?,
            )),
            other => Err(CoreError::invalid_field(
                "srn",
                format!("a lock is taken on content or a container, not a {other}"),
            )),
        }
    }

    pub fn get_lock_request(&self, who: &Principal, uuid: &str) -> Result<LockRequest> {
        who.require(Action::LockRequestGet)?;
        self.read(|tx| {
            let id = LOCK_REQUESTS.id_of(tx, uuid)?;
            self.lock_by(tx, "l.id", id)?
                .ok_or_else(|| CoreError::not_found(format!("no lock request with UUID {uuid}")))
        })
    }

    /// Locks the item named by `srn` for `who`: granted at once when it is free
    /// or already theirs, otherwise 409 `locked`.
    pub fn create_lock_request(&self, who: &Principal, srn: Option<&str>) -> Result<LockRequest> {
        who.require(Action::LockRequestCreate)?;
        let raw = srn
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| CoreError::required("srn"))?
            .to_owned();
        // On a replica, the server's lock comes first: a local lock alone would not be real.
        let remote_lock = match self.remote_locks.get() {
            Some(remote) => {
                let synced: Option<String> = self.read(|tx| {
                    let item = self.lockable_of_srn(tx, &raw)?;
                    if let Some(existing) = self.lock_on(tx, item)? {
                        if existing.user_id == who.user_id {
                            return Ok(None);
                        }
                        self.check_unlocked_for(tx, who, item)?;
                    }
                    let Lockable::Content(id) = item else { return Ok(None) };
                    Ok(tx
                        .prepare_cached(
                            "SELECT s.remote_uuid FROM sync_records s JOIN content c ON c.uuid = s.uuid
                             WHERE s.record_type = 'content' AND c.id = ?1",
                        )?
                        .query_row([id], |row| row.get(0))
                        .optional()?)
                })?;
                match synced {
                    Some(remote_uuid) => Some((
                        std::sync::Arc::clone(remote),
                        remote.lock_content(&remote_uuid)?,
                    )),
                    None => None,
                }
            }
            None => None,
        };
        let remote_lock_uuid = remote_lock.as_ref().map(|(_, uuid)| uuid.clone());
        let made = self.write_beside(&[], |tx| {
            let item = self.lockable_of_srn(tx, &raw)?;
            tx.claim(&match item {
                Lockable::Content(id) => item_claim(id),
                Lockable::Container(id) => format!("container #{id}"),
            })?;
            if let Some(existing) = self.lock_on(tx, item)? {
                if existing.user_id == who.user_id {
                    return Ok(existing);
                }
                self.check_unlocked_for(tx, who, item)?;
            }
            let now = clock::now();
            let (content_id, container_id) = match item {
                Lockable::Content(id) => (Some(id), None),
                Lockable::Container(id) => (None, Some(id)),
            };
            tx.prepare_cached(
                "INSERT INTO lock_requests (uuid, content_id, container_id, user_id, state, created_at, modified_at,
                 remote_uuid) VALUES (?1, ?2, ?3, ?4, 'accepted', ?5, ?5, ?6)",
            )?
            .execute(params![new_uuid(), content_id, container_id, who.user_id, now, remote_lock_uuid])?;
            if let Some(content_id) = content_id {
                audit(tx, content_id, who, "lock", "took the exclusive lock")?;
            }
            self.lock_on(tx, item)?
                .ok_or_else(|| CoreError::Internal("a lock just made is missing".into()))
        });
        if made.is_err() {
            // The local lock failed: the server's must not outlive it.
            if let Some((remote, uuid)) = remote_lock {
                let _ = remote.unlock(&uuid);
            }
        }
        made
    }

    /// Releases a lock: the holder's, or an admin's by force.
    pub fn delete_lock_request(&self, who: &Principal, uuid: &str) -> Result<()> {
        who.require(Action::LockRequestDelete)?;
        // The server's lock goes first (outside any local transaction: it is a
        // network call); while the server cannot be reached, the local one stays.
        if let Some(remote) = self.remote_locks.get() {
            let remote_uuid: Option<String> = self.read(|tx| {
                let id = LOCK_REQUESTS.id_of(tx, uuid)?;
                let lock = self.lock_by(tx, "l.id", id)?.ok_or_else(|| {
                    CoreError::not_found(format!("no lock request with UUID {uuid}"))
                })?;
                if lock.user_id != who.user_id && !who.is_admin() {
                    return Ok(None);
                }
                Ok(tx
                    .prepare_cached("SELECT remote_uuid FROM lock_requests WHERE id = ?1")?
                    .query_row([id], |row| row.get(0))?)
            })?;
            if let Some(remote_uuid) = remote_uuid {
                remote.unlock(&remote_uuid)?;
            }
        }
        self.write(|tx| {
            let id = LOCK_REQUESTS.id_of(tx, uuid)?;
            let lock = self
                .lock_by(tx, "l.id", id)?
                .ok_or_else(|| CoreError::not_found(format!("no lock request with UUID {uuid}")))?;
            let forced = lock.user_id != who.user_id;
            if forced && !who.is_admin() {
                let holder = lock
                    .user
                    .as_ref()
                    .map_or("another user", |u| u.name.as_str());
                return Err(CoreError::Locked(format!(
                    "this lock is {holder}'s; only they or an admin can release it"
                )));
            }
            let content_id: Option<i64> = tx
                .prepare_cached("SELECT content_id FROM lock_requests WHERE id = ?1")?
                .query_row([id], |row| row.get(0))?;
            LOCK_REQUESTS.delete(tx, id)?;
            if let Some(content_id) = content_id {
                if forced {
                    let holder = lock
                        .user
                        .as_ref()
                        .map_or("another user", |u| u.name.as_str());
                    audit(
                        tx,
                        content_id,
                        who,
                        "force unlock",
                        &format!("removed {holder}'s lock"),
                    )?;
                } else {
                    audit(tx, content_id, who, "unlock", "released the exclusive lock")?;
                }
            }
            Ok(())
        })
    }
}
