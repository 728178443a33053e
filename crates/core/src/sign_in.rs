//! Signing in a person can do: a password or a one-time link becomes a new
//! key pair for that person's browser, so nobody has to paste a key.
//!
//! Passwords are kept only as argon2id hashes (PHC strings); a link's token
//! only as its SHA-256. Failed attempts are counted per name and per client
//! address, and past the limit sign-in is refused for a while (429) before
//! any password is checked. The key pair a sign-in makes is an ordinary one
//! with a label, listed under its user and revoked like any other.

use std::sync::OnceLock;

use crate::db::{OptionalExtension as _, Transaction, params};
use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher as _, PasswordVerifier as _, SaltString};
use base64::Engine as _;
use rand::RngCore as _;
use sha2::{Digest as _, Sha256};

use crate::Cms;
use crate::access::{NewKeyPair, Principal};
use crate::clock;
use crate::error::{CoreError, Result};
use crate::users::User;

/// How long a sign-in link stays valid.
pub const LINK_LIFETIME_SECS: i64 = 15 * 60;
/// The window failed attempts are counted over.
pub const FAILURE_WINDOW_SECS: i64 = 15 * 60;
/// Failed attempts allowed per name within the window.
pub const FAILURES_PER_NAME: i64 = 5;
/// Failed attempts allowed per client address within the window.
pub const FAILURES_PER_ADDRESS: i64 = 20;
/// The shortest password `user password` accepts.
pub const MIN_PASSWORD_CHARS: usize = 8;

/// What a wrong name or password is told, the same whether the name exists or not.
pub const WRONG_PASSWORD: &str = "That name and password do not match.";

/// How a person proves who they are.
#[derive(Debug, Clone)]
pub enum SignInWith {
    Password {
        name: String,
        password: String,
    },
    /// The token of a link `user link` printed.
    Link(String),
}

/// A sign-in that worked: the user and the key pair made for this browser.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub user: User,
    pub key: NewKeyPair,
    pub label: String,
}

/// One key pair of a user, as `key list` shows it (never its private key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySummary {
    pub public_key: String,
    pub label: String,
    pub created_at: String,
}

/// A failed attempt to remember, or none; what the caller is told.
enum Outcome {
    SignedIn(Box<SignedIn>),
    Refused(String),
}

fn hasher() -> Argon2<'static> {
    // argon2id, version 19, with the crate's defaults (19 MiB, 2 passes,
    // 1 lane): the parameters OWASP recommends for argon2id.
    Argon2::default()
}

fn hash_password(password: &str) -> Result<String> {
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt)
        .map_err(|err| CoreError::Internal(format!("making a salt: {err}")))?;
    hasher()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|err| CoreError::Internal(format!("hashing a password: {err}")))
}

/// A hash no password matches, checked for unknown names so that they take
/// as long as known ones.
fn decoy_hash() -> &'static str {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| {
        let mut random = [0u8; 32];
        rand::rng().fill_bytes(&mut random);
        hash_password(&hex(&random)).unwrap_or_default()
    })
}

fn password_matches(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored)
        .is_ok_and(|hash| hasher().verify_password(password.as_bytes(), &hash).is_ok())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256_hex(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}

/// Names are counted without case and surrounding spaces, so `Ana` and
/// ` ana` share one allowance.
fn name_bucket(name: &str) -> String {
    name.trim().to_lowercase()
}

fn user_id_named(tx: &Transaction<'_>, name: &str) -> Result<i64> {
    tx.prepare_cached("SELECT id FROM users WHERE name = ?1")?
        .query_row([name.trim()], |row| row.get(0))
        .optional()?
        .ok_or_else(|| {
            CoreError::not_found_field(
                "name",
                format!(
                    "there is no user named \"{}\"; make one with `copydesk-server key create --name`",
                    name.trim()
                ),
            )
        })
}

/// Refuses (429) when the name or the address already failed too often.
fn check_allowance(
    tx: &Transaction<'_>,
    name: Option<&str>,
    address: Option<&str>,
    now: i64,
) -> Result<()> {
    let since = now - FAILURE_WINDOW_SECS;
    let count = |column_sql: &str, value: &str| -> Result<(i64, Option<i64>)> {
        Ok(tx
            .prepare_cached(column_sql)?
            .query_row(params![value, since], |row| Ok((row.get(0)?, row.get(1)?)))?)
    };
    let mut checks = Vec::new();
    if let Some(name) = name {
        let (failed, oldest) = count(
            "SELECT COUNT(*), MIN(at) FROM sign_in_failures WHERE name = ?1 AND at > ?2",
            &name_bucket(name),
        )?;
        checks.push((failed, oldest, FAILURES_PER_NAME, "this name"));
    }
    if let Some(address) = address {
        let (failed, oldest) = count(
            "SELECT COUNT(*), MIN(at) FROM sign_in_failures WHERE address = ?1 AND at > ?2",
            address,
        )?;
        checks.push((failed, oldest, FAILURES_PER_ADDRESS, "this address"));
    }
    for (failed, oldest, limit, whom) in checks {
        if failed >= limit {
            let retry_after_secs = (oldest.unwrap_or(now) + FAILURE_WINDOW_SECS - now).max(1);
            let minutes = (retry_after_secs + 59) / 60;
            return Err(CoreError::TooManyAttempts {
                message: format!(
                    "Too many failed sign-ins from {whom}. Try again in {minutes} minute{}.",
                    if minutes == 1 { "" } else { "s" }
                ),
                retry_after_secs: u64::try_from(retry_after_secs).unwrap_or(1),
            });
        }
    }
    Ok(())
}

/// Held while a password is checked: one argon2 check at a time.
static HASHING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn remember_failure(
    tx: &Transaction<'_>,
    name: Option<&str>,
    address: Option<&str>,
    now: i64,
) -> Result<i64> {
    tx.prepare_cached("DELETE FROM sign_in_failures WHERE at <= ?1")?
        .execute([now - FAILURE_WINDOW_SECS])?;
    Ok(tx
        .prepare_cached(
            "INSERT INTO sign_in_failures (name, address, at) VALUES (?1, ?2, ?3) RETURNING id",
        )?
        .insert(params![name.map(name_bucket), address, now])?)
}

/// A new key pair for `user_id`, labelled.
fn labelled_key(
    tx: &Transaction<'_>,
    user_id: i64,
    user_uuid: String,
    label: &str,
) -> Result<NewKeyPair> {
    let mut public = [0u8; 16];
    let mut private = [0u8; 32];
    rand::rng().fill_bytes(&mut public);
    rand::rng().fill_bytes(&mut private);
    let (public_key, private_key) = (hex(&public), hex(&private));
    tx.prepare_cached(
        "INSERT INTO key_pairs (user_id, public_key, private_key, created_at, label) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![user_id, public_key, private_key, clock::now(), label])?;
    Ok(NewKeyPair {
        user_uuid,
        public_key,
        private_key,
    })
}

impl Cms {
    /// `user password NAME`: sets (or replaces) a user's password.
    pub fn set_password(&self, name: &str, password: &str) -> Result<()> {
        if password.chars().count() < MIN_PASSWORD_CHARS {
            return Err(CoreError::invalid_field(
                "password",
                format!("a password needs at least {MIN_PASSWORD_CHARS} characters"),
            ));
        }
        // Hashed before the transaction: it takes a while, and the writer must not wait.
        let hash = hash_password(password)?;
        self.write(|tx| {
            let user_id = user_id_named(tx, name)?;
            tx.prepare_cached(
                "INSERT INTO user_passwords (user_id, hash, set_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, set_at = excluded.set_at",
            )?
            .execute(params![user_id, hash, clock::now()])?;
            Ok(())
        })
    }

    /// `user link NAME`: a one-time sign-in token, valid for
    /// [`LINK_LIFETIME_SECS`]; only its SHA-256 is kept.
    pub fn make_sign_in_link(&self, name: &str) -> Result<String> {
        let mut random = [0u8; 32];
        rand::rng().fill_bytes(&mut random);
        let token = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random);
        let expires_at = chrono::Utc::now().timestamp() + LINK_LIFETIME_SECS;
        self.write(|tx| {
            let user_id = user_id_named(tx, name)?;
            tx.prepare_cached(
                "INSERT INTO sign_in_links (token_sha256, user_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![sha256_hex(&token), user_id, clock::now(), expires_at])?;
            Ok(())
        })?;
        Ok(token)
    }

    /// `POST /v3/sign-in`: a password or a link becomes a new key pair for
    /// this browser. `address` is the client's, for the rate limit.
    pub fn sign_in(&self, with: &SignInWith, address: Option<&str>) -> Result<SignedIn> {
        let now = chrono::Utc::now().timestamp();
        let label = format!(
            "browser sign-in {}",
            chrono::Utc::now().format("%Y-%m-%d %H:%M")
        );
        let outcome = match with {
            SignInWith::Password { name, password } => {
                // Each attempt is counted as failed before its password is
                // checked, in the write that checks the allowance: attempts
                // racing in one burst see each other, and whether an attempt
                // is let through never depends on its password being right.
                let (stored, attempt) = self.write(|tx| {
                    check_allowance(tx, Some(name), address, now)?;
                    let attempt = remember_failure(tx, Some(name), address, now)?;
                    let stored = tx
                        .prepare_cached(
                            "SELECT p.hash FROM user_passwords p JOIN users u ON u.id = p.user_id WHERE u.name = ?1",
                        )?
                        .query_row([name.trim()], |row| row.get::<_, String>(0))
                        .optional()?;
                    Ok((stored, attempt))
                })?;
                // Checked outside any transaction: it takes a while on purpose,
                // and one at a time, so a burst cannot take the memory argon2
                // asks of each check all at once.
                let matches = {
                    let _one_at_a_time = HASHING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    match &stored {
                        Some(hash) => password_matches(password, hash),
                        None => {
                            password_matches(password, decoy_hash());
                            false
                        }
                    }
                };
                self.write(|tx| {
                    if !matches {
                        return Ok(Outcome::Refused(WRONG_PASSWORD.to_owned()));
                    }
                    tx.prepare_cached("DELETE FROM sign_in_failures WHERE id = ?1")?
                        .execute([attempt])?;
                    let (user_id, user_uuid): (i64, String) = tx
                        .prepare_cached("SELECT id, uuid FROM users WHERE name = ?1")?
                        .query_row([name.trim()], |row| Ok((row.get(0)?, row.get(1)?)))?;
                    tx.prepare_cached("DELETE FROM sign_in_failures WHERE name = ?1")?
                        .execute([name_bucket(name)])?;
                    self.signed_in(tx, user_id, user_uuid, &label)
                })?
            }
            SignInWith::Link(token) => self.write(|tx| {
                check_allowance(tx, None, address, now)?;
                let found = tx
                    .prepare_cached(
                        "SELECT l.user_id, u.uuid, l.expires_at, l.used_at FROM sign_in_links l
                         JOIN users u ON u.id = l.user_id WHERE l.token_sha256 = ?1",
                    )?
                    .query_row([sha256_hex(token.trim())], |row| {
                        Ok((
                            row.get::<_, i64>(0)?,
                            row.get::<_, String>(1)?,
                            row.get::<_, i64>(2)?,
                            row.get::<_, Option<String>>(3)?,
                        ))
                    })
                    .optional()?;
                let refusal = match &found {
                    None => Some("This sign-in link is not valid. Ask for a new one, or sign in with your name and password."),
                    Some((_, _, _, Some(_))) => Some("This sign-in link was used already: each link works once. Ask for a new one, or sign in with your name and password."),
                    Some((_, _, expires_at, None)) if *expires_at <= now => Some("This sign-in link has expired: links work for 15 minutes. Ask for a new one, or sign in with your name and password."),
                    Some(_) => None,
                };
                match (refusal, found) {
                    (None, Some((user_id, user_uuid, _, _))) => {
                        tx.prepare_cached(
                            "UPDATE sign_in_links SET used_at = ?2 WHERE token_sha256 = ?1",
                        )?
                        .execute(params![sha256_hex(token.trim()), clock::now()])?;
                        self.signed_in(tx, user_id, user_uuid, &label)
                    }
                    (refusal, _) => {
                        remember_failure(tx, None, address, now)?;
                        Ok(Outcome::Refused(
                            refusal.unwrap_or("This sign-in link is not valid.").to_owned(),
                        ))
                    }
                }
            })?,
        };
        match outcome {
            Outcome::SignedIn(signed_in) => Ok(*signed_in),
            Outcome::Refused(message) => Err(CoreError::SignInRefused(message)),
        }
    }

    fn signed_in(
        &self,
        tx: &Transaction<'_>,
        user_id: i64,
        user_uuid: String,
        label: &str,
    ) -> Result<Outcome> {
        let key = labelled_key(tx, user_id, user_uuid, label)?;
        let user = self
            .user_by_id(tx, Some(user_id))?
            .ok_or_else(|| CoreError::Internal("the signed-in user is gone".into()))?;
        Ok(Outcome::SignedIn(Box::new(SignedIn {
            user,
            key,
            label: label.to_owned(),
        })))
    }

    /// `key list --name NAME`: the user's key pairs, oldest first.
    pub fn list_keys(&self, name: &str) -> Result<Vec<KeySummary>> {
        self.read(|tx| {
            let user_id = user_id_named(tx, name)?;
            let mut stmt = tx.prepare_cached(
                "SELECT public_key, label, created_at FROM key_pairs WHERE user_id = ?1 ORDER BY id",
            )?;
            let rows = stmt.query_map([user_id], |row| {
                Ok(KeySummary {
                    public_key: row.get(0)?,
                    label: row.get(1)?,
                    created_at: row.get(2)?,
                })
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
    }

    /// `POST /v3/sign-out`: the caller's own key pair (the one that signed
    /// the request) is revoked, so a copy of it taken from this browser
    /// stops working too. No access action guards it: a key may always give
    /// itself up, as signing out must work for every user.
    pub fn sign_out(&self, who: &Principal) -> Result<String> {
        self.revoke_key(&who.public_key)?;
        Ok(who.public_key.clone())
    }

    /// `key revoke PUBLIC_KEY`: the key pair is deleted, and every token
    /// signed with it is refused from now on.
    pub fn revoke_key(&self, public_key: &str) -> Result<()> {
        self.write(|tx| {
            let removed = tx
                .prepare_cached("DELETE FROM key_pairs WHERE public_key = ?1")?
                .execute([public_key])?;
            if removed == 0 {
                return Err(CoreError::not_found(format!(
                    "no key with public key {public_key}"
                )));
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cms() -> (tempfile::TempDir, Cms) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let cms = Cms::open(dir.path(), "test").expect("opens");
        (dir, cms)
    }

    fn password(name: &str, password: &str) -> SignInWith {
        SignInWith::Password {
            name: name.into(),
            password: password.into(),
        }
    }

    #[test]
    fn a_password_is_kept_as_an_argon2id_hash() {
        let hash = hash_password("correct horse").expect("hashes");
        assert!(hash.starts_with("$argon2id$v=19$"), "{hash}");
        assert!(password_matches("correct horse", &hash));
        assert!(!password_matches("correct horsf", &hash));
        assert!(!password_matches("anything", "not a hash"));
    }

    #[test]
    fn signing_in_makes_a_labelled_key_and_wrong_passwords_are_limited() {
        let (_dir, cms) = cms();
        cms.create_key("ana", &["journalist".into()], &[])
            .expect("a user");
        assert!(matches!(
            cms.set_password("ana", "short"),
            Err(CoreError::Invalid { .. })
        ));
        assert!(matches!(
            cms.set_password("nobody", "long enough"),
            Err(CoreError::NotFound { .. })
        ));
        cms.set_password("ana", "long enough").expect("set");
        let signed = cms
            .sign_in(&password("ana", "long enough"), Some("10.0.0.1"))
            .expect("signs in");
        assert_eq!(signed.user.name, "ana");
        assert!(signed.label.starts_with("browser sign-in "));
        let keys = cms.list_keys("ana").expect("keys");
        assert_eq!(keys.len(), 2);
        assert_eq!(keys[1].public_key, signed.key.public_key);
        for _ in 0..FAILURES_PER_NAME {
            match cms.sign_in(&password("Ana", "wrong one"), Some("10.0.0.2")) {
                Err(CoreError::SignInRefused(message)) => assert_eq!(message, WRONG_PASSWORD),
                other => panic!("{other:?}"),
            }
        }
        // The name is spent, even with the right password, from anywhere.
        assert!(matches!(
            cms.sign_in(&password("ana", "long enough"), Some("10.0.0.3")),
            Err(CoreError::TooManyAttempts { .. })
        ));
        // Another name from the same address still may try.
        assert!(matches!(
            cms.sign_in(&password("bo", "whatever1"), Some("10.0.0.2")),
            Err(CoreError::SignInRefused(_))
        ));
        cms.revoke_key(&signed.key.public_key).expect("revoked");
        assert_eq!(cms.list_keys("ana").expect("keys").len(), 1);
    }

    #[test]
    fn signing_out_revokes_only_the_key_that_signed() {
        let (_dir, cms) = cms();
        let given = cms
            .create_key("di", &["reader".into()], &[])
            .expect("a user");
        cms.set_password("di", "long enough").expect("set");
        let browser = cms
            .sign_in(&password("di", "long enough"), None)
            .expect("signs in")
            .key;
        let token = crate::access::mint_token(&browser.public_key, &browser.private_key, Some(60))
            .expect("a token");
        let credential = crate::access::Credential::Token(token);
        let who = cms
            .authenticate(Some(&credential))
            .expect("the browser's key works");
        assert_eq!(cms.sign_out(&who).expect("signed out"), browser.public_key);
        assert!(matches!(
            cms.authenticate(Some(&credential)),
            Err(CoreError::Token(crate::error::TokenProblem::Invalid))
        ));
        let keys = cms.list_keys("di").expect("keys");
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].public_key, given.public_key);
    }

    #[test]
    fn a_link_works_once() {
        let (_dir, cms) = cms();
        cms.create_key("bo", &[], &[]).expect("a user");
        let token = cms.make_sign_in_link("bo").expect("a link");
        assert_eq!(token.len(), 43);
        let link = SignInWith::Link(token);
        assert_eq!(cms.sign_in(&link, None).expect("signs in").user.name, "bo");
        match cms.sign_in(&link, None) {
            Err(CoreError::SignInRefused(message)) => assert!(message.contains("used already")),
            other => panic!("{other:?}"),
        }
    }
}
