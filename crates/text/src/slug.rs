//! URL slugs made from titles and names, or cleaned from what a client sent.

/// A slug: lowercase ASCII letters, digits and single dashes, never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slug(String);

impl Slug {
    /// Cleans a client's slug, or makes one from `fallback` (a title or name)
    /// when the client sent none or one with no usable character.
    pub fn parse_or_make(sent: Option<&str>, fallback: &str) -> Self {
        let from_sent = sent.map(slug::slugify).filter(|s| !s.is_empty());
        let made = from_sent.unwrap_or_else(|| slug::slugify(fallback));
        if made.is_empty() {
            Self("untitled".to_owned())
        } else {
            Self(made)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_from_a_title() {
        assert_eq!(
            Slug::parse_or_make(None, "Storm hits the Coast!").as_str(),
            "storm-hits-the-coast"
        );
    }

    #[test]
    fn transliterates_non_ascii() {
        assert_eq!(
            Slug::parse_or_make(None, "Zürich: Große Pläne").as_str(),
            "zurich-grosse-plane"
        );
    }

    #[test]
    fn cleans_a_sent_slug() {
        assert_eq!(
            Slug::parse_or_make(Some(" My  Slug "), "ignored").as_str(),
            "my-slug"
        );
    }

    #[test]
    fn never_empty() {
        assert_eq!(Slug::parse_or_make(Some("!!!"), "???").as_str(), "untitled");
        assert_eq!(Slug::parse_or_make(Some(""), "Title").as_str(), "title");
    }
}
