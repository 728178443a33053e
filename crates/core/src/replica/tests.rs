//! The replica's tests: the field-by-field three-way merge and settling conflicts.

use super::*;
use serde_json::json;

fn fields(value: Value) -> Fields {
    value.as_object().cloned().unwrap_or_default()
}

#[test]
fn different_fields_merge() {
    let base = fields(json!({"name": "Ann", "tagline": "Courts"}));
    let mine = fields(json!({"name": "Ann B.", "tagline": "Courts"}));
    let theirs = fields(json!({"name": "Ann", "tagline": "Politics"}));
    let (merged, conflicts) = three_way(RecordType::Author, &base, &mine, &theirs);
    assert_eq!(
        merged,
        fields(json!({"name": "Ann B.", "tagline": "Politics"}))
    );
    assert!(conflicts.is_empty());
}

#[test]
fn the_same_field_is_a_conflict_and_theirs_stays() {
    let base = fields(json!({"name": "Ann"}));
    let mine = fields(json!({"name": "Anne"}));
    let theirs = fields(json!({"name": "Annie"}));
    let (merged, conflicts) = three_way(RecordType::Author, &base, &mine, &theirs);
    assert_eq!(merged["name"], "Annie");
    assert_eq!(
        conflicts,
        vec![FieldConflict {
            field: "name".into(),
            mine: "Anne".into(),
            theirs: "Annie".into(),
            block: None,
        }]
    );
}

#[test]
fn the_same_change_on_both_sides_is_no_conflict() {
    let base = fields(json!({"name": "Ann"}));
    let both = fields(json!({"name": "Anne"}));
    let (merged, conflicts) = three_way(RecordType::Author, &base, &both, &both);
    assert_eq!(merged, both);
    assert!(conflicts.is_empty());
}
