//! The records the use cases share, and the tables they live in: below every
//! use case, so that no use case imports another to name what it reads or
//! returns (`tests/tidy.rs` fails on an import cycle).

pub mod attachment;
pub mod container;
pub mod content;
pub mod export;
pub mod lock;
