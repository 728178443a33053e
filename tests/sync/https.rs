//! Sync with a central server behind HTTPS, as a newsroom serves it to
//! laptops outside its building: the replica trusts what the system trusts
//! (or `SSL_CERT_FILE`), and a certificate it does not trust is refused in
//! words while the offline work waits, pending, for the next round.

use std::path::Path;

use copydesk_tests::tls::TlsFront;
use copydesk_tests::{KeyPair, TestServer};

/// `copydesk-server sync` of `replica` with `remote`, trusting the
/// authorities in `trusted` only (`SSL_CERT_FILE`).
fn sync_trusting(
    replica: &TestServer,
    remote: &str,
    key: &KeyPair,
    trusted: &Path,
) -> (bool, String) {
    copydesk_tests::run_sync(
        copydesk_tests::sync_command(replica, remote, key)
            .env("SSL_CERT_FILE", trusted)
            .env_remove("SSL_CERT_DIR"),
    )
}

#[test]
fn a_replica_syncs_over_https_with_a_server_it_trusts_and_refuses_one_it_does_not() {
    let central = TestServer::start();
    let front = TlsFront::start(&central.base);
    let replica = TestServer::start_replica();
    let key = central.key("laptop", &["editor"], &[]);
    replica
        .post("/v3/author", &serde_json::json!({"name": "Ann Abroad"}))
        .expect(200);

    // No server at all (another laptop, as a replica keeps one remote):
    // offline, for a reason that passes by itself.
    let elsewhere = TestServer::start_replica();
    let (ok, _) = copydesk_tests::run_sync(&mut copydesk_tests::sync_command(
        &elsewhere,
        "http://127.0.0.1:1",
        &key,
    ));
    assert!(!ok, "nothing listens there");
    let status = elsewhere.get("/v3/sync/status").expect(200).body;
    assert_eq!(status["online"], false, "{status}");
    assert_eq!(status["certificate_untrusted"], false, "{status}");
    assert!(
        status["offline_reason"]
            .as_str()
            .is_some_and(|why| why.contains("Connection refused")),
        "the status says why: {status}"
    );

    // An authority the replica was not told to trust: refused, nothing lost.
    let stranger = TlsFront::start(&central.base);
    let (ok, out) = sync_trusting(&replica, &front.base, &key, &stranger.authority_file);
    assert!(
        !ok,
        "a certificate from an unknown authority was taken: {out}"
    );
    assert!(
        out.lines()
            .any(|line| line.starts_with("Error:") && line.contains("invalid peer certificate")),
        "the refusal names the certificate: {out}"
    );
    let status = replica.get("/v3/sync/status").expect(200).body;
    assert_eq!(status["pending"], "1", "the offline work waits: {status}");
    assert_eq!(status["online"], false, "{status}");
    assert_eq!(
        status["certificate_untrusted"], true,
        "the status tells a certificate from an outage: {status}"
    );
    assert!(
        status["offline_reason"]
            .as_str()
            .is_some_and(|why| why.contains("invalid peer certificate")),
        "{status}"
    );
    let central_authors = central.get("/v3/author").expect(200).body;
    assert_eq!(central_authors["items"].as_array().map(Vec::len), Some(0));

    // The newsroom's authority: the work reaches the central server.
    let (ok, out) = sync_trusting(&replica, &front.base, &key, &front.authority_file);
    assert!(ok, "{out}");
    assert!(out.contains("pushed 1"), "{out}");
    let central_authors = central.get("/v3/author").expect(200).body;
    assert_eq!(central_authors["items"][0]["name"], "Ann Abroad");
    let status = replica.get("/v3/sync/status").expect(200).body;
    assert_eq!(status["pending"], "0");
    assert_eq!(status["online"], true, "{status}");
    assert_eq!(status["certificate_untrusted"], false, "{status}");
    assert_eq!(
        status["offline_reason"],
        serde_json::Value::Null,
        "{status}"
    );
}
