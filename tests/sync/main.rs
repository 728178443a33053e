//! The typed remote client against real servers: a Copydesk server, a plain one, and none at all.

use copydesk_sync::{Remote, RemoteKey, SyncError};
use copydesk_tests::{KeyPair, TestServer};
use copydesk_wire as wire;

fn remote_for(server: &TestServer, key: &KeyPair) -> Remote {
    Remote::new(
        &server.base,
        RemoteKey {
            public_key: key.public_key.clone(),
            private_key: key.private_key.clone(),
        },
    )
    .expect("a client")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

fn article(title: &str) -> wire::ContentBody {
    wire::ContentBody {
        title: Some(title.to_owned()),
        content_type: Some("article".to_owned()),
        content: Some("<p>Filed from the road</p>".to_owned()),
        ..wire::ContentBody::default()
    }
}

#[test]
fn speaks_to_a_copydesk_server() {
    let server = TestServer::start();
    let remote = remote_for(&server, &server.admin);
    runtime().block_on(async {
        assert!(remote.capabilities().await.expect("answers").change_feed);
        let created = remote
            .create_content(&article("Offline story"), "outbox-1")
            .await
            .expect("created");
        let repeated = remote
            .create_content(&article("Offline story"), "outbox-1")
            .await
            .expect("replayed");
        assert_eq!(
            created.uuid, repeated.uuid,
            "a retried create makes nothing twice"
        );
        let read = remote.content(&created.uuid).await.expect("read");
        assert_eq!(read, created);
        let mut edit = article("Offline story, edited");
        edit.content = None;
        let updated = remote
            .update_content(&created.uuid, &edit, "outbox-2")
            .await
            .expect("updated");
        assert_eq!(updated.version, "2");
        let feed = remote.changes(0, 100).await.expect("the feed");
        assert!(feed.items.iter().any(|c| c.record_type == "content"
            && c.uuid == created.uuid
            && c.operation == "update"));
        let page = remote.content_page(1, 10).await.expect("a page");
        assert_eq!(page.total_items, 1);
    });
    assert_eq!(server.get("/v3/content").expect(200).body["total_items"], 1);
}

#[test]
fn tells_refusals_from_passing_failures() {
    let server = TestServer::start();
    let remote = remote_for(&server, &server.admin);
    runtime().block_on(async {
        let missing = remote.content("00000000-0000-4000-8000-000000000000").await.expect_err("unknown");
        assert_eq!(missing.code(), Some("not_found"));
        assert!(!missing.is_transient());
        let invalid = remote.create_content(&wire::ContentBody::default(), "k-invalid").await.expect_err("no title");
        assert!(matches!(&invalid, SyncError::Remote { status: 400, field: Some(f), .. } if f == "title"), "{invalid:?}");
        assert!(!invalid.is_transient());
    });
    // A key the server does not know is refused, not retried.
    let mut forged = server.admin.clone();
    forged.private_key = "0".repeat(64);
    let refused = runtime()
        .block_on(remote_for(&server, &forged).content_page(1, 1))
        .expect_err("refused");
    assert_eq!(refused.code(), Some("token_invalid"));
    assert!(!refused.is_transient());
    // A user without the action is told which one.
    let reader = server.key("rita", &["reader"], &[]);
    let denied = runtime()
        .block_on(remote_for(&server, &reader).create_content(&article("x"), "k-denied"))
        .expect_err("denied");
    assert!(
        matches!(&denied, SyncError::Remote { status: 401, message, .. } if message.contains("CONTENT create"))
    );
}

#[test]
fn no_server_is_a_passing_failure() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("an address").port()
    };
    let remote = Remote::new(
        &format!("http://127.0.0.1:{port}"),
        RemoteKey {
            public_key: "p".into(),
            private_key: "s".into(),
        },
    )
    .expect("a client");
    let err = runtime()
        .block_on(remote.capabilities())
        .expect_err("nobody listens");
    assert!(matches!(err, SyncError::Unreachable(_)), "{err:?}");
    assert!(err.is_transient());
}

#[test]
fn a_plain_remote_offers_no_extensions() {
    let server = TestServer::start_with(&["--plain"]);
    let remote = remote_for(&server, &server.admin);
    runtime().block_on(async {
        assert!(!remote.capabilities().await.expect("answers").change_feed);
        // Without idempotency keys a repeated create makes two records: the
        // engine must look for what a lost create made before repeating it.
        remote
            .create_content(&article("Twice"), "ignored")
            .await
            .expect("created");
        remote
            .create_content(&article("Twice"), "ignored")
            .await
            .expect("created again");
        assert_eq!(
            remote
                .content_page(1, 10)
                .await
                .expect("a page")
                .total_items,
            2
        );
    });
}
