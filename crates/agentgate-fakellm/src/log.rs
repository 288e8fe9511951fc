//! The request log: one JSON line per request, in arrival order.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use serde::Serialize;

use crate::engine::SideRequest;
use crate::request::{Api, Message};

/// One line of the request log.
#[derive(Debug, Clone, Serialize)]
pub struct LogEntry {
    /// Arrival order, from 1.
    pub n: u64,
    /// When it arrived (RFC 3339, UTC).
    pub ts: String,
    /// HTTP method.
    pub method: String,
    /// Path and query.
    pub path: String,
    /// The wire protocol, when the path is a model endpoint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api: Option<Api>,
    /// The requested model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Whether a stream was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// The declared tool names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// The messages in short form.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<Message>>,
    /// The structured-output format the client asked for (Responses
    /// `text.format`, Chat Completions `response_format`), as sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_format: Option<serde_json::Value>,
    /// The reasoning settings as sent, under their wire names: Responses
    /// `reasoning` (`{effort, summary}`), Chat Completions
    /// `reasoning_effort`, Anthropic `output_config` and `thinking`,
    /// Gemini `thinkingConfig` (of `generationConfig`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<serde_json::Value>,
    /// The side request kind, when it was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<SideRequest>,
    /// The scripted turn that answered it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<String>,
    /// The recorded call that answered it (its `call` number), when the
    /// server replays a recording.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replayed_call: Option<u64>,
    /// What the server did: `respond`, `replay`, `error`, `hang`,
    /// `bad_request`, `not_found`, `info`.
    pub outcome: &'static str,
    /// The HTTP status sent (absent for a hang).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Why a request was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The reasoning settings of a request `body` of `api`, as sent (see
/// [`LogEntry::reasoning`]); `None` when it has none.
pub fn reasoning_of(api: Api, body: &serde_json::Value) -> Option<serde_json::Value> {
    let keys: &[&str] = match api {
        Api::Responses => &["reasoning"],
        Api::Chat => &["reasoning_effort"],
        Api::Anthropic => &["output_config", "thinking"],
        Api::Gemini => &["thinkingConfig"],
    };
    let from = match api {
        Api::Gemini => body.get("generationConfig")?,
        _ => body,
    };
    let found: serde_json::Map<String, serde_json::Value> = keys
        .iter()
        .filter_map(|k| Some(((*k).to_owned(), from.get(*k)?.clone())))
        .collect();
    (!found.is_empty()).then_some(serde_json::Value::Object(found))
}

/// Where log lines go.
#[derive(Debug, Default)]
pub struct RequestLog {
    file: Option<Mutex<File>>,
    entries: Mutex<Vec<LogEntry>>,
}

impl RequestLog {
    /// A log that keeps entries in memory and, when `path` is given, appends
    /// them to that file as JSON lines.
    pub fn open(path: Option<&Path>) -> std::io::Result<Self> {
        let file = match path {
            None => None,
            Some(p) => {
                if let Some(dir) = p.parent()
                    && !dir.as_os_str().is_empty()
                {
                    std::fs::create_dir_all(dir)?;
                }
                Some(Mutex::new(
                    OpenOptions::new().create(true).append(true).open(p)?,
                ))
            }
        };
        Ok(RequestLog {
            file,
            entries: Mutex::new(Vec::new()),
        })
    }

    /// Record one entry (a failure to write the file is reported on stderr
    /// through tracing and does not fail the request).
    pub fn record(&self, entry: LogEntry) {
        if let Some(f) = &self.file {
            let mut line = match serde_json::to_string(&entry) {
                Ok(l) => l,
                Err(e) => format!("{{\"n\":{},\"log_error\":{:?}}}", entry.n, e.to_string()),
            };
            line.push('\n');
            let mut f = match f.lock() {
                Ok(f) => f,
                Err(p) => p.into_inner(),
            };
            if let Err(e) = f.write_all(line.as_bytes()).and_then(|()| f.flush()) {
                tracing::warn!("failed to write the request log: {e}");
            }
        }
        let mut entries = match self.entries.lock() {
            Ok(e) => e,
            Err(p) => p.into_inner(),
        };
        entries.push(entry);
    }

    /// Every entry so far.
    pub fn entries(&self) -> Vec<LogEntry> {
        match self.entries.lock() {
            Ok(e) => e.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reasoning_fields_are_kept_as_sent_per_api() {
        let body = json!({"reasoning": {"effort": "high"}, "reasoning_effort": "low"});
        assert_eq!(
            reasoning_of(Api::Responses, &body),
            Some(json!({"reasoning": {"effort": "high"}}))
        );
        assert_eq!(
            reasoning_of(Api::Chat, &body),
            Some(json!({"reasoning_effort": "low"}))
        );
        let body = json!({"thinking": {"type": "enabled", "budget_tokens": 5000}});
        assert_eq!(reasoning_of(Api::Anthropic, &body), Some(body.clone()));
        let body = json!({"generationConfig": {"thinkingConfig": {"thinkingBudget": 1024}}});
        assert_eq!(
            reasoning_of(Api::Gemini, &body),
            Some(json!({"thinkingConfig": {"thinkingBudget": 1024}}))
        );
        assert_eq!(reasoning_of(Api::Gemini, &json!({})), None);
    }
}
