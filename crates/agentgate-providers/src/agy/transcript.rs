//! agy's transcript: what its plain-text output leaves out (the
//! conversation id, reasoning, tool calls, token counts), read after the run.
//!
//! agy keeps its state under `~/.gemini/antigravity-cli/` (1.0.2 on Linux
//! used `~/.antigravity-cli/`):
//!
//! - `cache/last_conversations.json`: `{"<workspace path>": "<conversation
//!   id>"}`, the conversation agy last used in each folder;
//! - `conversations/<id>.pb` (`.db` from 1.0.4): the conversation itself;
//! - `brain/<id>/.system_generated/logs/transcript.jsonl`: one JSON object
//!   per step: `{step_index, source, type, status, content, thinking,
//!   tool_calls[{name, args}], created_at}`. `USER_INPUT` rows hold the
//!   prompt, `PLANNER_RESPONSE` rows the model's turns (with
//!   `input_tokens`, `cache_read_tokens`, `output_tokens` in recent
//!   versions, input excluding the cache reads), and model-sourced rows of
//!   other types (`RUN_COMMAND`, `VIEW_FILE`, `WRITE_TO_FILE`, ...) the tool
//!   executions. `transcript_full.jsonl` repeats the same steps.
//!
//! `--print` never says which conversation it used (antigravity-cli#7), so
//! the run's conversation is the one `last_conversations.json` names for
//! the working folder (the most recently written transcript where agy keeps
//! no such file), and only when written in the last [`FRESH`]: a failed run
//! must not be given an older conversation. Two agy runs in one folder at
//! the same time can still be confused; give each its own folder.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use agentgate_protocol::{
    EventBody, SessionEvent, ThinkingEvent, ToolClass, ToolResultEvent, ToolUseEvent, Usage,
    UsageEvent, UsageScope, estimate_output_tokens,
};
use serde_json::{Map, Value};

use crate::decode::tools::{TOOL_OUTPUT_CAP, tool_class};
use crate::decode::{Decoded, str_of};

/// How recently a conversation must have been written to count as the
/// run's.
pub const FRESH: Duration = Duration::from_secs(120);

/// agy's state folders under `home`, newest layout first.
pub fn state_dirs(home: &Path) -> [PathBuf; 2] {
    [
        home.join(".gemini/antigravity-cli"),
        home.join(".antigravity-cli"),
    ]
}

/// The conversation the run in `cwd` used, if one was written since
/// `now - FRESH`: the one `cache/last_conversations.json` names for `cwd`;
/// where agy keeps no such file (older versions), the most recently
/// written transcript.
pub fn find_conversation(home: &Path, cwd: &Path, now: SystemTime) -> Option<String> {
    let fresh = |t: SystemTime| t + FRESH >= now;
    for base in state_dirs(home) {
        let found = match last_conversations(&base) {
            Some(map) => {
                conversation_for(&map, cwd).filter(|id| written_at(&base, id).is_some_and(fresh))
            }
            None => newest_transcript(&base)
                .filter(|(_, t)| fresh(*t))
                .map(|(id, _)| id),
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// `cache/last_conversations.json`, when agy keeps one.
fn last_conversations(base: &Path) -> Option<Map<String, Value>> {
    let bytes = std::fs::read(base.join("cache/last_conversations.json")).ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// The id `last_conversations.json` gives for `cwd`.
fn conversation_for(map: &Map<String, Value>, cwd: &Path) -> Option<String> {
    let want = [normalize(&cwd.to_string_lossy()), canonical(cwd)];
    map.iter()
        .find(|(k, _)| want.contains(&normalize(k)))
        .and_then(|(_, v)| v.as_str())
        .filter(|id| valid_id(id))
        .map(str::to_owned)
}

fn normalize(path: &str) -> String {
    let p = path.trim();
    let p = p.strip_prefix("file://").unwrap_or(p);
    let trimmed = p.trim_end_matches('/');
    if trimmed.is_empty() { p } else { trimmed }.to_owned()
}

fn canonical(path: &Path) -> String {
    let p = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    normalize(&p.to_string_lossy())
}

/// A conversation id agy could have written: no path separators, no dots.
fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// When conversation `id`'s files were last written.
fn written_at(base: &Path, id: &str) -> Option<SystemTime> {
    [
        transcript_file(base, id),
        Some(base.join("conversations").join(format!("{id}.pb"))),
        Some(base.join("conversations").join(format!("{id}.db"))),
    ]
    .into_iter()
    .flatten()
    .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
    .max()
}

/// The newest transcript under `base/brain`, with its time.
fn newest_transcript(base: &Path) -> Option<(String, SystemTime)> {
    let entries = std::fs::read_dir(base.join("brain")).ok()?;
    entries
        .flatten()
        .filter_map(|e| {
            let id = e.file_name().to_str()?.to_owned();
            if !valid_id(&id) {
                return None;
            }
            let t = written_at(base, &id)?;
            Some((id, t))
        })
        .max_by_key(|(_, t)| *t)
}

/// Conversation `id`'s transcript file, if it exists.
pub fn transcript_file(base: &Path, id: &str) -> Option<PathBuf> {
    if !valid_id(id) {
        return None;
    }
    let logs = base.join("brain").join(id).join(".system_generated/logs");
    ["transcript.jsonl", "transcript_full.jsonl"]
        .into_iter()
        .map(|f| logs.join(f))
        .find(|p| p.is_file())
}

/// The last turn of a transcript.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgyTurn {
    /// The prompt as agy received it.
    pub prompt: String,
    /// Reasoning of the model's steps, in order.
    pub thinking: Vec<String>,
    /// Tool calls and their results, in order, as events.
    pub tools: Vec<EventBody>,
    /// The model's text of each step, in order; the last is the answer.
    pub responses: Vec<String>,
    /// Token counts, when the transcript has them.
    pub usage: Option<Usage>,
}

/// Parses a transcript's bytes into its last turn. Lines that do not parse
/// (one being written, a truncated last line) are skipped.
pub fn parse(bytes: &[u8]) -> AgyTurn {
    let rows: Vec<Map<String, Value>> = bytes
        .split(|&b| b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter_map(|v| match v {
            Value::Object(o) => Some(o),
            _ => None,
        })
        .collect();
    let is_input = |r: &Map<String, Value>| str_of(r, "type") == Some("USER_INPUT");
    let by_user = |r: &Map<String, Value>| {
        is_input(r) && str_of(r, "source").is_none_or(|s| s.starts_with("USER"))
    };
    let start = rows
        .iter()
        .rposition(by_user)
        .or_else(|| rows.iter().rposition(is_input));
    let mut turn = AgyTurn::default();
    if let Some(i) = start {
        turn.prompt = user_request(&content_text(rows[i].get("content")));
    }
    let mut tally = Tally::default();
    let mut pending: Vec<(String, String)> = Vec::new();
    for row in rows.iter().skip(start.map_or(0, |i| i + 1)) {
        let step = row.get("step_index").and_then(Value::as_u64).unwrap_or(0);
        match str_of(row, "type") {
            Some("PLANNER_RESPONSE") => {
                if let Some(t) = str_of(row, "thinking").filter(|t| !t.trim().is_empty()) {
                    turn.thinking.push(t.to_owned());
                }
                let text = content_text(row.get("content"));
                if !text.trim().is_empty() {
                    turn.responses.push(text);
                }
                let calls = row.get("tool_calls").and_then(Value::as_array);
                for (n, call) in calls.into_iter().flatten().enumerate() {
                    let name = call
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("tool")
                        .to_owned();
                    let id = format!("agy-{step}-{n}");
                    turn.tools.push(EventBody::ToolUse(ToolUseEvent {
                        id: id.clone(),
                        class: agy_tool_class(&name),
                        input: arguments(call),
                        name: name.clone(),
                    }));
                    pending.push((id, name));
                }
                tally.add(row);
            }
            Some(kind) if str_of(row, "source") == Some("MODEL") => {
                let id = take_pending(&mut pending, kind).unwrap_or_else(|| {
                    let id = format!("agy-{step}");
                    let name = kind.to_ascii_lowercase();
                    turn.tools.push(EventBody::ToolUse(ToolUseEvent {
                        id: id.clone(),
                        class: agy_tool_class(&name),
                        input: Value::Null,
                        name,
                    }));
                    id
                });
                let ok = !matches!(
                    str_of(row, "status"),
                    Some("ERROR" | "FAILED" | "CANCELED" | "CANCELLED")
                );
                let output = content_text(row.get("content"));
                let exit_code = row
                    .get("exit_code")
                    .or_else(|| row.get("exitCode"))
                    .and_then(Value::as_i64)
                    .and_then(|c| i32::try_from(c).ok());
                turn.tools.push(EventBody::ToolResult(ToolResultEvent::new(
                    id,
                    ok,
                    &output,
                    TOOL_OUTPUT_CAP,
                    exit_code,
                )));
            }
            _ => {}
        }
    }
    turn.usage = tally.usage();
    turn
}

/// The oldest pending call the execution row `kind` (`RUN_COMMAND`)
/// answers: one of the same name, else the oldest.
fn take_pending(pending: &mut Vec<(String, String)>, kind: &str) -> Option<String> {
    if pending.is_empty() {
        return None;
    }
    let i = pending
        .iter()
        .position(|(_, name)| name.eq_ignore_ascii_case(kind))
        .unwrap_or(0);
    Some(pending.remove(i).0)
}

/// A tool call's arguments: `args`, or `arguments` (an object or JSON text).
fn arguments(call: &Value) -> Value {
    match call.get("args").or_else(|| call.get("arguments")) {
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(v) => v.clone(),
        None => Value::Null,
    }
}

/// The class of an agy tool (`run_command`, `view_file`, ...).
pub fn agy_tool_class(name: &str) -> ToolClass {
    match name.to_ascii_lowercase().as_str() {
        "run_command" | "send_command_input" => ToolClass::Shell,
        "view_file" | "view_file_outline" | "view_code_item" | "list_dir" | "find_by_name"
        | "codebase_search" => ToolClass::Read,
        "write_to_file" | "replace_file_content" | "multi_replace_file_content" => ToolClass::Write,
        "read_url_content" | "search_web" | "view_content_chunk" => ToolClass::Web,
        other => tool_class(other),
    }
}

/// A row's `content` as text (agy writes a string; other shapes are kept
/// as JSON).
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    }
}

/// The user's words out of a `USER_INPUT` content that wraps them in
/// `<USER_REQUEST>...</USER_REQUEST>`.
fn user_request(content: &str) -> String {
    match content.split_once("<USER_REQUEST>") {
        Some((_, rest)) => rest
            .split_once("</USER_REQUEST>")
            .map_or(rest, |(inner, _)| inner)
            .trim()
            .to_owned(),
        None => content.trim().to_owned(),
    }
}

/// Token counts of the turn's model steps.
#[derive(Debug, Default)]
struct Tally {
    seen: bool,
    input: u64,
    cache_read: u64,
    output: u64,
    last_context: u64,
}

impl Tally {
    fn add(&mut self, row: &Map<String, Value>) {
        let n = |k: &str| row.get(k).and_then(Value::as_u64);
        let (input, cache, output) = (
            n("input_tokens"),
            n("cache_read_tokens"),
            n("output_tokens"),
        );
        if input.is_none() && output.is_none() {
            return;
        }
        self.seen = true;
        let (input, cache, output) = (input.unwrap_or(0), cache.unwrap_or(0), output.unwrap_or(0));
        self.input = self.input.saturating_add(input).saturating_add(cache);
        self.cache_read = self.cache_read.saturating_add(cache);
        self.output = self.output.saturating_add(output);
        self.last_context = input.saturating_add(cache).saturating_add(output);
    }

    fn usage(&self) -> Option<Usage> {
        self.seen.then(|| Usage {
            input_tokens: self.input,
            output_tokens: self.output,
            cache_read_input_tokens: self.cache_read,
            total_tokens: self.input.saturating_add(self.output),
            context_tokens: Some(self.last_context),
            ..Usage::default()
        })
    }
}

/// What the transcript adds to a run: the conversation id (when the run did
/// not learn it), the last turn's reasoning, tool calls and usage (the
/// transcript's counts, else an estimate from its text). Empty when agy
/// wrote nothing recent: this is a bonus, never a reason to fail a run.
pub fn recovered(
    home: &Path,
    cwd: &Path,
    session_id: Option<&str>,
    now: SystemTime,
) -> Vec<Decoded> {
    let mut out = Vec::new();
    let id = match session_id {
        Some(id) => id.to_owned(),
        None => {
            let Some(id) = find_conversation(home, cwd, now) else {
                return out;
            };
            out.push(Decoded::Event(EventBody::Session(SessionEvent {
                session_id: id.clone(),
                model: None,
            })));
            id
        }
    };
    let Some(bytes) = state_dirs(home)
        .iter()
        .find_map(|base| transcript_file(base, &id))
        .and_then(|p| std::fs::read(p).ok())
    else {
        return out;
    };
    let turn = parse(&bytes);
    out.extend(
        turn.thinking
            .into_iter()
            .map(|text| Decoded::Event(EventBody::Thinking(ThinkingEvent { text }))),
    );
    out.extend(turn.tools.into_iter().map(Decoded::Event));
    let usage = turn.usage.or_else(|| {
        if turn.prompt.is_empty() && turn.responses.is_empty() {
            return None;
        }
        let input = estimate_output_tokens(&turn.prompt);
        let output = turn
            .responses
            .iter()
            .map(|r| estimate_output_tokens(r))
            .sum::<u64>();
        Some(Usage {
            input_tokens: input,
            output_tokens: output,
            total_tokens: input.saturating_add(output),
            estimated: true,
            ..Usage::default()
        })
    });
    if let Some(usage) = usage {
        out.push(Decoded::Event(EventBody::Usage(UsageEvent {
            scope: UsageScope::Total,
            usage,
        })));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_turn_pairs_calls_with_their_executions() {
        let t = concat!(
            r#"{"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","content":"old"}"#,
            "\n",
            r#"{"step_index":1,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","content":"old answer"}"#,
            "\n",
            r#"{"step_index":2,"source":"USER_EXPLICIT","type":"USER_INPUT","content":"<USER_REQUEST>make it</USER_REQUEST>"}"#,
            "\n",
            r#"{"step_index":3,"source":"MODEL","type":"PLANNER_RESPONSE","thinking":"plan","tool_calls":[{"name":"run_command","args":{"CommandLine":"echo hi"}}],"input_tokens":100,"cache_read_tokens":20,"output_tokens":5}"#,
            "\n",
            r#"{"step_index":4,"source":"MODEL","type":"RUN_COMMAND","status":"DONE","content":"hi"}"#,
            "\n",
            r#"{"step_index":5,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","content":"Made.","input_tokens":130,"output_tokens":3}"#,
            "\n",
            "{\"truncated",
        );
        let turn = parse(t.as_bytes());
        assert_eq!(turn.prompt, "make it");
        assert_eq!(turn.thinking, ["plan"]);
        assert_eq!(turn.responses, ["Made."]);
        assert!(matches!(&turn.tools[..], [
            EventBody::ToolUse(u),
            EventBody::ToolResult(r),
        ] if u.class == ToolClass::Shell && r.id == u.id && r.ok && r.output == "hi"));
        let u = turn.usage.unwrap();
        assert_eq!(
            (
                u.input_tokens,
                u.cache_read_input_tokens,
                u.output_tokens,
                u.context_tokens
            ),
            (250, 20, 8, Some(133))
        );
    }

    #[test]
    fn ids_that_could_escape_the_folder_are_refused() {
        assert!(valid_id("3b4a1d20-3968-4ed2-90b3-00eea3060b02"));
        assert!(!valid_id("../etc"));
        assert!(!valid_id(""));
        assert_eq!(normalize("file:///work/x/"), "/work/x");
        assert_eq!(normalize("/"), "/");
    }
}
