//! How an attempt ends: [`AttemptEnd`] (its error, tails and times) summed
//! up by [`finish_attempt`] into the attempt's envelope, its `usage` event
//! and its attempt record ([`AttemptOutcome`]). Shared by one-shot
//! attempts (`attempt.rs`) and warm turns (`warm_attempt.rs`).

use std::path::Path;
use std::time::Instant;

use agentgate_protocol::{
    Attempt, Envelope, ErrorInfo, ErrorKind, ErrorSource, EventBody, RateLimitEvent, Survivor,
    Usage, UsageEvent, UsageScope,
};
use agentgate_providers::{Accumulator, CliRequest, Finish};
use jiff::Timestamp;

use super::emitter::Emitter;
use crate::plan::Step;

/// What one attempt runs: a step, the request of this attempt (the
/// session it resumes, the model after an invalid-model retry), and the
/// home folder whose session files are read after it.
#[derive(Clone, Copy)]
pub(super) struct AttemptPacket<'a> {
    pub step: &'a Step,
    pub request: &'a CliRequest,
    pub home: Option<&'a Path>,
}

/// One attempt's result.
pub(super) struct AttemptOutcome {
    pub(super) envelope: Envelope,
    pub(super) error: Option<ErrorInfo>,
    pub(super) rate_limit: Option<RateLimitEvent>,
    pub(super) attempt: Attempt,
    pub(super) started_at: Timestamp,
}

/// How an attempt ended, for [`finish_attempt`].
pub(super) struct AttemptEnd {
    pub(super) error: Option<ErrorInfo>,
    /// The thread's totals before this turn (Codex), to subtract.
    pub(super) previous_totals: Option<Usage>,
    pub(super) stderr_tail: Option<String>,
    /// Processes that could not be ended.
    pub(super) survivors: Vec<Survivor>,
    pub(super) started: Instant,
    pub(super) started_at: Timestamp,
}

impl AttemptEnd {
    /// An attempt that failed before its CLI could run.
    pub(super) fn failed(
        kind: ErrorKind,
        message: String,
        started: Instant,
        started_at: Timestamp,
    ) -> Self {
        AttemptEnd::turn(
            Some(ErrorInfo::new(kind, ErrorSource::Internal, message)),
            started,
            started_at,
        )
    }

    /// A warm turn's end (no exit, no tails: the process lives on).
    pub(super) fn turn(error: Option<ErrorInfo>, started: Instant, started_at: Timestamp) -> Self {
        AttemptEnd {
            error,
            previous_totals: None,
            stderr_tail: None,
            survivors: Vec::new(),
            started,
            started_at,
        }
    }
}

impl AttemptOutcome {
    pub(super) fn with_exit(mut self, code: Option<i32>) -> Self {
        self.attempt.exit_code = code;
        self
    }

    /// Turn a successful attempt into a failed one.
    pub(super) fn fail(&mut self, error: ErrorInfo) {
        self.attempt.error_type = Some(error.kind);
        self.attempt.error = Some(error.message.clone());
        self.attempt.recoverable = Some(error.recoverable);
        self.error = Some(error);
    }
}

/// The attempt's envelope, its `usage` event and its attempt record.
pub(super) fn finish_attempt(
    packet: AttemptPacket<'_>,
    acc: &Accumulator,
    end: AttemptEnd,
    em: &mut Emitter<'_>,
) -> AttemptOutcome {
    let AttemptPacket { step, request, .. } = packet;
    let AttemptEnd {
        mut error,
        previous_totals,
        stderr_tail,
        survivors,
        started,
        started_at,
    } = end;
    // The messages quote the CLI's (redacted) output, and sometimes
    // agentgate's own words about it: checked once more.
    if let Some(e) = &mut error {
        e.message = em.redactor().redact_str(&e.message).into_owned();
    }
    let provider = step.provider.clone();
    let duration_ms = started.elapsed().as_millis() as u64;
    let envelope = acc.finish(Finish {
        run_id: em.run_id.clone(),
        duration_ms,
        requested_model: request.model.clone(),
        error: None,
        exit_code: 0,
        previous_thread_totals: previous_totals.clone(),
        stderr_tail,
        exposes_reasoning: provider.exposes_reasoning(),
    });
    // The attempt's figures as one `usage` event of scope total: the best
    // evidence the accumulator found (billing totals, Codex's thread delta,
    // or the sum of per-call figures), so a stream consumer needs no
    // provider knowledge to get them.
    if let Some(u) = acc.usage(previous_totals.as_ref()) {
        em.emit(EventBody::Usage(UsageEvent {
            scope: UsageScope::Total,
            usage: u,
        }));
    }
    let attempt = Attempt {
        provider: provider.name().to_owned(),
        model: envelope.model.clone(),
        agent: step.agent.clone(),
        session_id: envelope.session_id.clone(),
        duration_ms,
        exit_code: None,
        error_type: error.as_ref().map(|e| e.kind),
        error: error.as_ref().map(|e| e.message.clone()),
        recoverable: error.as_ref().map(|e| e.recoverable),
        reset_at: error.as_ref().and_then(|e| e.reset_at.clone()),
        skipped: false,
        survivors,
    };
    AttemptOutcome {
        envelope,
        error,
        rate_limit: acc.rate_limit().cloned(),
        attempt,
        started_at,
    }
}

#[cfg(test)]
mod tests {
    use agentgate_protocol::Event;

    use agentgate_protocol::LogLevel;

    use super::*;

    #[test]
    fn a_survivor_is_named_in_a_warning_event_and_in_the_attempt() {
        let mut events: Vec<Event> = Vec::new();
        let mut em = Emitter::new(
            "run_1".to_owned(),
            None,
            &mut events,
            crate::redact::Redactor::default(),
        );
        let found = [agentgate_supervise::Survivor {
            pid: 4242,
            command: "stuck-daemon --flag".to_owned(),
        }];
        let survivors = em.report_survivors(&found);
        assert_eq!(
            survivors,
            [Survivor {
                pid: 4242,
                command: "stuck-daemon --flag".to_owned()
            }]
        );
        let [event] = events.as_slice() else {
            panic!("one event expected: {events:?}");
        };
        let EventBody::Log(log) = &event.body else {
            panic!("a log event expected: {event:?}");
        };
        assert_eq!(log.level, LogLevel::Warn);
        assert!(
            log.message.contains("4242") && log.message.contains("stuck-daemon --flag"),
            "{}",
            log.message
        );
    }
}
