//! Claude Code's session file: `<config dir>/projects/<cwd slug>/<id>.jsonl`,
//! one record a line. User records (`type: user`) whose content is text
//! are prompts (those carrying only `tool_result` blocks, meta and
//! side-chain records are not); assistant records (`type: assistant`)
//! carry one content block each, several sharing a `message.id` and its
//! `message.usage` (Anthropic's fields: `input_tokens` without the cache's,
//! `cache_read_input_tokens`, `cache_creation_input_tokens` and its
//! split by lifetime `cache_creation.ephemeral_1h_input_tokens`,
//! `output_tokens`).

use std::path::{Path, PathBuf};

use agentgate_protocol::Usage;
use serde_json::{Map, Value};

use super::SessionLog;
use super::lines::read_objects;

/// The session file of `id` under `config_dir`: the working folder's
/// project first, then any project's.
fn find(config_dir: &Path, cwd: Option<&Path>, id: &str) -> Option<PathBuf> {
    let projects = config_dir.join("projects");
    let name = format!("{id}.jsonl");
    if let Some(cwd) = cwd {
        let here = projects.join(slug(cwd)).join(&name);
        if here.is_file() {
            return Some(here);
        }
    }
    std::fs::read_dir(&projects)
        .ok()?
        .flatten()
        .map(|p| p.path().join(&name))
        .find(|f| f.is_file())
}

/// Claude Code's project folder name for `cwd`: every character other
/// than an ASCII letter or digit made `-`.
fn slug(cwd: &Path) -> String {
    cwd.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

pub(super) fn read(
    config_dir: &Path,
    cwd: Option<&Path>,
    id: &str,
) -> Result<Option<SessionLog>, String> {
    let Some(path) = find(config_dir, cwd, id) else {
        return Ok(None);
    };
    let read = read_objects(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut log = last_turn(&read.objects);
    log.provider = "claude";
    log.path = path;
    log.session_id = id.to_owned();
    log.skipped = read.skipped;
    Ok(Some(log))
}

/// The reasoning, usage and model of the records after the last prompt.
pub(super) fn last_turn(records: &[Map<String, Value>]) -> SessionLog {
    let records: Vec<&Map<String, Value>> = records
        .iter()
        .filter(|r| r.get("isSidechain").and_then(Value::as_bool) != Some(true))
        .collect();
    let start = records
        .iter()
        .rposition(|r| is_prompt(r))
        .map_or(0, |i| i + 1);
    let mut log = SessionLog::default();
    // Usage per message id, in first-seen order; a later record of the
    // same message replaces its figures.
    let mut usages: Vec<(String, Usage)> = Vec::new();
    for (n, record) in records.iter().skip(start).enumerate() {
        if record.get("type").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let Some(message) = record.get("message").and_then(Value::as_object) else {
            continue;
        };
        if let Some(model) = message.get("model").and_then(Value::as_str)
            && !model.starts_with('<')
        {
            log.model = Some(model.to_owned());
        }
        for block in message
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if block.get("type").and_then(Value::as_str) == Some("thinking")
                && let Some(text) = block.get("thinking").and_then(Value::as_str)
                && !text.trim().is_empty()
            {
                log.reasoning.push(text.to_owned());
            }
        }
        if let Some(usage) = message.get("usage").and_then(Value::as_object) {
            let key = message
                .get("id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("#{n}"), str::to_owned);
            let figures = usage_of(usage);
            match usages.iter_mut().find(|(k, _)| *k == key) {
                Some((_, u)) => *u = figures,
                None => usages.push((key, figures)),
            }
        }
    }
    if !usages.is_empty() {
        let mut sum = Usage::default();
        for (_, u) in &usages {
            sum.add_counts(u);
        }
        log.usage = Some(sum);
    }
    log
}

/// A prompt the user typed: a non-meta user record with text.
fn is_prompt(record: &Map<String, Value>) -> bool {
    if record.get("type").and_then(Value::as_str) != Some("user")
        || record.get("isMeta").and_then(Value::as_bool) == Some(true)
    {
        return false;
    }
    match record.get("message").and_then(|m| m.get("content")) {
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .any(|b| b.get("type").and_then(Value::as_str) == Some("text")),
        _ => false,
    }
}

/// Anthropic's counts in the protocol's terms: input is uncached + cache
/// reads + cache writes.
fn usage_of(usage: &Map<String, Value>) -> Usage {
    let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    let cache_read = n("cache_read_input_tokens");
    let cache_creation = n("cache_creation_input_tokens");
    let input = n("input_tokens")
        .saturating_add(cache_read)
        .saturating_add(cache_creation);
    let output = n("output_tokens");
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_input_tokens: cache_read,
        cache_creation_input_tokens: cache_creation,
        cache_creation_1h_input_tokens: usage
            .get("cache_creation")
            .and_then(|c| c.get("ephemeral_1h_input_tokens"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
            .min(cache_creation),
        total_tokens: input.saturating_add(output),
        ..Usage::default()
    }
}
