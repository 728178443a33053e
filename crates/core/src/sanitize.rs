//! Comment HTML from users, cleaned with `ammonia` so that no script, event handler or `javascript:` URL survives.
//!
//! `ammonia` (an html5ever-based allow-list sanitiser) is used rather than
//! hand-written filtering: it parses HTML the way browsers do, so tricks that
//! defeat pattern matching (broken tags, odd encodings) are handled.

use crate::error::{CoreError, Result};

/// The cleaned HTML of a comment; one with nothing left is a 400 naming `field`.
pub fn clean_comment(field: &str, raw: &str) -> Result<String> {
    let cleaned = ammonia::Builder::default()
        .link_rel(Some("noopener noreferrer nofollow"))
        .clean(raw)
        .to_string();
    let cleaned = cleaned.trim().to_owned();
    if cleaned.is_empty() {
        return Err(CoreError::invalid_field(
            field,
            format!("\"{field}\" is empty once unsafe markup is removed"),
        ));
    }
    Ok(cleaned)
}

#[cfg(test)]
mod tests {
    use super::clean_comment;

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
