//! Verified credentials remembered between requests, so that a client that sends the same token again does not pay for its signature check and its user's grants each time.
//!
//! An entry is trusted only under the `auth_epoch` it was verified at: that
//! number is moved on by triggers whenever a user, a key pair, a role or an
//! action changes, whatever process wrote the change (the server, the
//! command line, a sync round), and each request reads it in its own
//! transaction. A token's own `nbf` and `exp` are checked again at each use.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::db::Transaction;

use crate::access::{Credential, Principal, Verified};
use crate::error::Result;

/// How many credentials are remembered; past it, the cache starts over.
const CAPACITY: usize = 4096;

struct Entry {
    epoch: i64,
    not_before: Option<i64>,
    expires: Option<i64>,
    principal: Arc<Principal>,
}

/// The credentials verified lately, by their exact text.
#[derive(Default)]
pub(crate) struct PrincipalCache {
    entries: Mutex<HashMap<Credential, Entry>>,
}

impl PrincipalCache {
    /// The principal of `credential`, from the cache while nothing it is made
    /// of has changed since, or verified by `verify` (and remembered).
    pub(crate) fn principal(
        &self,
        tx: &Transaction<'_>,
        credential: &Credential,
        now: i64,
        verify: impl FnOnce() -> Result<Verified>,
    ) -> Result<Arc<Principal>> {
        let epoch = current_epoch(tx)?;
        if let Some(found) = self.lookup(credential, epoch, now) {
            return Ok(found);
        }
        let verified = verify()?;
        let principal = Arc::new(verified.principal);
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= CAPACITY {
            entries.clear();
        }
        entries.insert(
            credential.clone(),
            Entry {
                epoch,
                not_before: verified.not_before,
                expires: verified.expires,
                principal: Arc::clone(&principal),
            },
        );
        Ok(principal)
    }

    /// The principal of `credential` when it was verified at `epoch` and
    /// its token is within its time at `now`.
    pub(crate) fn lookup(
        &self,
        credential: &Credential,
        epoch: i64,
        now: i64,
    ) -> Option<Arc<Principal>> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let entry = entries.get(credential)?;
        let holds = entry.epoch == epoch
            && entry.not_before.is_none_or(|nbf| nbf <= now)
            && entry.expires.is_none_or(|exp| exp >= now);
        holds.then(|| Arc::clone(&entry.principal))
    }
}

/// The number every change to users, keys and grants moves on.
pub(crate) fn current_epoch(tx: &Transaction<'_>) -> crate::db::Result<i64> {
    tx.prepare_cached("SELECT epoch FROM auth_epoch WHERE id = 1")?
        .query_row([], |row| row.get(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::Action;
    use crate::store::Store;

    fn key(tx: &Transaction<'_>, name: &str) -> crate::access::NewKeyPair {
        crate::access::create_key(tx, name, &["journalist".to_owned()], &[]).expect("works")
    }

    #[test]
    fn a_change_to_any_user_forgets_what_was_verified() {
        let dir = tempfile::tempdir().expect("works");
        let store = Store::open(dir.path()).expect("works");
        let made = store
            .write(|tx| Ok::<_, crate::CoreError>(key(tx, "ana")))
            .expect("works");
        let credential = Credential::PrivateKey(made.private_key.clone());
        let cache = PrincipalCache::default();
        let verifications = std::cell::Cell::new(0);
        let ask = || {
            store
                .read(|tx| {
                    cache.principal(tx, &credential, 0, || {
                        verifications.set(verifications.get() + 1);
                        crate::access::authenticate_credential(tx, &credential)
                    })
                })
                .expect("works")
        };
        assert_eq!(ask().name, "ana");
        assert_eq!(ask().name, "ana");
        assert_eq!(verifications.get(), 1, "the second ask is remembered");
        store
            .write(|tx| Ok::<_, crate::CoreError>(key(tx, "ben")))
            .expect("works");
        ask();
        assert_eq!(
            verifications.get(),
            2,
            "a new user's key moves the epoch on"
        );
        store
            .write(|tx| {
                tx.execute("DELETE FROM user_roles", [])?;
                Ok::<_, crate::CoreError>(())
            })
            .expect("works");
        assert!(
            !ask().may(Action::ContentCreate),
            "a role taken away is seen"
        );
        assert_eq!(verifications.get(), 3);
    }

    #[test]
    fn a_token_past_its_time_is_not_served_from_the_cache() {
        let dir = tempfile::tempdir().expect("works");
        let store = Store::open(dir.path()).expect("works");
        let made = store
            .write(|tx| Ok::<_, crate::CoreError>(key(tx, "ana")))
            .expect("works");
        let token = crate::access::mint_token(&made.public_key, &made.private_key, Some(60))
            .expect("works");
        let credential = Credential::Token(token);
        let cache = PrincipalCache::default();
        let now = chrono::Utc::now().timestamp();
        store
            .read(|tx| {
                cache.principal(tx, &credential, now, || {
                    crate::access::authenticate_credential(tx, &credential)
                })
            })
            .expect("works");
        let store_epoch = store.read_statement(current_epoch).expect("works");
        assert!(cache.lookup(&credential, store_epoch, now + 60).is_some());
        assert!(cache.lookup(&credential, store_epoch, now + 120).is_none());
        assert!(cache.lookup(&credential, store_epoch + 1, now).is_none());
    }
}
