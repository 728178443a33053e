//! `/v3/export`: the print side of an item, push and pull, the notice lock, and the print formats.

use copydesk_tests::TestServer;
use reqwest::Method;
use serde_json::{Value, json};

use crate::assert_shape;

fn story(server: &TestServer, body: &str) -> Value {
    let author = server
        .post("/v3/author", &json!({"name": "Zoë Ångström"}))
        .expect(200)
        .body[0]["uuid"]
        .clone();
    let second = server
        .post("/v3/author", &json!({"name": "Bo Li"}))
        .expect(200)
        .body[0]["uuid"]
        .clone();
    server
        .post(
            "/v3/content",
            &json!({"title": "Storm & <Surge> hits Malmö", "type": "article", "content": body, "authors": [author, second]}),
        )
        .expect(200)
        .body
}

#[test]
fn export_lifecycle() {
    let server = TestServer::start();
    let workflow = server
        .post("/v3/workflow", &json!({"name": "Print"}))
        .expect(200)
        .body[0]
        .clone();
    let issue = server
        .post("/v3/issue", &json!({"label": "Monday"}))
        .expect(200)
        .body[0]
        .clone();
    let item = story(&server, "<p>Web text</p>");
    let uuid = item["uuid"].as_str().expect("uuid");
    assert_eq!(item["export"], json!({}));
    let got = server.get(&format!("/v3/export/{uuid}")).expect(200).body;
    assert_eq!(
        got["uuid"], item["uuid"],
        "the export GET answers the content shape"
    );
    assert_eq!(got["export"], json!({}));

    let updated = server
        .put(&format!("/v3/export/{uuid}"), &json!({"workflow_id": workflow["id"], "issue_id": 1, "assignee_id": null, "workflow_section_id": 0}))
        .expect(200)
        .body;
    let export = &updated["export"];
    assert_shape(
        export,
        &[
            ("id", "string"),
            ("uuid", "string"),
            ("content_id", "string"),
            ("workflow_id", "string"),
            ("assignee_id", "string"),
            ("issue_id", "string"),
            ("workflow_section_id", "string"),
            ("content", "string"),
            ("version", "string"),
            ("created_at", "string"),
            ("modified_at", "string"),
            ("user", "object|null"),
            ("lock", "object|null"),
        ],
    );
    assert_eq!(export["workflow_id"], workflow["id"]);
    assert_eq!(export["issue_id"], issue["id"]);
    assert_eq!(
        export["content"], "<p>Web text</p>",
        "an export starts from the web text"
    );
    assert_eq!(export["version"], "1");
    assert!(export["lock"].is_null());

    let edited = server
        .put(
            &format!("/v3/export/{uuid}"),
            &json!({"content": "<p>Print text</p>"}),
        )
        .expect(200)
        .body;
    assert_eq!(
        edited["export"]["version"], "2",
        "new text is a new export version"
    );
    assert_eq!(edited["export"]["content"], "<p>Print text</p>");
    assert_eq!(
        edited["content"], "<p>Web text</p>",
        "the web text is untouched"
    );
    assert_eq!(edited["version"], "1");

    let pushed = server
        .send(
            server
                .request(Method::PUT, &format!("/v3/export/push/{uuid}"))
                .bearer_auth(server.admin_token()),
        )
        .expect(200)
        .body;
    assert_eq!(pushed["content"], "<p>Print text</p>");
    assert_eq!(pushed["version"], "2", "a push is a new web version");

    server
        .put(
            &format!("/v3/content/{uuid}"),
            &json!({"content": "<p>Newer web text</p>"}),
        )
        .expect(200);
    let pulled = server
        .send(
            server
                .request(Method::PUT, &format!("/v3/export/pull/{uuid}"))
                .bearer_auth(server.admin_token()),
        )
        .expect(200)
        .body;
    assert_eq!(pulled["export"]["content"], "<p>Newer web text</p>");
    assert_eq!(pulled["export"]["version"], "3");

    let actions: Vec<&str> = pulled["audit"]
        .as_array()
        .expect("audit")
        .iter()
        .filter_map(|a| a["action"].as_str())
        .collect();
    for expected in ["export update", "export push", "export pull"] {
        assert!(actions.contains(&expected), "{expected} in {actions:?}");
    }
    server
        .put(&format!("/v3/export/{uuid}"), &json!({"workflow_id": 999}))
        .expect_error(404, "not_found");
    server
        .put(&format!("/v3/export/{uuid}"), &json!({"content": 5}))
        .expect_error(400, "invalid_request");
    server
        .put(
            "/v3/export/00000000-0000-4000-8000-000000000000",
            &json!({}),
        )
        .expect_error(404, "not_found");
}

#[test]
fn push_needs_an_export() {
    let server = TestServer::start();
    let item = story(&server, "<p>x</p>");
    let uuid = item["uuid"].as_str().expect("uuid");
    server
        .send(
            server
                .request(Method::PUT, &format!("/v3/export/push/{uuid}"))
                .bearer_auth(server.admin_token()),
        )
        .expect_error(404, "not_found");
}

#[test]
fn the_export_lock_is_a_notice_and_the_exclusive_lock_is_not() {
    let server = TestServer::start();
    let anna = server.key("anna", &["printdesk"], &[]).token();
    let bert = server
        .key("bert", &["printdesk"], &["LOCKREQUEST create"])
        .token();
    let item = story(&server, "<p>x</p>");
    let uuid = item["uuid"].as_str().expect("uuid");
    let locked = server
        .call(
            Method::PUT,
            &format!("/v3/export/lock/{uuid}"),
            Some(&anna),
            None,
        )
        .expect(200)
        .body;
    assert_eq!(locked["export"]["lock"]["user"]["name"], "anna");
    assert!(locked["export"]["lock"]["locked_at"].is_string());
    // It blocks nothing.
    server
        .call(
            Method::PUT,
            &format!("/v3/export/{uuid}"),
            Some(&bert),
            Some(&json!({"content": "<p>bert</p>"})),
        )
        .expect(200);
    let unlocked = server
        .call(
            Method::DELETE,
            &format!("/v3/export/lock/{uuid}"),
            Some(&bert),
            None,
        )
        .expect(200)
        .body;
    assert!(unlocked["export"]["lock"].is_null());
    let details: Vec<&str> = unlocked["audit"]
        .as_array()
        .expect("audit")
        .iter()
        .filter_map(|a| a["detail"].as_str())
        .collect();
    assert!(
        details.iter().any(|d| d.contains("cleared anna")),
        "{details:?}"
    );
    // An exclusive lock on the item blocks the print side's writes too.
    server
        .call(
            Method::POST,
            "/v3/lock-request",
            Some(&bert),
            Some(&json!({"srn": item["srn"]})),
        )
        .expect(200);
    for (method, path, body) in [
        (
            Method::PUT,
            format!("/v3/export/{uuid}"),
            Some(json!({"content": "<p>anna</p>"})),
        ),
        (Method::PUT, format!("/v3/export/push/{uuid}"), None),
        (Method::PUT, format!("/v3/export/pull/{uuid}"), None),
    ] {
        server
            .call(method, &path, Some(&anna), body.as_ref())
            .expect_error(409, "locked");
    }
}

/// The character style range of paragraph `p` that holds exactly `needle`.
fn range_with<'a, 'input>(
    p: &roxmltree::Node<'a, 'input>,
    needle: &str,
) -> roxmltree::Node<'a, 'input> {
    p.descendants()
        .filter(|n| n.has_tag_name("CharacterStyleRange"))
        .find(|n| {
            n.descendants()
                .any(|c| c.has_tag_name("Content") && c.text() == Some(needle))
        })
        .unwrap_or_else(|| panic!("a range holding {needle:?}"))
}

const RICH: &str = "<h2>Rescue &amp; relief</h2><p>Plain <b>bold</b> <i>italic</i> <u>underlined</u> \
    <a href=\"https://example.org/?a=1&amp;b=2\">a link</a> &lt;not a tag&gt; Ünïcödé 😀<br>second line</p>\
    <p><strong><em>both</em></strong></p><script>alert(1)</script>";

#[test]
fn icml_holds_the_story_in_its_ranges() {
    let server = TestServer::start();
    let item = story(&server, RICH);
    let reply = server
        .get(&format!(
            "/v3/export/{}/as/icml",
            item["uuid"].as_str().expect("uuid")
        ))
        .expect(200);
    assert!(
        reply
            .content_type
            .starts_with("application/vnd.adobe.incopy-icml+xml"),
        "{}",
        reply.content_type
    );
    let text = String::from_utf8(reply.bytes.clone()).expect("UTF-8");
    assert!(text.contains("<?aid SnippetType=\"InCopyInterchange\"?>"));
    let doc = roxmltree::Document::parse(&text).expect("ICML is well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "Document");
    let story = root
        .children()
        .find(|n| n.has_tag_name("Story"))
        .expect("a Story");
    assert_eq!(
        story.attribute("StoryTitle"),
        Some("Storm & <Surge> hits Malmö")
    );
    let paragraphs: Vec<_> = story
        .children()
        .filter(|n| n.has_tag_name("ParagraphStyleRange"))
        .collect();
    let para_text = |p: &roxmltree::Node| -> String {
        p.descendants()
            .filter(|n| n.has_tag_name("Content"))
            .filter_map(|n| n.text())
            .collect()
    };
    let styles: Vec<&str> = paragraphs
        .iter()
        .filter_map(|p| p.attribute("AppliedParagraphStyle"))
        .collect();
    assert_eq!(
        styles,
        [
            "ParagraphStyle/Headline",
            "ParagraphStyle/Byline",
            "ParagraphStyle/Heading 2",
            "ParagraphStyle/Body",
            "ParagraphStyle/Body"
        ]
    );
    assert_eq!(para_text(&paragraphs[0]), "Storm & <Surge> hits Malmö");
    assert_eq!(para_text(&paragraphs[1]), "By Zoë Ångström and Bo Li");
    assert_eq!(para_text(&paragraphs[2]), "Rescue & relief");
    assert_eq!(
        para_text(&paragraphs[3]),
        "Plain bold italic underlined a link <not a tag> Ünïcödé 😀\u{2028}second line"
    );
    assert!(!text.contains("alert(1)"), "scripts are not story text");
    // Each style lands on exactly the text it covers.

    let body = paragraphs[3];
    assert_eq!(
        range_with(&body, "bold").attribute("AppliedCharacterStyle"),
        Some("CharacterStyle/Bold")
    );
    assert_eq!(
        range_with(&body, "italic").attribute("AppliedCharacterStyle"),
        Some("CharacterStyle/Italic")
    );
    assert_eq!(
        range_with(&body, "underlined").attribute("Underline"),
        Some("true")
    );
    assert_eq!(
        range_with(&paragraphs[4], "both").attribute("AppliedCharacterStyle"),
        Some("CharacterStyle/Bold Italic")
    );
    let link = range_with(&body, "a link");
    let source = link.parent().expect("a parent");
    assert!(source.has_tag_name("HyperlinkTextSource"));
    let source_id = source.attribute("Self").expect("an id");
    let hyperlink = root
        .children()
        .find(|n| n.has_tag_name("Hyperlink") && n.attribute("Source") == Some(source_id))
        .expect("a Hyperlink for the source");
    let destination_id: String = hyperlink
        .descendants()
        .filter(|n| n.has_tag_name("Destination"))
        .filter_map(|n| n.text())
        .collect();
    let destination = root
        .children()
        .find(|n| {
            n.has_tag_name("HyperlinkURLDestination")
                && n.attribute("Self") == Some(destination_id.as_str())
        })
        .expect("its destination");
    assert_eq!(
        destination.attribute("DestinationURL"),
        Some("https://example.org/?a=1&b=2")
    );
    // Styles used are defined.
    for style in [
        "CharacterStyle/Bold",
        "CharacterStyle/Italic",
        "CharacterStyle/Bold Italic",
    ] {
        assert!(
            root.descendants()
                .any(|n| n.has_tag_name("CharacterStyle") && n.attribute("Self") == Some(style)),
            "{style}"
        );
    }
    for style in &styles {
        assert!(
            root.descendants()
                .any(|n| n.has_tag_name("ParagraphStyle") && n.attribute("Self") == Some(*style)),
            "{style}"
        );
    }
}

#[test]
fn html_and_text() {
    let server = TestServer::start();
    let item = story(&server, RICH);
    let uuid = item["uuid"].as_str().expect("uuid");
    let html = server
        .get(&format!("/v3/export/{uuid}/as/html"))
        .expect(200);
    assert!(html.content_type.starts_with("text/html"));
    let page = String::from_utf8(html.bytes).expect("UTF-8");
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<title>Storm &amp; &lt;Surge&gt; hits Malmö</title>"));
    assert!(page.contains("<strong><em>both</em></strong>"));
    assert!(!page.contains("<script"));
    let text = server
        .get(&format!("/v3/export/{uuid}/as/text"))
        .expect(200);
    assert!(text.content_type.starts_with("text/plain"));
    let text = String::from_utf8(text.bytes).expect("UTF-8");
    assert_eq!(
        text,
        "Storm & <Surge> hits Malmö\n\nBy Zoë Ångström and Bo Li\n\nRescue & relief\n\n\
         Plain bold italic underlined a link <not a tag> Ünïcödé 😀\nsecond line\n\nboth\n"
    );
    server
        .get(&format!("/v3/export/{uuid}/as/pdf"))
        .expect_error(404, "not_found");
    server
        .get("/v3/export/00000000-0000-4000-8000-000000000000/as/text")
        .expect_error(404, "not_found");
}

#[test]
fn export_actions() {
    let server = TestServer::start();
    let nobody = server.key("nobody", &[], &[]).token();
    let item = story(&server, "<p>x</p>");
    let uuid = item["uuid"].as_str().expect("uuid");
    for (method, path, action) in [
        (Method::GET, format!("/v3/export/{uuid}"), "EXPORT get"),
        (
            Method::GET,
            format!("/v3/export/{uuid}/as/icml"),
            "EXPORT dump",
        ),
        (Method::PUT, format!("/v3/export/{uuid}"), "EXPORT update"),
        (
            Method::PUT,
            format!("/v3/export/push/{uuid}"),
            "EXPORT push",
        ),
        (
            Method::PUT,
            format!("/v3/export/pull/{uuid}"),
            "EXPORT pull",
        ),
        (
            Method::PUT,
            format!("/v3/export/lock/{uuid}"),
            "EXPORT lock",
        ),
        (
            Method::DELETE,
            format!("/v3/export/lock/{uuid}"),
            "EXPORT lock",
        ),
    ] {
        let reply = server.call(method, &path, Some(&nobody), Some(&json!({})));
        assert!(
            reply
                .expect_error(401, "forbidden_action")
                .message()
                .contains(action),
            "{path}"
        );
    }
}

#[test]
fn icml_carries_a_notes_thread_and_a_suggestion_and_html_says_suggestions_are_pending() {
    const NOTE: &str = "9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a";
    let server = TestServer::start();
    let item = story(
        &server,
        &format!(
            "<p>Fees rise <span data-notes=\"{NOTE}\">six per cent</span>\
             <ins data-suggestion=\"s1\" data-author=\"Gil Desk\" data-at=\"2026-11-28T08:00:00Z\"> in May</ins>.</p>"
        ),
    );
    let uuid = item["uuid"].as_str().expect("uuid");
    let root = server
        .post(
            "/v3/note-comment/root",
            &json!({"comment": "<p>Source?</p>", "reference": NOTE}),
        )
        .expect(200)
        .body;
    let root_uuid = root["items"][0]["uuid"].as_str().expect("uuid").to_owned();
    server
        .post(
            &format!("/v3/note-comment/{root_uuid}"),
            &json!({"comment": "<p>The <b>council</b>'s figures.</p>", "reference": NOTE}),
        )
        .expect(200);
    let who = root["items"][0]["user"]["name"]
        .as_str()
        .expect("a name")
        .to_owned();

    let icml = server
        .get(&format!("/v3/export/{uuid}/as/icml"))
        .expect(200);
    let text = String::from_utf8(icml.bytes.clone()).expect("UTF-8");
    let doc = roxmltree::Document::parse(&text).expect("ICML is well-formed XML");
    let note = doc
        .descendants()
        .find(|n| n.has_tag_name("Note"))
        .expect("an InCopy note");
    assert_eq!(note.attribute("UserName"), Some(who.as_str()));
    let lines: Vec<&str> = note
        .descendants()
        .filter(|n| n.has_tag_name("Content"))
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(
        lines,
        [
            format!("{who}: Source?"),
            format!("{who}: The council's figures.")
        ]
    );
    assert_eq!(
        note.descendants().filter(|n| n.has_tag_name("Br")).count(),
        1
    );
    let change = doc
        .descendants()
        .find(|n| n.has_tag_name("Change"))
        .expect("a tracked change");
    assert_eq!(change.attribute("ChangeType"), Some("InsertedText"));
    assert_eq!(change.attribute("UserName"), Some("Gil Desk"));

    // A key that may export but not read notes gets the note's place, not its thread.
    let printer = server.key("printer", &[], &["EXPORT dump"]).token();
    let icml = server
        .call(
            Method::GET,
            &format!("/v3/export/{uuid}/as/icml"),
            Some(&printer),
            None,
        )
        .expect(200);
    let text = String::from_utf8(icml.bytes).expect("UTF-8");
    assert!(text.contains("<Note "), "{text}");
    assert!(!text.contains("Source?"), "{text}");

    let html = server
        .get(&format!("/v3/export/{uuid}/as/html"))
        .expect(200);
    let html = String::from_utf8(html.bytes).expect("UTF-8");
    assert!(html.contains("Suggested edits are pending"), "{html}");
    assert!(
        !html.contains("in May"),
        "printed without the suggestion: {html}"
    );
    assert!(!html.contains("Source?"), "notes never print: {html}");
}
