//! The fast check of raw content sent as JSON text: read straight into borrowed structs (an entity's data skipped, not built), so a draft of 100,000 links is checked in tens of milliseconds.
//!
//! It is at least as strict as the check over a JSON value in `draftjs`:
//! whatever it takes, that check takes too; whatever it refuses, or cannot
//! read, is checked again there, which names the fault.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

#[derive(Deserialize)]
struct State<'a> {
    #[serde(borrow)]
    blocks: Vec<Block<'a>>,
    #[serde(rename = "entityMap", borrow)]
    entity_map: EntityMap<'a>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(borrow)]
    #[allow(dead_code)]
    key: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    #[allow(dead_code)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    text: Cow<'a, str>,
    #[serde(default)]
    #[allow(dead_code)]
    depth: WholeNumber,
    #[serde(default)]
    #[allow(dead_code)]
    data: Object,
    #[serde(rename = "inlineStyleRanges", default, borrow)]
    inline_style_ranges: Vec<StyleRange<'a>>,
    #[serde(rename = "entityRanges", default, borrow)]
    entity_ranges: Vec<EntityRange<'a>>,
}

#[derive(Deserialize)]
struct StyleRange<'a> {
    offset: u64,
    length: u64,
    #[serde(borrow)]
    #[allow(dead_code)]
    style: Cow<'a, str>,
}

#[derive(Deserialize)]
struct EntityRange<'a> {
    offset: u64,
    length: u64,
    #[serde(borrow)]
    key: EntityKey<'a>,
}

#[derive(Deserialize)]
struct Entity<'a> {
    #[serde(rename = "type", borrow)]
    #[allow(dead_code)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    mutability: Option<&'a serde_json::value::RawValue>,
    #[serde(default)]
    #[allow(dead_code)]
    data: IgnoredAny,
}

/// A block's depth: absent, or a whole number (never `null`).
#[derive(Deserialize, Default)]
#[serde(transparent)]
struct WholeNumber(#[allow(dead_code)] u64);

/// A block's data: absent, or an object (never `null`), its members skipped.
#[derive(Default)]
struct Object;

impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = Object;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Object, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Object)
            }
        }
        deserializer.deserialize_map(Members)
    }
}

/// An entity range's key: a string, or a whole number as its digits (any
/// other number is left to the slower check).
struct EntityKey<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for EntityKey<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Key;
        impl<'de> Visitor<'de> for Key {
            type Value = EntityKey<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a whole number")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
                Ok(EntityKey(Cow::Owned(n.to_string())))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Self::Value, E> {
                Ok(EntityKey(Cow::Owned(n.to_string())))
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(EntityKey(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(EntityKey(Cow::Owned(s.to_owned())))
            }
        }
        deserializer.deserialize_any(Key)
    }
}

/// `entityMap`: an object of entities by key, or an array of them.
enum EntityMap<'a> {
    Object(Vec<(Cow<'a, str>, Entity<'a>)>),
    Array(Vec<Entity<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for EntityMap<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entities;
        impl<'de> Visitor<'de> for Entities {
            type Value = EntityMap<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object or an array of entities")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<Cow<'de, str>, Entity<'de>>()? {
                    out.push(entry);
                }
                Ok(EntityMap::Object(out))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(entity) = seq.next_element::<Entity<'de>>()? {
                    out.push(entity);
                }
                Ok(EntityMap::Array(out))
            }
        }
        deserializer.deserialize_any(Entities)
    }
}

/// Whether the raw content in `text` passes every rule of the check in
/// `draftjs` (`false` when it breaks one or cannot be read this way).
pub(super) fn passes(text: &str) -> bool {
    let Ok(state) = serde_json::from_str::<State<'_>>(text) else {
        return false;
    };
    let mutability_known = |entity: &Entity<'_>| match entity.mutability {
        // Only a text that is not one of the three is refused.
        Some(raw) => match serde_json::from_str::<Cow<'_, str>>(raw.get()) {
            Ok(name) => matches!(name.as_ref(), "MUTABLE" | "IMMUTABLE" | "SEGMENTED"),
            Err(_) => true,
        },
        None => true,
    };
    let keys: HashSet<Cow<'_, str>> = match &state.entity_map {
        EntityMap::Object(entities) => {
            // A key named twice: the slower check says which one it keeps.
            let mut keys = HashSet::with_capacity(entities.len());
            for (key, entity) in entities {
                if !mutability_known(entity) || !keys.insert(key.clone()) {
                    return false;
                }
            }
            keys
        }
        EntityMap::Array(entities) => {
            if !entities.iter().all(mutability_known) {
                return false;
            }
            (0..entities.len())
                .map(|i| Cow::Owned(i.to_string()))
                .collect()
        }
    };
    state.blocks.iter().all(|block| {
        let length = block.text.chars().count() as u64;
        let fits = |offset: u64, len: u64| offset.checked_add(len).is_some_and(|end| end <= length);
        let mut covered: Vec<(u64, u64)> = block
            .entity_ranges
            .iter()
            .filter(|r| r.length > 0)
            .map(|r| (r.offset, r.offset.saturating_add(r.length)))
            .collect();
        block
            .inline_style_ranges
            .iter()
            .all(|r| fits(r.offset, r.length))
            && block
                .entity_ranges
                .iter()
                .all(|r| fits(r.offset, r.length) && keys.contains(&r.key.0))
            && super::first_overlap(&mut covered).is_none()
    })
}
