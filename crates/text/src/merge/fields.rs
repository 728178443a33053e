//! The three-way merge of a record's fields: each field changed on one side takes that side, a story's rich text merges paragraph by paragraph.
//!
//! Pure logic, no I/O. Sync merges a pulled record under a pending local
//! edit with it, and so does a save or a draft based on a version someone
//! has since replaced: one merge wherever words meet.

use serde_json::{Map, Value};

/// A record's fields as the merge compares them: JSON values by field name.
pub type Fields = Map<String, Value>;

/// A field's value in words: text as it is, nothing as empty, anything else as JSON.
fn field_text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// One field changed on both sides since the base; for a story's body or
/// abstract, one paragraph of it (`block`), with `mine` and `theirs` that
/// paragraph's HTML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldConflict {
    pub field: String,
    pub mine: String,
    pub theirs: String,
    pub block: Option<BlockPlace>,
}

/// Where a conflicting paragraph stands in the merged text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockPlace {
    pub position: usize,
    /// Its Draft.js key, when the text has raw content.
    pub key: Option<String>,
    /// The merged text of the paragraphs before and after it.
    pub before: Option<String>,
    pub after: Option<String>,
}

/// One field's stored form read for the merge.
pub fn stored_text<'a>(
    fields: &'a Fields,
    html: &str,
    raw: &'a Option<super::RawContent<'a>>,
) -> super::StoredText<'a> {
    super::StoredText {
        html: fields.get(html).and_then(Value::as_str).unwrap_or(""),
        raw: raw.as_ref(),
    }
}

/// The Draft.js raw content stored in a field (a JSON text, or empty).
pub fn raw_of<'a>(fields: &'a Fields, raw: &str) -> Option<super::RawContent<'a>> {
    super::RawContent::read(fields.get(raw).and_then(Value::as_str)?)
}

/// Merges a story's body or abstract changed on both sides; writes the
/// merged HTML and raw content into `merged` and returns the paragraphs
/// that conflict.
fn merge_rich_text(
    (html, raw): (&str, &str),
    base: &Fields,
    mine: &Fields,
    theirs: &Fields,
    merged: &mut Fields,
) -> Vec<FieldConflict> {
    let pair = |fields: &Fields| (fields.get(html).cloned(), fields.get(raw).cloned());
    let (b, m, t) = (pair(base), pair(mine), pair(theirs));
    if m == b || m == t {
        return Vec::new();
    }
    if t == b {
        for (name, value) in [(html, m.0), (raw, m.1)] {
            if let Some(value) = value {
                merged.insert(name.to_owned(), value);
            }
        }
        return Vec::new();
    }
    let raws = (raw_of(base, raw), raw_of(mine, raw), raw_of(theirs, raw));
    let Some(result) = super::merge_stored(
        stored_text(base, html, &raws.0),
        stored_text(mine, html, &raws.1),
        stored_text(theirs, html, &raws.2),
    ) else {
        // Something the merge would not write back as it was (an image, a
        // table): the field as one value, theirs current, mine listed.
        return vec![FieldConflict {
            field: html.to_owned(),
            mine: field_text(m.0.as_ref()),
            theirs: field_text(t.0.as_ref()),
            block: None,
        }];
    };
    let plain = result.plain;
    merged.insert(html.to_owned(), Value::String(result.html));
    merged.insert(
        raw.to_owned(),
        Value::String(result.raw.unwrap_or_default()),
    );
    result
        .conflicts
        .into_iter()
        .map(|conflict| FieldConflict {
            field: html.to_owned(),
            mine: super::write_block(plain, &conflict.mine),
            theirs: super::write_block(plain, &conflict.theirs),
            block: Some(BlockPlace {
                position: conflict.position,
                key: conflict.theirs.key.clone(),
                before: conflict.before,
                after: conflict.after,
            }),
        })
        .collect()
}

/// Merges `mine` and `theirs`, both changed from `base`, field by field: a
/// field changed on one side takes that side; changed on both to different
/// values, it takes theirs (the server's order wins) and is a conflict. A
/// story's body and abstract are merged paragraph by paragraph and word by
/// word instead (the pairs of HTML and raw fields in `rich`): only a paragraph whose same words changed
/// differently is a conflict.
pub fn three_way(
    rich: &[(&str, &str)],
    base: &Fields,
    mine: &Fields,
    theirs: &Fields,
) -> (Fields, Vec<FieldConflict>) {
    let mut merged = theirs.clone();
    let mut conflicts = Vec::new();
    for pair in rich {
        conflicts.extend(merge_rich_text(*pair, base, mine, theirs, &mut merged));
    }
    let mut fields: Vec<&String> = base
        .keys()
        .chain(mine.keys())
        .chain(theirs.keys())
        .filter(|field| !rich.iter().any(|(html, raw)| field == html || field == raw))
        .collect();
    fields.sort();
    fields.dedup();
    for field in fields {
        let (b, m, t) = (base.get(field), mine.get(field), theirs.get(field));
        if m == b || m == t {
            continue;
        }
        if t == b {
            if let Some(m) = m {
                merged.insert(field.clone(), m.clone());
            }
            continue;
        }
        conflicts.push(FieldConflict {
            field: field.clone(),
            mine: field_text(m),
            theirs: field_text(t),
            block: None,
        });
    }
    (merged, conflicts)
}
