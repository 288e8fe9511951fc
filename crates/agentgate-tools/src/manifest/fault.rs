//! A fault of a parsed manifest, found by the checks past parsing: the
//! leaf both the checks and the reader import.

use crate::yaml::Step;

/// A fault of a parsed manifest: where (a path of keys) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fault {
    pub path: Vec<Step>,
    pub message: String,
}

impl Fault {
    pub fn new(path: Vec<Step>, message: impl Into<String>) -> Fault {
        Fault {
            path,
            message: message.into(),
        }
    }
}
