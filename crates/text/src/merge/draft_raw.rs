//! Draft.js raw content (`content_raw`) read into the merge's blocks and written back out.
//!
//! Entities are read by value and written one per range, numbered from 0 in
//! order, as `convertToRaw` numbers them; offsets are code points.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;
use serde_json::value::RawValue;

use super::annotated::{joined_entity, split_entity};
use super::rich_text::{Annotation, Block, Entity, Marks, RichText};

/// Canonical JSON of a value: object keys sorted (serde_json's map is ordered).
fn canonical(value: Option<&Value>) -> String {
    match value {
        Some(Value::Null) | None => "{}".to_owned(),
        Some(Value::Object(members)) if members.is_empty() => "{}".to_owned(),
        Some(value) => value.to_string(),
    }
}

fn number(value: Option<&Value>) -> Option<usize> {
    match value? {
        Value::Number(n) => n.as_u64().and_then(|n| usize::try_from(n).ok()),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn entity_from(value: &Value) -> Entity {
    Entity {
        kind: value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        mutability: value
            .get("mutability")
            .and_then(Value::as_str)
            .unwrap_or("MUTABLE")
            .to_owned(),
        data: canonical(value.get("data")),
    }
}

mod typed;

/// Raw content as a field stores it, read for the merge: straight from its
/// JSON text where the typed reader holds it (any raw content the editor
/// or a check on write lets through), else as a JSON value.
#[derive(Debug)]
pub enum RawContent<'a> {
    Typed(typed::RawIn<'a>),
    Value(Value),
}

impl<'a> RawContent<'a> {
    /// Reads a field's text; `None` when it is not a JSON object.
    pub fn read(text: &'a str) -> Option<Self> {
        match typed::RawIn::read(text) {
            Some(raw) => Some(Self::Typed(raw)),
            None => super::parse_raw(text).map(Self::Value),
        }
    }

    /// The blocks; `None` without a `blocks` list.
    pub fn rich_text(&self) -> Option<RichText> {
        match self {
            Self::Typed(raw) => raw.rich_text(),
            Self::Value(value) => from_raw(value),
        }
    }
}

/// A block's range from `offset` for `length` code points, cut to its text.
fn cover(text_length: usize, offset: Option<usize>, length: Option<usize>) -> Range<usize> {
    let start = offset.unwrap_or(0).min(text_length);
    let end = start.saturating_add(length.unwrap_or(0)).min(text_length);
    start..end
}

/// What a block holds besides its text and marks, as raw content gives it.
struct BlockParts<'t> {
    key: Option<&'t str>,
    kind: Option<&'t str>,
    depth: usize,
    /// Canonical JSON.
    data: String,
}

/// Reads raw content; ranges outside their block are cut to it. `None` when
/// `raw` is not raw content at all (no `blocks` array).
pub fn from_raw(raw: &Value) -> Option<RichText> {
    let entity_map = raw.get("entityMap");
    let blocks = raw.get("blocks")?.as_array()?;
    let mut out = Vec::with_capacity(blocks.len());
    let mut marks = MarkReader::default();
    for block in blocks {
        let text: Vec<char> = block
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .chars()
            .collect();
        let spans = |name: &str| {
            block
                .get(name)
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
        };
        let cover = |range: &Value| {
            cover(
                text.len(),
                number(range.get("offset")),
                number(range.get("length")),
            )
        };
        let styles: Vec<(Range<usize>, usize)> = spans("inlineStyleRanges")
            .iter()
            .filter_map(|range| {
                let style = range.get("style")?.as_str()?;
                Some((cover(range), marks.style_id(style)))
            })
            .collect();
        let entities: Vec<(Range<usize>, usize)> = spans("entityRanges")
            .iter()
            .filter_map(|range| {
                let name = match range.get("key")? {
                    Value::String(text) => EntityName::Text(text),
                    Value::Number(n) => EntityName::Number(n.as_u64()?),
                    _ => return None,
                };
                let id = marks.entity_id(name, |name| {
                    entity_in_value(entity_map?, name).map(entity_from)
                })?;
                Some((cover(range), id))
            })
            .collect();
        let parts = BlockParts {
            key: block.get("key").and_then(Value::as_str),
            kind: block.get("type").and_then(Value::as_str),
            depth: number(block.get("depth")).unwrap_or(0),
            data: canonical(block.get("data")),
        };
        out.push(marks.block(parts, text, &styles, &entities));
    }
    Some(RichText { blocks: out })
}

/// The entity `name` names in an `entityMap` held as a JSON value.
fn entity_in_value<'v>(map: &'v Value, name: &EntityName<'_>) -> Option<&'v Value> {
    match (map, name) {
        (Value::Array(items), EntityName::Number(n)) => items.get(usize::try_from(*n).ok()?),
        (Value::Array(items), EntityName::Text(t)) => items.get(t.parse::<usize>().ok()?),
        (Value::Object(items), EntityName::Text(t)) => items.get(*t),
        (Value::Object(items), EntityName::Number(n)) => items.get(&n.to_string()),
        _ => None,
    }
}

/// An `entityMap` key as a range names it.
#[derive(PartialEq, Eq, Hash)]
enum EntityName<'a> {
    Number(u64),
    Text(&'a str),
}

/// What reading one raw content's marks keeps: its styles and entities by
/// number, each entity read once however many ranges name it, and each set
/// of marks made once (runs alike anywhere in the text share it).
#[derive(Default)]
struct MarkReader<'a> {
    style_ids: HashMap<&'a str, usize>,
    styles: Vec<&'a str>,
    entity_ids: HashMap<EntityName<'a>, Option<usize>>,
    /// Each entity as the character's own and its notes and suggestions.
    entities: Vec<(Option<Entity>, BTreeSet<Annotation>)>,
    /// By the styles on (a bit each, for the first 128 styles) and the entity.
    sets: HashMap<(u128, Option<usize>), Marks>,
}

impl<'a> MarkReader<'a> {
    fn style_id(&mut self, style: &'a str) -> usize {
        *self.style_ids.entry(style).or_insert_with(|| {
            self.styles.push(style);
            self.styles.len() - 1
        })
    }

    /// The number of the entity `name` names, found by `find` the first time.
    fn entity_id(
        &mut self,
        name: EntityName<'a>,
        find: impl FnOnce(&EntityName<'a>) -> Option<Entity>,
    ) -> Option<usize> {
        if let Some(id) = self.entity_ids.get(&name) {
            return *id;
        }
        let id = find(&name).map(|entity| {
            self.entities.push(split_entity(entity));
            self.entities.len() - 1
        });
        self.entity_ids.insert(name, id);
        id
    }

    /// A block of `text` with the marks of its style and entity ranges.
    fn block(
        &mut self,
        parts: BlockParts<'_>,
        text: Vec<char>,
        styles: &[(Range<usize>, usize)],
        entities: &[(Range<usize>, usize)],
    ) -> Block {
        let marks = self.marks_of(text.len(), styles, entities);
        Block {
            key: parts.key.map(str::to_owned),
            kind: parts.kind.unwrap_or("unstyled").to_owned(),
            depth: parts.depth as u64,
            data: parts.data,
            text,
            marks,
        }
    }

    /// The marks of the styles on (by id) and the entity (by id).
    fn set(&mut self, on: &BTreeMap<usize, usize>, entity: Option<usize>) -> Marks {
        let make = |reader: &Self| {
            let (own, annotations) = entity.map_or((None, BTreeSet::new()), |e| {
                let (own, annotations) = &reader.entities[e];
                (own.clone(), annotations.clone())
            });
            Marks::annotated(
                on.keys().map(|s| reader.styles[*s].to_owned()).collect(),
                own,
                annotations,
            )
        };
        if on.keys().any(|s| *s >= 128) {
            return make(self);
        }
        let bits = on.keys().fold(0u128, |bits, s| bits | (1 << s));
        if let Some(found) = self.sets.get(&(bits, entity)) {
            return found.clone();
        }
        let made = make(self);
        self.sets.insert((bits, entity), made.clone());
        made
    }

    /// The marks of each of a block's `length` characters, from its style
    /// and entity ranges (a later entity range wins where two overlap), in
    /// one sweep over the places where a range starts or ends.
    fn marks_of(
        &mut self,
        length: usize,
        styles: &[(Range<usize>, usize)],
        entities: &[(Range<usize>, usize)],
    ) -> Vec<Marks> {
        if styles.is_empty() && entities.is_empty() {
            return vec![Marks::default(); length];
        }
        // Where each range starts and ends: (place, ends, style or entity range number).
        let mut edges: Vec<(usize, bool, Result<usize, usize>)> = Vec::new();
        let mut add = |ranges: &[(Range<usize>, usize)],
                       which: fn(usize) -> Result<usize, usize>| {
            for (at, (range, _)) in ranges
                .iter()
                .enumerate()
                .filter(|(_, (r, _))| !r.is_empty())
            {
                edges.push((range.start, false, which(at)));
                edges.push((range.end, true, which(at)));
            }
        };
        add(styles, Ok);
        add(entities, Err);
        edges.sort_unstable_by_key(|(place, ends, _)| (*place, !*ends));
        // How many ranges hold each style on; which entity ranges are open.
        let mut on_styles: BTreeMap<usize, usize> = BTreeMap::new();
        let mut open_entities: BTreeSet<usize> = BTreeSet::new();
        let mut marks = Vec::with_capacity(length);
        let mut edge = edges.iter().peekable();
        let mut current = Marks::default();
        while marks.len() < length {
            let here = marks.len();
            let mut changed = false;
            while let Some((_, ends, which)) = edge.next_if(|(place, _, _)| *place <= here) {
                changed = true;
                match (which, ends) {
                    (Ok(range), false) => *on_styles.entry(styles[*range].1).or_default() += 1,
                    (Ok(range), true) => {
                        let style = styles[*range].1;
                        if let Some(count) = on_styles.get_mut(&style) {
                            *count -= 1;
                            if *count == 0 {
                                on_styles.remove(&style);
                            }
                        }
                    }
                    (Err(range), false) => {
                        open_entities.insert(*range);
                    }
                    (Err(range), true) => {
                        open_entities.remove(range);
                    }
                }
            }
            if changed {
                let entity = open_entities.last().map(|range| entities[*range].1);
                current = self.set(&on_styles, entity);
            }
            let next = edge
                .peek()
                .map_or(length, |(place, _, _)| (*place).min(length));
            let run = next.max(here + 1) - here;
            marks.extend(std::iter::repeat_n(current.clone(), run));
        }
        marks
    }
}

/// A block key no other block has: Draft.js keys are five base-36 characters.
fn fresh_key(taken: &mut BTreeSet<String>, seed: usize) -> String {
    let mut n = seed.wrapping_mul(2_654_435_761) % 60_466_176;
    loop {
        let mut key = String::new();
        let mut rest = n;
        for _ in 0..5 {
            key.push(char::from_digit((rest % 36) as u32, 36).unwrap_or('0'));
            rest /= 36;
        }
        if taken.insert(key.clone()) {
            return key;
        }
        n = (n + 1) % 60_466_176;
    }
}

/// Raw content as `convertToRaw` writes it, with the members of each
/// object in the order of their names (as a JSON value would hold them).
#[derive(Serialize)]
struct RawOut<'a> {
    blocks: Vec<BlockOut<'a>>,
    #[serde(rename = "entityMap")]
    entity_map: EntityMapOut<'a>,
}

#[derive(Serialize)]
struct BlockOut<'a> {
    data: &'a RawValue,
    depth: u64,
    #[serde(rename = "entityRanges")]
    entity_ranges: Vec<EntityRangeOut>,
    #[serde(rename = "inlineStyleRanges")]
    inline_style_ranges: Vec<StyleRangeOut<'a>>,
    key: String,
    text: String,
    #[serde(rename = "type")]
    kind: &'a str,
}

#[derive(Serialize)]
struct EntityRangeOut {
    key: usize,
    length: usize,
    offset: usize,
}

#[derive(Serialize)]
struct StyleRangeOut<'a> {
    length: usize,
    offset: usize,
    style: &'a str,
}

#[derive(Serialize)]
struct EntityOut<'a> {
    data: &'a RawValue,
    mutability: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
}

/// The entities by number, as an object whose names sort as text.
struct EntityMapOut<'a>(Vec<EntityOut<'a>>);

impl Serialize for EntityMapOut<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut names: Vec<(String, &EntityOut<'_>)> = self
            .0
            .iter()
            .enumerate()
            .map(|(number, entity)| (number.to_string(), entity))
            .collect();
        names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut map = serializer.serialize_map(Some(names.len()))?;
        for (name, entity) in names {
            map.serialize_entry(&name, entity)?;
        }
        map.end()
    }
}

/// Canonical JSON held as text, written as it is (`{}` if it is not JSON).
fn json_text(text: &str) -> &RawValue {
    serde_json::from_str::<&RawValue>(text)
        .unwrap_or_else(|_| serde_json::from_str::<&RawValue>("{}").expect("{} is JSON"))
}

/// Writes raw content as JSON text: every block with a unique key, ranges
/// in code points. Written straight from the blocks, with no JSON value in
/// between (a long story's would be hundreds of thousands of small maps).
pub fn to_raw(text: &RichText) -> String {
    let mut taken: BTreeSet<String> = BTreeSet::new();
    // Each character's one entity: its own with its notes and suggestions.
    let joined: Vec<Vec<Option<Cow<'_, Entity>>>> = text
        .blocks
        .iter()
        .map(|block| {
            block
                .marks
                .iter()
                .map(|m| {
                    if m.annotations.is_empty() {
                        m.entity.as_ref().map(Cow::Borrowed)
                    } else {
                        joined_entity(m.entity.as_ref(), &m.annotations).map(Cow::Owned)
                    }
                })
                .collect()
        })
        .collect();
    let mut entities: Vec<EntityOut<'_>> = Vec::new();
    let mut blocks = Vec::with_capacity(text.blocks.len());
    for (index, block) in text.blocks.iter().enumerate() {
        let key = match &block.key {
            Some(key) if taken.insert(key.clone()) => key.clone(),
            _ => fresh_key(&mut taken, index + 1),
        };
        let styles: BTreeSet<&String> = block.marks.iter().flat_map(|m| &m.styles).collect();
        let mut inline_style_ranges = Vec::new();
        for style in styles {
            let mut start = None;
            for i in 0..=block.marks.len() {
                let on = block.marks.get(i).is_some_and(|m| m.styles.contains(style));
                match (on, start) {
                    (true, None) => start = Some(i),
                    (false, Some(s)) => {
                        inline_style_ranges.push(StyleRangeOut {
                            offset: s,
                            length: i - s,
                            style,
                        });
                        start = None;
                    }
                    _ => {}
                }
            }
        }
        let mut entity_ranges = Vec::new();
        let mut i = 0;
        let of_chars = &joined[index];
        while i < of_chars.len() {
            let Some(entity) = &of_chars[i] else {
                i += 1;
                continue;
            };
            let start = i;
            while i < of_chars.len() && of_chars[i].as_ref() == Some(entity) {
                i += 1;
            }
            entity_ranges.push(EntityRangeOut {
                offset: start,
                length: i - start,
                key: entities.len(),
            });
            entities.push(EntityOut {
                data: json_text(&entity.data),
                mutability: &entity.mutability,
                kind: &entity.kind,
            });
        }
        blocks.push(BlockOut {
            data: json_text(&block.data),
            depth: block.depth,
            entity_ranges,
            inline_style_ranges,
            key,
            text: block.text(),
            kind: &block.kind,
        });
    }
    serde_json::to_string(&RawOut {
        blocks,
        entity_map: EntityMapOut(entities),
    })
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Each character's marks, range by range, as the sweep must give them.
    fn one_by_one(
        length: usize,
        styles: &[(Range<usize>, &str)],
        entities: &[(Range<usize>, Entity)],
    ) -> Vec<Marks> {
        let mut marks = vec![Marks::default(); length];
        for (range, style) in styles {
            for mark in &mut marks[range.clone()] {
                mark.styles.insert((*style).to_owned());
            }
        }
        for (range, entity) in entities {
            for mark in &mut marks[range.clone()] {
                mark.entity = Some(entity.clone());
            }
        }
        marks
    }

    proptest! {
        #[test]
        fn the_sweep_gives_each_character_the_marks_of_the_ranges_over_it(
            length in 0usize..40,
            styles in prop::collection::vec((0usize..40, 0usize..12, 0usize..3), 0..12),
            entities in prop::collection::vec((0usize..40, 0usize..12, 0usize..3), 0..6),
        ) {
            let cut = |start: usize, len: usize| start.min(length)..(start + len).min(length);
            let names = ["BOLD", "ITALIC", "UNDERLINE"];
            let styles: Vec<(Range<usize>, &str)> =
                styles.iter().map(|(s, l, n)| (cut(*s, *l), names[*n])).collect();
            let entities: Vec<(Range<usize>, Entity)> = entities
                .iter()
                .map(|(s, l, n)| {
                    let link = Entity { kind: "LINK".into(), mutability: "MUTABLE".into(), data: format!("{{\"url\":\"/{n}\"}}") };
                    (cut(*s, *l), link)
                })
                .collect();
            let mut reader = MarkReader::default();
            let styles_by_id: Vec<(Range<usize>, usize)> =
                styles.iter().map(|(r, name)| (r.clone(), reader.style_id(name))).collect();
            let entities_by_id: Vec<(Range<usize>, usize)> = entities
                .iter()
                .map(|(r, e)| {
                    reader.entities.push((Some(e.clone()), BTreeSet::new()));
                    (r.clone(), reader.entities.len() - 1)
                })
                .collect();
            let swept = reader.marks_of(length, &styles_by_id, &entities_by_id);
            prop_assert_eq!(swept, one_by_one(length, &styles, &entities));
        }
    }
}
