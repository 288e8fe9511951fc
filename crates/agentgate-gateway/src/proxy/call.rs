//! A model call in flight, from its request's arrival to its end: the
//! `model_call` event it becomes, its line of the recording, and its share
//! of the run's totals.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agentgate_protocol::{ModelCallEvent, WireApi};
use bytes::Bytes;

use super::Shared;
use super::notice::GatewayNotice;
use super::record::{RecordedCall, RecordedResponse};
use crate::wire::{RateLimits, TapReport};

/// What a response said of itself, for the call's event.
#[derive(Debug, Default)]
pub(crate) struct ResponseFacts {
    /// The upstream's status.
    pub status: u16,
    /// Whether it was SSE.
    pub event_stream: bool,
    /// Bytes of body passed to the CLI.
    pub bytes: u64,
    /// From the request's arrival to the body's first byte.
    pub ttft: Option<Duration>,
    /// Its rate-limit headers.
    pub rate: RateLimits,
    /// The tap's reading of its body.
    pub report: TapReport,
}

/// A model call between its request and its end.
#[derive(Debug)]
pub(crate) struct CallTrack {
    pub shared: Arc<Shared>,
    /// Its number, from 1.
    pub number: u32,
    pub api: WireApi,
    /// The path after the secret, without the query.
    pub path: String,
    /// The model the request named.
    pub model: Option<String>,
    pub request_bytes: u64,
    /// When its request arrived.
    pub arrived: Instant,
    /// Its request, when the run records.
    pub record: Option<RecordedCall>,
    /// Its event was sent (set by the `end_*` methods; a track dropped
    /// without it, because the CLI went away before the answer, still
    /// sends one).
    pub ended: bool,
}

impl CallTrack {
    fn event(&self, latency: Duration) -> ModelCallEvent {
        ModelCallEvent {
            call: self.number,
            api: self.api,
            model: self.model.clone(),
            path: self.path.clone(),
            stream: false,
            status: None,
            request_bytes: self.request_bytes,
            response_bytes: 0,
            latency_ms: millis(latency),
            ttft_ms: None,
            usage: None,
            cache_write_5m_tokens: None,
            cache_write_1h_tokens: None,
            rate_limits: Vec::new(),
            retry_after_s: None,
            error: None,
            refused_by: None,
        }
    }

    /// The gateway answered the call itself (a wrong key, a limit, a body
    /// over the bound) with `status` and `body`: it ends with `error`.
    pub fn end_answered(
        mut self,
        status: u16,
        content_type: &str,
        body: &Bytes,
        error: String,
        refused_by: Option<&'static str>,
    ) {
        let mut event = self.event(self.arrived.elapsed());
        event.error = Some(error.clone());
        event.refused_by = refused_by.map(str::to_owned);
        let response = RecordedResponse {
            status,
            headers: vec![("content-type".to_owned(), content_type.to_owned())],
            body: body.to_vec(),
            body_truncated: false,
            error: Some(error),
        };
        self.send(event, Some(response));
    }

    /// No response came from the upstream (unreachable, TLS, no headers in
    /// time): the call ends with `error`.
    pub fn end_unanswered(mut self, error: String) {
        let latency = self.arrived.elapsed();
        self.shared.ledger.end_call(None, latency);
        let mut event = self.event(latency);
        event.error = Some(error);
        self.send(event, None);
    }

    /// The response's body ended (`error` when it did not end well).
    pub fn end_responded(
        mut self,
        facts: ResponseFacts,
        error: Option<String>,
        response: Option<RecordedResponse>,
    ) {
        let latency = self.arrived.elapsed();
        let report = facts.report;
        self.shared.ledger.end_call(report.usage.as_ref(), latency);
        let mut event = self.event(latency);
        if event.model.is_none() {
            event.model = report.model;
        }
        event.stream = facts.event_stream;
        event.status = Some(facts.status);
        event.response_bytes = facts.bytes;
        event.ttft_ms = facts.ttft.map(millis);
        event.usage = report.usage;
        event.cache_write_5m_tokens = report.cache_write_5m_tokens;
        event.cache_write_1h_tokens = report.cache_write_1h_tokens;
        event.rate_limits = facts.rate.windows;
        event.retry_after_s = facts.rate.retry_after_s.or(report.retry_after_s);
        let errors: Vec<String> = [
            error,
            report.api_error,
            report
                .invalid
                .map(|what| format!("invalid response body: {what}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        event.error = (!errors.is_empty()).then(|| errors.join("; "));
        self.send(event, response);
    }

    fn send(&mut self, event: ModelCallEvent, response: Option<RecordedResponse>) {
        self.ended = true;
        if let (Some(recorder), Some(mut call)) = (&self.shared.recorder, self.record.take()) {
            call.response = response;
            recorder.record(call);
        }
        tracing::debug!(
            call = event.call,
            status = ?event.status,
            latency_ms = event.latency_ms,
            error = ?event.error,
            "gateway: model call ended"
        );
        // The run may have stopped listening; the call still ended.
        let _ = self.shared.notices.send(GatewayNotice::Call(event));
    }
}

impl Drop for CallTrack {
    fn drop(&mut self) {
        if !self.ended {
            let latency = self.arrived.elapsed();
            self.shared.ledger.end_call(None, latency);
            let mut event = self.event(latency);
            event.error = Some("the CLI closed the connection before the response came".to_owned());
            self.send(event, None);
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
