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

// Blocks told apart by their words, without keys: a stretch that changed
// pairs alike blocks first (`align::pair_stretch`), and a new paragraph
// that took the next one in is a join (`joins`).

const FOURTH: &str = "Police closed Elm Street for the parade.";

#[test]
fn a_photo_placed_where_two_paragraphs_were_joined_stays_a_photo_without_keys() {
    // Mine places a photo and joins the two paragraphs after it; with as
    // many blocks as the base, the photo was taken for the first of them
    // (an edit of its text), and merged into text it was lost.
    let base = with_photos(&[FIRST, SECOND, FOURTH, LAST]);
    let mine = with_photos(&[FIRST, "img:dock", &format!("{SECOND} {FOURTH}"), LAST]);
    let theirs = with_photos(&[&format!("{FIRST} {SECOND}"), FOURTH, LAST]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    let result = spelled(&merged.text);
    assert_eq!(
        result.iter().filter(|b| *b == "img:dock").count(),
        1,
        "{result:?}"
    );
    assert_eq!(
        result.join(" ").matches("Fees").count(),
        1,
        "the joined words once: {result:?}"
    );
}

#[test]
fn a_photo_placed_before_a_split_paragraph_is_not_taken_for_it_without_keys() {
    let long = format!("{FIRST} {SECOND}");
    let base = with_photos(&[&long, LAST]);
    let mine = with_photos(&["img:dock", FIRST, SECOND, LAST]);
    let theirs = with_photos(&[
        "The council met on Tuesday night. Fees will rise by eight percent next spring.",
        LAST,
    ]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    assert_eq!(
        spelled(&merged.text),
        [
            "img:dock",
            FIRST,
            "Fees will rise by eight percent next spring.",
            LAST
        ]
    );
}

#[test]
fn a_join_and_an_edit_of_the_next_paragraph_against_its_move_print_it_once_without_keys() {
    // Theirs joins the first two paragraphs and edits the third; paired in
    // order, the edited third was taken for the second, and mine's move of
    // the third printed it twice.
    let base = doc(&[FIRST, SECOND, FOURTH, LAST]);
    let mine = doc(&[FOURTH, FIRST, SECOND, LAST]);
    let theirs = doc(&[
        &format!("{FIRST} {SECOND}"),
        "Police closed Oak Street for the parade.",
        LAST,
    ]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    assert_eq!(
        texts(&merged.text),
        [
            "Police closed Oak Street for the parade.",
            &format!("{FIRST} {SECOND}"),
            LAST
        ]
    );
}

#[test]
fn a_paragraph_moved_unchanged_is_not_taken_for_an_edited_neighbour_without_keys() {
    // Mine moves the second paragraph to the top and edits the third;
    // theirs moves the second below the third. In the stretch the diff
    // found changed on mine, the edited third was paired with the second
    // (its base place), and the third stood twice.
    let base = doc(&[FIRST, SECOND, FOURTH, LAST]);
    let edited = "Police closed Elm Street for the big parade.";
    let mine = doc(&[SECOND, FIRST, edited, LAST]);
    let theirs = doc(&[FIRST, FOURTH, SECOND, LAST]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    assert_eq!(texts(&merged.text), [SECOND, FIRST, edited, LAST]);
}

#[test]
fn a_split_next_to_a_deleted_paragraph_is_still_a_split_without_keys() {
    // Mine deletes the first paragraph and splits the second: as many
    // blocks as the base, they were paired in place (the first half taken
    // for the deleted paragraph), and theirs' edit of the first half was a
    // conflict that printed it twice.
    let base = doc(&[FIRST, &format!("{SECOND} {FOURTH}")]);
    let mine = doc(&[SECOND, FOURTH]);
    let eight = "Fees will rise by eight percent next spring.";
    let theirs = doc(&[FIRST, &format!("{eight} {FOURTH}")]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    assert_eq!(texts(&merged.text), [eight, FOURTH]);
}

#[test]
fn a_new_paragraph_that_took_in_the_next_one_is_a_join_with_keys() {
    // Mine types a paragraph and pulls the next one up into it (Draft.js
    // keeps the new paragraph's key); theirs edits the one pulled up. Its
    // key gone, it was a delete beaten by theirs' edit, and stood twice.
    let base = keyed(&[("a", FIRST), ("b", SECOND), ("c", LAST)]);
    let mine = keyed(&[
        ("a", FIRST),
        ("n", &format!("Schools close early. {SECOND}")),
        ("c", LAST),
    ]);
    let theirs = keyed(&[
        ("a", FIRST),
        ("b", "Fees will rise by eight percent next spring."),
        ("c", LAST),
    ]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    assert_eq!(
        texts(&merged.text),
        [
            FIRST,
            "Schools close early. Fees will rise by eight percent next spring.",
            LAST
        ]
    );
}

#[test]
fn a_new_paragraph_joined_to_the_next_across_a_deleted_photo_is_a_join_with_keys() {
    let mut base = with_photos(&[FIRST, "img:dock", SECOND, LAST]);
    let mut mine = with_photos(&[FIRST, &format!("Schools close early. {SECOND}"), LAST]);
    let mut theirs = with_photos(&[
        FIRST,
        "img:dock",
        "Fees will rise by eight percent next spring.",
        LAST,
    ]);
    for (text, keys) in [
        (&mut base, ["a", "p", "b", "c"].as_slice()),
        (&mut mine, ["a", "n", "c"].as_slice()),
        (&mut theirs, ["a", "p", "b", "c"].as_slice()),
    ] {
        for (block, key) in text.blocks.iter_mut().zip(keys) {
            block.key = Some((*key).to_owned());
        }
    }
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    assert_eq!(
        spelled(&merged.text),
        [
            FIRST,
            "Schools close early. Fees will rise by eight percent next spring.",
            LAST
        ]
    );
}

#[test]
fn a_paragraph_split_round_a_new_photo_and_edited_in_its_second_half_stands_once_round_it() {
    let long = format!("{FIRST} {SECOND}");
    let base = doc(&[&long, LAST]);
    let mut split = doc(&[FIRST, SECOND, LAST]);
    split
        .blocks
        .insert(1, Block::image("/files/a1/p.jpg", "The harbour"));
    let edited = doc(&[
        "The council met on Tuesday night. Fees will rise by eight percent next spring.",
        LAST,
    ]);
    for (mine, theirs) in [(&split, &edited), (&edited, &split)] {
        let merged = merge(&base, mine, theirs);
        assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
        let blocks = &merged.text.blocks;
        assert_eq!(blocks.len(), 4, "{:?}", texts(&merged.text));
        assert_eq!(blocks[0].text(), FIRST);
        assert_eq!(
            blocks[1].image_parts(),
            Some(("/files/a1/p.jpg".to_owned(), "The harbour".to_owned()))
        );
        assert_eq!(
            blocks[2].text(),
            "Fees will rise by eight percent next spring."
        );
        assert_eq!(blocks[3].text(), LAST);
    }
}

#[test]
fn a_photo_placed_between_split_halves_stays_when_the_split_conflicts() {
    let base = doc(&["p0 council council", "p1 mayor mayor"]);
    let mut split = doc(&["p0 council", "council", "p1 mayor mayor"]);
    split
        .blocks
        .insert(1, Block::image("/files/m2/p.jpg", "m2"));
    let trimmed = doc(&["p0 council", "p1 mayor mayor"]);
    let merged = merge(&base, &split, &trimmed);
    let photos: Vec<_> = merged
        .text
        .blocks
        .iter()
        .filter_map(Block::image_parts)
        .collect();
    assert_eq!(photos, [("/files/m2/p.jpg".to_owned(), "m2".to_owned())]);
}
