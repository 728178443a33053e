//! An HTTPS front for a test server, as a newsroom's proxy terminates TLS
//! before `copydesk-server`: a certificate authority of its own (the file a
//! client is told to trust), a certificate for `localhost` signed by it,
//! and a loopback port that decrypts and relays each connection.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A running HTTPS front; it stops when dropped.
pub struct TlsFront {
    /// `https://localhost:PORT`.
    pub base: String,
    /// The PEM file of the authority that signed the front's certificate.
    pub authority_file: PathBuf,
    _dir: tempfile::TempDir,
    _runtime: tokio::runtime::Runtime,
}

impl TlsFront {
    /// Serves HTTPS on a free loopback port, relaying to the plain HTTP
    /// server at `backend` (`http://127.0.0.1:PORT`).
    pub fn start(backend: &str) -> Self {
        let backend: SocketAddr = backend
            .trim_start_matches("http://")
            .parse()
            .expect("a loopback address");
        let issued = issue(&["localhost", "127.0.0.1"]);
        let dir = tempfile::tempdir().expect("a temporary directory");
        let authority_file = dir.path().join("newsroom-ca.pem");
        std::fs::write(&authority_file, &issued.authority_pem).expect("writes the authority");
        let config = ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(issued.chain, issued.key)
            .expect("a server certificate");
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("a free port");
        let port = listener.local_addr().expect("its address").port();
        runtime.spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let Ok(mut client) = acceptor.accept(client).await else {
                        return;
                    };
                    let Ok(mut server) = tokio::net::TcpStream::connect(backend).await else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                });
            }
        });
        Self {
            base: format!("https://localhost:{port}"),
            authority_file,
            _dir: dir,
            _runtime: runtime,
        }
    }
}

/// A certificate authority of its own and a certificate it signed.
pub struct Issued {
    /// The authority's certificate, PEM: the file a client is told to trust.
    pub authority_pem: String,
    /// The certificate it signed, PEM.
    pub certificate_pem: String,
    /// That certificate's private key, PEM (PKCS #8).
    pub key_pem: String,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    authority: rcgen::CertifiedIssuer<'static, KeyPair>,
}

impl Issued {
    /// A client certificate for the PostgreSQL user `user` (its common
    /// name, which pg_hba's `cert` method compares with the user), signed
    /// by this authority: the certificate and its key, PEM.
    pub fn client_certificate(&self, user: &str) -> (String, String) {
        let key = KeyPair::generate().expect("a key");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("no names");
        params.distinguished_name.push(DnType::CommonName, user);
        let certificate = params
            .signed_by(&key, &self.authority)
            .expect("a client certificate");
        (certificate.pem(), key.serialize_pem())
    }
}

/// A new authority and a certificate for `names` (host names or IP
/// addresses) that it signed.
pub fn issue(names: &[&str]) -> Issued {
    let authority_key = KeyPair::generate().expect("a key");
    let mut authority = CertificateParams::default();
    authority
        .distinguished_name
        .push(DnType::CommonName, "Newsroom test authority");
    authority.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    authority.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let authority =
        rcgen::CertifiedIssuer::self_signed(authority, authority_key).expect("an authority");
    let server_key = KeyPair::generate().expect("a key");
    let server = CertificateParams::new(
        names
            .iter()
            .map(|name| (*name).to_owned())
            .collect::<Vec<_>>(),
    )
    .expect("names")
    .signed_by(&server_key, &authority)
    .expect("a server certificate");
    Issued {
        authority_pem: authority.pem(),
        certificate_pem: server.pem(),
        key_pem: server_key.serialize_pem(),
        chain: vec![server.der().clone(), authority.der().clone()],
        key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(server_key.serialize_der())),
        authority,
    }
}
