//! The table containers live in, named where locks and content need it.

use crate::records::Table;

pub(crate) const CONTAINERS: Table = Table {
    name: "containers",
    noun: "container",
};
