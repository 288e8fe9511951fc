//! What a listing gives when some rows of the store cannot be read (a
//! damaged JSON column, a timestamp that does not parse): the rows that
//! can, and each one that cannot with why, so one bad row never hides the
//! others.

use crate::records::RunSummary;

/// A row a listing could not read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UnreadableRow {
    /// The row's id (a job's or a run's id).
    pub id: String,
    /// Why it could not be read.
    pub error: String,
}

impl UnreadableRow {
    /// The row `id`, unreadable for `error` (a long message is cut: it may
    /// quote the damaged value).
    pub(crate) fn new(id: String, error: impl std::fmt::Display) -> UnreadableRow {
        const MAX_CHARS: usize = 300;
        let error = error.to_string();
        let error = match error.char_indices().nth(MAX_CHARS) {
            Some((cut, _)) => format!("{}...", &error[..cut]),
            None => error,
        };
        UnreadableRow { id, error }
    }
}

/// What [`crate::RunStore::list_runs`] returns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunList {
    /// The runs read, newest first.
    pub runs: Vec<RunSummary>,
    /// The rows of the same window that could not be read, in order.
    pub unreadable: Vec<UnreadableRow>,
}

impl RunList {
    /// How many rows the window held, read or not (what an offset counts).
    pub fn rows(&self) -> usize {
        self.runs.len() + self.unreadable.len()
    }
}
