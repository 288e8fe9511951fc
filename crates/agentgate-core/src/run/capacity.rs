//! Gemini's capacity error ends the attempt at its first notice, so the
//! fallback model (`models.gemini_capacity_fallback`, `step.rs`) starts at
//! once. Gemini CLI retries a failed request on its own (up to
//! `general.maxAttempts`, seconds apart), and prints each retry on stderr
//! ("Attempt 1 failed with status 429. Retrying with backoff..."), which
//! its decoder makes a `retry` status event. When the step has a fallback
//! still to come (the attempt is not already on the fallback model) and
//! that notice is one the provider's error table calls `overloaded` (the
//! capacity rule), the attempt is stopped there: its error is that notice,
//! classified as `overloaded`, and `step.rs` retries with the lighter
//! model. Gemini's own retry count is left as the user set it (its
//! `maxAttempts` applies to every error, not only this one).

use agentgate_protocol::{ErrorKind, EventBody, StatusEvent};
use agentgate_providers::{ClassifyInput, Provider, ProviderError, classify};

/// The error to stop the attempt with when `body` is a retry notice of a
/// capacity error and a fallback model is still to come.
pub(super) fn capacity_notice(
    provider: &dyn Provider,
    fallback: Option<&str>,
    model: Option<&str>,
    body: &EventBody,
    now: jiff::Timestamp,
) -> Option<ProviderError> {
    let fallback = fallback?;
    if model == Some(fallback) {
        return None;
    }
    let EventBody::Status(StatusEvent::Retry {
        provider_status,
        detail,
        ..
    }) = body
    else {
        return None;
    };
    let error = ProviderError {
        message: detail.clone()?,
        http_status: *provider_status,
        code: None,
        terminal: true,
    };
    let tz = jiff::tz::TimeZone::UTC;
    let errors = [error.clone()];
    let input = ClassifyInput {
        provider: provider.name(),
        errors: &errors,
        ..ClassifyInput::new(provider.errors(), now, &tz)
    };
    (classify(&input)?.kind == ErrorKind::Overloaded).then_some(error)
}

#[cfg(test)]
mod tests {
    use agentgate_providers::builtin;

    use super::*;

    fn retry(detail: &str) -> EventBody {
        EventBody::Status(StatusEvent::Retry {
            retry_attempt: Some(1),
            max_retries: None,
            delay_ms: None,
            provider_status: Some(429),
            detail: Some(detail.into()),
        })
    }

    #[test]
    fn a_capacity_notice_stops_the_attempt_while_the_fallback_is_to_come() {
        let gemini = builtin("gemini").unwrap();
        let now = jiff::Timestamp::UNIX_EPOCH;
        let capacity = retry("No capacity available for model gemini-2.5-pro on the server");
        let flash = Some("gemini-2.5-flash");
        let pro = Some("gemini-2.5-pro");
        let e = capacity_notice(gemini.as_ref(), flash, pro, &capacity, now).unwrap();
        assert!(e.message.contains("No capacity"), "{e:?}");
        // On the fallback model, or without one: Gemini's own retries run.
        assert!(capacity_notice(gemini.as_ref(), flash, flash, &capacity, now).is_none());
        assert!(capacity_notice(gemini.as_ref(), None, pro, &capacity, now).is_none());
        // Another error's retry is not a capacity notice.
        let quota = retry("You exceeded your current quota.");
        assert!(capacity_notice(gemini.as_ref(), flash, pro, &quota, now).is_none());
    }
}
