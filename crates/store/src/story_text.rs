//! What the search index is made of for one story, apart from the index so
//! that a write's transaction can carry it (see `Transaction::index_as_written`).

/// What the index is made of for one story: its fields as stored (the
/// abstract and body as HTML), its authors' and tags' names, and its
/// filter terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoryText {
    pub title: String,
    pub abstract_html: String,
    pub body_html: String,
    pub slug: String,
    /// The authors' names, space-separated; `None` when it has none.
    pub authors: Option<String>,
    /// The tags' names, space-separated; `None` when it has none.
    pub tags: Option<String>,
    pub filters: Vec<String>,
}

impl StoryText {
    /// A story of no authors or tags with these fields as stored: its
    /// title, abstract, body and slug.
    pub fn unlinked([title, abstract_html, body_html, slug]: [&str; 4]) -> Self {
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
