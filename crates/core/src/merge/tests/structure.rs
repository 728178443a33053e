//! The merge's cases where a story's structure changes: paragraphs joined and split on one side while the other edits their words.

use super::*;

const FIRST: &str = "The council met on Tuesday night.";
const SECOND: &str = "Fees will rise by seven percent next spring.";
const LAST: &str = "The mayor did not comment.";

#[test]
fn a_join_on_one_side_and_an_edit_of_the_second_paragraph_on_the_other_merge_into_the_joined_one() {
    let base = doc(&[FIRST, SECOND, LAST]);
    let joined = doc(&[&format!("{FIRST} {SECOND}"), LAST]);
    let edited = doc(&[FIRST, "Fees will rise by eight percent next spring.", LAST]);
    for (mine, theirs) in [(&joined, &edited), (&edited, &joined)] {
        let merged = merge(&base, mine, theirs);
        assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
        assert_eq!(
            texts(&merged.text),
            [
                "The council met on Tuesday night. Fees will rise by eight percent next spring.",
                LAST
            ]
        );
    }
}

#[test]
fn a_join_with_keys_keeps_the_first_key_and_takes_the_other_sides_edit() {
    let base = keyed(&[("a", FIRST), ("b", SECOND), ("c", LAST)]);
    let joined = keyed(&[("a", &format!("{FIRST} {SECOND}")), ("c", LAST)]);
    let edited = keyed(&[
        ("a", FIRST),
        ("b", "Fees will rise by eight percent next spring."),
        ("c", LAST),
    ]);
    let merged = merge(&base, &joined, &edited);
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    assert_eq!(merged.text.blocks.len(), 2);
    assert_eq!(merged.text.blocks[0].key.as_deref(), Some("a"));
    assert!(
        merged.text.blocks[0]
            .text()
            .ends_with("by eight percent next spring.")
    );
}

#[test]
fn a_split_on_one_side_and_an_edit_of_its_second_half_on_the_other_give_two_paragraphs_once() {
    let long = format!("{FIRST} {SECOND}");
    let base = doc(&[&long, LAST]);
    let split = doc(&[FIRST, SECOND, LAST]);
    let edited = doc(&[
        "The council met on Tuesday night. Fees will rise by eight percent next spring.",
        LAST,
    ]);
    for (mine, theirs) in [(&split, &edited), (&edited, &split)] {
        let merged = merge(&base, mine, theirs);
        assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
        assert_eq!(
            texts(&merged.text),
            [FIRST, "Fees will rise by eight percent next spring.", LAST]
        );
    }
}

#[test]
fn a_split_keeps_the_new_paragraphs_key_and_type() {
    let long = format!("{FIRST} {SECOND}");
    let base = keyed(&[("a", &long), ("c", LAST)]);
    let mut split = keyed(&[("a", FIRST), ("n", SECOND), ("c", LAST)]);
    split.blocks[1].kind = "header-two".to_owned();
    let edited = keyed(&[("a", &format!("{FIRST} Fees will rise soon.")), ("c", LAST)]);
    let merged = merge(&base, &split, &edited);
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    let blocks = &merged.text.blocks;
    assert_eq!(texts(&merged.text), [FIRST, "Fees will rise soon.", LAST]);
    assert_eq!(blocks[1].key.as_deref(), Some("n"));
    assert_eq!(blocks[1].kind, "header-two");
    assert_eq!(blocks[0].key.as_deref(), Some("a"));
}

#[test]
fn two_different_splits_of_one_paragraph_both_stand() {
    let base = doc(&[&format!("{FIRST} {SECOND} {LAST}")]);
    let mine = doc(&[FIRST, &format!("{SECOND} {LAST}")]);
    let theirs = doc(&[&format!("{FIRST} {SECOND}"), LAST]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    assert_eq!(texts(&merged.text), [FIRST, SECOND, LAST]);
}

#[test]
fn a_join_against_a_delete_of_the_joined_paragraph_deletes_its_words() {
    let base = doc(&[FIRST, SECOND, LAST]);
    let joined = doc(&[&format!("{FIRST} {SECOND}"), LAST]);
    let deleted = doc(&[FIRST, LAST]);
    let merged = merge(&base, &joined, &deleted);
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    assert_eq!(texts(&merged.text), [FIRST, LAST]);
}

#[test]
fn a_join_against_a_rewrite_of_the_same_words_is_one_listed_conflict_and_no_word_twice() {
    let base = doc(&[FIRST, SECOND, LAST]);
    let joined = doc(&[
        &format!("{FIRST} Fees will rise by six percent next spring."),
        LAST,
    ]);
    let edited = doc(&[FIRST, "Fees will rise by eight percent next spring.", LAST]);
    let merged = merge(&base, &joined, &edited);
    assert_eq!(merged.conflicts.len(), 1, "{:?}", merged.conflicts);
    let all = texts(&merged.text).join(" ");
    assert_eq!(all.matches("Fees").count(), 1, "{all}");
    let conflict = &merged.conflicts[0];
    assert!(conflict.mine.text().contains("six"));
    assert_eq!(
        conflict.theirs.text(),
        format!("{FIRST}\nFees will rise by eight percent next spring.")
    );
}

#[test]
fn a_new_paragraph_on_another_subject_after_an_edited_one_is_not_taken_for_a_split() {
    let base = doc(&[FIRST, LAST]);
    let mine = doc(&[FIRST, "Police closed Elm Street for the parade.", LAST]);
    let theirs = doc(&["The council met on Monday night.", LAST]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    assert_eq!(
        texts(&merged.text),
        [
            "The council met on Monday night.",
            "Police closed Elm Street for the parade.",
            LAST
        ]
    );
}
