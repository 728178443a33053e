//! `copydesk-text`: a story's text as pure code, below the service and beside the store: the three-way merge, Draft.js raw content and its check, sanitising, HTML scanning and the print formats (ICML, HTML, text).
//!
//! Nothing here reads a file, a clock or a database; every function is
//! given its text and gives text back, so each is tested on its own (the
//! merge with property tests). `copydesk-core` calls it; it never calls
//! the core.

pub mod annotations;
pub mod draftjs;
mod error;
pub mod html_scan;
pub mod merge;
pub mod print_formats;
pub mod sanitize;
pub mod slug;

pub use error::{Result, TextError};
