//! A node reaches PostgreSQL over TLS as libpq's `sslmode` asks, on a real
//! cluster with `ssl = on` and a certificate its own authority signed:
//! encrypted when asked, verified when asked, refused in words when the
//! certificate is not the one the URL trusts.

use std::path::{Path, PathBuf};
use std::process::Command;

use copydesk_tests::postgres::Cluster;
use copydesk_tests::tls::issue;
use copydesk_tests::{TestServer, server_binary};
use serde_json::json;

/// A cluster serving TLS with a certificate for `localhost` only, the file
/// of the authority that signed it, and that of an unrelated authority.
struct TlsCluster {
    cluster: Cluster,
    authority: PathBuf,
    other_authority: PathBuf,
    databases: std::cell::Cell<usize>,
    _files: tempfile::TempDir,
}

impl TlsCluster {
    fn start() -> Self {
        let issued = issue(&["localhost"]);
        let files = tempfile::tempdir().expect("a temporary directory");
        let dir = files.path();
        let write = |name: &str, text: &str| -> PathBuf {
            let path = dir.join(name);
            std::fs::write(&path, text).expect("writes a certificate file");
            path
        };
        let certificate = write("server.crt", &issued.certificate_pem);
        let key = write("server.key", &issued.key_pem);
        let authority = write("newsroom-ca.pem", &issued.authority_pem);
        let other_authority = write("other-ca.pem", &issue(&["localhost"]).authority_pem);
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))
            .expect("the key is private");
        // PostgreSQL runs as `postgres` when the tests run as root.
        for path in [dir, key.as_path(), certificate.as_path()] {
            let _ = Command::new("chown").arg("postgres").arg(path).status();
        }
        let cluster = Cluster::start(&[
            "ssl=on",
            &format!("ssl_cert_file={}", certificate.display()),
            &format!("ssl_key_file={}", key.display()),
        ])
        .expect("a cluster serving TLS starts");
        Self {
            cluster,
            authority,
            other_authority,
            databases: std::cell::Cell::new(0),
            _files: files,
        }
    }

    /// A fresh database; its name.
    fn database(&self) -> String {
        let name = format!("tls_{}_{}", std::process::id(), self.databases.get());
        self.databases.set(self.databases.get() + 1);
        self.cluster.create_database(&name).expect("a database");
        name
    }

    /// A key-value URL for `database` on `host` with the given TLS settings.
    fn url(&self, host: &str, database: &str, tls: &str) -> String {
        format!(
            "host={host} port={} user=postgres dbname={database} {tls}",
            self.cluster.port
        )
    }

    /// How many of the connections to `database` are encrypted, and how
    /// many there are.
    fn encrypted_connections(&self, database: &str) -> (u32, u32) {
        let counts = self
            .cluster
            .sql(&format!(
                "SELECT count(*) FILTER (WHERE s.ssl), count(*) FROM pg_stat_ssl s \
                 JOIN pg_stat_activity a USING (pid) WHERE a.datname = '{database}'"
            ))
            .expect("pg_stat_ssl reads");
        let (encrypted, all) = counts.split_once('|').expect("two counts");
        (
            encrypted.parse().expect("a count"),
            all.parse().expect("a count"),
        )
    }
}

/// `copydesk-server key create` on `url`: whether it connected, and what
/// it printed on standard error.
fn key_create(url: &str) -> (bool, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let output = Command::new(server_binary())
        .args(["key", "create", "--json", "--name", "probe", "--data"])
        .arg(dir.path())
        .args(["--database", url])
        .output()
        .expect("key create runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn file(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn a_node_that_verifies_the_certificate_talks_to_postgres_encrypted() {
    let tls = TlsCluster::start();
    let database = tls.database();
    let url = tls.url(
        "localhost",
        &database,
        &format!("sslmode=verify-full sslrootcert={}", file(&tls.authority)),
    );
    let node = TestServer::start_on_database(&url);
    let story = node
        .post(
            "/v3/content",
            &json!({"title": "Over TLS", "type": "article"}),
        )
        .expect(200)
        .body;
    let uuid = story["uuid"].as_str().expect("uuid");
    node.get(&format!("/v3/content/{uuid}")).expect(200);
    let (encrypted, all) = tls.encrypted_connections(&database);
    assert!(all >= 1, "the node holds a connection");
    assert_eq!(encrypted, all, "every connection of the node is encrypted");

    // verify-ca trusts the chain and does not compare the name: the
    // certificate is for localhost, the URL says 127.0.0.1.
    let (connected, said) = key_create(&tls.url(
        "127.0.0.1",
        &database,
        &format!("sslmode=verify-ca sslrootcert={}", file(&tls.authority)),
    ));
    assert!(connected, "verify-ca connects: {said}");
}

#[test]
fn a_certificate_the_url_does_not_trust_is_refused_in_words() {
    let tls = TlsCluster::start();
    let database = tls.database();
    let (connected, said) = key_create(&tls.url(
        "localhost",
        &database,
        &format!(
            "sslmode=verify-full sslrootcert={}",
            file(&tls.other_authority)
        ),
    ));
    assert!(!connected, "another authority's file does not vouch for it");
    assert!(
        said.contains("the connection to PostgreSQL failed")
            && said.contains("invalid peer certificate"),
        "the refusal names the certificate: {said}"
    );
    let (connected, said) = key_create(&tls.url(
        "127.0.0.1",
        &database,
        &format!("sslmode=verify-full sslrootcert={}", file(&tls.authority)),
    ));
    assert!(
        !connected,
        "a certificate for localhost is not one for 127.0.0.1"
    );
    assert!(
        said.contains("certificate not valid for name \"127.0.0.1\""),
        "the refusal names the mismatch: {said}"
    );
    let (connected, said) = key_create(&tls.url("localhost", &database, "sslmode=verify-full"));
    assert!(!connected, "verify-full with no authority at all");
    assert!(said.contains("sslrootcert"), "it says what to give: {said}");
}

#[test]
fn require_encrypts_without_verifying_and_disable_does_not_encrypt() {
    let tls = TlsCluster::start();
    let required = tls.database();
    let node = TestServer::start_on_database(&tls.url("127.0.0.1", &required, "sslmode=require"));
    node.post(
        "/v3/content",
        &json!({"title": "Encrypted, unverified", "type": "article"}),
    )
    .expect(200);
    let (encrypted, all) = tls.encrypted_connections(&required);
    assert!(
        all >= 1 && encrypted == all,
        "{encrypted} of {all} encrypted"
    );

    let plain = tls.database();
    let node = TestServer::start_on_database(&tls.url("127.0.0.1", &plain, "sslmode=disable"));
    node.post(
        "/v3/content",
        &json!({"title": "In the clear", "type": "article"}),
    )
    .expect(200);
    let (encrypted, all) = tls.encrypted_connections(&plain);
    assert!(all >= 1 && encrypted == 0, "{encrypted} of {all} encrypted");
}
