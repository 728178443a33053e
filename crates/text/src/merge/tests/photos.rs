//! Photos in a story's text: placed, moved, replaced and deleted on either side, in HTML and in raw content.

use proptest::prelude::*;
use serde_json::json;

use super::*;

/// A document of paragraphs and photos: an entry starting `img:` is a photo of that file.
pub(super) fn with_photos(blocks: &[&str]) -> RichText {
    RichText {
        blocks: blocks
            .iter()
            .map(|b| match b.strip_prefix("img:") {
                Some(name) => Block::image(
                    &format!("/files/{name}/public.png"),
                    &format!("Photo {name}"),
                ),
                None => Block::plain("unstyled", b),
            })
            .collect(),
    }
}

/// The blocks as `with_photos` spells them.
pub(super) fn spelled(text: &RichText) -> Vec<String> {
    text.blocks
        .iter()
        .map(|b| match b.image_parts() {
            Some((src, _)) => format!(
                "img:{}",
                src.trim_start_matches("/files/")
                    .trim_end_matches("/public.png")
            ),
            None => {
                assert!(!b.is_atomic(), "half a photo: {b:?}");
                b.text()
            }
        })
        .collect()
}

#[test]
fn a_photo_inserted_on_one_side_stays_while_the_other_edits_text() {
    let base = with_photos(&["The lede.", "The kicker."]);
    let mine = with_photos(&["The lede.", "img:dock", "The kicker."]);
    let theirs = with_photos(&["The new lede.", "The kicker, trimmed."]);
    let merged = merge(&base, &mine, &theirs);
    assert!(merged.conflicts.is_empty());
    assert_eq!(
        spelled(&merged.text),
        ["The new lede.", "img:dock", "The kicker, trimmed."]
    );
}

#[test]
fn the_same_photo_inserted_on_both_sides_stands_once_and_two_different_ones_both_stand() {
    let base = with_photos(&["One.", "Two."]);
    let same = with_photos(&["One.", "img:dock", "Two."]);
    let merged = merge(&base, &same, &same);
    assert_eq!(spelled(&merged.text), ["One.", "img:dock", "Two."]);
    let merged = merge(&base, &same, &with_photos(&["One.", "img:crane", "Two."]));
    assert!(merged.conflicts.is_empty());
    assert_eq!(
        spelled(&merged.text),
        ["One.", "img:crane", "img:dock", "Two."]
    );
}

#[test]
fn a_photo_deleted_on_one_side_and_untouched_on_the_other_is_deleted() {
    let base = with_photos(&["One.", "img:dock", "Two.", "img:crane"]);
    let mine = with_photos(&["One.", "Two.", "img:crane"]);
    let theirs = with_photos(&["One, edited.", "img:dock", "Two.", "img:crane"]);
    for (m, t) in [(&mine, &theirs), (&theirs, &mine)] {
        let merged = merge(&base, m, t);
        assert!(merged.conflicts.is_empty());
        assert_eq!(spelled(&merged.text), ["One, edited.", "Two.", "img:crane"]);
    }
    // Two photos alike but for their file are not taken for each other.
    let merged = merge(
        &base,
        &with_photos(&["One.", "img:dock", "Two."]),
        &with_photos(&["One.", "Two.", "img:crane"]),
    );
    assert_eq!(spelled(&merged.text), ["One.", "Two."]);
}

#[test]
fn a_photo_changed_on_one_side_wins_whole_and_changed_on_both_is_a_conflict() {
    let base = with_photos(&["One.", "img:dock"]);
    let mut recaptioned = base.clone();
    recaptioned.blocks[1] = Block::image("/files/dock/public.png", "Dockers at the gate");
    let edited = with_photos(&["One, edited.", "img:dock"]);
    let merged = merge(&base, &recaptioned, &edited);
    assert!(merged.conflicts.is_empty());
    assert_eq!(merged.text.blocks[0].text(), "One, edited.");
    assert_eq!(
        merged.text.blocks[1].image_parts(),
        Some((
            "/files/dock/public.png".to_owned(),
            "Dockers at the gate".to_owned()
        ))
    );
    let mut other = base.clone();
    other.blocks[1] = Block::image("/files/dock/public.png", "Strikers");
    let merged = merge(&base, &recaptioned, &other);
    assert_eq!(merged.conflicts.len(), 1);
    assert_eq!(merged.conflicts[0].mine, recaptioned.blocks[1]);
    assert_eq!(merged.conflicts[0].theirs, other.blocks[1]);
    assert_eq!(merged.text.blocks[1], other.blocks[1]);
}

#[test]
fn stored_photos_merge_in_html_and_in_raw_content() {
    let html = |s| StoredText { html: s, raw: None };
    let photo = "<figure><img src=\"/files/s1/public.png\" alt=\"Dock &amp; crane\"></figure>";
    let base = "<p>One.</p><p>Two.</p>".to_owned();
    let mine = format!("<p>One.</p>{photo}<p>Two.</p>");
    let theirs = "<p>One.</p><p>Two, edited.</p>".to_owned();
    let merged = merge_stored(html(&base), html(&mine), html(&theirs)).expect("mergeable");
    assert!(merged.conflicts.is_empty());
    assert_eq!(
        merged.html,
        format!("<p>One.</p>{photo}<p>Two, edited.</p>")
    );
    // The same with raw content, as the editor sends it.
    let raw_of = |blocks: &[&str]| raw_value(&with_photos(blocks));
    let (b, m, t) = (
        raw_of(&["One.", "Two."]),
        raw_of(&["One.", "img:s1", "Two."]),
        raw_of(&["One.", "Two, edited."]),
    );
    let mine_html = "<p>One.</p><figure><img src=\"/files/s1/public.png\" alt=\"Photo s1\"></figure><p>Two.</p>";
    let merged = merge_stored(
        StoredText {
            html: &base,
            raw: Some(typed(&b)),
        },
        StoredText {
            html: mine_html,
            raw: Some(typed(&m)),
        },
        StoredText {
            html: &theirs,
            raw: Some(typed(&t)),
        },
    )
    .expect("mergeable");
    assert_eq!(
        merged.html,
        "<p>One.</p><figure><img src=\"/files/s1/public.png\" alt=\"Photo s1\"></figure><p>Two, edited.</p>"
    );
    let raw: serde_json::Value =
        serde_json::from_str(&merged.raw.expect("raw content")).expect("JSON");
    crate::draftjs::validate_raw(&raw).expect("valid Draft.js raw content");
    assert_eq!(raw["blocks"][1]["type"], "atomic");
    assert_eq!(raw["blocks"][1]["text"], " ");
    assert_eq!(
        raw["blocks"][1]["entityRanges"],
        json!([{"offset": 0, "length": 1, "key": 0}])
    );
    assert_eq!(
        raw["entityMap"]["0"],
        json!({"type": "IMAGE", "mutability": "IMMUTABLE", "data": {"src": "/files/s1/public.png", "alt": "Photo s1"}})
    );
    // An image the reading would drop (an unsafe address) is not merged block by block.
    for unsafe_photo in [
        "<p>A.</p><img src=\"javascript:alert(1)\">",
        "<p>A.</p><figure><img src=\"data:image/png;base64,AA\" alt=\"x\"></figure>",
        "<p>A.</p><IMG SRC=\"http://example.org/x.png\">",
    ] {
        assert!(
            merge_stored(html(unsafe_photo), html("<p>B.</p>"), html("<p>C.</p>")).is_none(),
            "{unsafe_photo}"
        );
    }
    // Nor is an atomic block that is not a whole photo.
    let mut half = raw_of(&["One.", "img:s1"]);
    half["blocks"][1]["text"] = json!("  ");
    let half_html =
        "<p>One.</p><figure><img src=\"/files/s1/public.png\" alt=\"Photo s1\"></figure>";
    assert!(
        merge_stored(
            StoredText {
                html: half_html,
                raw: Some(typed(&half))
            },
            StoredText {
                html: half_html,
                raw: Some(typed(&half))
            },
            StoredText {
                html: half_html,
                raw: Some(typed(&half))
            },
        )
        .is_none()
    );
}

/// A document of paragraphs and photos (each photo once).
fn document_with_photos() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop_oneof![3 => paragraph(), 1 => Just("img".to_owned())],
        1..8,
    )
    .prop_map(|blocks| {
        blocks
            .into_iter()
            .enumerate()
            .map(|(i, b)| if b == "img" { format!("img:p{i}") } else { b })
            .collect()
    })
}

proptest! {
    #[test]
    fn photos_are_whole_kept_when_both_keep_them_and_gone_when_one_deletes_them(
        base in document_with_photos(),
        mine_drops in prop::collection::vec(any::<prop::sample::Index>(), 0..3),
        theirs_adds in prop::collection::vec((any::<prop::sample::Index>(), any::<bool>()), 0..3),
        mine_edits in prop::collection::vec(any::<prop::sample::Index>(), 0..3),
    ) {
        // Mine deletes some blocks and edits some paragraphs; theirs adds photos and paragraphs.
        let mut mine = base.clone();
        for drop in mine_drops {
            if !mine.is_empty() {
                mine.remove(drop.index(mine.len()));
            }
        }
        for at in mine_edits {
            if !mine.is_empty() {
                let i = at.index(mine.len());
                if !mine[i].starts_with("img:") {
                    mine[i] = format!("{} MINE", mine[i]);
                }
            }
        }
        let mut theirs = base.clone();
        for (n, (at, photo)) in theirs_adds.into_iter().enumerate() {
            let i = at.index(theirs.len() + 1);
            theirs.insert(i, if photo { format!("img:t{n}") } else { format!("new {n}") });
        }
        let as_photos = |blocks: &[String]| {
            let refs: Vec<&str> = blocks.iter().map(String::as_str).collect();
            with_photos(&refs)
        };
        let merged = merge(&as_photos(&base), &as_photos(&mine), &as_photos(&theirs));
        prop_assert!(merged.conflicts.is_empty());
        let result = spelled(&merged.text);
        for photo in base.iter().filter(|b| b.starts_with("img:")) {
            let kept = mine.contains(photo);
            prop_assert_eq!(result.contains(photo), kept, "{} in {:?}", photo, result);
        }
        for photo in theirs.iter().filter(|b| b.starts_with("img:t")) {
            prop_assert!(result.contains(photo), "{photo} was lost: {result:?}");
        }
        for b in &result {
            prop_assert!(result.iter().filter(|x| *x == b).count() == 1 || !b.starts_with("img:"), "{b} twice: {result:?}");
        }
        // And written as raw content, every photo is one whole atomic block.
        let raw = raw_value(&merged.text);
        prop_assert!(crate::draftjs::validate_raw(&raw).is_ok());
        let back = draft_raw::from_raw(&raw).expect("raw content");
        prop_assert_eq!(spelled(&back), result.clone());
        prop_assert_eq!(spelled(&html::from_html(&html::to_html(&merged.text))), result);
    }
}
