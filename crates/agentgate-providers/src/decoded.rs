//! What a decoder finds in a CLI's output, besides the events of the
//! stream: the CLI's final record and its structured errors. Decoders
//! produce these; the accumulator and the classifier read them.

use agentgate_protocol::{EventBody, Usage};

/// What a decoder found in a line.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// An event for the stream (the run loop adds the header: `seq`, `ts`,
    /// `run_id`, `provider`, `attempt`).
    ///
    /// Usage events: `scope: turn` for one model call's figures (the
    /// accumulator adds them up), `scope: total` for the CLI's own totals of
    /// this invocation (they replace the sum).
    Event(EventBody),
    /// The CLI's own final result record (Claude's `result`, Gemini's
    /// `result`, Codex's `turn.completed`).
    Final(ProviderFinal),
    /// The CLI reported an error in a structured way (Claude's
    /// `api_error_status`, Codex's `turn.failed` / `error`, Gemini's
    /// `result{status: "error"}`). The classifier turns it into an
    /// [`agentgate_protocol::ErrorInfo`].
    ProviderError(ProviderError),
    /// Codex reports usage as running totals of the whole thread (session),
    /// across invocations: the run subtracts the totals it stored after the
    /// previous turn of that thread to get this turn's figures.
    ThreadTotals(Usage),
}

/// The CLI's own final result record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderFinal {
    /// The final answer text, when the record carries it.
    pub text: Option<String>,
    /// The native session id, when the record carries it.
    pub session_id: Option<String>,
    /// The record says the run failed.
    pub is_error: bool,
    /// Billing figures of the whole invocation, when the record carries them
    /// (Claude's `result.usage` with `total_cost_usd`; Gemini's
    /// `result.stats`).
    pub usage: Option<Usage>,
    /// Model turns the CLI counted.
    pub num_turns: Option<u32>,
}

/// An error the CLI reported in a structured way.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderError {
    /// The CLI's message, verbatim.
    pub message: String,
    /// The HTTP status of the failed model request, when the CLI said.
    pub http_status: Option<u16>,
    /// A machine-readable code or type, when the CLI gave one
    /// (`authentication_failed`, `insufficient_quota`, `rate_limit`, ...).
    pub code: Option<String>,
    /// The CLI gave up: this error ends the invocation (as opposed to a
    /// notice it will retry after).
    pub terminal: bool,
}
