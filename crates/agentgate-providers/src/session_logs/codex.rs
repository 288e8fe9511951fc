//! Codex's rollout file: `<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`,
//! one `{timestamp, type, payload}` record a line. A turn starts with
//! `event_msg` `task_started`; `turn_context` names its model;
//! `response_item` `reasoning` carries its reasoning (`summary[].text`,
//! and `content[].text` when the raw reasoning is kept); `event_msg`
//! `token_count` carries `info.total_token_usage` (the thread's running
//! total, the figures `codex exec --json` reports at `turn.completed`)
//! and `info.last_token_usage` (the last model request's). A turn's own
//! figures are its last total minus the total before it started.

use std::path::{Path, PathBuf};

use agentgate_protocol::Usage;
use serde_json::{Map, Value};

use super::SessionLog;
use super::lines::read_objects;

/// One turn of a rollout.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RolloutTurn {
    /// Its model, when a `turn_context` named it.
    pub model: Option<String>,
    /// Its reasoning, in order.
    pub reasoning: Vec<String>,
    /// The thread's totals before it started (none before the first).
    pub total_before: Option<Usage>,
    /// The thread's totals at its last `token_count`.
    pub total_after: Option<Usage>,
    /// Its last model request's figures (`info.last_token_usage` of its
    /// last `token_count`): its prompt + output is the turn's context
    /// length.
    pub last_call: Option<Usage>,
}

impl RolloutTurn {
    /// The turn's own figures: its last total minus the one before it,
    /// with the context length of its last model request.
    pub fn usage(&self) -> Option<Usage> {
        let after = self.total_after.as_ref()?;
        let mut usage = match &self.total_before {
            Some(before) => crate::accumulate::delta(after, before),
            None => after.clone(),
        };
        usage.context_tokens = self.context_tokens();
        Some(usage)
    }

    /// The context length after the turn: its last model request's input
    /// (cached tokens included) + output.
    pub fn context_tokens(&self) -> Option<u64> {
        let last = self.last_call.as_ref()?;
        Some(last.input_tokens.saturating_add(last.output_tokens))
    }
}

/// A rollout file, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CodexRollout {
    /// The turns, in order.
    pub turns: Vec<RolloutTurn>,
    /// Lines skipped, each with why.
    pub skipped: Vec<String>,
}

/// The newest rollout file of `thread_id` under `codex_home`'s
/// `sessions/` (and `archived_sessions/`), or `None`.
pub fn find_rollout(codex_home: &Path, thread_id: &str) -> Option<PathBuf> {
    if !super::plausible_id(thread_id) {
        return None;
    }
    let suffix = format!("-{thread_id}.jsonl");
    let mut found = Vec::new();
    for root in ["sessions", "archived_sessions"] {
        collect(&codex_home.join(root), &suffix, 0, &mut found);
    }
    found
        .into_iter()
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
}

/// Files named `rollout-*<suffix>` at most three folders below `dir`.
fn collect(dir: &Path, suffix: &str, depth: usize, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && depth < 3 {
            collect(&path, suffix, depth + 1, found);
        } else if kind.is_file() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("rollout-") && name.ends_with(suffix) {
                found.push(path);
            }
        }
    }
}

/// Reads a rollout file.
pub fn read_rollout(path: &Path) -> Result<CodexRollout, String> {
    let read = read_objects(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut rollout = parse(&read.objects);
    rollout.skipped = read.skipped;
    Ok(rollout)
}

/// The turns of a rollout's records.
pub(super) fn parse(records: &[Map<String, Value>]) -> CodexRollout {
    let mut turns: Vec<RolloutTurn> = Vec::new();
    let mut latest_total: Option<Usage> = None;
    for record in records {
        let Some(payload) = record.get("payload").and_then(Value::as_object) else {
            continue;
        };
        let kind = payload.get("type").and_then(Value::as_str);
        match (record.get("type").and_then(Value::as_str), kind) {
            (Some("event_msg"), Some("task_started")) => turns.push(RolloutTurn {
                total_before: latest_total.clone(),
                ..RolloutTurn::default()
            }),
            (Some("turn_context"), _) => {
                if let (Some(turn), Some(model)) = (
                    turns.last_mut(),
                    payload.get("model").and_then(Value::as_str),
                ) {
                    turn.model = Some(model.to_owned());
                }
            }
            (Some("response_item"), Some("reasoning")) => {
                if let Some(turn) = turns.last_mut() {
                    turn.reasoning.extend(reasoning_texts(payload));
                }
            }
            (Some("event_msg"), Some("token_count")) => {
                let total = payload
                    .get("info")
                    .and_then(|i| i.get("total_token_usage"))
                    .and_then(Value::as_object)
                    .map(usage_of);
                let last = payload
                    .get("info")
                    .and_then(|i| i.get("last_token_usage"))
                    .and_then(Value::as_object)
                    .map(usage_of);
                if let (Some(turn), Some(last)) = (turns.last_mut(), last) {
                    turn.last_call = Some(last);
                }
                if let Some(total) = total {
                    if let Some(turn) = turns.last_mut() {
                        turn.total_after = Some(total.clone());
                    }
                    latest_total = Some(total);
                }
            }
            _ => {}
        }
    }
    CodexRollout {
        turns,
        skipped: Vec::new(),
    }
}

/// The summary texts, then the raw reasoning texts, of a `reasoning` item.
fn reasoning_texts(payload: &Map<String, Value>) -> Vec<String> {
    ["summary", "content"]
        .iter()
        .filter_map(|k| payload.get(*k).and_then(Value::as_array))
        .flatten()
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .filter(|t| !t.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

pub(super) fn read_log(codex_home: &Path, id: &str) -> Result<Option<SessionLog>, String> {
    let Some(path) = find_rollout(codex_home, id) else {
        return Ok(None);
    };
    let rollout = read_rollout(&path)?;
    let turn = rollout.turns.last().cloned().unwrap_or_default();
    Ok(Some(SessionLog {
        provider: "codex",
        path,
        session_id: id.to_owned(),
        usage: turn.usage(),
        reasoning: turn.reasoning,
        model: turn.model,
        skipped: rollout.skipped,
    }))
}

/// Codex's token counts in the protocol's terms (`input_tokens` includes
/// the cached ones, `output_tokens` the reasoning ones): a rollout's
/// `token_count` and the stream's thread totals alike.
pub(crate) fn usage_of(u: &Map<String, Value>) -> Usage {
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    let input = n("input_tokens");
    let output = n("output_tokens");
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_input_tokens: n("cached_input_tokens"),
        cache_creation_input_tokens: n("cache_write_input_tokens"),
        reasoning_tokens: n("reasoning_output_tokens"),
        total_tokens: input.saturating_add(output),
        ..Usage::default()
    }
}

/// The totals of `thread` before its last turn, from its rollout under
/// `codex_home`, when that turn ended with the totals `after` (the ones
/// `codex exec` just reported; else the file's last turn is another one,
/// and `None`). Zero when the last turn was the thread's first.
pub fn codex_totals_before_last_turn(
    codex_home: &Path,
    thread: &str,
    after: &Usage,
) -> Option<Usage> {
    let rollout = read_rollout(&find_rollout(codex_home, thread)?).ok()?;
    let last = rollout.turns.last()?;
    let ended = last.total_after.as_ref()?;
    let same = ended.input_tokens == after.input_tokens
        && ended.output_tokens == after.output_tokens
        && ended.cache_read_input_tokens == after.cache_read_input_tokens;
    same.then(|| last.total_before.clone().unwrap_or_default())
}
