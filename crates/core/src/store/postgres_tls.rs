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

use std::path::{Path, PathBuf};
use std::sync::Arc;

use percent_encoding::percent_decode_str;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::error::{CoreError, Result};

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
                return Err(CoreError::invalid(format!(
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
}

/// Takes `sslmode` and `sslrootcert` out of a libpq URL
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
    };
    for (key, value) in taken {
        match key {
            TlsKey::Mode => request.mode = Some(SslMode::parse(&value)?),
            TlsKey::RootCertificates => request.root_certificates = Some(value),
        }
    }
    Ok(request)
}

#[derive(Debug, Clone, Copy)]
enum TlsKey {
    Mode,
    RootCertificates,
}

fn tls_key(key: &str) -> Option<TlsKey> {
    match key {
        "sslmode" => Some(TlsKey::Mode),
        "sslrootcert" => Some(TlsKey::RootCertificates),
        _ => None,
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
            .map_err(|_| CoreError::invalid("the database URL's query is not UTF-8 text"))
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
        |why: &str| CoreError::invalid(format!("the database URL does not parse: {why}"));
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
    let request = take_tls_settings(url)?;
    let mut config: postgres::Config = request
        .rest
        .parse()
        .map_err(|err| CoreError::invalid(format!("the database URL does not parse: {err}")))?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let system = request.root_certificates.as_deref() == Some("system");
    let mode = request.mode.unwrap_or(if system {
        SslMode::VerifyFull
    } else {
        SslMode::Prefer
    });
    if system && mode != SslMode::VerifyFull {
        return Err(CoreError::invalid(
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
                CoreError::invalid(format!("the system's authorities do not load: {err}"))
            })?,
        )
    } else {
        let verifies = matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull);
        let root_file = match &request.root_certificates {
            Some(file) => Some(PathBuf::from(file)),
            None => default_root_file().filter(|file| file.exists()),
        };
        match root_file {
            Some(file) => {
                let roots = Arc::new(load_roots(&file)?);
                let webpki =
                    WebPkiServerVerifier::builder_with_provider(roots, Arc::clone(&provider))
                        .build()
                        .map_err(|err| CoreError::invalid(format!("{}: {err}", file.display())))?;
                if mode == SslMode::VerifyFull {
                    webpki
                } else {
                    lenient(Some(webpki))
                }
            }
            None if verifies => {
                return Err(CoreError::invalid(format!(
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
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|err| CoreError::Internal(format!("TLS versions: {err}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    // PostgreSQL 17 takes a TLS handshake straight away
    // (`sslnegotiation=direct`) only with this ALPN; older servers ignore it.
    tls.alpn_protocols = vec![b"postgresql".to_vec()];
    Ok(Connector {
        config,
        tls: MakeRustlsConnect::new(tls),
    })
}

/// libpq's default root file: `~/.postgresql/root.crt`.
fn default_root_file() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")?;
    Some(Path::new(&home).join(".postgresql").join("root.crt"))
}

fn load_roots(file: &Path) -> Result<RootCertStore> {
    let unreadable = |err: &dyn std::fmt::Display| {
        CoreError::invalid(format!(
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
