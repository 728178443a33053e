//! The one list of record types the change log, the change feed, the outbox
//! and sync name, so that a type is a value the compiler checks, not a string
//! a `match` may quietly miss.
//!
//! The types sync carries come first, in the order a page of remote changes
//! is applied: a record comes after every type it can refer to. What sync
//! does with each of them is in the service's `synced` module; the rest are logged for
//! the change feed only.

use std::fmt;
use std::str::FromStr;

/// Declares [`RecordType`] with its wire names and what a person calls
/// several of its records, in one place.
macro_rules! record_types {
    ($($(#[$doc:meta])* $variant:ident = $name:literal, $plural:literal;)*) => {
        /// A kind of record, named on the wire and in the store as `as_str()` says.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum RecordType {
            $($(#[$doc])* $variant,)*
        }

        impl RecordType {
            /// Every type, in declaration order (the synced ones in apply order).
            pub const ALL: &'static [RecordType] = &[$(RecordType::$variant,)*];

            /// The type's name in the change log, the outbox and the change feed.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(RecordType::$variant => $name,)*
                }
            }

            /// What a person calls several records of the type ("print documents").
            pub fn plural(self) -> &'static str {
                match self {
                    $(RecordType::$variant => $plural,)*
                }
            }
        }
    };
}

record_types! {
    /// A byline.
    Author = "author", "authors";
    /// A tag.
    Tag = "tag", "tags";
    /// A content item: an article, a post, a media item or a page.
    Content = "content", "stories";
    /// An assignment, which may name the content item it became.
    Assignment = "assignment", "assignments";
    /// A container of content items.
    Container = "container", "containers";
    /// A workflow section.
    Workflow = "workflow", "workflows";
    /// A print issue.
    Issue = "issue", "issues";
    /// A print document, in an issue and a workflow.
    PrintDocument = "print_document", "print documents";
    /// A content item's attachment (its file and preview settings).
    Attachment = "attachment", "attachments";
    /// A note comment in a thread about a content item.
    NoteComment = "note_comment", "notes";
    /// A comment on an assignment.
    AssignmentComment = "assignment_comment", "assignment comments";
    /// A saved draft of a content item's body.
    Draft = "draft", "drafts";
    /// A user (logged, not synced: each server keeps its own).
    User = "user", "users";
    /// A content item's saved version (logged; each side keeps its own history).
    Version = "version", "versions";
    /// A print export (logged; exports are made on the server that prints).
    Export = "export", "exports";
    /// An exclusive lock request (logged; locks are forwarded, not synced).
    LockRequest = "lock_request", "lock requests";
    /// A workflow's section settings (logged, not synced).
    WorkflowSection = "workflow_section", "workflow sections";
}

impl RecordType {
    /// The path segment of the type's endpoints (`/v3/{segment}`).
    pub fn path(self) -> String {
        self.as_str().replace('_', "-")
    }
}

impl fmt::Display for RecordType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name no [`RecordType`] has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRecordType(pub String);

impl fmt::Display for UnknownRecordType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no record type is called {:?}", self.0)
    }
}

impl std::error::Error for UnknownRecordType {}

impl FromStr for RecordType {
    type Err = UnknownRecordType;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|kind| kind.as_str() == name)
            .ok_or_else(|| UnknownRecordType(name.to_owned()))
    }
}

impl PartialEq<&str> for RecordType {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::RecordType;

    #[test]
    fn every_name_reads_back_as_its_type() {
        for kind in RecordType::ALL {
            assert_eq!(kind.as_str().parse::<RecordType>(), Ok(*kind));
        }
        assert!("gallery".parse::<RecordType>().is_err());
        assert_eq!(RecordType::PrintDocument.path(), "print-document");
    }

    #[test]
    fn every_type_the_change_log_writes_is_named() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../store/migrations/sqlite");
        let migrations: Vec<String> = std::fs::read_dir(dir)
            .expect("the migrations folder")
            .flatten()
            .map(|entry| std::fs::read_to_string(entry.path()).expect("a migration"))
            .collect();
        let mut seen = 0;
        for sql in &migrations {
            for statement in sql.split("INSERT INTO change_log").skip(1) {
                let Some(values) = statement.split("VALUES").nth(1) else {
                    continue;
                };
                let name = values.split('\'').nth(1).expect("a quoted type");
                seen += 1;
                assert!(
                    name.parse::<RecordType>().is_ok(),
                    "the change log writes {name:?}, which RecordType does not name"
                );
            }
        }
        assert!(seen > 20, "the scan found the change log's inserts: {seen}");
    }
}
