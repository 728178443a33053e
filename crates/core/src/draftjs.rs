//! Checks that a draft's `content_raw` is Draft.js raw content state (`blocks`, `entityMap`).
//!
//! Offsets and lengths count Unicode code points, as Draft.js's own
//! `convertToRaw` writes them (its `UnicodeUtils.strlen`), so an emoji and
//! other characters outside the BMP count as one.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::error::{CoreError, Result};

const FIELD: &str = "content_raw";

/// Validates raw content given as a JSON value (an object, or a string holding
/// one) and returns it serialised, as the draft stores it.
pub fn validate_raw(raw: &Value) -> Result<String> {
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
    serde_json::to_string(state).map_err(|err| CoreError::Internal(err.to_string()))
}

fn bad(message: String) -> CoreError {
    CoreError::invalid_field(FIELD, message)
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
    for range in ranges(block, index, "entityRanges")? {
        check_range(index, range, length)?;
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
    Ok(())
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
        assert!(validate_raw(&Value::String(text)).is_ok());
    }

    #[test]
    fn counts_code_points() {
        // One emoji is one code point (and two UTF-16 units): a range of one covers it.
        let ok = json!({"blocks": [block("😀", json!([{"offset": 0, "length": 1, "style": "BOLD"}]), json!([]))], "entityMap": {}});
        assert!(validate_raw(&ok).is_ok());
        let past = json!({"blocks": [block("😀", json!([{"offset": 0, "length": 2, "style": "BOLD"}]), json!([]))], "entityMap": {}});
        assert!(validate_raw(&past).is_err());
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
}
