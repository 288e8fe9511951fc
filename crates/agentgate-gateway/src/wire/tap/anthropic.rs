//! Anthropic Messages: the usage of `message_start.message.usage`, then of
//! each `message_delta.usage` (output is cumulative; a delta may restate
//! the input classes: the latest non-zero figure wins), `message_stop` as
//! the end, `error` events; a non-stream body is the message object.
//!
//! Anthropic's `input_tokens` leaves the cache out: agentgate's input is
//! `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`.
//! `cache_creation.ephemeral_1h_input_tokens` is the usage's
//! `cache_creation_1h_input_tokens` (and the report's TTL split).

use serde_json::Value;

use super::{Findings, usage};
use crate::wire::error_shape::error_text;

/// The figures read so far, in Anthropic's classes.
#[derive(Debug, Default)]
pub(super) struct Reader {
    uncached: u64,
    cache_read: u64,
    cache_write: u64,
    output: u64,
    write_5m: Option<u64>,
    write_1h: Option<u64>,
}

impl Reader {
    /// One stream event.
    pub fn event(&mut self, found: &mut Findings, name: Option<&str>, v: &Value) {
        let kind = v.get("type").and_then(Value::as_str).or(name).unwrap_or("");
        match kind {
            "message_start" => {
                found.model_from(v.pointer("/message/model"));
                if let Some(u) = v.pointer("/message/usage").filter(|u| u.is_object()) {
                    self.merge(u);
                    self.publish(found);
                }
            }
            "message_delta" => {
                if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
                    self.merge(u);
                    self.publish(found);
                }
            }
            "message_stop" => found.complete = true,
            "error" => found.error(error_text(v).unwrap_or_else(|| "error".to_owned())),
            _ => {}
        }
    }

    /// A whole body: the message (an error body is read by the caller).
    pub fn body(&mut self, found: &mut Findings, v: &Value) {
        if v.get("type").and_then(Value::as_str) != Some("message") {
            return;
        }
        found.model_from(v.get("model"));
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            self.merge(u);
            self.publish(found);
        }
    }

    fn merge(&mut self, u: &Value) {
        let n = |k: &str| u.get(k).and_then(Value::as_u64);
        let latest = |slot: &mut u64, v: Option<u64>| {
            if let Some(v) = v.filter(|v| *v > 0) {
                *slot = v;
            }
        };
        latest(&mut self.uncached, n("input_tokens"));
        latest(&mut self.cache_read, n("cache_read_input_tokens"));
        let ttl = |k: &str| {
            u.pointer(&format!("/cache_creation/{k}"))
                .and_then(Value::as_u64)
        };
        let (w5, w1) = (
            ttl("ephemeral_5m_input_tokens"),
            ttl("ephemeral_1h_input_tokens"),
        );
        if w5.is_some() || w1.is_some() {
            // The TTL split restates the write as a whole; keep the latest
            // split that says anything.
            if w5.unwrap_or(0) > 0 || w1.unwrap_or(0) > 0 || self.write_5m.is_none() {
                self.write_5m = w5;
                self.write_1h = w1;
            }
        }
        let write = n("cache_creation_input_tokens")
            .or_else(|| (w5.is_some() || w1.is_some()).then(|| w5.unwrap_or(0) + w1.unwrap_or(0)));
        latest(&mut self.cache_write, write);
        // Output is a running count: the latest figure stands.
        if let Some(out) = n("output_tokens") {
            self.output = out;
        }
    }

    fn publish(&self, found: &mut Findings) {
        let input = self
            .uncached
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write);
        let mut u = usage(input, self.cache_read, self.cache_write, self.output, 0);
        // The 1-hour part of the writes, so the run's sum (and its price)
        // tells it from the 5-minute writes.
        u.cache_creation_1h_input_tokens = self.write_1h.unwrap_or(0).min(self.cache_write);
        found.usage = Some(u);
        found.cache_write_5m = self.write_5m;
        found.cache_write_1h = self.write_1h;
    }
}
