//! Draft.js raw content (`content_raw`) read into the merge's blocks and written back out.
//!
//! Entities are read by value and written one per range, numbered from 0 in
//! order, as `convertToRaw` numbers them; offsets are code points.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

use serde_json::{Map, Value, json};

use super::rich_text::{Block, Entity, Marks, RichText};

/// Canonical JSON of a value: object keys sorted (serde_json's map is ordered).
fn canonical(value: Option<&Value>) -> String {
    match value {
        Some(Value::Null) | None => "{}".to_owned(),
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

/// Reads raw content; ranges outside their block are cut to it. `None` when
/// `raw` is not raw content at all (no `blocks` array).
pub fn from_raw(raw: &Value) -> Option<RichText> {
    let entity_map = raw.get("entityMap");
    let entity = |key: &Value| -> Option<Entity> {
        let map = entity_map?;
        let found = match (map, key) {
            (Value::Array(items), key) => items.get(number(Some(key))?),
            (Value::Object(items), Value::String(k)) => items.get(k),
            (Value::Object(items), key) => items.get(&key.to_string()),
            _ => None,
        }?;
        Some(entity_from(found))
    };
    let blocks = raw.get("blocks")?.as_array()?;
    let mut out = Vec::with_capacity(blocks.len());
    let mut interned = HashMap::new();
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
            let start = number(range.get("offset")).unwrap_or(0).min(text.len());
            let end = start
                .saturating_add(number(range.get("length")).unwrap_or(0))
                .min(text.len());
            start..end
        };
        let styles: Vec<(std::ops::Range<usize>, &str)> = spans("inlineStyleRanges")
            .iter()
            .filter_map(|range| Some((cover(range), range.get("style")?.as_str()?)))
            .collect();
        let entities: Vec<(std::ops::Range<usize>, Entity)> = spans("entityRanges")
            .iter()
            .filter_map(|range| Some((cover(range), range.get("key").and_then(entity)?)))
            .collect();
        let marks = marks_of(text.len(), &styles, &entities, &mut interned);
        out.push(Block {
            key: block.get("key").and_then(Value::as_str).map(str::to_owned),
            kind: block
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("unstyled")
                .to_owned(),
            depth: number(block.get("depth")).unwrap_or(0) as u64,
            data: canonical(block.get("data")),
            text,
            marks,
        });
    }
    Some(RichText { blocks: out })
}

/// The marks of each of a block's `length` characters, from its style and
/// entity ranges (a later entity range wins where two overlap), in one
/// sweep over the places where a range starts or ends: a run of characters
/// with the same marks shares one set, and so do runs alike anywhere in the
/// text (`interned`).
fn marks_of(
    length: usize,
    styles: &[(Range<usize>, &str)],
    entities: &[(Range<usize>, Entity)],
    interned: &mut HashMap<(Vec<String>, Option<Entity>), Marks>,
) -> Vec<Marks> {
    if styles.is_empty() && entities.is_empty() {
        return vec![Marks::default(); length];
    }
    // Where each range starts and ends: (place, ends, style or entity number).
    let mut edges: Vec<(usize, bool, Result<usize, usize>)> = Vec::new();
    for (at, (range, _)) in styles
        .iter()
        .enumerate()
        .filter(|(_, (r, _))| !r.is_empty())
    {
        edges.push((range.start, false, Ok(at)));
        edges.push((range.end, true, Ok(at)));
    }
    for (at, (range, _)) in entities
        .iter()
        .enumerate()
        .filter(|(_, (r, _))| !r.is_empty())
    {
        edges.push((range.start, false, Err(at)));
        edges.push((range.end, true, Err(at)));
    }
    edges.sort_unstable_by_key(|(place, ends, _)| (*place, !*ends));
    let mut on_styles: BTreeMap<&str, usize> = BTreeMap::new();
    let mut on_entities: BTreeSet<usize> = BTreeSet::new();
    let mut marks = Vec::with_capacity(length);
    let mut edge = edges.iter().peekable();
    let mut current = Marks::default();
    while marks.len() < length {
        let here = marks.len();
        let mut changed = false;
        while let Some((_, ends, which)) = edge.next_if(|(place, _, _)| *place <= here) {
            changed = true;
            match (which, ends) {
                (Ok(style), false) => *on_styles.entry(styles[*style].1).or_default() += 1,
                (Ok(style), true) => {
                    if let Some(count) = on_styles.get_mut(styles[*style].1) {
                        *count -= 1;
                        if *count == 0 {
                            on_styles.remove(styles[*style].1);
                        }
                    }
                }
                (Err(entity), false) => {
                    on_entities.insert(*entity);
                }
                (Err(entity), true) => {
                    on_entities.remove(entity);
                }
            }
        }
        if changed {
            let key = (
                on_styles
                    .keys()
                    .map(|s| (*s).to_owned())
                    .collect::<Vec<_>>(),
                on_entities.last().map(|e| entities[*e].1.clone()),
            );
            current = interned
                .entry(key)
                .or_insert_with_key(|(styles, entity)| {
                    Marks::new(styles.iter().cloned().collect(), entity.clone())
                })
                .clone();
        }
        let next = edge
            .peek()
            .map_or(length, |(place, _, _)| (*place).min(length));
        let run = next.max(here + 1) - here;
        marks.extend(std::iter::repeat_n(current.clone(), run));
    }
    marks
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

/// Writes raw content: every block with a unique key, ranges in code points.
pub fn to_raw(text: &RichText) -> Value {
    let mut taken: BTreeSet<String> = BTreeSet::new();
    let mut entity_map = Map::new();
    let mut blocks = Vec::with_capacity(text.blocks.len());
    for (index, block) in text.blocks.iter().enumerate() {
        let key = match &block.key {
            Some(key) if taken.insert(key.clone()) => key.clone(),
            _ => fresh_key(&mut taken, index + 1),
        };
        let styles: BTreeSet<&String> = block.marks.iter().flat_map(|m| &m.styles).collect();
        let mut style_ranges = Vec::new();
        for style in styles {
            let mut start = None;
            for i in 0..=block.marks.len() {
                let on = block.marks.get(i).is_some_and(|m| m.styles.contains(style));
                match (on, start) {
                    (true, None) => start = Some(i),
                    (false, Some(s)) => {
                        style_ranges.push(json!({"offset": s, "length": i - s, "style": style}));
                        start = None;
                    }
                    _ => {}
                }
            }
        }
        let mut entity_ranges = Vec::new();
        let mut i = 0;
        while i < block.marks.len() {
            let Some(entity) = &block.marks[i].entity else {
                i += 1;
                continue;
            };
            let start = i;
            while i < block.marks.len() && block.marks[i].entity.as_ref() == Some(entity) {
                i += 1;
            }
            let number = entity_map.len();
            let data: Value = serde_json::from_str(&entity.data).unwrap_or_else(|_| json!({}));
            entity_map.insert(
                number.to_string(),
                json!({"type": entity.kind, "mutability": entity.mutability, "data": data}),
            );
            entity_ranges.push(json!({"offset": start, "length": i - start, "key": number}));
        }
        let data: Value = serde_json::from_str(&block.data).unwrap_or_else(|_| json!({}));
        blocks.push(json!({
            "key": key,
            "text": block.text(),
            "type": block.kind,
            "depth": block.depth,
            "inlineStyleRanges": style_ranges,
            "entityRanges": entity_ranges,
            "data": data,
        }));
    }
    json!({"blocks": blocks, "entityMap": entity_map})
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
            let swept = marks_of(length, &styles, &entities, &mut HashMap::new());
            prop_assert_eq!(swept, one_by_one(length, &styles, &entities));
        }
    }
}
