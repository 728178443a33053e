//! Who may do what: users, key pairs, HS256 tokens, roles and single access actions.
//!
//! A token is a JWT signed with the key pair's private key; its `pk` claim
//! names the public key, which is how the verifier finds the secret.

use std::collections::BTreeSet;

use crate::db::{OptionalExtension as _, Transaction, params};
use base64::Engine as _;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rand::RngCore as _;
use serde::{Deserialize, Serialize};

use crate::clock;
use crate::error::{CoreError, Result, TokenProblem};
use crate::slug::Slug;

/// Every access action this service checks: the wire crate's closed list.
pub use copydesk_wire::Action;

/// The roles `key create --role` grants. `admin` holds every action.
pub const ROLES: &[(&str, &str)] = &[
    ("admin", "every action"),
    ("reader", "list and get everything"),
    (
        "journalist",
        "reader, plus writing content of every type, drafts, versions, attachments, tags, locks and comments",
    ),
    (
        "editor",
        "journalist, plus publishing, deleting authors, containers and tags, and assignments",
    ),
    ("printdesk", "reader, plus exports and print documents"),
];

fn role_grants(role: &str, action: Action) -> bool {
    use Action as A;
    let read = matches!(action.verb(), "list" | "get" | "dump");
    match role {
        "admin" => true,
        "reader" => read,
        "journalist" => {
            read || (action.resource() == "CONTENT" && action != A::ContentPublish)
                || matches!(
                    action,
                    A::AuthorCreate
                        | A::AuthorUpdate
                        | A::VersionRestore
                        | A::DraftCreate
                        | A::AttachmentUpdate
                        | A::TagCreate
                        | A::LockRequestCreate
                        | A::LockRequestDelete
                        | A::NoteCommentCreate
                        | A::AssignmentCommentCreate
                        | A::SyncResolve
                )
        }
        "editor" => {
            role_grants("journalist", action)
                || action == A::ContentPublish
                || matches!(
                    action.resource(),
                    "AUTHOR" | "CONTAINER" | "TAG" | "ASSIGNMENT"
                )
        }
        "printdesk" => {
            read || matches!(
                action.resource(),
                "EXPORT" | "WORKFLOW" | "WORKFLOWSECTION" | "ISSUE"
            ) || matches!(action, A::PrintDocumentCreate | A::PrintDocumentUpdate)
        }
        _ => false,
    }
}

/// The user behind a verified token, with what they may do.
#[derive(Debug, Clone)]
pub struct Principal {
    pub user_id: i64,
    pub user_uuid: String,
    pub name: String,
    pub public_key: String,
    private_key: String,
    roles: BTreeSet<String>,
    /// Actions granted on their own (a stored name this build does not
    /// check is left out).
    actions: BTreeSet<Action>,
    /// The key was made for a client that reads a single content item as
    /// element 0 of an array.
    pub content_as_array: bool,
}

impl Principal {
    pub fn may(&self, action: Action) -> bool {
        self.actions.contains(&action) || self.roles.iter().any(|role| role_grants(role, action))
    }

    /// Whether the user holds the `admin` role.
    pub fn is_admin(&self) -> bool {
        self.roles.contains("admin")
    }

    /// The roles granted, by name.
    pub fn roles(&self) -> impl Iterator<Item = &str> {
        self.roles.iter().map(String::as_str)
    }

    /// Every access action granted, by a role or on its own, in [`Action::ALL`] order.
    pub fn granted_actions(&self) -> Vec<Action> {
        Action::ALL
            .iter()
            .copied()
            .filter(|action| self.may(*action))
            .collect()
    }

    /// A 401 naming `action` unless the user holds it.
    pub fn require(&self, action: Action) -> Result<()> {
        if self.may(action) {
            Ok(())
        } else {
            Err(CoreError::Forbidden {
                action: action.as_str().to_owned(),
            })
        }
    }

    /// A fresh token for the same key pair.
    pub fn refreshed_token(&self, lifetime_secs: i64) -> Result<String> {
        mint_token(&self.public_key, &self.private_key, Some(lifetime_secs))
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    pk: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    iat: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exp: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    nbf: Option<i64>,
}

/// Signs a token for a key pair, valid for `lifetime_secs` when given.
pub fn mint_token(
    public_key: &str,
    private_key: &str,
    lifetime_secs: Option<i64>,
) -> Result<String> {
    let now = chrono::Utc::now().timestamp();
    let claims = Claims {
        pk: public_key.to_owned(),
        iat: Some(now),
        exp: lifetime_secs.map(|secs| now + secs),
        nbf: None,
    };
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(private_key.as_bytes()),
    )
    .map_err(|err| CoreError::Internal(format!("signing a token: {err}")))
}

/// Reads `pk` from a token before its signature can be checked, since the
/// secret to check it with depends on it.
fn unverified_public_key(token: &str) -> Result<String> {
    let invalid = || CoreError::Token(TokenProblem::Invalid);
    let payload = token.split('.').nth(1).ok_or_else(invalid)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .map_err(|_| invalid())?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).map_err(|_| invalid())?;
    claims
        .get("pk")
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
        .ok_or_else(invalid)
}

/// What a request proves who it is with.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Credential {
    /// `Authorization: Bearer <token>`: a token signed with the private key.
    Token(String),
    /// `Authorization: Basic base64("<private key>:")`, as some clients of
    /// the hosted service send it: the secret a token is signed with.
    PrivateKey(String),
}

/// A verified credential: who it is, and the seconds (Unix time) between
/// which its token holds, when the token says.
pub struct Verified {
    pub principal: Principal,
    pub not_before: Option<i64>,
    pub expires: Option<i64>,
}

/// Verifies a credential and loads its user's grants.
pub fn authenticate_credential(tx: &Transaction<'_>, credential: &Credential) -> Result<Verified> {
    match credential {
        Credential::Token(token) => authenticate(tx, token),
        Credential::PrivateKey(private_key) => {
            // Keys are printable text: anything else is no key (a NUL would
            // not even reach PostgreSQL as text).
            if private_key.is_empty() || private_key.chars().any(char::is_control) {
                return Err(CoreError::Token(TokenProblem::Invalid));
            }
            // `+?1`: see the store's note on statements re-prepared for every value.
            let found = tx
                .prepare_cached(
                    "SELECT k.public_key, u.id, u.uuid, u.name, k.content_as_array FROM key_pairs k
                     JOIN users u ON u.id = k.user_id WHERE k.private_key = +?1",
                )?
                .query_row([private_key], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, i64>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, String>(3)?,
                        row.get::<_, bool>(4)?,
                    ))
                })
                .optional()?;
            let (public_key, user_id, user_uuid, name, content_as_array) =
                found.ok_or(CoreError::Token(TokenProblem::Invalid))?;
            let key = (public_key, private_key.clone(), content_as_array);
            Ok(Verified {
                principal: with_grants(tx, user_id, user_uuid, name, key)?,
                not_before: None,
                expires: None,
            })
        }
    }
}

/// Verifies a bearer token and loads its user's grants.
pub fn authenticate(tx: &Transaction<'_>, token: &str) -> Result<Verified> {
    let public_key = unverified_public_key(token)?;
    let found = tx
        .prepare_cached(
            "SELECT k.private_key, u.id, u.uuid, u.name, k.content_as_array FROM key_pairs k JOIN users u ON u.id = k.user_id
             WHERE k.public_key = +?1",
        )?
        .query_row([&public_key], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?, row.get::<_, String>(2)?, row.get::<_, String>(3)?, row.get::<_, bool>(4)?))
        })
        .optional()?;
    let (private_key, user_id, user_uuid, name, content_as_array) =
        found.ok_or(CoreError::Token(TokenProblem::Invalid))?;
    let mut validation = Validation::new(Algorithm::HS256);
    validation.required_spec_claims.clear();
    validation.validate_exp = true;
    // A token that says it is not valid yet is refused, and so cannot be
    // refreshed into one that is; with the same (no) leeway as `exp`.
    validation.validate_nbf = true;
    validation.validate_aud = false;
    validation.leeway = 0;
    let claims = jsonwebtoken::decode::<Claims>(
        token,
        &DecodingKey::from_secret(private_key.as_bytes()),
        &validation,
    )
    .map_err(|err| match err.kind() {
        jsonwebtoken::errors::ErrorKind::ExpiredSignature => {
            CoreError::Token(TokenProblem::Expired)
        }
        jsonwebtoken::errors::ErrorKind::ImmatureSignature => {
            CoreError::Token(TokenProblem::NotYetValid)
        }
        _ => CoreError::Token(TokenProblem::Invalid),
    })?
    .claims;
    Ok(Verified {
        principal: with_grants(
            tx,
            user_id,
            user_uuid,
            name,
            (public_key, private_key, content_as_array),
        )?,
        not_before: claims.nbf,
        expires: claims.exp,
    })
}

/// The principal of a verified key pair, with its user's roles and actions.
fn with_grants(
    tx: &Transaction<'_>,
    user_id: i64,
    user_uuid: String,
    name: String,
    (public_key, private_key, content_as_array): (String, String, bool),
) -> Result<Principal> {
    let roles = collect(
        tx,
        "SELECT role FROM user_roles WHERE user_id = +?1",
        user_id,
    )?;
    let actions = collect(
        tx,
        "SELECT action FROM user_actions WHERE user_id = +?1",
        user_id,
    )?
    .iter()
    .filter_map(|name| Action::named(name))
    .collect();
    Ok(Principal {
        user_id,
        user_uuid,
        name,
        public_key,
        private_key,
        roles,
        actions,
        content_as_array,
    })
}

/// Marks a key pair's answers for a client that reads a single content
/// item as element 0 of an array (or unmarks it); unknown key: 404.
pub fn set_content_as_array(tx: &Transaction<'_>, public_key: &str, on: bool) -> Result<()> {
    let changed = tx
        .prepare_cached("UPDATE key_pairs SET content_as_array = ?2 WHERE public_key = ?1")?
        .execute(params![public_key, on])?;
    if changed == 0 {
        return Err(CoreError::not_found(format!(
            "no key with public key {public_key}"
        )));
    }
    Ok(())
}

fn collect(tx: &Transaction<'_>, sql: &str, user_id: i64) -> Result<BTreeSet<String>> {
    let mut stmt = tx.prepare_cached(sql)?;
    let rows = stmt.query_map([user_id], |row| row.get::<_, String>(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// What `key create` prints: the private key is shown here and nowhere else.
#[derive(Debug, Clone)]
pub struct NewKeyPair {
    pub user_uuid: String,
    pub public_key: String,
    pub private_key: String,
}

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buf);
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// Creates the user `name` if missing, a new key pair for it, and grants roles and actions.
pub fn create_key(
    tx: &Transaction<'_>,
    name: &str,
    roles: &[String],
    actions: &[String],
) -> Result<NewKeyPair> {
    let name = name.trim();
    if name.is_empty() {
        return Err(CoreError::invalid_field("name", "a user needs a name"));
    }
    for role in roles {
        if !ROLES.iter().any(|(known, _)| known == role) {
            let known: Vec<&str> = ROLES.iter().map(|(r, _)| *r).collect();
            return Err(CoreError::invalid_field(
                "role",
                format!(
                    "unknown role \"{role}\"; the roles are {}",
                    known.join(", ")
                ),
            ));
        }
    }
    for action in actions {
        let well_formed = action.split_once(' ').is_some_and(|(resource, verb)| {
            !resource.is_empty() && !verb.is_empty() && !verb.contains(' ')
        });
        if !well_formed {
            return Err(CoreError::invalid_field(
                "action",
                format!("\"{action}\" is not an access action of the form \"RESOURCE action\""),
            ));
        }
    }
    let now = clock::now();
    let existing = tx
        .query_row(
            "SELECT id, uuid FROM users WHERE name = ?1",
            [name],
            |row| Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?)),
        )
        .optional()?;
    let (user_id, user_uuid) = match existing {
        Some(found) => found,
        None => {
            let uuid = uuid::Uuid::new_v4().to_string();
            let slug = Slug::parse_or_make(None, name);
            let new_id = tx.insert(
                "INSERT INTO users (uuid, name, slug, created_at, modified_at) VALUES (?1, ?2, ?3, ?4, ?4) RETURNING id",
                params![uuid, name, slug.as_str(), now],
            )?;
            (new_id, uuid)
        }
    };
    for role in roles {
        tx.execute(
            "INSERT INTO user_roles (user_id, role) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            params![user_id, role],
        )?;
    }
    for action in actions {
        tx.execute(
            "INSERT INTO user_actions (user_id, action) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            params![user_id, action],
        )?;
    }
    let public_key = random_hex(16);
    let private_key = random_hex(32);
    tx.execute(
        "INSERT INTO key_pairs (user_id, public_key, private_key, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![user_id, public_key, private_key, now],
    )?;
    Ok(NewKeyPair {
        user_uuid,
        public_key,
        private_key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_grant_what_they_say() {
        assert!(role_grants("admin", Action::PrintDocumentPassThruLock));
        assert!(role_grants("reader", Action::ContentGet));
        assert!(!role_grants("reader", Action::ContentUpdate));
        assert!(role_grants("journalist", Action::ContentTypePost));
        assert!(!role_grants("journalist", Action::ContentPublish));
        assert!(role_grants("editor", Action::ContentPublish));
        assert!(role_grants("editor", Action::TagDelete));
        assert!(!role_grants("editor", Action::ExportPush));
        assert!(role_grants("printdesk", Action::ExportPush));
        assert!(role_grants("printdesk", Action::PrintDocumentUpdate));
        assert!(!role_grants("printdesk", Action::PrintDocumentPassThruLock));
        assert!(!role_grants("nobody", Action::ContentGet));
    }

    #[test]
    fn every_role_is_known() {
        for (role, _) in ROLES {
            assert!(
                Action::ALL.iter().any(|action| role_grants(role, *action)),
                "{role} grants nothing"
            );
        }
    }

    #[test]
    fn reads_pk_before_verifying() {
        let token = mint_token("pub123", "secret", Some(60)).expect("signs");
        assert_eq!(
            unverified_public_key(&token).ok().as_deref(),
            Some("pub123")
        );
        assert!(unverified_public_key("garbage").is_err());
        assert!(unverified_public_key("a.b.c").is_err());
    }
}
