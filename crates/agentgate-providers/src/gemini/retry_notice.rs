//! Gemini CLI's retry notices on stderr, two forms (0.61):
//!
//! - `Attempt N failed with status S. Retrying with backoff... <error>`
//!   (most errors; one line);
//! - `Attempt N failed: <message>` for a quota or capacity error it retries
//!   after the delay the API suggested, whose message may run over several
//!   lines, then `... Retrying after Tms...` (a retry) or `... Max attempts
//!   reached` (the last attempt: no retry). The first line alone does not
//!   say which, so it waits ([`PendingAttempt`]) for the line that does.
//!
//! A capacity error's first retry notice is what ends a Gemini attempt
//! when a fallback model is to come (`agentgate-core`'s `run/capacity.rs`).

use agentgate_protocol::StatusEvent;
use serde_json::{Map, Value};

/// How many lines of a quota message are waited through for its end.
const MAX_MESSAGE_LINES: usize = 8;

/// What an `Attempt N failed: ...` line is.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum QuotaAttempt {
    /// Retried, said on the same line.
    Retried(StatusEvent),
    /// The last attempt, said on the same line.
    Last,
    /// Not said yet.
    Pending(PendingAttempt),
}

/// An `Attempt N failed: <message>` whose end is still to come.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PendingAttempt {
    attempt: Option<u32>,
    message: String,
    lines: usize,
}

/// What the next line makes of a [`PendingAttempt`].
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Continued {
    Retried(StatusEvent),
    Last,
    Waiting(PendingAttempt),
    /// Not a continuation: the line is read on its own.
    Other,
}

/// `Attempt 2 failed with status 429. Retrying with backoff... _ApiError:
/// {...}` as a retry notice.
pub(super) fn retry_notice(line: &str) -> Option<StatusEvent> {
    let rest = line.strip_prefix("Attempt ")?;
    let (attempt, rest) = rest.split_once(' ')?;
    let rest = rest.strip_prefix("failed with status ")?;
    let (status, rest) = rest.split_once('.').unwrap_or((rest, ""));
    let detail = rest
        .split_once("Retrying with backoff...")
        .map_or(rest, |(_, after)| after)
        .trim();
    let body = embedded_error(detail);
    let detail = body
        .as_ref()
        .and_then(|b| b.get("message"))
        .and_then(Value::as_str)
        .unwrap_or(detail);
    Some(StatusEvent::Retry {
        retry_attempt: attempt.parse().ok(),
        max_retries: None,
        delay_ms: None,
        provider_status: status.trim().parse().ok(),
        detail: (!detail.is_empty()).then(|| detail.to_owned()),
    })
}

/// `Attempt N failed: <message>` (not the `with status` form).
pub(super) fn quota_attempt(line: &str) -> Option<QuotaAttempt> {
    let rest = line.strip_prefix("Attempt ")?;
    let (attempt, rest) = rest.split_once(' ')?;
    let message = rest.strip_prefix("failed: ")?;
    let pending = PendingAttempt {
        attempt: attempt.parse().ok(),
        message: String::new(),
        lines: 0,
    };
    Some(match pending.next_line(message) {
        Continued::Retried(r) => QuotaAttempt::Retried(r),
        Continued::Last => QuotaAttempt::Last,
        Continued::Waiting(p) => QuotaAttempt::Pending(p),
        Continued::Other => return None,
    })
}

impl PendingAttempt {
    /// Takes the next line of the message.
    pub(super) fn next_line(mut self, line: &str) -> Continued {
        if let Some((before, _)) = line.split_once("Retrying after ") {
            self.push(before);
            // The delay as the error table reads it from the same words.
            let delay_ms =
                crate::classify::is_retry_notice(&super::ERRORS, line).and_then(|n| n.delay_ms);
            return Continued::Retried(self.retry(delay_ms));
        }
        if line.contains("Max attempts reached") {
            return Continued::Last;
        }
        if self.lines >= MAX_MESSAGE_LINES || line.starts_with("Attempt ") {
            return Continued::Other;
        }
        self.push(line);
        Continued::Waiting(self)
    }

    fn push(&mut self, text: &str) {
        let text = text.trim().trim_end_matches('.').trim();
        if !text.is_empty() {
            if !self.message.is_empty() {
                self.message.push('\n');
            }
            self.message.push_str(text);
        }
        self.lines += 1;
    }

    fn retry(self, delay_ms: Option<u64>) -> StatusEvent {
        StatusEvent::Retry {
            retry_attempt: self.attempt,
            max_retries: None,
            delay_ms,
            provider_status: None,
            detail: (!self.message.is_empty()).then_some(self.message),
        }
    }
}

/// The `error` object of an API error body embedded in a text.
pub(super) fn embedded_error(text: &str) -> Option<Map<String, Value>> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    let body: Value = serde_json::from_str(text.get(start..=end)?).ok()?;
    match body.get("error") {
        Some(Value::Object(e)) => Some(e.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_notices_are_parsed() {
        let line = r#"Attempt 2 failed with status 429. Retrying with backoff... _ApiError: {"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED"}}"#;
        assert_eq!(
            retry_notice(line),
            Some(StatusEvent::Retry {
                retry_attempt: Some(2),
                max_retries: None,
                delay_ms: None,
                provider_status: Some(429),
                detail: Some("You exceeded your current quota.".into()),
            })
        );
        assert_eq!(
            retry_notice("Attempt 5 failed: quota. Max attempts reached"),
            None
        );
    }

    #[test]
    fn a_quota_attempt_over_two_lines_is_a_retry_unless_it_was_the_last() {
        let first = "Attempt 1 failed: No capacity available for model gemini-2.5-pro on the server (MODEL_CAPACITY_EXHAUSTED)";
        let Some(QuotaAttempt::Pending(p)) = quota_attempt(first) else {
            panic!("{:?}", quota_attempt(first));
        };
        let Continued::Retried(StatusEvent::Retry {
            retry_attempt,
            delay_ms,
            detail,
            ..
        }) = p
            .clone()
            .next_line("Suggested retry after 1s.. Retrying after 5876ms...")
        else {
            panic!("not a retry");
        };
        assert_eq!(retry_attempt, Some(1));
        assert_eq!(delay_ms, Some(5876), "the line's own delay");
        assert_eq!(
            detail.as_deref(),
            Some(
                "No capacity available for model gemini-2.5-pro on the server (MODEL_CAPACITY_EXHAUSTED)\nSuggested retry after 1s"
            )
        );
        assert_eq!(
            p.next_line("Suggested retry after 1s.. Max attempts reached"),
            Continued::Last
        );
        assert!(matches!(
            quota_attempt("Attempt 2 failed: quota. Retrying after 100ms..."),
            Some(QuotaAttempt::Retried(_))
        ));
        assert_eq!(
            quota_attempt("Attempt 5 failed: quota. Max attempts reached"),
            Some(QuotaAttempt::Last)
        );
        assert_eq!(quota_attempt("Attempt 2 failed with status 429. x"), None);
    }
}
