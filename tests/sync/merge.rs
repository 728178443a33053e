//! A story edited on a replica and on the central server merges paragraph by paragraph and word by word, through real `copydesk-server sync` runs.

use copydesk_tests::{KeyPair, TestServer};
use serde_json::{Value, json};

use super::sync;

/// A central server, a replica synced with it, and one story on both.
pub(super) struct Desk {
    central: TestServer,
    replica: TestServer,
    key: KeyPair,
    central_uuid: String,
    local_uuid: String,
}

pub(super) fn html(paragraphs: &[&str]) -> String {
    paragraphs.iter().map(|p| format!("<p>{p}</p>")).collect()
}

impl Desk {
    pub(super) fn with_story(body: Value) -> Self {
        let central = TestServer::start();
        let replica = TestServer::start_replica();
        let key = central.key("laptop", &["editor"], &[]);
        let mut story = json!({"title": "Harbour", "type": "article"});
        if let (Some(story), Some(body)) = (story.as_object_mut(), body.as_object()) {
            story.extend(body.clone());
        }
        let central_uuid = central.post("/v3/content", &story).expect(200).body["uuid"]
            .as_str()
            .expect("uuid")
            .to_owned();
        let (ok, out) = sync(&replica, &central.base, &key);
        assert!(ok, "{out}");
        let local_uuid = replica.get("/v3/content").expect(200).body["items"][0]["uuid"]
            .as_str()
            .expect("the story arrived")
            .to_owned();
        Self {
            central,
            replica,
            key,
            central_uuid,
            local_uuid,
        }
    }

    pub(super) fn of(paragraphs: &[&str]) -> Self {
        Self::with_story(json!({"content": html(paragraphs)}))
    }

    pub(super) fn desk_edits(&self, body: Value) {
        self.central
            .put(&format!("/v3/content/{}", self.central_uuid), &body)
            .expect(200);
    }

    pub(super) fn reporter_edits(&self, body: Value) {
        self.replica
            .put(&format!("/v3/content/{}", self.local_uuid), &body)
            .expect(200);
    }

    /// Syncs; returns the summary line.
    pub(super) fn sync(&self) -> String {
        let (ok, out) = sync(&self.replica, &self.central.base, &self.key);
        assert!(ok, "{out}");
        out
    }

    pub(super) fn central_story(&self) -> Value {
        self.central
            .get(&format!("/v3/content/{}", self.central_uuid))
            .expect(200)
            .body
    }

    pub(super) fn local_story(&self) -> Value {
        self.replica
            .get(&format!("/v3/content/{}", self.local_uuid))
            .expect(200)
            .body
    }

    /// The body on both sides, asserted equal.
    pub(super) fn body(&self) -> String {
        let (central, local) = (self.central_story(), self.local_story());
        assert_eq!(central["content"], local["content"], "both sides agree");
        central["content"].as_str().expect("a body").to_owned()
    }

    pub(super) fn central(&self) -> &TestServer {
        &self.central
    }

    pub(super) fn replica(&self) -> &TestServer {
        &self.replica
    }

    pub(super) fn conflicts(&self) -> Vec<Value> {
        self.replica.get("/v3/sync/conflicts").expect(200).body["items"]
            .as_array()
            .expect("items")
            .clone()
    }
}

#[test]
fn different_paragraphs_both_arrive() {
    let desk = Desk::of(&["The lede.", "The middle.", "The kicker."]);
    desk.reporter_edits(json!({"content": html(&["The new lede.", "The middle.", "The kicker."])}));
    desk.desk_edits(json!({"content": html(&["The lede.", "The middle.", "The trimmed kicker."])}));
    let out = desk.sync();
    assert!(out.contains("conflicts 0"), "{out}");
    assert_eq!(
        desk.body(),
        html(&["The new lede.", "The middle.", "The trimmed kicker."])
    );
    assert!(desk.conflicts().is_empty());
    let audit = desk.local_story()["audit"].clone();
    let last = audit
        .as_array()
        .and_then(|a| a.last())
        .expect("an audit entry");
    assert_eq!(
        last["action"], "merged",
        "the story says it was merged: {audit}"
    );
}

#[test]
fn different_words_of_one_paragraph_both_arrive() {
    let desk = Desk::of(&["The council voted on Tuesday to raise fees."]);
    desk.reporter_edits(
        json!({"content": html(&["The city council voted on Tuesday to raise fees."])}),
    );
    desk.desk_edits(json!({"content": html(&["The council voted on Wednesday to raise fees."])}));
    let out = desk.sync();
    assert!(out.contains("conflicts 0"), "{out}");
    assert_eq!(
        desk.body(),
        html(&["The city council voted on Wednesday to raise fees."])
    );
}

#[test]
fn the_same_words_are_one_paragraph_conflict_settled_with_mine() {
    let desk = Desk::of(&["One.", "Fees rise by 5%.", "Three."]);
    desk.reporter_edits(
        json!({"content": html(&["One, said the mayor.", "Fees rise by 6%.", "Three."])}),
    );
    desk.desk_edits(json!({"content": html(&["One.", "Fees rise by 7%.", "Three, revised."])}));
    let out = desk.sync();
    assert!(out.contains("conflicts 1"), "{out}");
    // Everything else merged; the desk's paragraph stands where they clash.
    assert_eq!(
        desk.body(),
        html(&[
            "One, said the mayor.",
            "Fees rise by 7%.",
            "Three, revised."
        ])
    );
    let conflicts = desk.conflicts();
    assert_eq!(conflicts.len(), 1, "{conflicts:?}");
    let conflict = &conflicts[0];
    assert_eq!(conflict["field"], "content");
    assert_eq!(conflict["mine"], "<p>Fees rise by 6%.</p>");
    assert_eq!(conflict["theirs"], "<p>Fees rise by 7%.</p>");
    assert_eq!(conflict["block"]["position"], "1");
    assert_eq!(conflict["block"]["before"], "One, said the mayor.");
    assert_eq!(conflict["block"]["after"], "Three, revised.");
    // Named by its headline, with the story to open.
    let story = desk.local_story();
    assert_eq!(conflict["record"]["headline"], story["title"]);
    assert_eq!(conflict["record"]["story_uuid"], desk.local_uuid.as_str());

    // Keep mine: that paragraph only, and it reaches the desk.
    let uuid = conflict["uuid"].as_str().expect("uuid");
    desk.replica
        .post(
            &format!("/v3/sync/conflicts/{uuid}/resolve"),
            &json!({"keep": "mine"}),
        )
        .expect(200);
    desk.sync();
    assert_eq!(
        desk.body(),
        html(&[
            "One, said the mayor.",
            "Fees rise by 6%.",
            "Three, revised."
        ])
    );
    assert!(desk.conflicts().is_empty());
}

#[test]
fn an_inserted_paragraph_and_an_edited_one_both_arrive() {
    let desk = Desk::of(&["A.", "B.", "C."]);
    desk.reporter_edits(json!({"content": html(&["A.", "A new paragraph.", "B.", "C."])}));
    desk.desk_edits(json!({"content": html(&["A.", "B.", "C, edited."])}));
    let out = desk.sync();
    assert!(out.contains("conflicts 0"), "{out}");
    assert_eq!(
        desk.body(),
        html(&["A.", "A new paragraph.", "B.", "C, edited."])
    );
}

#[test]
fn a_deleted_paragraph_and_an_edited_one_both_arrive() {
    let desk = Desk::of(&["A.", "B.", "C."]);
    desk.reporter_edits(json!({"content": html(&["A.", "C."])}));
    desk.desk_edits(json!({"content": html(&["A, edited.", "B.", "C."])}));
    let out = desk.sync();
    assert!(out.contains("conflicts 0"), "{out}");
    assert_eq!(desk.body(), html(&["A, edited.", "C."]));
}

/// Draft.js raw content with one paragraph (key `p1`): `council` bold, `voted` a link.
fn raw(text: &str) -> Value {
    let at = |word: &str| text.find(word).expect("the word is there");
    json!({"blocks": [{"key": "p1", "text": text, "type": "unstyled", "depth": 0,
        "inlineStyleRanges": [{"offset": at("council"), "length": 7, "style": "BOLD"}],
        "entityRanges": [{"offset": at("voted"), "length": 5, "key": 0}], "data": {}}],
        "entityMap": {"0": {"type": "LINK", "mutability": "MUTABLE", "data": {"url": "https://example.org/vote"}}}})
}

#[test]
fn a_bold_word_and_a_link_stay_on_their_words_as_text_changes_around_them() {
    let base = "The council voted on Tuesday.";
    let desk = Desk::with_story(
        json!({"content": "<p>The <strong>council</strong> <a href=\"https://example.org/vote\">voted</a> on Tuesday.</p>",
                                       "content_raw": raw(base).to_string()}),
    );
    let mine = "Our city council voted on Tuesday.";
    desk.reporter_edits(json!({"content": "<p>Our city <strong>council</strong> <a href=\"https://example.org/vote\">voted</a> on Tuesday.</p>",
                               "content_raw": raw(mine).to_string()}));
    let theirs = "The council voted on Wednesday.";
    desk.desk_edits(json!({"content": "<p>The <strong>council</strong> <a href=\"https://example.org/vote\">voted</a> on Wednesday.</p>",
                           "content_raw": raw(theirs).to_string()}));
    let out = desk.sync();
    assert!(out.contains("conflicts 0"), "{out}");
    assert_eq!(
        desk.body(),
        "<p>Our city <strong>council</strong> <a href=\"https://example.org/vote\">voted</a> on Wednesday.</p>"
    );
    let merged: Value = serde_json::from_str(
        desk.central_story()["content_raw"]
            .as_str()
            .expect("raw content"),
    )
    .expect("JSON");
    assert_eq!(merged, raw("Our city council voted on Wednesday."));
}

#[test]
fn three_replicas_editing_one_story_converge() {
    let desk = Desk::of(&["One.", "Two.", "Three.", "Four."]);
    let others: Vec<TestServer> = (0..2).map(|_| TestServer::start_replica()).collect();
    for other in &others {
        assert!(sync(other, &desk.central.base, &desk.key).0);
    }
    let uuid_on = |server: &TestServer| {
        server.get("/v3/content").expect(200).body["items"][0]["uuid"]
            .as_str()
            .expect("uuid")
            .to_owned()
    };
    let edits = [
        html(&["One, from the first laptop.", "Two.", "Three.", "Four."]),
        html(&["One.", "Two, from the second.", "Three.", "Four."]),
        html(&["One.", "Two.", "Three.", "Four, from the third."]),
    ];
    let replicas: Vec<&TestServer> = std::iter::once(&desk.replica).chain(&others).collect();
    for (replica, body) in replicas.iter().zip(&edits) {
        replica
            .put(
                &format!("/v3/content/{}", uuid_on(replica)),
                &json!({"content": body}),
            )
            .expect(200);
    }
    // Two rounds: the first brings every edit in, the second spreads the result.
    for _ in 0..2 {
        for replica in &replicas {
            let (ok, out) = sync(replica, &desk.central.base, &desk.key);
            assert!(ok && out.contains("conflicts 0"), "{out}");
        }
    }
    let expected = html(&[
        "One, from the first laptop.",
        "Two, from the second.",
        "Three.",
        "Four, from the third.",
    ]);
    assert_eq!(desk.central_story()["content"], expected.as_str());
    for replica in &replicas {
        let body = replica
            .get(&format!("/v3/content/{}", uuid_on(replica)))
            .expect(200)
            .body["content"]
            .clone();
        assert_eq!(body, expected.as_str());
    }
}

#[test]
fn a_paragraph_conflict_settled_with_an_edited_text() {
    let desk = Desk::of(&["Lede.", "The vote was 5 to 4.", "End."]);
    desk.reporter_edits(json!({"content": html(&["Lede.", "The vote was 6 to 3.", "End."])}));
    desk.desk_edits(json!({"content": html(&["Lede.", "The vote was 7 to 2.", "End, updated."])}));
    assert!(desk.sync().contains("conflicts 1"));
    let conflicts = desk.conflicts();
    let uuid = conflicts[0]["uuid"].as_str().expect("uuid");
    let path = format!("/v3/sync/conflicts/{uuid}/resolve");
    let refused = desk
        .replica
        .post(&path, &json!({"keep": "edited"}))
        .expect_error(400, "invalid_request");
    assert_eq!(refused.body["field"], "text");
    desk.replica
        .post(
            &path,
            &json!({"keep": "edited", "text": "<p>The vote was 6 to 3, then 7 to 2 on a recount.</p>"}),
        )
        .expect(200);
    desk.replica
        .post(&path, &json!({"keep": "mine"}))
        .expect_error(409, "conflict");
    desk.sync();
    assert_eq!(
        desk.body(),
        html(&[
            "Lede.",
            "The vote was 6 to 3, then 7 to 2 on a recount.",
            "End, updated."
        ])
    );
}

/// A body as the web editor writes it: HTML, and Draft.js raw content whose
/// block keys number the paragraphs by position (`b0`, `b1`, ...).
pub(super) fn as_editor_writes(paragraphs: &[&str]) -> Value {
    let blocks: Vec<Value> = paragraphs
        .iter()
        .enumerate()
        .map(|(i, text)| {
            json!({"key": format!("b{i}"), "text": text, "type": "unstyled", "depth": 0,
                   "inlineStyleRanges": [], "entityRanges": [], "data": {}})
        })
        .collect();
    json!({"content": html(paragraphs), "content_raw": json!({"blocks": blocks, "entityMap": {}}).to_string()})
}

#[test]
fn a_paragraph_moved_on_one_side_and_edited_on_the_other_prints_once_edited_at_its_new_place() {
    let base = [
        "The lede.",
        "The middle.",
        "The kicker.",
        "The mayor said the bridge opens in May.",
    ];
    let moved = [
        "The mayor said the bridge opens in May.",
        "The lede.",
        "The middle.",
        "The kicker.",
    ];
    let edited = [
        "The lede.",
        "The middle.",
        "The kicker.",
        "The mayor said the new bridge opens in May.",
    ];
    let expected = [
        "The mayor said the new bridge opens in May.",
        "The lede.",
        "The middle.",
        "The kicker.",
    ];
    // The laptop moves it while the desk edits it, then the other way round.
    for laptop_moves in [true, false] {
        let desk = Desk::with_story(as_editor_writes(&base));
        let (laptop, central) = if laptop_moves {
            (&moved, &edited)
        } else {
            (&edited, &moved)
        };
        desk.reporter_edits(as_editor_writes(laptop));
        desk.desk_edits(as_editor_writes(central));
        let out = desk.sync();
        assert!(out.contains("conflicts 0"), "{out}");
        assert_eq!(
            desk.body(),
            html(&expected),
            "the laptop moved it: {laptop_moves}"
        );
    }
}

#[test]
fn a_photo_moved_on_one_side_and_replaced_on_the_other_prints_once_replaced_at_its_new_place() {
    let quay = r#"<figure><img src="/files/a1/quay.png" alt="The quay"></figure>"#;
    let crane = r#"<figure><img src="/files/b2/crane.png" alt="The crane"></figure>"#;
    let body = |parts: &[&str]| json!({"content": parts.concat()});
    let (lede, middle, end) = ("<p>The lede.</p>", "<p>The middle.</p>", "<p>The end.</p>");
    for laptop_moves in [true, false] {
        let desk = Desk::with_story(body(&[lede, middle, quay, end]));
        let moved = body(&[quay, lede, middle, end]);
        let replaced = body(&[lede, middle, crane, end]);
        let (laptop, central) = if laptop_moves {
            (moved, replaced)
        } else {
            (replaced, moved)
        };
        desk.reporter_edits(laptop);
        desk.desk_edits(central);
        let out = desk.sync();
        assert!(out.contains("conflicts 0"), "{out}");
        assert_eq!(
            desk.body(),
            [crane, lede, middle, end].concat(),
            "the laptop moved it: {laptop_moves}"
        );
    }
}
