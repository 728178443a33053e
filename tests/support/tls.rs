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
        let (authority_pem, chain, key) = certificates();
        let dir = tempfile::tempdir().expect("a temporary directory");
        let authority_file = dir.path().join("newsroom-ca.pem");
        std::fs::write(&authority_file, authority_pem).expect("writes the authority");
        let config = ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(chain, key)
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

/// A new authority (its PEM) and a certificate for `localhost` and
/// 127.0.0.1 that it signed, with that certificate's key.
fn certificates() -> (String, Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) {
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
    let server = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
        .expect("names")
        .signed_by(&server_key, &authority)
        .expect("a server certificate");
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(server_key.serialize_der()));
    (
        authority.pem(),
        vec![server.der().clone(), authority.der().clone()],
        key,
    )
}
