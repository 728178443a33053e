//! Checks that a draft's `content_raw` is Draft.js raw content state (`blocks`, `entityMap`).
//!
//! Offsets and lengths count Unicode code points, as Draft.js's own
//! `convertToRaw` writes them (its `UnicodeUtils.strlen`), so an emoji and
//! other characters outside the BMP count as one.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::error::{Result, TextError};

mod typed;

const FIELD: &str = "content_raw";

/// Validates raw content given as a JSON value (an object, or a string holding
/// one) and returns it serialised, as the draft stores it.
///
/// Text that passes the fast check (`typed`) is stored as it was sent;
/// anything else is read as a JSON value, which names the fault.
pub fn validate_raw(raw: &Value) -> Result<String> {
    if let Value::String(text) = raw
        && typed::passes(text)
    {
        return Ok(text.clone());
    }
    validate_value(raw)
}

/// The check over a JSON value (see [`validate_raw`]).
fn validate_value(raw: &Value) -> Result<String> {
    let parsed;
    let state = match raw {
        Value::String(text) => {
            parsed = serde_json::from_str::<Value>(text)
                .map_err(|err| bad(format!("content_raw is not JSON: {err}")))?;
            &parsed
        }
        other => other,
    };
    let state = state
        .as_object()
        .ok_or_else(|| bad("content_raw must be an object with blocks and entityMap".into()))?;
    let entity_keys = entity_keys(state.get("entityMap"))?;
    let blocks = state
        .get("blocks")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("content_raw.blocks must be an array".into()))?;
    for (index, block) in blocks.iter().enumerate() {
        validate_block(index, block, &entity_keys)?;
    }
    serde_json::to_string(state).map_err(|err| TextError::Internal(err.to_string()))
}

fn bad(message: String) -> TextError {
    TextError::invalid_field(FIELD, message)
}

/// The keys entity ranges may point at: object keys, or array positions.
fn entity_keys(map: Option<&Value>) -> Result<HashSet<String>> {
    match map {
        Some(Value::Object(entities)) => {
            for (key, entity) in entities {
                validate_entity(key, entity)?;
            }
            Ok(entities.keys().cloned().collect())
        }
        Some(Value::Array(entities)) => {
            for (index, entity) in entities.iter().enumerate() {
                validate_entity(&index.to_string(), entity)?;
            }
            Ok((0..entities.len()).map(|i| i.to_string()).collect())
        }
        _ => Err(bad(
            "content_raw.entityMap must be an object or an array".into()
        )),
    }
}

fn validate_entity(key: &str, entity: &Value) -> Result<()> {
    let entity = entity
        .as_object()
        .ok_or_else(|| bad(format!("entity {key} must be an object")))?;
    if !entity.get("type").is_some_and(Value::is_string) {
        return Err(bad(format!("entity {key} needs a string type")));
    }
    if !matches!(
        entity.get("mutability").and_then(Value::as_str),
        Some("MUTABLE" | "IMMUTABLE" | "SEGMENTED") | None
    ) {
        return Err(bad(format!("entity {key} has an unknown mutability")));
    }
    Ok(())
}

fn validate_block(index: usize, block: &Value, entity_keys: &HashSet<String>) -> Result<()> {
    let block = block
        .as_object()
        .ok_or_else(|| bad(format!("block {index} must be an object")))?;
    let string = |name: &str| -> Result<&str> {
        block
            .get(name)
            .and_then(Value::as_str)
            .ok_or_else(|| bad(format!("block {index} needs a string \"{name}\"")))
    };
    string("key")?;
    string("type")?;
    let text = string("text")?;
    if let Some(depth) = block.get("depth")
        && depth.as_u64().is_none()
    {
        return Err(bad(format!(
            "block {index} has a depth that is not a whole number"
        )));
    }
    if let Some(data) = block.get("data")
        && !data.is_object()
    {
        return Err(bad(format!("block {index} has data that is not an object")));
    }
    let length = text.chars().count() as u64;
    for range in ranges(block, index, "inlineStyleRanges")? {
        check_range(index, range, length)?;
        if !range.get("style").is_some_and(Value::is_string) {
            return Err(bad(format!(
                "block {index} has a style range without a style"
            )));
        }
    }
    let mut covered: Vec<(u64, u64)> = Vec::new();
    for range in ranges(block, index, "entityRanges")? {
        check_range(index, range, length)?;
        let offset = range.get("offset").and_then(Value::as_u64).unwrap_or(0);
        let end = offset + range.get("length").and_then(Value::as_u64).unwrap_or(0);
        if end > offset {
            covered.push((offset, end));
        }
        let key = match range.get("key") {
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(s)) => s.clone(),
            _ => {
                return Err(bad(format!(
                    "block {index} has an entity range without a key"
                )));
            }
        };
        if !entity_keys.contains(&key) {
            return Err(bad(format!(
                "block {index} points at entity {key}, which entityMap lacks"
            )));
        }
    }
    // A character carries one entity (one link, one photo) at most.
    if let Some((start, end)) = first_overlap(&mut covered) {
        return Err(bad(format!(
            "block {index} has entity ranges that overlap over characters {start} to {end}; a character carries one entity at most"
        )));
    }
    Ok(())
}

/// Where the first two of `spans` (start, end) overlap, if any two do.
pub(crate) fn first_overlap(spans: &mut [(u64, u64)]) -> Option<(u64, u64)> {
    spans.sort_unstable();
    spans
        .windows(2)
        .find(|pair| pair[1].0 < pair[0].1)
        .map(|pair| (pair[1].0, pair[0].1.min(pair[1].1)))
}

fn ranges<'a>(
    block: &'a Map<String, Value>,
    index: usize,
    name: &str,
) -> Result<Vec<&'a Map<String, Value>>> {
    match block.get(name) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_object()
                    .ok_or_else(|| bad(format!("block {index}: {name} must hold objects")))
            })
            .collect(),
        Some(_) => Err(bad(format!("block {index}: {name} must be an array"))),
    }
}

fn check_range(index: usize, range: &Map<String, Value>, text_length: u64) -> Result<()> {
    let offset = range.get("offset").and_then(Value::as_u64);
    let length = range.get("length").and_then(Value::as_u64);
    match (offset, length) {
        (Some(offset), Some(length)) if offset.saturating_add(length) <= text_length => Ok(()),
        (Some(_), Some(_)) => Err(bad(format!(
            "block {index} has a range past the end of its text"
        ))),
        _ => Err(bad(format!(
            "block {index} has a range without a whole-number offset and length"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn block(text: &str, styles: Value, entities: Value) -> Value {
        json!({"key": "a1", "text": text, "type": "unstyled", "depth": 0,
               "inlineStyleRanges": styles, "entityRanges": entities, "data": {}})
    }

    #[test]
    fn accepts_object_and_array_entity_maps() {
        let link = json!({"type": "LINK", "mutability": "MUTABLE", "data": {"url": "https://example.org"}});
        let blocks = json!([block(
            "Hello world",
            json!([{"offset": 0, "length": 5, "style": "BOLD"}]),
            json!([{"offset": 6, "length": 5, "key": 0}])
        )]);
        assert!(validate_raw(&json!({"blocks": blocks, "entityMap": {"0": link}})).is_ok());
        assert!(validate_raw(&json!({"blocks": blocks, "entityMap": [link]})).is_ok());
    }

    #[test]
    fn accepts_a_serialised_string() {
        let state = json!({"blocks": [block("x", json!([]), json!([]))], "entityMap": {}});
        let text = serde_json::to_string(&state).expect("serialises");
        assert!(typed::passes(&text), "the fast check takes it");
        assert_eq!(validate_raw(&Value::String(text.clone())).ok(), Some(text));
    }

    #[test]
    fn counts_code_points() {
        // One emoji is one code point (and two UTF-16 units): a range of one covers it.
        let ok = json!({"blocks": [block("😀", json!([{"offset": 0, "length": 1, "style": "BOLD"}]), json!([]))], "entityMap": {}});
        assert!(validate_raw(&ok).is_ok());
        let past = json!({"blocks": [block("😀", json!([{"offset": 0, "length": 2, "style": "BOLD"}]), json!([]))], "entityMap": {}});
        assert!(validate_raw(&past).is_err());
    }

    /// A raw content made of parts that may each break a rule.
    fn risky_raw() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let number = prop_oneof![
            (0u64..8).prop_map(Value::from),
            Just(json!(-1)),
            Just(json!(1.5)),
            Just(json!("2")),
            Just(Value::Null),
        ];
        let range = (
            number.clone(),
            number.clone(),
            prop_oneof![
                Just(json!("BOLD")),
                Just(json!(3)),
                Just(json!("0")),
                Just(json!(9))
            ],
        );
        let block = (
            prop_oneof![Just(json!("k")), Just(json!(1))],
            prop_oneof![Just(json!("ab")), Just(json!("😀x")), Just(json!(""))],
            prop_oneof![Just(None), Just(Some(json!(0))), Just(Some(Value::Null)), Just(Some(json!(1.0)))],
            prop_oneof![Just(None), Just(Some(json!({}))), Just(Some(Value::Null)), Just(Some(json!([])))],
            prop::collection::vec(range.clone(), 0..3),
            prop::collection::vec(range, 0..3),
        )
            .prop_map(|(key, text, depth, data, styles, entities)| {
                let mut block = json!({"key": key, "text": text, "type": "unstyled"});
                if let Some(depth) = depth {
                    block["depth"] = depth;
                }
                if let Some(data) = data {
                    block["data"] = data;
                }
                block["inlineStyleRanges"] = styles
                    .into_iter()
                    .map(|(offset, length, style)| json!({"offset": offset, "length": length, "style": style}))
                    .collect();
                block["entityRanges"] = entities
                    .into_iter()
                    .map(|(offset, length, key)| json!({"offset": offset, "length": length, "key": key}))
                    .collect();
                block
            });
        let entity = prop_oneof![
            Just(json!({"type": "LINK", "mutability": "MUTABLE", "data": {"url": "x"}})),
            Just(json!({"type": "LINK", "mutability": "ODD"})),
            Just(json!({"type": "LINK", "mutability": 4})),
            Just(json!({"mutability": "MUTABLE"})),
            Just(json!("LINK")),
        ];
        let map = prop_oneof![
            prop::collection::vec(entity.clone(), 0..3).prop_map(Value::from),
            prop::collection::vec(entity, 0..3).prop_map(|items| {
                Value::Object(
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, e)| (i.to_string(), e))
                        .collect(),
                )
            }),
            Just(Value::Null),
        ];
        (prop::collection::vec(block, 0..3), map)
            .prop_map(|(blocks, map)| json!({"blocks": blocks, "entityMap": map}))
    }

    proptest::proptest! {
        /// The fast check never takes what the check over a JSON value refuses.
        #[test]
        fn the_fast_check_takes_only_what_the_full_check_takes(raw in risky_raw()) {
            let text = raw.to_string();
            if typed::passes(&text) {
                proptest::prop_assert!(validate_value(&raw).is_ok(), "{text}");
            }
        }
    }

    #[test]
    fn refuses_other_shapes() {
        for raw in [
            json!("not json"),
            json!("<p>html</p>"),
            json!([]),
            json!({"blocks": []}),
            json!({"entityMap": {}}),
            json!({"blocks": [1], "entityMap": {}}),
            json!({"blocks": [{"key": "a", "type": "unstyled"}], "entityMap": {}}),
            json!({"blocks": [block("ab", json!([]), json!([{"offset": 0, "length": 1, "key": 7}]))], "entityMap": {}}),
            json!({"blocks": [block("ab", json!("x"), json!([]))], "entityMap": {}}),
        ] {
            assert!(validate_raw(&raw).is_err(), "{raw} should be refused");
        }
    }

    #[test]
    fn refuses_entity_ranges_that_overlap_and_takes_ranges_side_by_side() {
        let links = json!({"0": {"type": "LINK", "mutability": "MUTABLE", "data": {"url": "/a"}},
                           "1": {"type": "LINK", "mutability": "MUTABLE", "data": {"url": "/b"}}});
        let raw = |entities: Value| json!({"blocks": [block("the council met", json!([]), entities)], "entityMap": links.clone()});
        let overlapping = raw(
            json!([{"offset": 0, "length": 7, "key": 0}, {"offset": 4, "length": 7, "key": 1}]),
        );
        for sent in [overlapping.clone(), Value::String(overlapping.to_string())] {
            let err = validate_raw(&sent).expect_err("overlapping entity ranges");
            assert!(
                err.to_string().contains("overlap over characters 4 to 7"),
                "{err}"
            );
        }
        let side_by_side = raw(
            json!([{"offset": 4, "length": 7, "key": 1}, {"offset": 0, "length": 4, "key": 0},
                                      {"offset": 2, "length": 0, "key": 0}]),
        );
        assert!(validate_raw(&Value::String(side_by_side.to_string())).is_ok());
        // Style ranges overlap as they like: a word bold and italic.
        let styles = json!({"blocks": [block("the council met", json!([{"offset": 0, "length": 7, "style": "BOLD"},
            {"offset": 4, "length": 7, "style": "ITALIC"}]), json!([]))], "entityMap": {}});
        assert!(validate_raw(&styles).is_ok());
    }
}
