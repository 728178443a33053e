//! Random work on two replicas and the central server, synced in random order, ends with every server holding the same stories, authors and histories.

use copydesk_tests::TestServer;

use super::*;

/// A small deterministic random source (no dependency, reproducible from its seed).
struct Dice(u64);

impl Dice {
    fn roll(&mut self, sides: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % sides as u64) as usize
    }
}

/// Authors by name with their taglines, for comparing servers.
fn authors_by_name(server: &TestServer) -> Vec<(String, String)> {
    let list = server
        .get("/v3/author?per_page=500&order=name&dir=asc")
        .expect(200)
        .body;
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|a| {
            (
                a["name"].as_str().unwrap_or("").to_owned(),
                a["tagline"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[test]
fn random_work_on_two_replicas_converges() {
    let central = TestServer::start();
    let proxy = copydesk_tests::CuttingProxy::new(&central.base);
    let replicas = [TestServer::start_replica(), TestServer::start_replica()];
    let key = central.key("laptop", &["editor"], &[]);
    for replica in &replicas {
        assert!(sync(replica, &proxy.base, &key).0);
    }
    let seed = std::env::var("COPYDESK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_cafe_f00d_0001);
    let mut dice = Dice(seed);
    let mut created = Vec::new();
    // Every content edit a server acknowledged: (side, item title, text).
    let mut acknowledged: Vec<(usize, String, String)> = Vec::new();
    for step in 0..200 {
        let side = dice.roll(3);
        let server = if side == 2 { &central } else { &replicas[side] };
        match dice.roll(16) {
            10..=11 => {
                let title = format!("Story {step}");
                let text = format!("<p>first text of story {step}</p>");
                server
                    .post(
                        "/v3/content",
                        &serde_json::json!({"title": title, "type": "article", "content": text}),
                    )
                    .expect(200);
                acknowledged.push((side, title, text));
            }
            12..=13 => {
                let list = server.get("/v3/content?per_page=500").expect(200).body;
                let items = list["items"].as_array().expect("items");
                if !items.is_empty() {
                    let pick = &items[dice.roll(items.len())];
                    let uuid = pick["uuid"].as_str().expect("uuid");
                    let text = format!("<p>edit {step} on side {side}</p>");
                    server
                        .put(
                            &format!("/v3/content/{uuid}"),
                            &serde_json::json!({"content": text}),
                        )
                        .expect(200);
                    let title = pick["title"].as_str().expect("title").to_owned();
                    acknowledged.push((side, title, text));
                }
            }
            0..=3 => {
                let name = format!("Writer {step}");
                server
                    .post("/v3/author", &serde_json::json!({"name": name}))
                    .expect(200);
                created.push(name);
            }
            4..=7 => {
                let list = server.get("/v3/author?per_page=500").expect(200).body;
                let items = list["items"].as_array().expect("items");
                if !items.is_empty() {
                    let pick = &items[dice.roll(items.len())];
                    let uuid = pick["uuid"].as_str().expect("uuid");
                    server
                        .put(
                            &format!("/v3/author/{uuid}"),
                            &serde_json::json!({"tagline": format!("edit {step}")}),
                        )
                        .expect(200);
                }
            }
            _ => {
                // A sync, sometimes over a network that drops answers.
                if side < 2 {
                    proxy.cut_next_answers(if dice.roll(3) == 0 {
                        1 + dice.roll(4)
                    } else {
                        0
                    });
                    let _ = sync(&replicas[side], &proxy.base, &key);
                    proxy.cut_next_answers(0);
                }
            }
        }
    }
    // Settle: each replica syncs until nothing is left, then once more to take the other's work.
    for _ in 0..3 {
        for replica in &replicas {
            let (ok, out) = sync(replica, &proxy.base, &key);
            assert!(ok, "{out}");
        }
    }
    let on_central = authors_by_name(&central);
    for replica in &replicas {
        assert_eq!(
            authors_by_name(replica),
            on_central,
            "a replica agrees with the central server"
        );
        assert_eq!(
            replica.get("/v3/sync/status").expect(200).body["pending"],
            "0"
        );
    }
    let mut names: Vec<String> = on_central.iter().map(|(name, _)| name.clone()).collect();
    let count = names.len();
    names.dedup();
    assert_eq!(names.len(), count, "no author twice");
    created.sort();
    names.sort();
    assert_eq!(names, created, "every author anyone made is there, once");

    // Every content item agrees everywhere, once.
    let on_central = stories(&central);
    for replica in &replicas {
        assert_eq!(stories(replica), on_central, "a replica agrees on content");
    }
    let mut titles: Vec<&String> = on_central.keys().collect();
    titles.dedup();
    assert_eq!(titles.len(), on_central.len());
    // Every acknowledged edit is the current text, a version (on the central
    // server or on the side that made it) or a listed conflict.
    let conflicts: Vec<String> = replicas
        .iter()
        .flat_map(|replica| {
            let listed = replica.get("/v3/sync/conflicts").expect(200).body;
            listed["items"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .flat_map(|c| [c["mine"].to_string(), c["theirs"].to_string()])
        })
        .collect();
    let sides = [&replicas[0], &replicas[1], &central];
    for (side, title, text) in &acknowledged {
        let kept = on_central.get(title) == Some(text)
            || history(&central, title).contains(text)
            || history(sides[*side], title).contains(text)
            || conflicts.iter().any(|c| c.contains(text.as_str()));
        assert!(
            kept,
            "the edit \"{text}\" of {title} made on side {side} is lost"
        );
    }
}
