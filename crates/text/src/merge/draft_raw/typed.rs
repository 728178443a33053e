//! Raw content read for the merge straight from its JSON text into borrowed structs, so a long story's three versions are not first built as JSON values of hundreds of thousands of small maps.
//!
//! It reads what the reader over a JSON value in `draft_raw` reads, the
//! same way; whatever form these structs cannot hold (a depth written as
//! text, a block that is not an object) fails here, and that reader takes
//! the text instead. A property test holds the two to one answer.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{BlockParts, EntityName, MarkReader, canonical, cover, entity_from};
use crate::merge::rich_text::{Entity, RichText};

/// Raw content as its text holds it: every member may be absent or `null`.
#[derive(Deserialize, Debug)]
pub struct RawIn<'a> {
    #[serde(default, borrow)]
    blocks: Option<Vec<Object<BlockIn<'a>>>>,
    #[serde(rename = "entityMap", default, borrow)]
    entity_map: Option<EntityMapIn<'a>>,
}

#[derive(Deserialize, Debug)]
struct BlockIn<'a> {
    #[serde(default, borrow)]
    key: Option<Cow<'a, str>>,
    #[serde(rename = "type", default, borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    depth: Option<u64>,
    #[serde(default, borrow)]
    data: Option<&'a RawValue>,
    #[serde(rename = "inlineStyleRanges", default, borrow)]
    inline_style_ranges: Option<Vec<Object<StyleRangeIn<'a>>>>,
    #[serde(rename = "entityRanges", default, borrow)]
    entity_ranges: Option<Vec<Object<EntityRangeIn<'a>>>>,
}

#[derive(Deserialize, Debug)]
struct StyleRangeIn<'a> {
    #[serde(default)]
    offset: Option<u64>,
    #[serde(default)]
    length: Option<u64>,
    #[serde(default, borrow)]
    style: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Debug)]
struct EntityRangeIn<'a> {
    #[serde(default)]
    offset: Option<u64>,
    #[serde(default)]
    length: Option<u64>,
    #[serde(default, borrow)]
    key: Option<KeyIn<'a>>,
}

#[derive(Deserialize)]
struct EntityIn<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    mutability: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    data: Option<&'a RawValue>,
}

/// A struct read only from a JSON object (a derived struct would also take
/// an array, member by member, where the reader over a value sees no members).
#[derive(Debug)]
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Members<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Object)
            }
        }
        deserializer.deserialize_map(Members(PhantomData))
    }
}

/// An entity range's key: a whole number, a text, or something that names
/// no entity (a negative or fractional number, `true`).
#[derive(Debug)]
enum KeyIn<'a> {
    Number(u64),
    Text(Cow<'a, str>),
    Unusable,
}

impl<'de: 'a, 'a> Deserialize<'de> for KeyIn<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Key;
        impl<'de> Visitor<'de> for Key {
            type Value = KeyIn<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a number")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
                Ok(KeyIn::Number(n))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(KeyIn::Unusable)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(KeyIn::Unusable)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(KeyIn::Unusable)
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(KeyIn::Text(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(KeyIn::Text(Cow::Owned(s.to_owned())))
            }
        }
        deserializer.deserialize_any(Key)
    }
}

/// `entityMap`: entities by name, or a list of them; each left as its text
/// until a range names it.
#[derive(Debug)]
enum EntityMapIn<'a> {
    Object(HashMap<Cow<'a, str>, &'a RawValue>),
    Array(Vec<&'a RawValue>),
}

impl<'de: 'a, 'a> Deserialize<'de> for EntityMapIn<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entities;
        impl<'de> Visitor<'de> for Entities {
            type Value = EntityMapIn<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object or an array of entities")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = HashMap::with_capacity(map.size_hint().unwrap_or(0));
                // A name given twice keeps its last entity, as a JSON value does.
                while let Some((name, entity)) = map.next_entry::<Cow<'de, str>, &'de RawValue>()? {
                    out.insert(name, entity);
                }
                Ok(EntityMapIn::Object(out))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(entity) = seq.next_element::<&'de RawValue>()? {
                    out.push(entity);
                }
                Ok(EntityMapIn::Array(out))
            }
        }
        deserializer.deserialize_any(Entities)
    }
}

impl<'a> RawIn<'a> {
    /// Reads `text`; `None` when it is not a JSON object these structs hold.
    pub fn read(text: &'a str) -> Option<Self> {
        if !text.trim_start().starts_with('{') {
            return None;
        }
        serde_json::from_str(text).ok()
    }

    /// The blocks; `None` without a `blocks` list.
    pub fn rich_text(&self) -> Option<RichText> {
        let blocks = self.blocks.as_ref()?;
        let mut out = Vec::with_capacity(blocks.len());
        let mut marks = MarkReader::default();
        for Object(block) in blocks {
            let text: Vec<char> = block.text.as_deref().unwrap_or("").chars().collect();
            let styles: Vec<_> = block
                .inline_style_ranges
                .iter()
                .flatten()
                .filter_map(|Object(range)| {
                    let style = range.style.as_deref()?;
                    Some((
                        cover(text.len(), number(range.offset), number(range.length)),
                        marks.style_id(style),
                    ))
                })
                .collect();
            let entities: Vec<_> = block
                .entity_ranges
                .iter()
                .flatten()
                .filter_map(|Object(range)| {
                    let name = match range.key.as_ref()? {
                        KeyIn::Number(n) => EntityName::Number(*n),
                        KeyIn::Text(t) => EntityName::Text(t),
                        KeyIn::Unusable => return None,
                    };
                    let id = marks.entity_id(name, |name| self.entity(name))?;
                    Some((
                        cover(text.len(), number(range.offset), number(range.length)),
                        id,
                    ))
                })
                .collect();
            let parts = BlockParts {
                key: block.key.as_deref(),
                kind: block.kind.as_deref(),
                depth: number(block.depth).unwrap_or(0),
                data: canonical_text(block.data),
            };
            out.push(marks.block(parts, text, &styles, &entities));
        }
        Some(RichText { blocks: out })
    }

    /// The entity a range names, read from its text.
    fn entity(&self, name: &EntityName<'_>) -> Option<Entity> {
        let found = match (self.entity_map.as_ref()?, name) {
            (EntityMapIn::Array(items), EntityName::Number(n)) => {
                items.get(usize::try_from(*n).ok()?)
            }
            (EntityMapIn::Array(items), EntityName::Text(t)) => items.get(t.parse::<usize>().ok()?),
            (EntityMapIn::Object(items), EntityName::Text(t)) => items.get(*t),
            (EntityMapIn::Object(items), EntityName::Number(n)) => {
                items.get(n.to_string().as_str())
            }
        }?;
        // Read as the structs hold it only when it is an object (a derived
        // struct would also take an array, member by member).
        let typed = found
            .get()
            .trim_start()
            .starts_with('{')
            .then(|| serde_json::from_str::<EntityIn<'_>>(found.get()).ok())
            .flatten();
        Some(match typed {
            Some(entity) => Entity {
                kind: entity.kind.as_deref().unwrap_or("").to_owned(),
                mutability: entity.mutability.as_deref().unwrap_or("MUTABLE").to_owned(),
                data: canonical_text(entity.data),
            },
            None => entity_from(&serde_json::from_str::<Value>(found.get()).ok()?),
        })
    }
}

fn number(value: Option<u64>) -> Option<usize> {
    value.and_then(|n| usize::try_from(n).ok())
}

/// [`canonical`] of a value held as text.
fn canonical_text(value: Option<&RawValue>) -> String {
    match value.map(RawValue::get) {
        None | Some("{}" | "null") => "{}".to_owned(),
        Some(text) => canonical(serde_json::from_str::<Value>(text).ok().as_ref()),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::super::{RawContent, from_raw};

    /// One of the forms a member may take, the expected one most often.
    fn member(usual: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Value> {
        prop_oneof![
            6 => usual,
            1 => Just(Value::Null),
            1 => Just(json!("3")),
            1 => Just(json!(-1)),
            1 => Just(json!(1.5)),
            1 => Just(json!(true)),
            1 => Just(json!([1])),
            1 => Just(json!({"a": 1})),
        ]
        .boxed()
    }

    /// An object of some of `members` (each maybe absent, maybe odd).
    fn object(members: Vec<(&'static str, BoxedStrategy<Value>)>) -> BoxedStrategy<Value> {
        let (names, values): (Vec<_>, Vec<_>) = members.into_iter().unzip();
        (values, prop::collection::vec(any::<bool>(), names.len()))
            .prop_map(move |(values, present)| {
                let members = names
                    .iter()
                    .zip(values)
                    .zip(present)
                    .filter(|(_, here)| *here)
                    .map(|((name, value), _)| ((*name).to_owned(), value));
                Value::Object(members.collect())
            })
            .boxed()
    }

    fn raw_content() -> impl Strategy<Value = Value> {
        let small = || (0u64..8).prop_map(Value::from);
        let range = |name: &'static str, value: BoxedStrategy<Value>| {
            prop_oneof![
                8 => object(vec![("offset", member(small())), ("length", member(small())), (name, value)]),
                1 => Just(json!([0, 2])),
            ]
        };
        let style = range(
            "style",
            member(prop::sample::select(vec![json!("BOLD"), json!("ITALIC")])),
        );
        let key = range(
            "key",
            member(prop::sample::select(vec![
                json!(0),
                json!("1"),
                json!(2),
                json!("x"),
            ])),
        );
        let block = prop_oneof![
            10 => object(vec![
                ("key", member(prop::sample::select(vec![json!("k1"), json!("k2")]))),
                ("type", member(prop::sample::select(vec![json!("unstyled"), json!("atomic")]))),
                ("text", member(prop::sample::select(vec![json!("Caf\u{e9} and more"), json!("a \"b\" \\ c"), json!("")]))),
                ("depth", member(small())),
                ("data", member(prop::sample::select(vec![json!({}), json!({"z": 1, "a": [2]})]))),
                ("inlineStyleRanges", member(prop::collection::vec(style, 0..4).prop_map(Value::from))),
                ("entityRanges", member(prop::collection::vec(key, 0..3).prop_map(Value::from))),
            ]),
            1 => Just(json!(["k", "unstyled", "text"])),
        ];
        let entity = prop_oneof![
            6 => object(vec![
                ("type", member(Just(json!("LINK")))),
                ("mutability", member(Just(json!("IMMUTABLE")))),
                ("data", member(Just(json!({"url": "https://example.org/?a=1&b=2"})))),
            ]),
            1 => Just(json!(["LINK"])),
            1 => Just(json!("LINK")),
        ];
        let entity_map = prop_oneof![
            prop::collection::vec(entity.clone(), 0..4).prop_map(|list| {
                Value::Object(
                    list.into_iter()
                        .enumerate()
                        .map(|(i, e)| {
                            (
                                if i == 3 {
                                    "x".to_owned()
                                } else {
                                    i.to_string()
                                },
                                e,
                            )
                        })
                        .collect(),
                )
            }),
            prop::collection::vec(entity, 0..4).prop_map(Value::from),
            Just(Value::Null),
            Just(json!("none")),
        ];
        object(vec![
            (
                "blocks",
                member(prop::collection::vec(block, 0..4).prop_map(Value::from)),
            ),
            ("entityMap", entity_map.boxed()),
        ])
    }

    proptest! {
        #[test]
        fn the_text_reader_reads_what_the_value_reader_reads(raw in raw_content()) {
            let text = raw.to_string();
            let read = RawContent::read(&text).expect("an object");
            prop_assert_eq!(read.rich_text(), from_raw(&raw));
        }
    }

    #[test]
    fn raw_content_the_editor_writes_is_read_from_its_text() {
        let raw = json!({"blocks": [{"key": "k1", "text": "The \"council\" met.", "type": "unstyled",
            "depth": 0, "inlineStyleRanges": [{"offset": 4, "length": 9, "style": "BOLD"}],
            "entityRanges": [{"offset": 0, "length": 3, "key": 0}], "data": {}}],
            "entityMap": {"0": {"type": "LINK", "mutability": "MUTABLE", "data": {"url": "https://example.org/"}}}});
        let text = raw.to_string();
        let read = RawContent::read(&text).expect("an object");
        assert!(matches!(read, RawContent::Typed(_)), "{read:?}");
        assert_eq!(read.rich_text(), from_raw(&raw));
        assert!(RawContent::read("[1]").is_none());
        assert!(RawContent::read("").is_none());
    }
}
