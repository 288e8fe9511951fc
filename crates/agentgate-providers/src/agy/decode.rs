//! Antigravity's CLI: `agy --print=PROMPT` prints the answer as plain text
//! and nothing else on stdout (no session id, no usage, no tool calls); the
//! rest is recovered after the run from agy's transcript
//! ([`super::transcript`]).
//!
//! | line | decoded as |
//! |---|---|
//! | stdout text | `text_delta` (blank lines only between text lines); the answer |
//! | a known error line (quota, login, model, print timeout), either stream; a login or `RESOURCE_EXHAUSTED` line on stderr | provider error, terminal |
//! | stderr `warning: conversation "<id>" not found` | `status` notice: agy started a new conversation |
//! | stderr log lines (`I0722 07:43:08.726326 ...`) | nothing |
//! | other stderr | kept: after an empty answer, the last of it is the error |
//! | the end of the streams, after a non-empty answer | the final record (the answer) |
//!
//! agy may fail with exit status 0, nothing on stdout and its message on
//! stderr; an empty answer with stderr text is therefore a terminal error.
//! Plain text has no closing record: the answer is agy's final record, so
//! an empty answer without stderr text is a run without its final record,
//! which the classifier fails (`fallback.no_final_record`).
//! It reports no usage: when the stream ends the decoder reports an
//! estimate of the answer's tokens (`estimated: true`); the transcript's
//! figures, or a better estimate from it, replace it after the run.

use std::sync::LazyLock;

use agentgate_protocol::{
    EventBody, StatusEvent, TextDeltaEvent, Usage, UsageEvent, UsageScope, estimate_output_tokens,
};
use regex::Regex;

use crate::classify::compile_checked;
use crate::decode::{Decoded, Decoder, ProviderError, ProviderFinal};

/// How many stderr lines are kept to explain a failure.
const STDERR_LINES: usize = 40;

/// Lines that are agy reporting a failure, on either stream: its quota,
/// model and print-timeout messages, worded so that no answer starts so.
static ERROR_LINE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    compile_checked(concat!(
        r"^\s*(?:⚠\s*)?(?:(?:error|fatal)\s*:\s*)?(?:",
        r"Individual quota reached",
        r"|You(?:'ve| have) reached (?:your .{0,40}usage limit|the quota limit for this model)",
        r"|You are not logged into Antigravity",
        r"|invalid model selection",
        r"|\[agy\] print timeout",
        r")",
    ))
    .ok()
});

/// More failure lines, taken from stderr only (an answer may start so).
static STDERR_ERROR_LINE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    compile_checked(
        r"^\s*(?:⚠\s*)?(?:(?:error|fatal)\s*:\s*)?(?:Authentication required|authentication timed out|RESOURCE_EXHAUSTED)",
    )
    .ok()
});

/// Lines that look like an error on stderr, for the empty-answer case.
static ERRORISH: LazyLock<Option<Regex>> =
    LazyLock::new(|| compile_checked(r"^\s*(?:⚠|(?:error|fatal|panic)\s*:)").ok());

/// agy's log lines (glog format), which never explain a failure.
static LOG_LINE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    compile_checked(r"^(?:ERROR: logging before google\.Init: )?[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+")
        .ok()
});

/// `warning: conversation "<id>" not found`: agy 1.2+ resuming an id it does
/// not know starts a new conversation instead.
static NOT_FOUND: LazyLock<Option<Regex>> = LazyLock::new(|| {
    compile_checked(r#"^\s*warning:\s*conversation\s+"?([^"\s]+)"?\s+not found"#).ok()
});

fn matches(re: &LazyLock<Option<Regex>>, text: &str) -> bool {
    re.as_ref().is_some_and(|re| re.is_match(text))
}

/// Decodes agy's plain-text `--print` output.
#[derive(Debug, Clone, Default)]
pub struct AgyDecoder {
    /// The answer so far.
    answer: String,
    /// Blank lines since the last text line, written only before the next.
    pending_blank: usize,
    /// A terminal error was reported.
    errored: bool,
    /// The last stderr lines that are not logs or notices.
    stderr: Vec<String>,
}

impl AgyDecoder {
    /// A decoder for one invocation.
    pub fn new() -> Self {
        Self::default()
    }

    fn error(&mut self, text: &str, out: &mut Vec<Decoded>) {
        self.errored = true;
        out.push(Decoded::ProviderError(ProviderError {
            message: text.trim().to_owned(),
            http_status: None,
            code: None,
            terminal: true,
        }));
    }
}

impl Decoder for AgyDecoder {
    fn stdout_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        let text = String::from_utf8_lossy(line);
        let text = text.trim_end();
        if matches(&ERROR_LINE, text) {
            self.error(text, out);
            return;
        }
        if text.trim().is_empty() {
            if !self.answer.is_empty() {
                self.pending_blank += 1;
            }
            return;
        }
        let mut delta = String::new();
        if !self.answer.is_empty() {
            delta.push_str(&"\n".repeat(self.pending_blank + 1));
        }
        self.pending_blank = 0;
        delta.push_str(text);
        self.answer.push_str(&delta);
        out.push(Decoded::Event(EventBody::TextDelta(TextDeltaEvent {
            text: delta,
        })));
    }

    fn stderr_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        let text = String::from_utf8_lossy(line);
        let text = text.trim_end();
        if text.trim().is_empty() || matches(&LOG_LINE, text) {
            return;
        }
        if let Some(id) = NOT_FOUND
            .as_ref()
            .and_then(|re| re.captures(text))
            .and_then(|c| c.get(1))
        {
            out.push(Decoded::Event(EventBody::Status(StatusEvent::Notice {
                detail: format!(
                    "agy does not know conversation {}; it started a new one",
                    id.as_str()
                ),
            })));
            return;
        }
        if matches(&ERROR_LINE, text) || matches(&STDERR_ERROR_LINE, text) {
            self.error(text, out);
            return;
        }
        if self.stderr.len() == STDERR_LINES {
            self.stderr.remove(0);
        }
        self.stderr.push(text.to_owned());
    }

    fn finish(&mut self, out: &mut Vec<Decoded>) {
        if self.answer.is_empty() {
            if !self.errored && !self.stderr.is_empty() {
                // The message starts at the last line that looks like an
                // error, else it is all agy said.
                let start = self
                    .stderr
                    .iter()
                    .rposition(|l| matches(&ERRORISH, l))
                    .unwrap_or(0);
                let message = self.stderr[start..].join("\n");
                self.error(&message, out);
            }
            return;
        }
        let output = estimate_output_tokens(&self.answer);
        out.push(Decoded::Event(EventBody::Usage(UsageEvent {
            scope: UsageScope::Total,
            usage: Usage {
                output_tokens: output,
                total_tokens: output,
                estimated: true,
                ..Usage::default()
            },
        })));
        out.push(Decoded::Final(ProviderFinal {
            text: Some(std::mem::take(&mut self.answer)),
            ..ProviderFinal::default()
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(stdout: &[&str], stderr: &[&str]) -> Vec<Decoded> {
        let mut d = AgyDecoder::new();
        let mut out = Vec::new();
        for l in stdout {
            d.stdout_line(l.as_bytes(), &mut out);
        }
        for l in stderr {
            d.stderr_line(l.as_bytes(), &mut out);
        }
        d.finish(&mut out);
        out
    }

    fn text(out: &[Decoded]) -> String {
        out.iter()
            .filter_map(|d| match d {
                Decoded::Event(EventBody::TextDelta(t)) => Some(t.text.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn blank_lines_stay_between_paragraphs_only() {
        let out = run(&["", "One.", "", "", "Two.", ""], &[]);
        assert_eq!(text(&out), "One.\n\n\nTwo.");
    }

    #[test]
    fn an_empty_answer_with_stderr_is_an_error_and_logs_are_not() {
        let out = run(
            &[],
            &[
                "I0722 07:43:08.726326 53963 manager.go:502] CLI store manager initialized",
                "something odd",
                "Error: the backend said no",
            ],
        );
        let errors: Vec<&str> = out
            .iter()
            .filter_map(|d| match d {
                Decoded::ProviderError(e) if e.terminal => Some(e.message.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(errors, ["Error: the backend said no"]);
    }

    #[test]
    fn known_error_lines_are_terminal_even_with_exit_zero() {
        let out = run(
            &[],
            &[
                "⚠ Individual quota reached. Contact your administrator to enable overages. Resets in 141h28m14s.",
            ],
        );
        assert!(
            matches!(&out[..], [Decoded::ProviderError(e)] if e.terminal && e.message.starts_with("⚠ Individual quota"))
        );
        // An answer may start with words that are an error on stderr.
        let out = run(&["Authentication required: see the README."], &[]);
        assert_eq!(text(&out), "Authentication required: see the README.");
        assert!(!out.iter().any(|d| matches!(d, Decoded::ProviderError(_))));
    }
}
