//! An error's causes in words, and the TLS error under I/O errors: shared by
//! the database errors and the sync client, below both so neither imports the other.

/// `err` and every cause under it, in words: an HTTP or database client's
/// own words say only what failed ("error sending request", "error
/// performing TLS handshake"); the causes say why. A cause whose words
/// are already there is not repeated.
pub fn with_causes(err: &(dyn std::error::Error + 'static)) -> String {
    let mut words = err.to_string();
    let mut cause = err.source();
    while let Some(inner) = cause {
        let why = inner.to_string();
        if !words.contains(&why) {
            words.push_str(": ");
            words.push_str(&why);
        }
        cause = inner.source();
    }
    words
}

/// The rustls error in `err`, which comes wrapped in I/O errors (one from
/// tokio-rustls, another from hyper's connector) whose `source` skips it.
pub fn tls_error<'a>(err: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    let mut current = err;
    loop {
        if let Some(tls) = current.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        current = current.downcast_ref::<std::io::Error>()?.get_ref()?;
    }
}
