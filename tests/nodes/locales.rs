//! A PostgreSQL database made in any locale (a plain `createdb`, or en_US.UTF-8 as managed services make them) sorts and folds text as SQLite does.

use copydesk_tests::TestServer;
use serde_json::json;

/// Names whose order differs between byte order and a language's: case,
/// punctuation, an accent.
const NAMES: [&str; 6] = ["apple", "Banana", "éclair", "Zebra", "a-b", "ab"];

/// The tags' names as `GET /v3/tag?order=name` lists them.
fn tags_by_name(server: &TestServer) -> Vec<String> {
    for name in NAMES {
        server.post("/v3/tag", &json!({ "name": name })).expect(200);
    }
    let listed = server
        .get("/v3/tag?order=name&dir=asc&per_page=50")
        .expect(200)
        .body;
    listed["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|tag| tag["name"].as_str().map(str::to_owned))
        .collect()
}

/// What the server finds for a story list filtered by tag `name`.
fn found_by_tag(server: &TestServer, name: &str) -> u16 {
    server
        .get(&format!("/v3/content?tag={}", urlencode(name)))
        .status
        .as_u16()
}

fn urlencode(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// The same lists and look-ups on `server` as on SQLite.
fn sorts_and_folds_as_sqlite(server: &TestServer, sqlite: &[String]) {
    let listed = tags_by_name(server);
    assert_eq!(listed, sqlite, "byte order, as SQLite lists them");
    // ASCII letters fold, others do not, as SQLite's lower().
    assert_eq!(found_by_tag(server, "APPLE"), 200);
    assert_eq!(found_by_tag(server, "éCLAIR"), 200, "the tag named éclair");
    assert_eq!(found_by_tag(server, "ÉCLAIR"), 404, "no fold of É to é");
}

#[test]
fn a_database_made_in_any_locale_sorts_and_folds_text_as_sqlite_does() {
    let sqlite = tags_by_name(&TestServer::start_replica());
    let mut expected: Vec<String> = NAMES.iter().map(|n| (*n).to_owned()).collect();
    expected.sort();
    assert_eq!(sqlite, expected, "SQLite lists in byte order");
    let cluster = copydesk_tests::postgres::cluster();
    for (name, locale) in [
        ("copydesk_locale_plain", None),
        ("copydesk_locale_en_us", Some("en_US.UTF-8")),
        // A database made as before (the C locale) keeps working once migrated.
        ("copydesk_locale_c", Some("C")),
    ] {
        match locale {
            None => cluster.create_database(name),
            Some(locale) => cluster.create_database_in_locale(name, locale),
        }
        .unwrap_or_else(|err| panic!("a database in {locale:?} (setup makes en_US.UTF-8): {err}"));
        let server = TestServer::start_on_database(&cluster.url(name));
        sorts_and_folds_as_sqlite(&server, &sqlite);
    }
}

#[test]
fn every_text_column_has_the_c_collation() {
    let url = copydesk_tests::postgres::fresh_database();
    let _server = TestServer::start_on_database(&url);
    let output = std::process::Command::new("/usr/lib/postgresql/15/bin/psql")
        .args([
            url.as_str(),
            "-qAtc",
            "SELECT c.relname || '.' || a.attname FROM pg_attribute a
             JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND a.attnum > 0
               AND NOT a.attisdropped AND a.attcollation <> 0
               AND a.attcollation <> 'pg_catalog.\"C\"'::regcollation ORDER BY 1",
        ])
        .output()
        .expect("psql runs");
    assert!(output.status.success(), "{output:?}");
    let others = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        others.trim(),
        "",
        "text columns without COLLATE \"C\" (a migration that adds one must say it)"
    );
}
