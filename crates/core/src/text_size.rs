//! How much rich text one field may hold: a story's or a draft's body and abstract, as HTML or raw content, are refused (413 `too_large`) beyond 16 MiB each, so no save or merge of one story holds a worker long.
//!
//! The merge and the checks of raw content take time in proportion to a
//! field's size; 16 MiB is some forty times a 200,000-word story's HTML, and
//! room for a draft of 100,000 links.

use crate::error::{CoreError, Result};

/// The most bytes one rich-text field holds.
pub const MAX_TEXT_BYTES: usize = 16 * 1024 * 1024;

/// Refuses a field of more than [`MAX_TEXT_BYTES`], naming it and the limit.
pub fn check(field: &str, text: Option<&str>) -> Result<()> {
    match text {
        Some(text) if text.len() > MAX_TEXT_BYTES => Err(CoreError::TooLarge(format!(
            "\"{field}\" holds {} bytes; a story's text field holds at most {MAX_TEXT_BYTES} bytes (16 MiB)",
            text.len()
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_over_the_limit_is_refused_by_name_and_one_at_it_is_not() {
        let at = "a".repeat(MAX_TEXT_BYTES);
        assert!(check("content", Some(&at)).is_ok());
        let over = format!("{at}b");
        match check("content_raw", Some(&over)) {
            Err(CoreError::TooLarge(message)) => {
                assert!(message.contains("\"content_raw\""), "{message}");
                assert!(message.contains("16777216"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
