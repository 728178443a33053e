//! How a node reaches PostgreSQL over TLS: libpq's `sslmode` and
//! `sslrootcert`, which rust-postgres does not read (it knows no
//! `verify-ca` or `verify-full` and verifies nothing itself), taken out of
//! the database URL and turned into a rustls client configuration.
//!
//! The modes mean what they mean to libpq, so a URL that works with `psql`
//! works here:
//! - `disable`: no TLS.
//! - `allow`, `prefer` (the default): TLS when the server offers it.
//! - `require`: TLS or no connection.
//! - `verify-ca`: TLS with a certificate signed by a trusted authority.
//! - `verify-full`: that, and issued for the host connected to.
//!
//! Below `verify-ca` the certificate is checked only when a root file is
//! there (`sslrootcert`, or `~/.postgresql/root.crt` as for libpq); then its
//! chain is verified as for `verify-ca`. `sslrootcert=system` trusts the
//! system's authorities and, as in libpq, asks for `verify-full`.
//!
//! A node shows the server a certificate of its own (for pg_hba's `cert`
//! method, or `clientcert=verify-full`) from `sslcert` and `sslkey`, else
//! from `~/.postgresql/postgresql.crt` and `.key` when they are there. The
//! environment's `PGSSLMODE`, `PGSSLROOTCERT`, `PGSSLCERT` and `PGSSLKEY`
//! stand in for what the URL does not say, as they do for libpq.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use percent_encoding::percent_decode_str;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::error::{Result, StoreError};

/// libpq's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SslMode {
    Disable,
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> Result<Self> {
        Ok(match value {
            "disable" => Self::Disable,
            "allow" => Self::Allow,
            "prefer" => Self::Prefer,
            "require" => Self::Require,
            "verify-ca" => Self::VerifyCa,
            "verify-full" => Self::VerifyFull,
            other => {
                return Err(StoreError::invalid(format!(
                    "the database URL's sslmode {other:?} is not one of disable, allow, prefer, \
                     require, verify-ca, verify-full"
                )));
            }
        })
    }
}

/// The TLS settings a database URL asked for, and the URL without them.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TlsRequest {
    /// The URL as rust-postgres reads it: `sslmode` and `sslrootcert` taken out.
    pub rest: String,
    pub mode: Option<SslMode>,
    pub root_certificates: Option<String>,
    /// `sslcert`: the node's own certificate, shown to the server.
    pub certificate: Option<String>,
    /// `sslkey`: that certificate's private key.
    pub key: Option<String>,
}

/// Takes `sslmode`, `sslrootcert`, `sslcert` and `sslkey` (and
/// `sslpassword`, which only an encrypted key would need) out of a libpq URL
/// (`postgres://...?sslmode=...`) or key-value string (`host=... sslmode=...`).
pub(crate) fn take_tls_settings(url: &str) -> Result<TlsRequest> {
    let is_url = url.starts_with("postgres://") || url.starts_with("postgresql://");
    let pairs = if is_url {
        take_from_url(url)?
    } else {
        take_from_key_values(url)?
    };
    let (rest, taken) = pairs;
    let mut request = TlsRequest {
        rest,
        mode: None,
        root_certificates: None,
        certificate: None,
        key: None,
    };
    for (key, value) in taken {
        // As for libpq, an empty file name is no file name.
        let file = || Some(value.clone()).filter(|value| !value.is_empty());
        match key {
            TlsKey::Mode => request.mode = Some(SslMode::parse(&value)?),
            TlsKey::RootCertificates => request.root_certificates = file(),
            TlsKey::Certificate => request.certificate = file(),
            TlsKey::Key => request.key = file(),
            // Only an encrypted key needs it, and those are refused as
            // they are read.
            TlsKey::KeyPassword => {}
        }
    }
    Ok(request)
}

#[derive(Debug, Clone, Copy)]
enum TlsKey {
    Mode,
    RootCertificates,
    Certificate,
    Key,
    KeyPassword,
}

fn tls_key(key: &str) -> Option<TlsKey> {
    match key {
        "sslmode" => Some(TlsKey::Mode),
        "sslrootcert" => Some(TlsKey::RootCertificates),
        "sslcert" => Some(TlsKey::Certificate),
        "sslkey" => Some(TlsKey::Key),
        "sslpassword" => Some(TlsKey::KeyPassword),
        _ => None,
    }
}

/// What a connection reads from its surroundings, as libpq does: the
/// environment's `PG...` settings and `HOME`.
pub(crate) trait Surroundings {
    /// An environment variable's value; none when unset or empty.
    fn var(&self, name: &str) -> Option<String>;
}

/// The process's own environment.
struct ProcessEnvironment;

impl Surroundings for ProcessEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|value| !value.is_empty())
    }
}

impl TlsRequest {
    /// The environment's `PGSSL...` settings where the URL says nothing.
    fn with_defaults(mut self, around: &dyn Surroundings) -> Result<Self> {
        if self.mode.is_none()
            && let Some(mode) = around.var("PGSSLMODE")
        {
            self.mode = Some(SslMode::parse(&mode).map_err(|_| {
                StoreError::invalid(format!(
                    "PGSSLMODE {mode:?} is not one of disable, allow, prefer, require, \
                     verify-ca, verify-full"
                ))
            })?);
        }
        self.root_certificates = self
            .root_certificates
            .or_else(|| around.var("PGSSLROOTCERT"));
        self.certificate = self.certificate.or_else(|| around.var("PGSSLCERT"));
        self.key = self.key.or_else(|| around.var("PGSSLKEY"));
        Ok(self)
    }
}

type Taken = (String, Vec<(TlsKey, String)>);

/// The URL form: the query's `key=value` pairs, percent-encoded.
fn take_from_url(url: &str) -> Result<Taken> {
    // The query starts at the first `?` after the credentials, which end
    // at the first `@`, as rust-postgres reads them: a password may hold a
    // `?` of its own.
    let after_credentials = url.find('@').map_or(0, |at| at + 1);
    let Some(mark) = url[after_credentials..].find('?') else {
        return Ok((url.to_owned(), Vec::new()));
    };
    let (head, query) = (
        &url[..after_credentials + mark],
        &url[after_credentials + mark + 1..],
    );
    let decode = |text: &str| {
        percent_decode_str(text)
            .decode_utf8()
            .map(|text| text.into_owned())
            .map_err(|_| StoreError::invalid("the database URL's query is not UTF-8 text"))
    };
    let mut kept = Vec::new();
    let mut taken = Vec::new();
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match tls_key(&decode(key)?) {
            Some(key) => taken.push((key, decode(value)?)),
            None => kept.push(pair),
        }
    }
    let rest = if kept.is_empty() {
        head.to_owned()
    } else {
        format!("{head}?{}", kept.join("&"))
    };
    Ok((rest, taken))
}

/// The key-value form, read as rust-postgres and libpq read it: `key = value`
/// pairs apart by white space, a value bare or in single quotes, a
/// backslash taking the next character as it is. The pairs kept are
/// written back quoted.
fn take_from_key_values(text: &str) -> Result<Taken> {
    let mut kept = Vec::new();
    let mut taken = Vec::new();
    for (key, value) in key_values(text)? {
        match tls_key(&key) {
            Some(key) => taken.push((key, value)),
            None => kept.push(format!("{key}='{}'", quote(&value))),
        }
    }
    Ok((kept.join(" "), taken))
}

fn quote(value: &str) -> String {
    value.replace('\\', "\\\\").replace('\'', "\\'")
}

/// The pairs of a key-value connection string.
fn key_values(text: &str) -> Result<Vec<(String, String)>> {
    let malformed =
        |why: &str| StoreError::invalid(format!("the database URL does not parse: {why}"));
    let mut chars = text.chars().peekable();
    let mut pairs = Vec::new();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| !c.is_whitespace() && *c != '=') {
            key.push(c);
        }
        if key.is_empty() {
            if chars.peek().is_some() {
                return Err(malformed("a setting has no name before its `=`"));
            }
            return Ok(pairs);
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next() != Some('=') {
            return Err(malformed(&format!("`{key}` has no `=` and value")));
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if_eq(&'\'').is_some() {
            loop {
                match chars.next() {
                    None => return Err(malformed(&format!("`{key}`'s quoted value never ends"))),
                    Some('\'') => break,
                    Some('\\') => value.extend(chars.next()),
                    Some(c) => value.push(c),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                if c == '\\' {
                    value.extend(chars.next());
                } else {
                    value.push(c);
                }
            }
            if value.is_empty() {
                return Err(malformed(&format!("`{key}` has no value")));
            }
        }
        pairs.push((key, value));
    }
}

/// A database URL ready to connect with: rust-postgres's configuration
/// and the TLS connector that enforces its `sslmode`.
pub(crate) struct Connector {
    pub config: postgres::Config,
    pub tls: MakeRustlsConnect,
}

/// Reads a database URL with its TLS settings.
pub(crate) fn connector(url: &str) -> Result<Connector> {
    connector_in(url, &ProcessEnvironment)
}

/// [`connector`], with the environment given.
fn connector_in(url: &str, around: &dyn Surroundings) -> Result<Connector> {
    let request = take_tls_settings(url)?.with_defaults(around)?;
    let home = around.var("HOME").map(PathBuf::from);
    let mut config: postgres::Config = request
        .rest
        .parse()
        .map_err(|err| StoreError::invalid(format!("the database URL does not parse: {err}")))?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let system = request.root_certificates.as_deref() == Some("system");
    let mode = request.mode.unwrap_or(if system {
        SslMode::VerifyFull
    } else {
        SslMode::Prefer
    });
    if system && mode != SslMode::VerifyFull {
        return Err(StoreError::invalid(
            "sslrootcert=system needs sslmode=verify-full (as in libpq): the system's \
             authorities vouch for names, so a certificate is trusted only for its own host",
        ));
    }
    // With only `hostaddr` given, rust-postgres has no name to hand the TLS
    // check: the address is the name, as for libpq.
    if config.get_hosts().is_empty() {
        for address in config.get_hostaddrs().to_vec() {
            config.host(&address.to_string());
        }
    }
    config.ssl_mode(match mode {
        SslMode::Disable => postgres::config::SslMode::Disable,
        SslMode::Allow | SslMode::Prefer => postgres::config::SslMode::Prefer,
        SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => {
            postgres::config::SslMode::Require
        }
    });
    let lenient = |chain| -> Arc<dyn ServerCertVerifier> {
        Arc::new(Lenient {
            chain,
            algorithms: provider.signature_verification_algorithms,
        })
    };
    let verifier: Arc<dyn ServerCertVerifier> = if mode == SslMode::Disable {
        // No TLS: no root file is read.
        lenient(None)
    } else if system {
        Arc::new(
            rustls_platform_verifier::Verifier::new(Arc::clone(&provider)).map_err(|err| {
                StoreError::invalid(format!("the system's authorities do not load: {err}"))
            })?,
        )
    } else {
        let verifies = matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull);
        let root_file = match &request.root_certificates {
            Some(file) => Some(PathBuf::from(file)),
            None => home
                .as_deref()
                .map(|home| home.join(".postgresql").join("root.crt"))
                .map(|file| if_there(file, "sslrootcert"))
                .transpose()?
                .flatten(),
        };
        match root_file {
            Some(file) => {
                let roots = Arc::new(load_roots(&file)?);
                let webpki =
                    WebPkiServerVerifier::builder_with_provider(roots, Arc::clone(&provider))
                        .build()
                        .map_err(|err| StoreError::invalid(format!("{}: {err}", file.display())))?;
                if mode == SslMode::VerifyFull {
                    webpki
                } else {
                    lenient(Some(webpki))
                }
            }
            None if verifies => {
                return Err(StoreError::invalid(format!(
                    "sslmode={} needs the authority that signed the server's certificate: \
                     give its file as sslrootcert=FILE (or sslrootcert=system for the \
                     system's authorities), or put it in ~/.postgresql/root.crt",
                    if mode == SslMode::VerifyCa {
                        "verify-ca"
                    } else {
                        "verify-full"
                    }
                )));
            }
            None => lenient(None),
        }
    };
    let identity = if mode == SslMode::Disable {
        None
    } else {
        client_identity(&request, home.as_deref())?
    };
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|err| StoreError::Internal(format!("TLS versions: {err}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let mut tls = match identity {
        None => builder.with_no_client_auth(),
        Some(identity) => builder
            .with_client_auth_cert(identity.chain, identity.key)
            .map_err(|err| {
                StoreError::invalid(format!(
                    "sslcert {} and sslkey {} do not make a client certificate: {err}",
                    identity.certificate_file.display(),
                    identity.key_file.display()
                ))
            })?,
    };
    // PostgreSQL 17 takes a TLS handshake straight away
    // (`sslnegotiation=direct`) only with this ALPN; older servers ignore it.
    tls.alpn_protocols = vec![b"postgresql".to_vec()];
    Ok(Connector {
        config,
        tls: MakeRustlsConnect::new(tls),
    })
}

/// The certificate a node shows the server, and its key.
struct ClientIdentity {
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    certificate_file: PathBuf,
    key_file: PathBuf,
}

/// The node's own certificate, as libpq finds it: `sslcert`, else
/// `~/.postgresql/postgresql.crt` when it is there (none when it is not);
/// its key from `sslkey`, else `~/.postgresql/postgresql.key`. Stricter
/// than libpq, which goes on without a certificate whose file is missing:
/// a file the URL names must be there, or the server's refusal would hide
/// a typo.
fn client_identity(request: &TlsRequest, home: Option<&Path>) -> Result<Option<ClientIdentity>> {
    let in_home = |name: &str| home.map(|home| home.join(".postgresql").join(name));
    let certificate_file = match &request.certificate {
        Some(file) => {
            let file = PathBuf::from(file);
            if if_there(file.clone(), "sslcert")?.is_none() {
                return Err(StoreError::invalid(format!(
                    "sslcert {} is not there",
                    file.display()
                )));
            }
            file
        }
        None => match in_home("postgresql.crt")
            .map(|file| if_there(file, "sslcert"))
            .transpose()?
            .flatten()
        {
            Some(file) => file,
            None => return Ok(None),
        },
    };
    let key_file = match request
        .key
        .as_deref()
        .map(PathBuf::from)
        .or_else(|| in_home("postgresql.key"))
    {
        Some(file) => if_there(file.clone(), "sslkey")?.ok_or_else(|| {
            StoreError::invalid(format!(
                "the client certificate {} has no private key: {} is not there",
                certificate_file.display(),
                file.display()
            ))
        })?,
        None => {
            return Err(StoreError::invalid(format!(
                "the client certificate {} has no private key: give its file as sslkey=FILE",
                certificate_file.display()
            )));
        }
    };
    let file_error = |what: &str, file: &Path, err: &dyn std::fmt::Display| {
        StoreError::invalid(format!("{what} {}: {err}", file.display()))
    };
    key_is_private(&key_file)?;
    let key = PrivateKeyDer::from_pem_file(&key_file).map_err(|err| {
        let encrypted =
            std::fs::read_to_string(&key_file).is_ok_and(|text| text.contains("ENCRYPTED"));
        if encrypted {
            file_error(
                "sslkey",
                &key_file,
                &"the key is encrypted, and only a plain key is read (`openssl pkey -in \
                  KEY -out PLAIN` writes one; keep it readable by the node's user only)",
            )
        } else {
            file_error("sslkey", &key_file, &err)
        }
    })?;
    let chain = CertificateDer::pem_file_iter(&certificate_file)
        .and_then(|certificates| certificates.collect::<std::result::Result<Vec<_>, _>>())
        .map_err(|err| file_error("sslcert", &certificate_file, &err))?;
    if chain.is_empty() {
        return Err(file_error(
            "sslcert",
            &certificate_file,
            &"the file holds no certificate",
        ));
    }
    Ok(Some(ClientIdentity {
        chain,
        key,
        certificate_file,
        key_file,
    }))
}

/// libpq's rule for a private key file: a regular file none but its owner
/// may read or write (`0600` or less), or, when root owns it, that its
/// group may read too (`0640`), for keys a group shares. Who the owner is
/// does not matter: a file so kept that the node can read is the node's.
fn key_is_private(file: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt as _;
    let metadata = std::fs::metadata(file)
        .map_err(|err| StoreError::invalid(format!("sslkey {}: {err}", file.display())))?;
    if !metadata.is_file() {
        return Err(StoreError::invalid(format!(
            "sslkey {} is not a regular file",
            file.display()
        )));
    }
    let mode = metadata.mode();
    let too_open = if metadata.uid() == 0 {
        mode & 0o037 != 0
    } else {
        mode & 0o077 != 0
    };
    if too_open {
        return Err(StoreError::invalid(format!(
            "sslkey {} has group or world access (mode {:o}): it must be u=rw (0600) or \
             less, or u=rw,g=r (0640) or less if root owns it (`chmod 600 FILE`)",
            file.display(),
            mode & 0o777
        )));
    }
    Ok(())
}

/// `file` when it is there; none when it is not (as libpq, which goes on
/// without a file that is missing); an error when it cannot be told, such
/// as a folder the node may not enter.
fn if_there(file: PathBuf, setting: &str) -> Result<Option<PathBuf>> {
    match std::fs::metadata(&file) {
        Ok(_) => Ok(Some(file)),
        Err(err)
            if matches!(
                err.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(err) => Err(StoreError::invalid(format!(
            "{setting} {}: {err}",
            file.display()
        ))),
    }
}

fn load_roots(file: &Path) -> Result<RootCertStore> {
    let unreadable = |err: &dyn std::fmt::Display| {
        StoreError::invalid(format!(
            "sslrootcert {}: the authorities' certificates do not read: {err}",
            file.display()
        ))
    };
    let mut roots = RootCertStore::empty();
    for certificate in CertificateDer::pem_file_iter(file).map_err(|err| unreadable(&err))? {
        roots
            .add(certificate.map_err(|err| unreadable(&err))?)
            .map_err(|err| unreadable(&err))?;
    }
    if roots.is_empty() {
        return Err(unreadable(&"the file holds no certificate"));
    }
    Ok(roots)
}

/// The verifier of every mode but `verify-full`. With `chain` (`verify-ca`,
/// or a lower mode with a root file), the chain must lead to a trusted
/// authority, and the name it was issued for is not compared with the host
/// (rustls checks the name only once the chain holds). Without (`prefer`
/// and `require` with no root file, as in libpq), the connection is
/// encrypted and whose certificate it is is not checked. The handshake's
/// signatures are verified either way.
#[derive(Debug)]
struct Lenient {
    chain: Option<Arc<WebPkiServerVerifier>>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Lenient {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        let Some(chain) = &self.chain else {
            return Ok(ServerCertVerified::assertion());
        };
        match chain.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn taken(url: &str) -> TlsRequest {
        take_tls_settings(url).expect("the URL reads")
    }

    /// An environment of the test's own, not the machine's.
    struct Environment(Vec<(&'static str, String)>);

    impl Surroundings for Environment {
        fn var(&self, name: &str) -> Option<String> {
            self.0
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.clone())
        }
    }

    /// A connector read with an empty environment: no `HOME`, no `PG...`.
    fn connector(url: &str) -> Result<Connector> {
        connector_in(url, &Environment(Vec::new()))
    }

    fn refusal(url: &str, around: &Environment) -> String {
        connector_in(url, around)
            .err()
            .expect("the settings are refused")
            .to_string()
    }

    /// A file with `text` and the given permissions.
    fn write(dir: &Path, name: &str, text: &str, mode: u32) -> PathBuf {
        use std::os::unix::fs::PermissionsExt as _;
        let path = dir.join(name);
        std::fs::write(&path, text).expect("writes");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
        path
    }

    /// A PEM block a key reader takes (its bytes are no key; nothing here
    /// signs with it).
    fn test_key_pem() -> String {
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".to_owned()
    }

    #[test]
    fn the_client_certificate_settings_are_taken_out_of_the_url() {
        let request = taken(
            "postgres://reporter@db/desk?sslcert=%2Fkeys%2Fnode.crt&sslkey=%2Fkeys%2Fnode.key&sslpassword=x&application_name=node",
        );
        assert_eq!(
            request.rest,
            "postgres://reporter@db/desk?application_name=node"
        );
        assert_eq!(request.certificate.as_deref(), Some("/keys/node.crt"));
        assert_eq!(request.key.as_deref(), Some("/keys/node.key"));
        let empty = taken("postgres://db/desk?sslcert=&sslkey=&sslrootcert=");
        assert_eq!(
            (empty.certificate, empty.key, empty.root_certificates),
            (None, None, None),
            "an empty file name is none"
        );
        let request = taken("host=db sslcert=/keys/a.crt sslkey='/keys/a b.key'");
        assert_eq!(request.rest, "host='db'");
        assert_eq!(request.key.as_deref(), Some("/keys/a b.key"));
    }

    #[test]
    fn the_environment_stands_in_for_what_the_url_does_not_say() {
        let around = Environment(vec![
            ("PGSSLMODE", "verify-full".to_owned()),
            ("PGSSLROOTCERT", "/nonexistent/env-root.crt".to_owned()),
            ("PGSSLCERT", "/nonexistent/env.crt".to_owned()),
        ]);
        let err = refusal("host=db", &around);
        assert!(
            err.contains("/nonexistent/env-root.crt"),
            "PGSSLROOTCERT is read: {err}"
        );
        let request = taken("host=db sslmode=disable sslcert=/url.crt")
            .with_defaults(&around)
            .expect("reads");
        assert_eq!(request.mode, Some(SslMode::Disable), "the URL wins");
        assert_eq!(
            request.certificate.as_deref(),
            Some("/url.crt"),
            "the URL wins"
        );
        assert_eq!(
            request.root_certificates.as_deref(),
            Some("/nonexistent/env-root.crt")
        );
        let err = refusal(
            "host=db",
            &Environment(vec![("PGSSLMODE", "strict".to_owned())]),
        );
        assert!(err.contains("PGSSLMODE \"strict\""), "{err}");
        // Under disable nothing is read, from the URL or the environment.
        assert!(connector_in("host=db sslmode=disable", &around).is_ok());
    }

    #[test]
    fn a_client_certificate_needs_its_key_and_a_key_only_its_owner_reads() {
        let dir = tempfile::tempdir().expect("a directory");
        let certificate = write(dir.path(), "node.crt", "not yet read", 0o644);
        let url = |key: &Path| {
            format!(
                "host=db sslmode=require sslcert={} sslkey={}",
                certificate.display(),
                key.display()
            )
        };
        let none = Environment(Vec::new());
        let err = refusal(&url(&dir.path().join("missing.key")), &none);
        assert!(
            err.contains("has no private key") && err.contains("missing.key"),
            "{err}"
        );
        let err = refusal(
            &format!("host=db sslmode=require sslcert={}", certificate.display()),
            &none,
        );
        assert!(err.contains("sslkey=FILE"), "no key and no HOME: {err}");
        let open_key = write(
            dir.path(),
            "open.key",
            "-----BEGIN PRIVATE KEY-----\n",
            0o644,
        );
        let err = refusal(&url(&open_key), &none);
        assert!(err.contains("group or world access (mode 644)"), "{err}");
        // Root's keys may be shared with a group (0640); anyone else's not.
        let group_key = write(dir.path(), "group.key", &test_key_pem(), 0o640);
        let err = refusal(&url(&group_key), &none);
        {
            use std::os::unix::fs::MetadataExt as _;
            let root_owns_it = std::fs::metadata(&group_key).expect("written").uid() == 0;
            assert_eq!(
                err.contains("group or world access"),
                !root_owns_it,
                "0640, root owning it: {root_owns_it}: {err}"
            );
        }
        let encrypted = write(
            dir.path(),
            "encrypted.key",
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n",
            0o600,
        );
        let err = refusal(&url(&encrypted), &none);
        assert!(err.contains("the key is encrypted"), "{err}");
        let plain = write(dir.path(), "plain.key", &test_key_pem(), 0o600);
        let err = refusal(&url(&plain), &none);
        assert!(
            err.contains("node.crt") && err.contains("holds no certificate"),
            "{err}"
        );
        let err = refusal(
            &format!(
                "host=db sslmode=require sslcert=/nonexistent/node.crt sslkey={}",
                plain.display()
            ),
            &none,
        );
        assert!(
            err.contains("sslcert /nonexistent/node.crt is not there"),
            "a named file must be there: {err}"
        );
        // An empty setting is no setting, as for libpq.
        assert!(connector_in("host=db sslmode=require sslcert='' sslrootcert=''", &none).is_ok());
    }

    #[test]
    fn the_home_directory_s_files_are_used_when_they_are_there() {
        let home = tempfile::tempdir().expect("a home");
        let around = Environment(vec![("HOME", home.path().display().to_string())]);
        // No ~/.postgresql: no client certificate, no refusal.
        assert!(connector_in("host=db sslmode=require", &around).is_ok());
        let dot = home.path().join(".postgresql");
        std::fs::create_dir(&dot).expect("~/.postgresql");
        write(&dot, "postgresql.crt", "not a certificate", 0o644);
        let err = refusal("host=db sslmode=require", &around);
        assert!(
            err.contains("postgresql.crt") && err.contains("has no private key"),
            "{err}"
        );
        write(&dot, "postgresql.key", &test_key_pem(), 0o600);
        let err = refusal("host=db sslmode=require", &around);
        assert!(
            err.contains("holds no certificate"),
            "the key is there, the certificate is read: {err}"
        );
    }

    #[test]
    fn a_url_loses_only_its_tls_settings() {
        let request = taken(
            "postgres://copydesk:s%40cret@db.internal:5433/desk?connect_timeout=5&sslmode=verify-full&sslrootcert=%2Fetc%2Fssl%2Fdesk%20ca.pem&application_name=node",
        );
        assert_eq!(
            request.rest,
            "postgres://copydesk:s%40cret@db.internal:5433/desk?connect_timeout=5&application_name=node"
        );
        assert_eq!(request.mode, Some(SslMode::VerifyFull));
        assert_eq!(
            request.root_certificates.as_deref(),
            Some("/etc/ssl/desk ca.pem")
        );
        let plain = taken("postgresql://db/desk?sslmode=disable");
        assert_eq!(plain.rest, "postgresql://db/desk");
        assert_eq!(plain.mode, Some(SslMode::Disable));
        assert_eq!(taken("postgres://db/desk").rest, "postgres://db/desk");
        let odd_password = taken("postgres://desk:pa?ss@db/desk?sslmode=require");
        assert_eq!(odd_password.rest, "postgres://desk:pa?ss@db/desk");
        assert_eq!(odd_password.mode, Some(SslMode::Require));
    }

    #[test]
    fn a_key_value_string_loses_only_its_tls_settings() {
        let request = taken(
            "host=db.internal  dbname = 'news desk' sslmode=verify-ca sslrootcert='/etc/ssl/it\\'s.pem' password=a\\ b",
        );
        assert_eq!(
            request.rest,
            "host='db.internal' dbname='news desk' password='a b'"
        );
        assert_eq!(request.mode, Some(SslMode::VerifyCa));
        assert_eq!(
            request.root_certificates.as_deref(),
            Some("/etc/ssl/it's.pem")
        );
    }

    #[test]
    fn what_is_not_a_setting_is_refused_in_words() {
        for (text, words) in [
            ("host=db sslmode=strict", "sslmode \"strict\""),
            ("host=db dbname='desk", "never ends"),
            ("host", "no `=`"),
            ("host= ", "no value"),
            ("=db", "no name"),
            ("postgres://db/desk?sslmode=verify", "sslmode \"verify\""),
        ] {
            let err = take_tls_settings(text).expect_err(text).to_string();
            assert!(err.contains(words), "{text}: {err}");
        }
    }

    #[test]
    fn a_mode_that_verifies_needs_an_authority() {
        let err = connector("host=db sslmode=verify-full sslrootcert=/nonexistent/root.crt")
            .err()
            .expect("a missing file is refused")
            .to_string();
        assert!(err.contains("/nonexistent/root.crt"), "{err}");
        let err = connector("host=db sslmode=require sslrootcert=system")
            .err()
            .expect("system roots need verify-full")
            .to_string();
        assert!(err.contains("verify-full"), "{err}");
    }

    #[test]
    fn an_address_without_a_host_name_is_the_name_the_tls_check_sees() {
        let bare = connector("hostaddr=10.0.0.5 dbname=desk").expect("reads");
        assert_eq!(
            bare.config.get_hosts(),
            [postgres::config::Host::Tcp("10.0.0.5".to_owned())]
        );
        let named = connector("host=db.internal hostaddr=10.0.0.5").expect("reads");
        assert_eq!(
            named.config.get_hosts(),
            [postgres::config::Host::Tcp("db.internal".to_owned())]
        );
    }

    #[test]
    fn each_mode_asks_rust_postgres_for_tls_as_libpq_would() {
        use postgres::config::SslMode as Asked;
        for (mode, asked) in [
            ("disable", Asked::Disable),
            ("allow", Asked::Prefer),
            ("prefer", Asked::Prefer),
            ("require", Asked::Require),
        ] {
            let connector = connector(&format!("host=db sslmode={mode}")).expect(mode);
            assert_eq!(connector.config.get_ssl_mode(), asked, "{mode}");
        }
    }

    proptest! {
        /// Any value written back by `take_from_key_values` reads as it was,
        /// by rust-postgres's own parser too.
        #[test]
        fn key_values_written_back_read_the_same(
            user in "[ -~]{1,12}",
            dbname in "[a-z' \\\\é]{1,12}",
        ) {
            let text = format!(
                "user='{}' sslmode=require dbname='{}'",
                quote(&user),
                quote(&dbname)
            );
            let request = take_tls_settings(&text).expect("reads");
            let config: postgres::Config = request.rest.parse().expect("rust-postgres reads it");
            prop_assert_eq!(config.get_user(), Some(user.as_str()));
            prop_assert_eq!(config.get_dbname(), Some(dbname.as_str()));
            prop_assert_eq!(request.mode, Some(SslMode::Require));
        }
    }
}
