//! The shape of a provider's classification data: rows of evidence → kind,
//! the HTTP statuses its exit code can carry, and its retry notices.
//!
//! A table is plain `static` data; the engine in `engine.rs` reads it. Text
//! patterns are regular expressions (the `regex` crate's syntax), always
//! matched case-insensitively.

use agentgate_protocol::ErrorKind;

/// One provider CLI's classification data.
#[derive(Debug)]
pub struct ProviderTable {
    /// The provider's name (`"claude"`, `"codex"`, ...).
    pub name: &'static str,
    /// The rows, tried in order; the first that matches decides.
    pub rules: &'static [Rule],
    /// HTTP statuses this CLI reports through its exit code, modulo 256
    /// (Gemini CLI exits with the failed request's status: 429 → 173).
    pub exit_statuses: &'static [u16],
    /// A pattern that marks the final answer as an error report although the
    /// CLI exited 0 and said nothing else (Qwen Code puts `[API Error: ...]`
    /// in its answer).
    pub answer_error: Option<&'static str>,
    /// How the CLI announces that it will retry a failed model request.
    pub retry_notices: &'static [NoticePattern],
    /// Lines the CLI prints on every run, which never explain a failure
    /// (banners, warnings about the terminal): left out of the text
    /// evidence and of the message.
    pub noise: &'static [&'static str],
}

/// One row: when every condition it sets holds, the error is of `kind`.
///
/// Conditions left empty do not constrain. Which evidence a row is tried
/// against depends on its conditions:
///
/// - rows without `exits` are tried against the CLI's structured error
///   (its message, HTTP status and code);
/// - rows with `exits` are tried against the exit code, with `text` matched
///   against the output tails;
/// - rows without `exits` and `codes` are also tried against the output tails
///   (with `statuses` matched against the HTTP status the CLI's exit code
///   carries, or one written in the text).
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// A stable name for the row (`"claude.not_logged_in"`), reported by
    /// [`super::classify_explained`] and used by the tests to prove that
    /// every row is exercised by real output.
    pub id: &'static str,
    /// The kind the row assigns.
    pub kind: ErrorKind,
    /// A regular expression over the message or the output.
    pub text: Option<&'static str>,
    /// Any of these HTTP statuses.
    pub statuses: &'static [u16],
    /// Any of these machine-readable codes (compared case-insensitively).
    pub codes: &'static [&'static str],
    /// Any of these exit codes.
    pub exits: &'static [i32],
    /// Overrides `kind.recoverable()` when set.
    pub recoverable: Option<bool>,
}

impl Rule {
    const fn new(id: &'static str, kind: ErrorKind) -> Rule {
        Rule {
            id,
            kind,
            text: None,
            statuses: &[],
            codes: &[],
            exits: &[],
            recoverable: None,
        }
    }

    /// A row that matches a text pattern.
    pub const fn text(id: &'static str, kind: ErrorKind, pattern: &'static str) -> Rule {
        Rule::new(id, kind).with_text(pattern)
    }

    /// A row that matches the CLI's machine-readable error code.
    pub const fn code(id: &'static str, kind: ErrorKind, codes: &'static [&'static str]) -> Rule {
        Rule {
            codes,
            ..Rule::new(id, kind)
        }
    }

    /// A row that matches the CLI's exit code.
    pub const fn exit(id: &'static str, kind: ErrorKind, exits: &'static [i32]) -> Rule {
        Rule {
            exits,
            ..Rule::new(id, kind)
        }
    }

    /// Also require a text pattern.
    pub const fn with_text(self, pattern: &'static str) -> Rule {
        Rule {
            text: Some(pattern),
            ..self
        }
    }

    /// Also require one of these HTTP statuses.
    pub const fn with_status(self, statuses: &'static [u16]) -> Rule {
        Rule { statuses, ..self }
    }

    /// Override the kind's `recoverable` default.
    pub const fn recoverable(self, recoverable: bool) -> Rule {
        Rule {
            recoverable: Some(recoverable),
            ..self
        }
    }

    /// Whether the row sets at least one condition (a row without any would
    /// match everything).
    pub const fn has_condition(&self) -> bool {
        self.text.is_some()
            || !self.statuses.is_empty()
            || !self.codes.is_empty()
            || !self.exits.is_empty()
    }
}

/// How a CLI announces a retry of a failed model request.
#[derive(Debug, Clone, Copy)]
pub enum NoticePattern {
    /// A regular expression over the line. Named groups, all optional:
    /// `attempt`, `max`, `status` (HTTP status), `delay_ms`, `delay_s`.
    /// Without a `status` group the status is looked for in the line.
    Text(&'static str),
    /// A JSON object line whose string fields equal `equals`; the other
    /// fields name the JSON keys holding the figures.
    Json {
        /// Key/value pairs the object must have (string values).
        equals: &'static [(&'static str, &'static str)],
        /// Key of the attempt number.
        attempt: &'static str,
        /// Key of the maximum number of retries.
        max: &'static str,
        /// Key of the HTTP status.
        status: &'static str,
        /// Key of the delay before the retry, in milliseconds.
        delay_ms: &'static str,
    },
}
