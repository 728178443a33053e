//! A node reaches PostgreSQL over TLS as libpq's `sslmode` asks, on a real
//! cluster with `ssl = on` and a certificate its own authority signed:
//! encrypted when asked, verified when asked, refused in words when the
//! certificate is not the one the URL trusts; showing a certificate of its
//! own where pg_hba asks for one (the `cert` method).

use std::path::{Path, PathBuf};
use std::process::Command;

use copydesk_tests::postgres::Cluster;
use copydesk_tests::tls::{Issued, issue};
use copydesk_tests::{TestServer, server_command};
use serde_json::json;

/// A cluster serving TLS with a certificate for `localhost` only, the file
/// of the authority that signed it, and that of an unrelated authority.
/// The user `reporter` signs in with a client certificate from the same
/// authority, over TLS only; `postgres` is trusted.
struct TlsCluster {
    cluster: Cluster,
    issued: Issued,
    authority: PathBuf,
    other_authority: PathBuf,
    databases: std::cell::Cell<usize>,
    files: tempfile::TempDir,
}

/// Who signs in how: `reporter` only with a certificate over TLS.
const HBA: &str = "local all all trust
hostssl all reporter 127.0.0.1/32 cert
host all reporter 127.0.0.1/32 reject
host all all 127.0.0.1/32 trust
";

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
        let hba = write("pg_hba.conf", HBA);
        let other_authority = write("other-ca.pem", &issue(&["localhost"]).authority_pem);
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))
            .expect("the key is private");
        // PostgreSQL runs as `postgres` when the tests run as root.
        for path in [dir, key.as_path(), certificate.as_path(), hba.as_path()] {
            let _ = Command::new("chown").arg("postgres").arg(path).status();
        }
        let cluster = Cluster::start(&[
            "ssl=on",
            &format!("ssl_cert_file={}", certificate.display()),
            &format!("ssl_key_file={}", key.display()),
            &format!("ssl_ca_file={}", authority.display()),
            &format!("hba_file={}", hba.display()),
        ])
        .expect("a cluster serving TLS starts");
        cluster
            .sql("CREATE ROLE reporter LOGIN SUPERUSER")
            .expect("the role signing in with a certificate");
        Self {
            cluster,
            issued,
            authority,
            other_authority,
            databases: std::cell::Cell::new(0),
            files,
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
        self.url_as("postgres", host, database, tls)
    }

    /// The same, signing in as `user`.
    fn url_as(&self, user: &str, host: &str, database: &str, tls: &str) -> String {
        format!(
            "host={host} port={} user={user} dbname={database} {tls}",
            self.cluster.port
        )
    }

    /// A URL for `reporter` on `database`, verifying the server in full and
    /// showing it `certificate` and `key` when given.
    fn reporter_url(&self, database: &str, certificate: Option<(&Path, &Path)>) -> String {
        let mut tls = format!("sslmode=verify-full sslrootcert={}", file(&self.authority));
        if let Some((certificate, key)) = certificate {
            tls.push_str(&format!(
                " sslcert={} sslkey={}",
                file(certificate),
                file(key)
            ));
        }
        self.url_as("reporter", "localhost", database, &tls)
    }

    /// A client certificate for `user` written to `dir` as `NAME.crt` and
    /// `NAME.key` (the key readable by its owner only): the two files.
    fn client_files(&self, user: &str, dir: &Path, name: &str) -> (PathBuf, PathBuf) {
        use std::os::unix::fs::PermissionsExt as _;
        let (certificate_pem, key_pem) = self.issued.client_certificate(user);
        let certificate = dir.join(format!("{name}.crt"));
        let key = dir.join(format!("{name}.key"));
        std::fs::write(&certificate, certificate_pem).expect("writes the certificate");
        std::fs::write(&key, key_pem).expect("writes the key");
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))
            .expect("the key is private");
        (certificate, key)
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
    key_create_in(url, &[])
}

/// The same, with these environment variables set.
fn key_create_in(url: &str, environment: &[(&str, &Path)]) -> (bool, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let output = server_command()
        .args(["key", "create", "--json", "--name", "probe", "--data"])
        .arg(dir.path())
        .args(["--database", url])
        .envs(environment.iter().copied())
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

#[test]
fn a_node_shows_its_own_certificate_where_postgres_asks_for_one() {
    let tls = TlsCluster::start();
    let database = tls.database();
    let (certificate, key) = tls.client_files("reporter", tls.files.path(), "reporter");
    let url = tls.reporter_url(&database, Some((&certificate, &key)));
    let node = TestServer::start_on_database(&url);
    node.post(
        "/v3/content",
        &json!({"title": "Signed in by certificate", "type": "article"}),
    )
    .expect(200);
    let shown = tls
        .cluster
        .sql(&format!(
            "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) \
             WHERE a.datname = '{database}' AND a.usename = 'reporter' \
             AND s.client_dn = '/CN=reporter'"
        ))
        .expect("pg_stat_ssl reads");
    assert_ne!(shown, "0", "the node's connections show its certificate");

    // Without a certificate, pg_hba refuses the user, in the server's words.
    let (connected, said) = key_create(&tls.reporter_url(&database, None));
    assert!(!connected, "no certificate, no connection");
    assert!(
        said.contains("the connection to PostgreSQL failed") && said.contains("certificate"),
        "the refusal says why: {said}"
    );

    // A certificate for another user is not this user's.
    let (editor_certificate, editor_key) = tls.client_files("editor", tls.files.path(), "editor");
    let (connected, said) =
        key_create(&tls.reporter_url(&database, Some((&editor_certificate, &editor_key))));
    assert!(
        !connected,
        "editor's certificate does not sign in reporter: {said}"
    );

    // Another certificate's key is refused before anything is sent.
    let (connected, said) =
        key_create(&tls.reporter_url(&database, Some((&certificate, &editor_key))));
    assert!(!connected, "a key that is not the certificate's");
    assert!(said.contains("do not make a client certificate"), "{said}");

    // So is a key others may read.
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let (connected, said) = key_create(&url);
    assert!(!connected, "a key others may read");
    assert!(said.contains("group or world access"), "{said}");
}

#[test]
fn the_environment_and_the_home_directory_supply_what_the_url_leaves_out() {
    let tls = TlsCluster::start();
    let database = tls.database();
    let home = tempfile::tempdir().expect("a home directory");
    let dot = home.path().join(".postgresql");
    std::fs::create_dir(&dot).expect("~/.postgresql");
    std::fs::copy(&tls.authority, dot.join("root.crt")).expect("~/.postgresql/root.crt");
    tls.client_files("reporter", &dot, "postgresql");
    let bare = tls.url_as("reporter", "localhost", &database, "");
    let (connected, said) = key_create_in(
        &bare,
        &[
            ("HOME", home.path()),
            ("PGSSLMODE", Path::new("verify-full")),
        ],
    );
    assert!(connected, "libpq's files in HOME and PGSSLMODE: {said}");

    // PGSSLROOTCERT is read too: another authority's file fails the check.
    let (connected, said) = key_create_in(
        &bare,
        &[
            ("HOME", home.path()),
            ("PGSSLMODE", Path::new("verify-full")),
            ("PGSSLROOTCERT", &tls.other_authority),
        ],
    );
    assert!(
        !connected,
        "PGSSLROOTCERT names an authority that did not sign it"
    );
    assert!(said.contains("invalid peer certificate"), "{said}");

    // PGSSLCERT and PGSSLKEY name the files; the URL's own settings win.
    let elsewhere = tempfile::tempdir().expect("a directory");
    let (certificate, key) = tls.client_files("reporter", elsewhere.path(), "node");
    let (connected, said) = key_create_in(
        &tls.url_as("reporter", "localhost", &database, "sslmode=require"),
        &[
            ("HOME", elsewhere.path()),
            ("PGSSLMODE", Path::new("disable")),
            ("PGSSLCERT", &certificate),
            ("PGSSLKEY", &key),
        ],
    );
    assert!(
        connected,
        "PGSSLCERT and PGSSLKEY, with the URL's sslmode: {said}"
    );
}
