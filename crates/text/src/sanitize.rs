//! HTML from users, cleaned with `ammonia` so that no script, event handler or `javascript:` URL survives: comments, and a story's body (which keeps its photos).
//!
//! `ammonia` (an html5ever-based allow-list sanitiser) is used rather than
//! hand-written filtering: it parses HTML the way browsers do, so tricks that
//! defeat pattern matching (broken tags, odd encodings) are handled.

use crate::error::{Result, TextError};

/// The cleaned HTML of a comment; one with nothing left is a 400 naming `field`.
pub fn clean_comment(field: &str, raw: &str) -> Result<String> {
    let cleaned = ammonia::Builder::default()
        .link_rel(Some("noopener noreferrer nofollow"))
        .clean(raw)
        .to_string();
    let cleaned = cleaned.trim().to_owned();
    if cleaned.is_empty() {
        return Err(TextError::invalid_field(
            field,
            format!("\"{field}\" is empty once unsafe markup is removed"),
        ));
    }
    Ok(cleaned)
}

/// Whether `src` may stand in a story body's `<img>`: a file of this
/// service (`/files/<salt>/<name>`, the path an attachment's `public_url`
/// has) or an `https://` address. Never `javascript:`, `data:` or any other
/// scheme, a protocol-relative `//host` address, or a path that climbs out
/// of `/files/`.
pub fn safe_image_src(src: &str) -> bool {
    let plain = !src.is_empty()
        && src.len() <= 2048
        && !src.contains("..")
        && !src
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '\\' | '"' | '<' | '>'));
    if !plain {
        return false;
    }
    if let Some(path) = src.strip_prefix("/files/") {
        return !path.is_empty()
            && path
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '-' | '_'));
    }
    src.get(..8)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"))
        && src.len() > 8
}

/// Whether the sanitiser keeps a link to `href`: a relative address (a
/// path, `#anchor`, `?query`) or one of a scheme `ammonia` allows by
/// default (`https`, `mailto`, `tel`, ...), never `javascript:` or `data:`.
/// As a browser reads an address, tabs and line breaks in it are ignored.
pub fn kept_link(href: &str) -> bool {
    static SCHEMES: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    let href: String = href
        .trim()
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let Some((scheme, _)) = href.split_once(':') else {
        return true;
    };
    let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !is_scheme {
        // A colon after a path, query or anchor begins: a relative address.
        return scheme.contains(['/', '?', '#']);
    }
    SCHEMES
        .get_or_init(|| ammonia::Builder::default().clone_url_schemes())
        .contains(scheme.to_ascii_lowercase().as_str())
}

/// A story body's HTML, cleaned for showing outside the editor (the HTML
/// export): ammonia's allow-list, links opened without an opener, and an
/// image's `src` kept only when [`safe_image_src`] allows it (its `alt`
/// stays, so a refused photo still says what it showed).
pub fn clean_body(html: &str) -> String {
    ammonia::Builder::default()
        .link_rel(Some("noopener noreferrer nofollow"))
        .attribute_filter(|element, attribute, value| {
            if element == "img" && attribute == "src" && !safe_image_src(value) {
                None
            } else {
                Some(value.into())
            }
        })
        .clean(html)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::{clean_body, clean_comment, kept_link, safe_image_src};

    #[test]
    fn links_are_kept_as_the_sanitiser_keeps_them() {
        for href in [
            "/news/42",
            "#top",
            "?page=2",
            "tel:+15551234",
            "mailto:a@b.test",
            "HTTPS://x.test/a:b",
            "news/a:b",
        ] {
            assert!(kept_link(href), "{href}");
            let cleaned = clean_body(&format!("<a href=\"{href}\">x</a>"));
            assert!(cleaned.contains("href"), "{href}: {cleaned}");
        }
        for href in [
            "javascript:alert(1)",
            "java\tscript:alert(1)",
            " JavaScript:x",
            "data:text/html,x",
            "vbscript:x",
        ] {
            assert!(!kept_link(href), "{href}");
            let cleaned = clean_body(&format!("<a href=\"{href}\">x</a>"));
            assert!(!cleaned.contains("href"), "{href}: {cleaned}");
        }
    }

    #[test]
    fn a_body_keeps_its_photos_with_safe_addresses_only() {
        let body = r#"<p>Text</p><figure><img src="/files/abc123/public.png" alt="Dock workers"></figure><img src="https://example.org/p.jpg" alt="Remote">"#;
        let clean = clean_body(body);
        assert!(
            clean.contains(r#"src="/files/abc123/public.png""#),
            "{clean}"
        );
        assert!(clean.contains(r#"alt="Dock workers""#), "{clean}");
        assert!(clean.contains("<figure>"), "{clean}");
        assert!(
            clean.contains(r#"src="https://example.org/p.jpg""#),
            "{clean}"
        );
        let dirty = r#"<img src="javascript:alert(1)" alt="a"><img src="data:image/svg+xml,<svg onload=alert(2)>" alt="b"><img src="http://example.org/x.png" alt="c"><img src="/files/../secret" alt="d"><img src="//evil.example/x.png" alt="e"><img src="/files/a/p.png" onerror="alert(3)" alt="f">"#;
        let clean = clean_body(dirty);
        for bad in [
            "javascript:",
            "data:",
            "http://",
            "..",
            "//evil",
            "onerror",
            "alert",
        ] {
            assert!(!clean.contains(bad), "{bad} survived: {clean}");
        }
        assert!(clean.contains(r#"src="/files/a/p.png""#), "{clean}");
        for alt in ["a", "b", "c", "d", "e", "f"] {
            assert!(clean.contains(&format!(r#"alt="{alt}""#)), "{alt}: {clean}");
        }
    }

    #[test]
    fn safe_image_addresses() {
        for ok in [
            "/files/x/public.jpg",
            "https://example.org/a.png",
            "HTTPS://EXAMPLE.ORG/A",
        ] {
            assert!(safe_image_src(ok), "{ok}");
        }
        for bad in [
            "",
            "https://",
            "http://example.org/a.png",
            "javascript:alert(1)",
            " javascript:alert(1)",
            "data:image/png;base64,AAAA",
            "//evil.example/a.png",
            "/files/",
            "/files/../../etc/passwd",
            "/files/a b.png",
            "/v3/content",
            "files/a.png",
            "https://example.org/a\"onerror=\"x",
        ] {
            assert!(!safe_image_src(bad), "{bad}");
        }
    }

    #[test]
    fn removes_scripts_handlers_and_javascript_urls() {
        let dirty = r#"<p onclick="steal()">Hi <b>there</b><script>alert(1)</script>
            <img src=x onerror=alert(2)><a href="javascript:alert(3)">link</a><a href="https://example.org">ok</a></p>"#;
        let clean = clean_comment("comment", dirty).expect("something is left");
        for bad in ["<script", "onclick", "onerror", "javascript:", "alert(1)"] {
            assert!(!clean.contains(bad), "{bad} survived: {clean}");
        }
        assert!(clean.contains("<b>there</b>"));
        assert!(clean.contains("https://example.org"));
    }

    #[test]
    fn plain_text_stays() {
        assert_eq!(
            clean_comment("comment", "Fact-check the 3rd paragraph & the quote")
                .ok()
                .as_deref(),
            Some("Fact-check the 3rd paragraph &amp; the quote")
        );
    }

    #[test]
    fn nothing_left_is_refused() {
        assert!(clean_comment("comment", "<script>alert(1)</script>").is_err());
        assert!(clean_comment("comment", "   ").is_err());
    }
}
