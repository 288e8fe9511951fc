//! The error classifier: turns what a provider CLI left behind (its
//! structured errors, final record, exit status and output tails) into the
//! protocol's [`ErrorInfo`](agentgate_protocol::ErrorInfo).
//!
//! Evidence is weighed in a fixed order, strongest first:
//!
//! 1. the CLI's structured error (Claude's `api_error_status` and error
//!    code, Codex's `turn.failed`, Gemini's `result{status: "error"}`):
//!    [`ErrorSource::Structured`](agentgate_protocol::ErrorSource);
//! 2. the exit status (Gemini's exit codes carry the HTTP status or a
//!    `FatalError` kind): `ExitStatus`;
//! 3. text patterns in the output: `Pattern`.
//!
//! What each piece of evidence means is data: one table per provider (in
//! the provider's folder, `providers/<name>/errors.rs`, read through its
//! description), plus common rows and HTTP status defaults. Every row is
//! exercised by real CLI output in `tests/suite/classify.rs`. Reset times and
//! retry delays are parsed from the provider's words ([`parse_reset`],
//! [`parse_retry_after`]), and CLIs that retry internally have their retry
//! notices recognised ([`is_retry_notice`]) so the run loop can stop them
//! early. A CLI that ends cleanly without the final record its format
//! promises gave no answer: when nothing else explains it, that is a
//! recoverable `provider_error` (`final_record.rs`). The mapping is
//! documented in `docs/errors.md`.

mod common;
mod engine;
mod final_record;
mod generic;
mod notice;
mod output;
mod pattern;
mod reset;
mod status;
mod table;

pub use common::COMMON_RULES;
pub use engine::{Classified, ClassifyInput, classify, classify_explained, classify_with};
pub use final_record::StdoutSeen;
pub use generic::GENERIC;
pub use notice::{RetryNotice, is_retry_notice};
pub use pattern::compile_checked;
pub use reset::{parse_reset, parse_retry_after};
pub use status::{kind_for_status, status_in_text};
pub use table::{NoticePattern, ProviderTable, Rule};
