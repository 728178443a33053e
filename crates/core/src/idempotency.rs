//! Idempotency keys (a Copydesk extension): a write repeated with the same key applies nothing twice.
//!
//! The key is recorded by the write's own transaction (through
//! [`crate::store::Store::with_commit_hook`]), so a write and its key commit
//! together or not at all; the answer is stored right after. A repeat gets
//! the stored answer; the same key with another request is refused.

use crate::db::{OptionalExtension as _, params};

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::error::{CoreError, Result};

/// How long keys and their answers are kept: a retry comes long before.
pub const KEPT_DAYS: i64 = 7;

/// The longest key accepted.
pub const MAX_KEY_LENGTH: usize = 200;

/// An answer kept for a key: opaque bytes with their status and media type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredReply {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

/// What a key already stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyState {
    /// Never seen: go ahead.
    New,
    /// Seen with this request, and its answer is kept.
    Answered(StoredReply),
    /// Seen with this request and applied, but its answer was lost (a crash in between).
    AppliedUnanswered,
}

pub fn parse_key(raw: &str) -> Result<String> {
    let key = raw.trim();
    if key.is_empty() || key.len() > MAX_KEY_LENGTH || !key.chars().all(|c| c.is_ascii_graphic()) {
        return Err(CoreError::invalid_field(
            "Idempotency-Key",
            format!("an Idempotency-Key is 1 to {MAX_KEY_LENGTH} visible ASCII characters"),
        ));
    }
    Ok(key.to_owned())
}

impl Cms {
    /// Looks the key up for `who`; the same key with a different `request_hash` is a 400.
    pub fn idempotency_state(
        &self,
        who: &Principal,
        key: &str,
        request_hash: &str,
    ) -> Result<KeyState> {
        let found = self.read(|tx| {
            Ok(tx
                .prepare_cached(
                    "SELECT request_hash, status, content_type, response FROM idempotency_keys
                     WHERE user_id = ?1 AND key = ?2",
                )?
                .query_row(params![who.user_id, key], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, Option<i64>>(1)?,
                        row.get::<_, Option<String>>(2)?,
                        row.get::<_, Option<Vec<u8>>>(3)?,
                    ))
                })
                .optional()?)
        })?;
        match found {
            None => Ok(KeyState::New),
            Some((hash, _, _, _)) if hash != request_hash => Err(CoreError::invalid_field(
                "Idempotency-Key",
                "this Idempotency-Key was used for a different request; use a new key for a new request",
            )),
            Some((_, Some(status), content_type, Some(body))) => {
                Ok(KeyState::Answered(StoredReply {
                    status: u16::try_from(status).unwrap_or(200),
                    content_type: content_type.unwrap_or_else(|| "application/json".into()),
                    body,
                }))
            }
            Some(_) => Ok(KeyState::AppliedUnanswered),
        }
    }

    /// Runs one use case so that its write records the key in the same transaction.
    /// Returns the use case's result and whether a write committed with the key.
    pub fn applying_once<T>(
        &self,
        who: &Principal,
        key: &str,
        request_hash: &str,
        work: impl FnOnce() -> T,
    ) -> (T, bool) {
        let (user_id, key, hash) = (who.user_id, key.to_owned(), request_hash.to_owned());
        self.store.with_commit_hook(
            move |tx| {
                let inserted = tx
                    .prepare_cached(
                        "INSERT INTO idempotency_keys (user_id, key, request_hash, created_at)
                         VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
                    )?
                    .execute(params![user_id, key, hash, clock::now()])?;
                if inserted == 0 {
                    // The same key committed meanwhile (a racing repeat): this write must not apply.
                    return Err(copydesk_store::StoreError::Conflict {
                        message: "a request with this Idempotency-Key was applied meanwhile".into(),
                        field: Some("Idempotency-Key".into()),
                    });
                }
                Ok(())
            },
            work,
        )
    }

    /// Keeps the answer of an applied keyed request for its repeats.
    pub fn keep_reply(&self, who: &Principal, key: &str, reply: &StoredReply) -> Result<()> {
        self.write(|tx| {
            tx.prepare_cached(
                "UPDATE idempotency_keys SET status = ?3, content_type = ?4, response = ?5 WHERE user_id = ?1 AND key = ?2",
            )?
            .execute(params![who.user_id, key, i64::from(reply.status), reply.content_type, reply.body])?;
            tx.prepare_cached("DELETE FROM idempotency_keys WHERE created_at < ?1")?
                .execute([clock::days_ago(KEPT_DAYS)])?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::parse_key;

    #[test]
    fn keys() {
        assert!(parse_key("2f6c-1").is_ok());
        assert!(parse_key("").is_err());
        assert!(parse_key("has space").is_err());
        assert!(parse_key(&"k".repeat(201)).is_err());
        assert!(parse_key("ключ").is_err());
    }
}
