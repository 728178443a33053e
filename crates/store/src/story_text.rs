//! What the search index is made of for one story, apart from the index so
//! that a write's transaction can carry it (see `Transaction::declare_made_alone`).

/// What the index is made of for one story: its fields as stored (the
/// abstract and body as HTML), its authors' and tags' names, and its
/// filter terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoryText {
    pub(crate) title: String,
    pub(crate) abstract_html: String,
    pub(crate) body_html: String,
    pub(crate) slug: String,
    /// The authors' names, space-separated; `None` when it has none.
    pub(crate) authors: Option<String>,
    /// The tags' names, space-separated; `None` when it has none.
    pub(crate) tags: Option<String>,
    pub(crate) filters: Vec<String>,
}

impl StoryText {
    /// A story of no authors or tags with these fields as stored: its
    /// title, abstract, body and slug.
    pub(crate) fn unlinked([title, abstract_html, body_html, slug]: [&str; 4]) -> Self {
        Self {
            title: title.to_owned(),
            abstract_html: abstract_html.to_owned(),
            body_html: body_html.to_owned(),
            slug: slug.to_owned(),
            authors: None,
            tags: None,
            filters: Vec::new(),
        }
    }
}
