//! Claude Code: `claude -p --output-format stream-json --verbose`, and the
//! single result object of `--output-format json`.
//!
//! | line | decoded as |
//! |---|---|
//! | `system/init` | `session` (session id, model) |
//! | `system/api_retry` | `status` retry; its `error` is kept as the code of the final error |
//! | `system/compact_boundary` | `status` compaction (`pre_tokens`, trigger) |
//! | `system/status` | `status` notice (`compacting`, a failed compaction) |
//! | `rate_limit_event` | `rate_limit` (`resetsAt` epoch → RFC 3339) |
//! | `assistant`, first line of a message id | `usage` scope turn, with its context size |
//! | `assistant` text block | `message` (never `text_delta`, see below) |
//! | `assistant` thinking block | `thinking` |
//! | `assistant` tool_use block | `tool_use` with class |
//! | `assistant` with `error` (synthetic) | provider error, not terminal, code = `error` |
//! | `user` tool_result block | `tool_result` (exit code for shell tools) |
//! | `result` | provider error (terminal) when `is_error`, then the final record |
//! | anything else | `raw` |
//!
//! Claude prints one `assistant` line per content block, each with the
//! whole block and the same message id. A text block is therefore a
//! complete message: it becomes one `message` event and no `text_delta`.
//! The answer is `result.result` (the last message's text), not the
//! concatenation of every text block, so the accumulator takes it from the
//! final record.
//!
//! Usage of a message is the API call's figures as of its start (Claude
//! prints `output_tokens` of the first chunk, typically 1): one `usage`
//! event per message id, the billing figures come with `result`.
//!
//! Cache writes by lifetime: a usage's `cache_creation.ephemeral_1h_input_tokens`
//! is its `cache_creation_1h_input_tokens` (the rest of the writes are
//! 5-minute ones). The result's per-model totals (`modelUsage`) do not
//! split the writes: the 1-hour part is then the result's `usage.cache_creation`,
//! else the sum over the messages' usage (each message id once), never
//! more than the writes.

use std::collections::{HashMap, HashSet};

use agentgate_protocol::{
    EventBody, MessageEvent, RateLimitEvent, RateLimitStatus, StatusEvent, Usage, UsageEvent,
    UsageScope,
};
use serde_json::{Map, Value};

use crate::decode::claude_shape::{
    ResultHead, content_blocks, result_head, session_init, tool_results,
};
use crate::decode::fields::{u16_of, u32_of, u64_of};
use crate::decode::tools::TOOL_OUTPUT_CAP;
use crate::decode::{
    Decoded, JsonLinesDecoder, ProviderError, ProviderFinal, Understood, event, str_of,
};

/// The model name Claude Code gives messages it made up itself (errors,
/// local command output); they carry no real usage.
const SYNTHETIC_MODEL: &str = "<synthetic>";

/// Decodes Claude Code's `stream-json` (and `json`) output.
#[derive(Debug, Clone)]
pub struct ClaudeDecoder {
    tool_output_cap: usize,
    /// Message ids whose usage was already reported.
    usage_seen: HashSet<String>,
    /// Tool names by `tool_use` id, to know which results are a shell's.
    tool_names: HashMap<String, String>,
    /// Context size after the last assistant message.
    last_context: Option<u64>,
    /// The 1-hour cache writes of the messages whose usage was reported.
    messages_write_1h: u64,
    /// The `error` of the last synthetic error message.
    error_code: Option<String>,
    /// The `error` of the last `api_retry`.
    retry_error: Option<String>,
    session_reported: bool,
}

impl Default for ClaudeDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl ClaudeDecoder {
    /// A decoder for one invocation, keeping at most [`TOOL_OUTPUT_CAP`]
    /// bytes of each tool output.
    pub fn new() -> Self {
        Self {
            tool_output_cap: TOOL_OUTPUT_CAP,
            usage_seen: HashSet::new(),
            tool_names: HashMap::new(),
            last_context: None,
            messages_write_1h: 0,
            error_code: None,
            retry_error: None,
            session_reported: false,
        }
    }

    /// The same decoder keeping at most `bytes` of each tool output.
    #[must_use]
    pub fn with_tool_output_cap(mut self, bytes: usize) -> Self {
        self.tool_output_cap = bytes;
        self
    }

    fn system(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        match str_of(obj, "subtype") {
            Some("init") => session_init(obj, &mut self.session_reported, out),
            Some("api_retry") => {
                let detail = str_of(obj, "error").map(str::to_owned);
                if detail.is_some() {
                    self.retry_error.clone_from(&detail);
                }
                out.push(event(EventBody::Status(StatusEvent::Retry {
                    retry_attempt: u32_of(obj.get("attempt")),
                    max_retries: u32_of(obj.get("max_retries")),
                    delay_ms: u64_of(obj.get("retry_delay_ms")),
                    provider_status: u16_of(obj.get("error_status")),
                    detail,
                })));
                Understood::Yes
            }
            Some("compact_boundary") => {
                let meta = obj.get("compact_metadata").and_then(Value::as_object);
                let field = |snake: &str, camel: &str| {
                    meta.and_then(|m| m.get(snake).or_else(|| m.get(camel)))
                };
                out.push(event(EventBody::Status(StatusEvent::Compaction {
                    tokens_before: u64_of(field("pre_tokens", "preTokens")),
                    detail: field("trigger", "trigger")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                })));
                Understood::Yes
            }
            Some("status") => {
                let detail = match (str_of(obj, "status"), str_of(obj, "compact_result")) {
                    (Some(status), _) => status.to_owned(),
                    (None, Some(result)) => match str_of(obj, "compact_error") {
                        Some(err) => format!("compaction {result}: {err}"),
                        None => format!("compaction {result}"),
                    },
                    (None, None) => return Understood::No,
                };
                out.push(event(EventBody::Status(StatusEvent::Notice { detail })));
                Understood::Yes
            }
            _ => Understood::No,
        }
    }

    fn assistant(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        let Some(msg) = obj.get("message").and_then(Value::as_object) else {
            return Understood::No;
        };
        let synthetic = str_of(msg, "model") == Some(SYNTHETIC_MODEL);
        let error = str_of(obj, "error");
        if let Some(code) = error {
            self.error_code = Some(code.to_owned());
        }
        if !synthetic {
            self.usage(msg, out);
        }
        let mut error_reported = false;
        let understood = content_blocks(msg, &mut self.tool_names, out, |text, out| {
            if let Some(code) = error {
                error_reported = true;
                out.push(Decoded::ProviderError(ProviderError {
                    message: text.to_owned(),
                    http_status: None,
                    code: Some(code.to_owned()),
                    terminal: false,
                }));
            } else if !text.is_empty() {
                out.push(event(EventBody::Message(MessageEvent {
                    text: text.to_owned(),
                })));
            }
        });
        if let (Some(code), false) = (error, error_reported) {
            out.push(Decoded::ProviderError(ProviderError {
                message: code.to_owned(),
                http_status: None,
                code: Some(code.to_owned()),
                terminal: false,
            }));
        }
        understood
    }

    /// One `usage` event per message id; remembers the context size.
    fn usage(&mut self, msg: &Map<String, Value>, out: &mut Vec<Decoded>) {
        let Some(usage) = msg.get("usage").and_then(Value::as_object) else {
            return;
        };
        let u = usage_of(usage);
        let context = u.input_tokens.saturating_add(u.output_tokens);
        self.last_context = Some(context);
        let first = match str_of(msg, "id") {
            Some(id) => self.usage_seen.insert(id.to_owned()),
            None => true,
        };
        if first {
            self.messages_write_1h = self
                .messages_write_1h
                .saturating_add(u.cache_creation_1h_input_tokens);
            out.push(event(EventBody::Usage(UsageEvent {
                scope: UsageScope::Turn,
                usage: Usage {
                    context_tokens: Some(context),
                    ..u
                },
            })));
        }
    }

    fn user(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        let tool_use_result = obj.get("tool_use_result");
        tool_results(
            obj,
            &self.tool_names,
            self.tool_output_cap,
            out,
            |output, ok| shell_exit_code(tool_use_result, ok, output),
        )
    }

    fn result(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        let ResultHead {
            session_id,
            subtype,
            is_error,
            text,
        } = result_head(obj, &mut self.session_reported, out);
        if is_error {
            let message = match text.as_deref() {
                Some(t) if !t.is_empty() => t.to_owned(),
                _ => error_list(obj).unwrap_or_else(|| subtype.to_owned()),
            };
            let code = self
                .error_code
                .clone()
                .or_else(|| subtype.starts_with("error").then(|| subtype.to_owned()))
                .or_else(|| self.retry_error.clone());
            out.push(Decoded::ProviderError(ProviderError {
                message,
                http_status: u16_of(obj.get("api_error_status")),
                code,
                terminal: true,
            }));
        }
        out.push(Decoded::Final(ProviderFinal {
            text,
            session_id,
            is_error,
            usage: self.billing(obj),
            num_turns: u32_of(obj.get("num_turns")),
        }));
        Understood::Yes
    }

    /// Billing figures of the invocation: the per-model totals when the
    /// record has them (they include side calls such as compaction, which
    /// `usage` leaves out, and match `total_cost_usd`), else `usage`.
    fn billing(&self, obj: &Map<String, Value>) -> Option<Usage> {
        let by_model = obj
            .get("modelUsage")
            .and_then(Value::as_object)
            .filter(|m| !m.is_empty());
        let result_usage = obj.get("usage").and_then(Value::as_object);
        let mut u = match (by_model, result_usage) {
            (Some(models), _) => {
                let mut sum = Usage::default();
                for m in models.values().filter_map(Value::as_object) {
                    let part = usage_from(
                        u64_of(m.get("inputTokens")).unwrap_or(0),
                        u64_of(m.get("cacheReadInputTokens")).unwrap_or(0),
                        u64_of(m.get("cacheCreationInputTokens")).unwrap_or(0),
                        u64_of(m.get("outputTokens")).unwrap_or(0),
                    );
                    add(&mut sum, &part);
                }
                sum
            }
            (None, Some(usage)) => usage_of(usage),
            (None, None) => return None,
        };
        // The 1-hour writes: the result's split where it has one, else the
        // messages'.
        let write_1h = match result_usage.and_then(write_1h_of) {
            Some(n) => n,
            None => self.messages_write_1h,
        };
        u.cache_creation_1h_input_tokens = write_1h.min(u.cache_creation_input_tokens);
        u.cost_usd = obj.get("total_cost_usd").and_then(Value::as_f64);
        u.context_tokens = self.last_context;
        Some(u)
    }
}

impl JsonLinesDecoder for ClaudeDecoder {
    /// Decodes one JSON object.
    fn object(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        match str_of(obj, "type") {
            Some("system") => self.system(obj, out),
            Some("rate_limit_event") => rate_limit(obj, out),
            Some("assistant") => self.assistant(obj, out),
            Some("user") => self.user(obj, out),
            Some("result") => self.result(obj, out),
            _ => Understood::No,
        }
    }
}

/// Figures in the protocol's terms from Claude's four counts: input is
/// uncached + cache reads + cache writes.
fn usage_from(input: u64, cache_read: u64, cache_creation: u64, output: u64) -> Usage {
    let input_tokens = input
        .saturating_add(cache_read)
        .saturating_add(cache_creation);
    Usage {
        input_tokens,
        output_tokens: output,
        cache_read_input_tokens: cache_read,
        cache_creation_input_tokens: cache_creation,
        total_tokens: input_tokens.saturating_add(output),
        ..Usage::default()
    }
}

/// An Anthropic `usage` object (snake_case fields), the 1-hour part of
/// its cache writes included.
fn usage_of(usage: &Map<String, Value>) -> Usage {
    let n = |k: &str| u64_of(usage.get(k)).unwrap_or(0);
    let mut u = usage_from(
        n("input_tokens"),
        n("cache_read_input_tokens"),
        n("cache_creation_input_tokens"),
        n("output_tokens"),
    );
    u.cache_creation_1h_input_tokens = write_1h_of(usage)
        .unwrap_or(0)
        .min(u.cache_creation_input_tokens);
    u
}

/// `cache_creation.ephemeral_1h_input_tokens` of a `usage` object, when
/// it splits its writes by lifetime.
fn write_1h_of(usage: &Map<String, Value>) -> Option<u64> {
    let split = usage.get("cache_creation")?.as_object()?;
    Some(u64_of(split.get("ephemeral_1h_input_tokens")).unwrap_or(0))
}

fn add(sum: &mut Usage, u: &Usage) {
    sum.input_tokens = sum.input_tokens.saturating_add(u.input_tokens);
    sum.output_tokens = sum.output_tokens.saturating_add(u.output_tokens);
    sum.cache_read_input_tokens = sum
        .cache_read_input_tokens
        .saturating_add(u.cache_read_input_tokens);
    sum.cache_creation_input_tokens = sum
        .cache_creation_input_tokens
        .saturating_add(u.cache_creation_input_tokens);
    sum.cache_creation_1h_input_tokens = sum
        .cache_creation_1h_input_tokens
        .saturating_add(u.cache_creation_1h_input_tokens);
    sum.total_tokens = sum.total_tokens.saturating_add(u.total_tokens);
}

/// `rate_limit_event{rate_limit_info{status, resetsAt, rateLimitType,
/// utilization}}`; the flat snake_case spelling is accepted too.
fn rate_limit(obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
    let info = obj
        .get("rate_limit_info")
        .and_then(Value::as_object)
        .unwrap_or(obj);
    let field = |camel: &str, snake: &str| info.get(camel).or_else(|| info.get(snake));
    let status = match str_of(info, "status") {
        Some("allowed") => RateLimitStatus::Allowed,
        Some("allowed_warning" | "warning") => RateLimitStatus::Warning,
        Some("rejected") => RateLimitStatus::Rejected,
        _ => return Understood::No,
    };
    out.push(event(EventBody::RateLimit(RateLimitEvent {
        status,
        resets_at: field("resetsAt", "resets_at").and_then(reset_time),
        window: field("rateLimitType", "rate_limit_type")
            .and_then(Value::as_str)
            .map(str::to_owned),
        utilization: field("utilization", "utilization").and_then(Value::as_f64),
    })));
    Understood::Yes
}

/// An epoch (seconds, or milliseconds when it is that large) or a time
/// string, as RFC 3339 in UTC.
fn reset_time(v: &Value) -> Option<String> {
    if let Some(s) = v.as_str() {
        return s
            .parse::<jiff::Timestamp>()
            .ok()
            .map(|t| t.to_string())
            .or_else(|| s.parse::<i64>().ok().and_then(epoch_to_rfc3339));
    }
    let secs = v
        .as_i64()
        .or_else(|| v.as_f64().filter(|f| f.is_finite()).map(|f| f as i64))?;
    epoch_to_rfc3339(secs)
}

fn epoch_to_rfc3339(n: i64) -> Option<String> {
    let secs = if n.abs() >= 100_000_000_000 {
        n / 1000
    } else {
        n
    };
    jiff::Timestamp::from_second(secs)
        .ok()
        .map(|t| t.to_string())
}

/// The exit status of a shell tool call: the `tool_use_result`'s own field
/// when it has one; a failed call's "Exit code N" line; 0 for a call that
/// succeeded, finished (not interrupted) and ran in the foreground.
fn shell_exit_code(tool_use_result: Option<&Value>, ok: bool, output: &str) -> Option<i32> {
    let tur = tool_use_result.and_then(Value::as_object);
    if let Some(tur) = tur {
        for key in ["exit_code", "exitCode", "returnCode", "code"] {
            if let Some(code) = tur.get(key).and_then(Value::as_i64) {
                return i32::try_from(code).ok();
            }
        }
    }
    if !ok {
        let first = output.lines().next().unwrap_or_default();
        let rest = first
            .trim_start_matches("Error: ")
            .strip_prefix("Exit code ")?;
        return rest.trim().parse().ok();
    }
    let tur = tur?;
    let finished = tur.get("interrupted").and_then(Value::as_bool) == Some(false)
        && tur.contains_key("stdout")
        && !tur.contains_key("backgroundTaskId");
    finished.then_some(0)
}

/// `errors: ["..."]` of an `error_during_execution` result, joined.
fn error_list(obj: &Map<String, Value>) -> Option<String> {
    let errors: Vec<&str> = obj
        .get("errors")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    (!errors.is_empty()).then(|| errors.join("; "))
}
