//! What the text code refuses: a field that is not what it must be (the service answers 400 naming it), or a failure of its own.

/// A refusal of the text code, turned into the service's error at the
/// boundary (`CoreError` takes it with `?`).
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    /// `field` is not what it must be: `message` says why.
    #[error("{message}")]
    Invalid { field: String, message: String },
    /// Something that should not happen (writing XML into memory failed).
    #[error("{0}")]
    Internal(String),
}

impl TextError {
    pub fn invalid_field(field: &str, message: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.to_owned(),
            message: message.into(),
        }
    }
}

pub type Result<T, E = TextError> = std::result::Result<T, E>;
