//! Signing in a person can do: a password set with `user password` (piped)
//! or a link printed by `user link` becomes a key pair that works like any
//! other, wrong passwords are refused in words, links work once, and
//! repeated failures are held off with 429.

use std::io::Write as _;
use std::process::Stdio;

use copydesk_tests::{KeyPair, Reply, TestServer};
use reqwest::Method;
use serde_json::{Value, json};

/// Runs `copydesk-server user password NAME`, the password piped in.
fn set_password(server: &TestServer, name: &str, password: &str) {
    let mut child = copydesk_tests::server_command()
        .args(["user", "password", name, "--data"])
        .arg(server.dir.path())
        .args(copydesk_tests::database_args(server.dir.path()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("user password runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(format!("{password}\n").as_bytes())
        .expect("the password is piped");
    let output = child.wait_with_output().expect("user password ends");
    assert!(
        output.status.success(),
        "user password failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs `copydesk-server user link NAME --base BASE` and returns the link.
fn link(server: &TestServer, name: &str) -> String {
    let output = copydesk_tests::server_command()
        .args(["user", "link", name, "--base", &server.base, "--data"])
        .arg(server.dir.path())
        .args(copydesk_tests::database_args(server.dir.path()))
        .output()
        .expect("user link runs");
    assert!(
        output.status.success(),
        "user link failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .trim()
        .to_owned()
}

fn sign_in(server: &TestServer, body: &Value) -> Reply {
    server.call(Method::POST, "/v3/sign-in", None, Some(body))
}

fn key_of(reply: &Reply) -> KeyPair {
    KeyPair {
        user_uuid: reply.body["user"]["uuid"]
            .as_str()
            .expect("a user")
            .to_owned(),
        public_key: reply.body["public_key"]
            .as_str()
            .expect("a public key")
            .to_owned(),
        private_key: reply.body["private_key"]
            .as_str()
            .expect("a private key")
            .to_owned(),
    }
}

fn me(server: &TestServer, key: &KeyPair) -> Reply {
    server.call(Method::GET, "/v3/me", Some(&key.token()), None)
}

#[test]
fn a_password_set_on_the_command_line_signs_in_and_its_key_works() {
    let server = TestServer::start();
    let ana = server.key("ana", &["journalist"], &[]);
    set_password(&server, "ana", "correct horse battery");

    let reply = sign_in(
        &server,
        &json!({"name": "ana", "password": "correct horse battery"}),
    )
    .expect(200);
    assert_eq!(reply.body["user"]["name"], "ana");
    assert_eq!(reply.body["user"]["uuid"], ana.user_uuid.as_str());
    assert!(
        reply.body["label"]
            .as_str()
            .is_some_and(|label| label.starts_with("browser sign-in "))
    );
    let browser = key_of(&reply);
    assert_ne!(browser.public_key, ana.public_key);
    let who = me(&server, &browser).expect(200);
    assert_eq!(who.body["user"]["name"], "ana");
    assert_eq!(who.body["roles"], json!(["journalist"]));

    // Listed under the user, and revocable like any key pair.
    let listed = copydesk_tests::server_command()
        .args(["key", "list", "--name", "ana", "--data"])
        .arg(server.dir.path())
        .args(copydesk_tests::database_args(server.dir.path()))
        .output()
        .expect("key list runs");
    let listed = String::from_utf8(listed.stdout).expect("UTF-8");
    assert!(listed.contains(&browser.public_key), "{listed}");
    assert!(listed.contains("browser sign-in"), "{listed}");
    server.revoke(&browser);
    me(&server, &browser).expect_error(403, "token_invalid");
    me(&server, &ana).expect(200);
}

#[test]
fn a_wrong_password_is_refused_in_words_whether_or_not_the_name_exists() {
    let server = TestServer::start();
    server.key("bo", &["reader"], &[]);
    set_password(&server, "bo", "the right one");
    let wrong = sign_in(&server, &json!({"name": "bo", "password": "the wrong one"}))
        .expect_error(401, "sign_in_refused");
    assert_eq!(wrong.message(), "That name and password do not match.");
    let nobody = sign_in(
        &server,
        &json!({"name": "nobody", "password": "the wrong one"}),
    )
    .expect_error(401, "sign_in_refused");
    assert_eq!(nobody.message(), wrong.message());
    // A user without a password cannot sign in with one.
    server.key("cy", &["reader"], &[]);
    sign_in(&server, &json!({"name": "cy", "password": ""})).expect_error(400, "invalid_request");
    sign_in(
        &server,
        &json!({"name": "cy", "password": "anything at all"}),
    )
    .expect_error(401, "sign_in_refused");
}

#[test]
fn a_link_signs_in_once() {
    let server = TestServer::start();
    server.key("dee", &["editor"], &[]);
    let link = link(&server, "dee");
    let prefix = format!("{}/#/sign-in/", server.base);
    let token = link
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{link} does not start with {prefix}"));
    assert_eq!(token.len(), 43, "32 bytes, URL-safe base64: {token}");
    assert!(
        token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    );

    let reply = sign_in(&server, &json!({"link": token})).expect(200);
    assert_eq!(reply.body["user"]["name"], "dee");
    me(&server, &key_of(&reply)).expect(200);

    let again = sign_in(&server, &json!({"link": token})).expect_error(401, "sign_in_refused");
    assert!(again.message().contains("used already"), "{}", again.body);
    let unknown =
        sign_in(&server, &json!({"link": "not-a-link"})).expect_error(401, "sign_in_refused");
    assert!(unknown.message().contains("not valid"), "{}", unknown.body);
}

#[test]
fn repeated_failures_are_held_off_with_429() {
    let server = TestServer::start();
    server.key("eve", &["reader"], &[]);
    set_password(&server, "eve", "eve's real password");
    for _ in 0..5 {
        sign_in(&server, &json!({"name": "eve", "password": "guess"}))
            .expect_error(401, "sign_in_refused");
    }
    let request = server
        .request(Method::POST, "/v3/sign-in")
        .json(&json!({"name": "eve", "password": "eve's real password"}));
    let response = request.send().expect("answers");
    assert_eq!(response.status().as_u16(), 429);
    let retry_after: u64 = response
        .headers()
        .get("retry-after")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse().ok())
        .expect("a Retry-After in seconds");
    assert!((1..=900).contains(&retry_after), "{retry_after}");
    let body: Value = response.json().expect("JSON");
    assert_eq!(body["code"], "too_many_requests");

    // The address is held off too, after 20 failures over any names.
    for n in 0..15 {
        sign_in(
            &server,
            &json!({"name": format!("someone{n}"), "password": "guess"}),
        )
        .expect_error(401, "sign_in_refused");
    }
    sign_in(&server, &json!({"name": "fresh", "password": "guess"}))
        .expect_error(429, "too_many_requests");
    sign_in(&server, &json!({"link": "anything"})).expect_error(429, "too_many_requests");
}

/// A failed sign-in, sent as though through a proxy that forwards `from`.
fn fail_from(server: &TestServer, from: &str, name: &str) -> Reply {
    server.send(
        server
            .request(Method::POST, "/v3/sign-in")
            .header("x-forwarded-for", from)
            .json(&json!({"name": name, "password": "guess"})),
    )
}

#[test]
fn behind_a_trusted_proxy_each_client_address_is_held_off_on_its_own() {
    // The tests reach the server from 127.0.0.1, here the newsroom's proxy.
    let server = TestServer::start_with(&["--trusted-proxy", "127.0.0.1"]);
    server.key("ann", &["reader"], &[]);
    set_password(&server, "ann", "ann's real password");
    for n in 0..20 {
        fail_from(&server, "198.51.100.7", &format!("someone{n}"))
            .expect_error(401, "sign_in_refused");
    }
    fail_from(&server, "198.51.100.7", "fresh").expect_error(429, "too_many_requests");
    // What the client wrote in the header itself, left of what the proxy
    // added, does not get it out.
    fail_from(&server, "192.0.2.1, 198.51.100.7", "fresh").expect_error(429, "too_many_requests");
    // Another journalist behind the same proxy still signs in.
    let signed_in = server.send(
        server
            .request(Method::POST, "/v3/sign-in")
            .header("x-forwarded-for", "198.51.100.8")
            .json(&json!({"name": "ann", "password": "ann's real password"})),
    );
    assert_eq!(signed_in.status, 200, "{}", signed_in.body);
}

#[test]
fn without_a_trusted_proxy_a_forwarded_address_is_not_believed() {
    let server = TestServer::start();
    // Each guess claims another address: all are counted against the peer.
    for n in 0..20 {
        fail_from(&server, &format!("198.51.100.{n}"), &format!("someone{n}"))
            .expect_error(401, "sign_in_refused");
    }
    fail_from(&server, "198.51.100.200", "fresh").expect_error(429, "too_many_requests");
}

#[test]
fn a_burst_of_guesses_is_held_to_the_limit_and_the_right_one_is_not_told_apart() {
    let server = TestServer::start();
    server.key("mal", &["reader"], &[]);
    set_password(&server, "mal", "mal's real password");
    // Twelve guesses at once, the right one among them: each is counted before
    // its password is checked, so at most five get an answer about the password.
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let guesses: Vec<_> = (0..12)
            .map(|n| {
                let server = &server;
                scope.spawn(move || {
                    let password = if n == 11 {
                        "mal's real password".to_owned()
                    } else {
                        format!("guess {n}")
                    };
                    server
                        .request(Method::POST, "/v3/sign-in")
                        .json(&json!({"name": "mal", "password": password}))
                        .send()
                        .expect("answers")
                        .status()
                        .as_u16()
                })
            })
            .collect();
        guesses
            .into_iter()
            .map(|g| g.join().expect("a guess"))
            .collect()
    });
    let answered = statuses.iter().filter(|s| **s != 429).count();
    assert!(
        answered <= 5,
        "only five attempts are weighed: {statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| [200, 401, 429].contains(s)),
        "{statuses:?}"
    );
}

#[test]
fn signing_out_revokes_the_browsers_key_and_its_copies_are_refused() {
    let server = TestServer::start();
    let fay = server.key("fay", &["journalist"], &[]);
    set_password(&server, "fay", "fay's long password");
    let browser = key_of(
        &sign_in(
            &server,
            &json!({"name": "fay", "password": "fay's long password"}),
        )
        .expect(200),
    );
    // A token made before signing out, as a copy of the key would make it.
    let copied = browser.token();
    server
        .call(Method::GET, "/v3/me", Some(&copied), None)
        .expect(200);

    // Signed with the key itself; no body, or an empty object.
    let out = server
        .call(
            Method::POST,
            "/v3/sign-out",
            Some(&browser.token()),
            Some(&json!({})),
        )
        .expect(200);
    assert_eq!(out.body["revoked"], browser.public_key.as_str());

    // Every token signed with that key, old or new, is refused as the
    // contract refuses an unknown key (403 token_invalid); signing out again
    // with it is refused the same way.
    server
        .call(Method::GET, "/v3/me", Some(&copied), None)
        .expect_error(403, "token_invalid");
    me(&server, &browser).expect_error(403, "token_invalid");
    server
        .call(Method::POST, "/v3/sign-out", Some(&browser.token()), None)
        .expect_error(403, "token_invalid");
    // Without a token there is nothing to sign out.
    server
        .call(Method::POST, "/v3/sign-out", None, None)
        .expect_error(403, "token_missing");
    // The user's other keys are untouched, and the key is gone from the list.
    me(&server, &fay).expect(200);
    let listed = copydesk_tests::server_command()
        .args(["key", "list", "--name", "fay", "--data"])
        .arg(server.dir.path())
        .args(copydesk_tests::database_args(server.dir.path()))
        .output()
        .expect("key list runs");
    let listed = String::from_utf8(listed.stdout).expect("UTF-8");
    assert!(!listed.contains(&browser.public_key), "{listed}");
    assert!(listed.contains(&fay.public_key), "{listed}");
}
