//! Notes and suggested edits through real `copydesk-server sync` runs: a note made offline reaches the server with its replies, the desk's suggestion and the laptop's edit elsewhere both survive, one suggestion settled on each side converges, a note whose words were deleted stays listed while another is resolved.

use copydesk_tests::TestServer;
use serde_json::{Value, json};

use super::merge::Desk;

const NOTE: &str = "5d0c9a3e-1f2b-4c6d-8e7f-90a1b2c3d4e5";
const OTHER_NOTE: &str = "7a1e4b2c-3d5f-4e60-9a8b-c1d2e3f40516";

/// A suggestion's entity data as the server writes it.
fn suggestion(id: &str, kind: &str) -> Value {
    json!({"id": id, "kind": kind, "author": "Desk", "at": "2026-11-28T08:00:00Z"})
}

/// An entity over words: the words, the entity's type and its data.
type Over<'a> = (&'a str, &'a str, Value);

/// A paragraph as raw content gives it: its key, its text, its entities.
type Paragraph<'a> = (&'a str, &'a str, Vec<Over<'a>>);

/// One paragraph of raw content, its entities added to `map`.
fn block(key: &str, text: &str, entities: &[Over<'_>], map: &mut Vec<Value>) -> Value {
    let ranges: Vec<Value> = entities
        .iter()
        .map(|(words, kind, data)| {
            let at = text.find(words).expect("the words are there");
            let offset = text[..at].chars().count();
            map.push(json!({"type": kind, "mutability": "MUTABLE", "data": data}));
            json!({"offset": offset, "length": words.chars().count(), "key": map.len() - 1})
        })
        .collect();
    json!({"key": key, "text": text, "type": "unstyled", "depth": 0,
           "inlineStyleRanges": [], "entityRanges": ranges, "data": {}})
}

/// A body as the editor saves it: raw content and its HTML.
fn body(blocks: &[Paragraph<'_>], html: &str) -> Value {
    let mut map = Vec::new();
    let blocks: Vec<Value> = blocks
        .iter()
        .map(|(key, text, entities)| block(key, text, entities, &mut map))
        .collect();
    let entity_map: serde_json::Map<String, Value> = map
        .into_iter()
        .enumerate()
        .map(|(i, e)| (i.to_string(), e))
        .collect();
    json!({"content": html, "content_raw": json!({"blocks": blocks, "entityMap": entity_map}).to_string()})
}

/// The entities of a story's raw content, by type, with the words they cover.
fn entities_of(story: &Value) -> Vec<(String, String, Value)> {
    let raw: Value =
        serde_json::from_str(story["content_raw"].as_str().expect("raw content")).expect("JSON");
    let mut out = Vec::new();
    for block in raw["blocks"].as_array().expect("blocks") {
        let chars: Vec<char> = block["text"].as_str().unwrap_or("").chars().collect();
        for range in block["entityRanges"].as_array().expect("ranges") {
            let (offset, length) = (
                range["offset"].as_u64().unwrap_or(0) as usize,
                range["length"].as_u64().unwrap_or(0) as usize,
            );
            let entity = &raw["entityMap"][range["key"].to_string().trim_matches('"')];
            out.push((
                entity["type"].as_str().unwrap_or("").to_owned(),
                chars[offset..offset + length].iter().collect(),
                entity["data"].clone(),
            ));
        }
    }
    out
}

#[test]
fn the_desks_suggestion_and_the_laptops_offline_edit_to_another_paragraph_both_survive() {
    let desk = Desk::with_story(body(
        &[
            ("p1", "Fees rise today.", vec![]),
            ("p2", "The council met.", vec![]),
        ],
        "<p>Fees rise today.</p><p>The council met.</p>",
    ));
    desk.desk_edits(body(
        &[
            (
                "p1",
                "Fees rise today.",
                vec![(" today", "SUGGESTION", json!({"suggestions": [suggestion("s1", "deletion")]}))],
            ),
            ("p2", "The council met.", vec![]),
        ],
        "<p>Fees rise<del data-suggestion=\"s1\" data-author=\"Desk\" data-at=\"2026-11-28T08:00:00Z\"> today</del>.</p><p>The council met.</p>",
    ));
    desk.reporter_edits(body(
        &[
            ("p1", "Fees rise today.", vec![]),
            ("p2", "The council met on Tuesday.", vec![]),
        ],
        "<p>Fees rise today.</p><p>The council met on Tuesday.</p>",
    ));
    let out = desk.sync();
    assert!(out.contains("conflicts 0"), "{out}");
    let merged = desk.body();
    assert!(merged.contains("<del data-suggestion=\"s1\""), "{merged}");
    assert!(merged.contains("The council met on Tuesday."), "{merged}");
    for story in [desk.central_story(), desk.local_story()] {
        assert_eq!(
            entities_of(&story),
            [(
                "SUGGESTION".to_owned(),
                " today".to_owned(),
                json!({"suggestions": [suggestion("s1", "deletion")]})
            )]
        );
    }
}

#[test]
fn a_suggestion_accepted_on_the_server_while_the_laptop_rejects_another_converges() {
    let both = body(
        &[
            (
                "p1",
                "Fees rise today.",
                vec![(
                    " today",
                    "SUGGESTION",
                    json!({"suggestions": [suggestion("a", "deletion")]}),
                )],
            ),
            (
                "p2",
                "The council met on Tuesday.",
                vec![(
                    " on Tuesday",
                    "SUGGESTION",
                    json!({"suggestions": [suggestion("b", "insertion")]}),
                )],
            ),
        ],
        "<p>Fees rise<del data-suggestion=\"a\" data-author=\"Desk\" data-at=\"2026-11-28T08:00:00Z\"> today</del>.</p>\
         <p>The council met<ins data-suggestion=\"b\" data-author=\"Desk\" data-at=\"2026-11-28T08:00:00Z\"> on Tuesday</ins>.</p>",
    );
    let desk = Desk::with_story(both);
    // The server accepts the deletion; the laptop, offline, rejects the insertion.
    desk.desk_edits(body(
        &[
            ("p1", "Fees rise.", vec![]),
            (
                "p2",
                "The council met on Tuesday.",
                vec![(" on Tuesday", "SUGGESTION", json!({"suggestions": [suggestion("b", "insertion")]}))],
            ),
        ],
        "<p>Fees rise.</p><p>The council met<ins data-suggestion=\"b\" data-author=\"Desk\" data-at=\"2026-11-28T08:00:00Z\"> on Tuesday</ins>.</p>",
    ));
    desk.reporter_edits(body(
        &[
            (
                "p1",
                "Fees rise today.",
                vec![(" today", "SUGGESTION", json!({"suggestions": [suggestion("a", "deletion")]}))],
            ),
            ("p2", "The council met.", vec![]),
        ],
        "<p>Fees rise<del data-suggestion=\"a\" data-author=\"Desk\" data-at=\"2026-11-28T08:00:00Z\"> today</del>.</p><p>The council met.</p>",
    ));
    let out = desk.sync();
    assert!(out.contains("conflicts 0"), "{out}");
    assert_eq!(desk.body(), "<p>Fees rise.</p><p>The council met.</p>");
    for story in [desk.central_story(), desk.local_story()] {
        assert!(entities_of(&story).is_empty(), "{story}");
    }
}

#[test]
fn a_note_made_offline_reaches_the_server_with_its_replies() {
    let desk = Desk::with_story(body(
        &[("p1", "The council voted to raise fees.", vec![])],
        "<p>The council voted to raise fees.</p>",
    ));
    // Offline on the laptop: a note on "raise fees", and a thread on it.
    desk.reporter_edits(body(
        &[(
            "p1",
            "The council voted to raise fees.",
            vec![("raise fees", "NOTE", json!({"notes": [NOTE]}))],
        )],
        &format!("<p>The council voted to <span data-notes=\"{NOTE}\">raise fees</span>.</p>"),
    ));
    let replica: &TestServer = desk.replica();
    let root = replica
        .post(
            "/v3/note-comment/root",
            &json!({"comment": "<p>By how much?</p>", "reference": NOTE}),
        )
        .expect(200)
        .body;
    let root_uuid = root["items"][0]["uuid"].as_str().expect("uuid").to_owned();
    replica
        .post(
            &format!("/v3/note-comment/{root_uuid}"),
            &json!({"comment": "<p>Five per cent.</p>", "reference": NOTE}),
        )
        .expect(200);
    let out = desk.sync();
    assert!(out.contains("conflicts 0"), "{out}");
    let central = desk.central_story();
    assert!(
        central["content"].as_str().is_some_and(
            |html| html.contains(&format!("<span data-notes=\"{NOTE}\">raise fees</span>"))
        ),
        "{central}"
    );
    assert_eq!(
        entities_of(&central),
        [(
            "NOTE".to_owned(),
            "raise fees".to_owned(),
            json!({"notes": [NOTE]})
        )]
    );
    let thread = desk
        .central()
        .get(&format!("/v3/note-comment/{NOTE}"))
        .expect(200)
        .body;
    let items = thread["items"].as_array().expect("items");
    let comments: Vec<(&str, bool)> = items
        .iter()
        .map(|c| (c["comment"].as_str().unwrap_or(""), c["parent_id"] == "0"))
        .collect();
    assert_eq!(
        comments,
        [
            ("<p>By how much?</p>", true),
            ("<p>Five per cent.</p>", false)
        ],
        "{thread}"
    );
    assert_eq!(items[1]["parent_id"], items[0]["id"], "{thread}");
}

/// A story's notes as `/v3/content/{uuid}/notes` lists them: UUID, words, state.
fn notes_listed(server: &TestServer, story: &Value) -> Vec<(String, String, String)> {
    let uuid = story["uuid"].as_str().expect("uuid");
    let listed = server
        .get(&format!("/v3/content/{uuid}/notes"))
        .expect(200)
        .body;
    listed["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|n| {
            (
                n["uuid"].as_str().unwrap_or("").to_owned(),
                n["words"].as_str().unwrap_or("").to_owned(),
                n["state"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_note_whose_words_the_laptop_deleted_offline_stays_listed_and_one_the_desk_resolved_stays_resolved()
 {
    let desk = Desk::with_story(body(
        &[(
            "p1",
            "The council voted to raise fees. Parking stays free.",
            vec![],
        )],
        "<p>The council voted to raise fees. Parking stays free.</p>",
    ));
    // The desk puts two notes in the text; the laptop has them after a sync.
    desk.desk_edits(body(
        &[(
            "p1",
            "The council voted to raise fees. Parking stays free.",
            vec![
                ("raise fees", "NOTE", json!({"notes": [NOTE]})),
                ("stays free", "NOTE", json!({"notes": [OTHER_NOTE]})),
            ],
        )],
        &format!(
            "<p>The council voted to <span data-notes=\"{NOTE}\">raise fees</span>. \
             Parking <span data-notes=\"{OTHER_NOTE}\">stays free</span>.</p>"
        ),
    ));
    desk.sync();
    // Offline, the reporter deletes the first note's words.
    desk.reporter_edits(body(
        &[(
            "p1",
            "The council voted. Parking stays free.",
            vec![("stays free", "NOTE", json!({"notes": [OTHER_NOTE]}))],
        )],
        &format!(
            "<p>The council voted. Parking <span data-notes=\"{OTHER_NOTE}\">stays free</span>.</p>"
        ),
    ));
    // Meanwhile the desk resolves the other note, which stays on its words.
    desk.desk_edits(body(
        &[(
            "p1",
            "The council voted to raise fees. Parking stays free.",
            vec![
                ("raise fees", "NOTE", json!({"notes": [NOTE]})),
                (
                    "stays free",
                    "NOTE",
                    json!({"resolved_notes": [OTHER_NOTE]}),
                ),
            ],
        )],
        &format!(
            "<p>The council voted to <span data-notes=\"{NOTE}\">raise fees</span>. \
             Parking <span data-resolved-notes=\"{OTHER_NOTE}\">stays free</span>.</p>"
        ),
    ));
    let out = desk.sync();
    assert!(out.contains("conflicts 0"), "{out}");
    assert_eq!(
        desk.body(),
        format!(
            "<p>The council voted. Parking <span data-resolved-notes=\"{OTHER_NOTE}\">stays free</span>.</p>"
        )
    );
    let expected = [
        (
            OTHER_NOTE.to_owned(),
            "stays free".to_owned(),
            "resolved".to_owned(),
        ),
        (
            NOTE.to_owned(),
            "raise fees".to_owned(),
            "words_deleted".to_owned(),
        ),
    ];
    assert_eq!(
        notes_listed(desk.central(), &desk.central_story()),
        expected
    );
    assert_eq!(notes_listed(desk.replica(), &desk.local_story()), expected);
}
