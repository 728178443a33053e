//! Request bodies as clients send them. Unknown fields are ignored, so a
//! client may send back a record it read; integer fields take a number or a
//! numeric string; nullable fields tell "absent" from `null`.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type};
use utoipa::{PartialSchema, ToSchema};

/// An integer sent as a JSON number or as a string of digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Integer(pub i64);

impl<'de> Deserialize<'de> for Integer {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IntegerVisitor;
        impl Visitor<'_> for IntegerVisitor {
            type Value = Integer;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer or a string of digits")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Integer, E> {
                Ok(Integer(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Integer, E> {
                i64::try_from(v)
                    .map(Integer)
                    .map_err(|_| E::custom("the integer is too large"))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Integer, E> {
                if v.fract() == 0.0 && v.abs() < 9.0e15 {
                    Ok(Integer(v as i64))
                } else {
                    Err(E::custom("expected a whole number"))
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Integer, E> {
                v.trim()
                    .parse()
                    .map(Integer)
                    .map_err(|_| E::custom(format!("\"{v}\" is not a whole number")))
            }
        }
        deserializer.deserialize_any(IntegerVisitor)
    }
}

fn typed(kind: Type, description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(SchemaType::new(kind))
        .description(Some(description))
}

impl PartialSchema for Integer {
    fn schema() -> RefOr<Schema> {
        typed(
            Type::Integer,
            "A whole number (a string of digits is accepted too)",
        )
        .into()
    }
}

impl ToSchema for Integer {}

/// Text that some clients send as a JSON structure instead (raw editor content):
/// a string is kept as it is, anything else is serialised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RawText(pub String);

impl<'de> Deserialize<'de> for RawText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(s) => Ok(RawText(s)),
            Value::Null => Ok(RawText(String::new())),
            other => Ok(RawText(other.to_string())),
        }
    }
}

impl PartialSchema for RawText {
    fn schema() -> RefOr<Schema> {
        typed(
            Type::String,
            "Text; a JSON structure sent instead is stored serialised",
        )
        .into()
    }
}

impl ToSchema for RawText {}

/// For nullable fields: absent is `None`, `null` is `Some(None)`.
pub fn nullable<'de, T, D>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    T: Deserialize<'de>,
    D: Deserializer<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct AuthorBody {
    pub slug: Option<String>,
    pub name: Option<String>,
    pub email: Option<String>,
    pub tagline: Option<String>,
    pub description: Option<String>,
    pub status: Option<Integer>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct TagBody {
    pub name: Option<String>,
    pub slug: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
pub struct UploadBody {
    pub name: String,
    pub file: String,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct ContentBody {
    pub title: Option<String>,
    pub slug: Option<String>,
    #[serde(rename = "type")]
    pub content_type: Option<String>,
    pub weight: Option<Integer>,
    #[serde(rename = "abstract")]
    pub abstract_text: Option<String>,
    pub abstract_raw: Option<RawText>,
    pub content: Option<String>,
    pub content_raw: Option<RawText>,
    #[serde(default, deserialize_with = "nullable")]
    pub published_at: Option<Option<String>>,
    pub state: Option<Integer>,
    #[serde(default, rename = "dominantAttachment", deserialize_with = "nullable")]
    pub dominant_attachment: Option<Option<String>>,
    pub authors: Option<Vec<String>>,
    pub tags: Option<Vec<String>>,
    pub urls: Option<Vec<String>>,
    pub attachment: Option<UploadBody>,
    /// The blog container a post belongs to.
    #[serde(default, deserialize_with = "nullable")]
    pub container: Option<Option<String>>,
    /// On an update, the version the writer started from (a Copydesk
    /// extension). When someone saved a newer version since, the save is
    /// merged onto it as sync merges (a field changed on one side takes that
    /// side; the body and abstract paragraph by paragraph and word by word);
    /// where both changed the same words it is 409 `conflict` and nothing is
    /// saved. Without it, an update replaces what it sends, as the hosted
    /// service does.
    pub base_version: Option<Integer>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct DraftBody {
    pub content: Option<String>,
    pub content_raw: Option<Value>,
    /// The rest of the form typed with this body (a Copydesk addition).
    pub fields: Option<crate::DraftFields>,
    /// The version the text was typed on (a Copydesk addition; the item's
    /// current one when left out): a draft typed on an older version is
    /// merged onto the newer one when it is reopened.
    pub version: Option<Integer>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct AttachmentBody {
    pub name: Option<String>,
    pub file: Option<String>,
    pub angle: Option<Integer>,
    pub metadata: Option<Value>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct ContainerBody {
    pub slug: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    #[serde(rename = "type")]
    pub container_type: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub published_at: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub sort_order: Option<Option<String>>,
    pub content: Option<Vec<String>>,
    pub tags: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct LockRequestBody {
    pub srn: Option<String>,
}

/// A reference to another record: its numeric id (number or string) or its UUID.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reference(pub String);

impl<'de> Deserialize<'de> for Reference {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(s) => Ok(Reference(s)),
            Value::Number(n) if n.is_i64() || n.is_u64() => Ok(Reference(n.to_string())),
            other => Err(de::Error::custom(format!(
                "expected an id or a UUID, not {other}"
            ))),
        }
    }
}

impl PartialSchema for Reference {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(typed(Type::Integer, "The record's numeric id"))
            .item(typed(Type::String, "The record's numeric id or UUID"))
            .into()
    }
}

impl ToSchema for Reference {}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct NoteCommentBody {
    pub comment: Option<String>,
    pub version: Option<Integer>,
    pub reference: Option<String>,
    pub draft_uuid: Option<String>,
}

/// `PUT /v3/presence/{content uuid}`: where the caller is in the story.
#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct PresenceBody {
    /// The Draft.js key of the block the cursor is in (absent: none).
    pub block: Option<String>,
    /// Whether the caller is changing the story (not only reading it).
    pub editing: Option<Flag>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct AssignmentCommentBody {
    pub comment: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct AssignmentBody {
    pub title: Option<String>,
    pub description: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub due_at: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub assignee_id: Option<Option<Reference>>,
    #[serde(default, deserialize_with = "nullable")]
    pub content_id: Option<Option<Reference>>,
}

/// A yes/no flag sent as a boolean, `0`/`1`, or `"0"`/`"1"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Flag(pub bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Bool(b) => Ok(Flag(b)),
            Value::Number(n) if n.as_i64() == Some(0) => Ok(Flag(false)),
            Value::Number(n) if n.as_i64() == Some(1) => Ok(Flag(true)),
            Value::String(s) if s.trim() == "0" || s.trim() == "false" => Ok(Flag(false)),
            Value::String(s) if s.trim() == "1" || s.trim() == "true" => Ok(Flag(true)),
            other => Err(de::Error::custom(format!("expected 0 or 1, not {other}"))),
        }
    }
}

impl PartialSchema for Flag {
    fn schema() -> RefOr<Schema> {
        typed(
            Type::Integer,
            "0 or 1 (true, false, \"0\" and \"1\" are accepted too)",
        )
        .enum_values(Some([0, 1]))
        .into()
    }
}

impl ToSchema for Flag {}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct WorkflowBody {
    pub slug: Option<String>,
    pub name: Option<String>,
    pub status: Option<Integer>,
    pub is_web: Option<Flag>,
    pub is_print: Option<Flag>,
    pub priority: Option<Integer>,
    pub is_content: Option<Flag>,
    pub is_assignment: Option<Flag>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct WorkflowSectionBody {
    pub name: Option<String>,
    pub slug: Option<String>,
    pub workflow_id: Option<Reference>,
    /// For print pages (default true).
    pub is_print: Option<Flag>,
    /// For the web (default true).
    pub is_web: Option<Flag>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct IssueBody {
    pub label: Option<String>,
    pub description: Option<String>,
    pub status: Option<Integer>,
    pub published_at: Option<String>,
    pub decorated_label: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct PrintDocumentBody {
    pub label: Option<String>,
    pub tracking_label: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub workflow_id: Option<Option<Reference>>,
    #[serde(default, deserialize_with = "nullable")]
    pub issue_id: Option<Option<Reference>>,
    #[serde(default, deserialize_with = "nullable")]
    pub assignee_id: Option<Option<Reference>>,
    #[serde(default, deserialize_with = "nullable")]
    pub workflow_section_id: Option<Option<Reference>>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct PrintLockBody {
    pub on_behalf_of: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct ExportBody {
    #[serde(default, deserialize_with = "nullable")]
    pub workflow_id: Option<Option<Reference>>,
    #[serde(default, deserialize_with = "nullable")]
    pub assignee_id: Option<Option<Reference>>,
    #[serde(default, deserialize_with = "nullable")]
    pub issue_id: Option<Option<Reference>>,
    #[serde(default, deserialize_with = "nullable")]
    pub workflow_section_id: Option<Option<Reference>>,
    pub content: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
pub struct ResolveBody {
    /// `mine`, `theirs`, or `edited` (then `text` is the settled text).
    pub keep: Option<String>,
    /// With `keep: "edited"`: the text to keep, the paragraph's HTML (or plain
    /// text) for a paragraph conflict, else the field's value.
    pub text: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_from_numbers_and_strings() {
        let parsed: Vec<Integer> = serde_json::from_str(r#"[1, "2", " 3 ", 4.0]"#).expect("parses");
        assert_eq!(parsed, vec![Integer(1), Integer(2), Integer(3), Integer(4)]);
        assert!(serde_json::from_str::<Integer>(r#""two""#).is_err());
        assert!(serde_json::from_str::<Integer>("true").is_err());
        assert!(serde_json::from_str::<Integer>("1.5").is_err());
    }

    #[test]
    fn nullable_tells_absent_from_null() {
        let absent: ContentBody = serde_json::from_str("{}").expect("parses");
        assert_eq!(absent.published_at, None);
        let null: ContentBody = serde_json::from_str(r#"{"published_at": null}"#).expect("parses");
        assert_eq!(null.published_at, Some(None));
    }

    #[test]
    fn raw_text_serialises_structures() {
        let body: ContentBody =
            serde_json::from_str(r#"{"content_raw": {"blocks": []}}"#).expect("parses");
        assert_eq!(body.content_raw, Some(RawText(r#"{"blocks":[]}"#.into())));
    }
}
