//! Gemini CLI's session files, the only place its thoughts are written:
//! `<gemini home>/tmp/<project>/chats/session-<time>-<id prefix>.jsonl`
//! (or `.json` from older versions).
//!
//! The `.jsonl` form is a log: a header line `{sessionId, projectHash,
//! startTime, ...}`, message records `{id, type, content, thoughts[],
//! tokens{...}}` (a record repeated with the same id replaces the earlier
//! one), and updates `{"$set": {"messages": [...]}}` that replace the whole
//! list (a resume writes one). The `.json` form is one object with
//! `sessionId` and `messages`. Unknown fields and records are ignored, and
//! a line that does not parse (one being written) is skipped.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use agentgate_protocol::{EventBody, ThinkingEvent};
use serde_json::{Map, Value};

use crate::decode::Decoded;

/// How much of a session file is read to check which session it is.
const HEADER_BYTES: u64 = 64 * 1024;

/// A Gemini session file, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GeminiSession {
    /// The session id the file declares.
    pub session_id: Option<String>,
    /// Every thought of the session's model messages, in order.
    pub thoughts: Vec<String>,
    /// The messages, in order (user prompts, tool responses, model turns).
    pub messages: Vec<GeminiMessage>,
}

/// One message of a Gemini session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GeminiMessage {
    /// The message id.
    pub id: String,
    /// `user`, `gemini`, `info`, `error`, ...
    pub kind: String,
    /// When it was written (RFC 3339).
    pub timestamp: Option<String>,
    /// The model that wrote it (model messages).
    pub model: Option<String>,
    /// Whether it is a user prompt (a user message with text, as opposed to
    /// one carrying tool responses).
    pub is_prompt: bool,
    /// Its thoughts, each as `subject` and `description` joined.
    pub thoughts: Vec<String>,
    /// Its token counts (model messages).
    pub tokens: Option<GeminiTokens>,
}

/// Token counts of one model message, as Gemini writes them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GeminiTokens {
    /// Prompt tokens, cached ones included.
    pub input: u64,
    /// Visible output (candidate) tokens.
    pub output: u64,
    /// Prompt tokens read from the cache.
    pub cached: u64,
    /// Thinking tokens, on top of `output`.
    pub thoughts: u64,
    /// Tool-use prompt tokens.
    pub tool: u64,
    /// Gemini's total.
    pub total: u64,
}

impl GeminiSession {
    /// The messages of the last turn: those after the last user prompt.
    pub fn last_turn(&self) -> &[GeminiMessage] {
        let start = self
            .messages
            .iter()
            .rposition(|m| m.is_prompt)
            .map_or(0, |i| i + 1);
        self.messages.get(start..).unwrap_or_default()
    }

    /// The thoughts of the last turn, in order.
    pub fn last_turn_thoughts(&self) -> Vec<String> {
        self.last_turn()
            .iter()
            .flat_map(|m| m.thoughts.iter().cloned())
            .collect()
    }
}

/// A session file could not be read.
#[derive(Debug, thiserror::Error)]
#[error("failed to read Gemini session file {}: {source}", path.display())]
pub struct SessionFileError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    #[source]
    pub source: io::Error,
}

/// The session file of `session_id` under `gemini_home` (the `.gemini`
/// folder; a home folder that contains one works too), or `None` when
/// there is none.
///
/// Files named after the id's first 8 characters are checked first; a file
/// counts when its first 64 KiB contain the id. When several do, the most
/// recently modified wins.
pub fn find_session_file(gemini_home: &Path, session_id: &str) -> Option<PathBuf> {
    if session_id.is_empty() {
        return None;
    }
    let prefix: String = session_id.chars().take(8).collect();
    let mut named = Vec::new();
    let mut others = Vec::new();
    for chats in chat_dirs(gemini_home) {
        let Ok(entries) = std::fs::read_dir(&chats) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if !name.starts_with("session-")
                || !(name.ends_with(".json") || name.ends_with(".jsonl"))
            {
                continue;
            }
            if name.contains(&prefix) {
                named.push(entry.path());
            } else {
                others.push(entry.path());
            }
        }
    }
    newest_matching(named, session_id).or_else(|| newest_matching(others, session_id))
}

/// `tmp/*/chats` under `gemini_home`, or under `gemini_home/.gemini`.
fn chat_dirs(gemini_home: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for base in [gemini_home.join("tmp"), gemini_home.join(".gemini/tmp")] {
        let Ok(projects) = std::fs::read_dir(&base) else {
            continue;
        };
        for project in projects.flatten() {
            let chats = project.path().join("chats");
            if chats.is_dir() {
                dirs.push(chats);
            }
        }
    }
    dirs
}

fn newest_matching(paths: Vec<PathBuf>, session_id: &str) -> Option<PathBuf> {
    paths
        .into_iter()
        .filter(|p| header_mentions(p, session_id))
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
}

fn header_mentions(path: &Path, session_id: &str) -> bool {
    let mut head = Vec::new();
    let read = File::open(path).and_then(|f| f.take(HEADER_BYTES).read_to_end(&mut head));
    read.is_ok() && String::from_utf8_lossy(&head).contains(session_id)
}

/// Reads a session file in either form.
pub fn read_session(path: &Path) -> Result<GeminiSession, SessionFileError> {
    let bytes = std::fs::read(path).map_err(|source| SessionFileError {
        path: path.to_owned(),
        source,
    })?;
    Ok(parse_session(&bytes))
}

/// Parses a session file's bytes, `.json` or `.jsonl`.
pub fn parse_session(bytes: &[u8]) -> GeminiSession {
    let mut log = Log::default();
    match serde_json::from_slice::<Value>(bytes) {
        // The `.json` form, or a `.jsonl` file of one line.
        Ok(Value::Object(obj)) => log.record(&obj),
        _ => {
            for line in bytes.split(|&b| b == b'\n') {
                if let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(line) {
                    log.record(&obj);
                }
            }
        }
    }
    let messages: Vec<GeminiMessage> = log.messages.iter().filter_map(message).collect();
    GeminiSession {
        session_id: log.session_id,
        thoughts: messages
            .iter()
            .flat_map(|m| m.thoughts.iter().cloned())
            .collect(),
        messages,
    }
}

/// The thoughts of the last turn of `session_id`, as `thinking` events, for
/// the accumulator to take in after the run. Empty when the file is missing
/// or unreadable: thoughts are a bonus, never a reason to fail a run.
pub fn recovered_thoughts(gemini_home: &Path, session_id: &str) -> Vec<Decoded> {
    let Some(path) = find_session_file(gemini_home, session_id) else {
        return Vec::new();
    };
    let Ok(session) = read_session(&path) else {
        return Vec::new();
    };
    session
        .last_turn_thoughts()
        .into_iter()
        .map(|text| Decoded::Event(EventBody::Thinking(ThinkingEvent { text })))
        .collect()
}

/// The message records of a log, replayed.
#[derive(Debug, Default)]
struct Log {
    session_id: Option<String>,
    messages: Vec<Map<String, Value>>,
}

impl Log {
    fn record(&mut self, obj: &Map<String, Value>) {
        if let Some(set) = obj.get("$set").and_then(Value::as_object) {
            self.record(set);
            return;
        }
        if let Some(id) = obj.get("sessionId").and_then(Value::as_str) {
            self.session_id = Some(id.to_owned());
        }
        if let Some(messages) = obj.get("messages").and_then(Value::as_array) {
            self.messages = messages
                .iter()
                .filter_map(Value::as_object)
                .cloned()
                .collect();
        }
        let is_message = obj.get("id").is_some_and(Value::is_string)
            && obj.get("type").is_some_and(Value::is_string);
        if is_message {
            let id = obj.get("id");
            match self.messages.iter_mut().rev().find(|m| m.get("id") == id) {
                Some(existing) => existing.clone_from(obj),
                None => self.messages.push(obj.clone()),
            }
        }
    }
}

fn message(obj: &Map<String, Value>) -> Option<GeminiMessage> {
    let s = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_owned);
    let kind = s("type")?;
    let is_prompt = kind == "user"
        && match obj.get("content") {
            Some(Value::String(t)) => !t.is_empty(),
            Some(Value::Array(parts)) => parts.iter().any(|p| p.get("text").is_some()),
            _ => false,
        };
    let thoughts = obj
        .get("thoughts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(thought)
        .collect();
    let tokens = obj.get("tokens").and_then(Value::as_object).map(|t| {
        let n = |k: &str| t.get(k).and_then(Value::as_u64).unwrap_or(0);
        GeminiTokens {
            input: n("input"),
            output: n("output"),
            cached: n("cached"),
            thoughts: n("thoughts"),
            tool: n("tool"),
            total: n("total"),
        }
    });
    Some(GeminiMessage {
        id: s("id").unwrap_or_default(),
        kind,
        timestamp: s("timestamp"),
        model: s("model"),
        is_prompt,
        thoughts,
        tokens,
    })
}

/// A thought `{subject, description}` as text: the subject on its own line
/// above the description, when there is one.
fn thought(v: &Value) -> Option<String> {
    if let Some(text) = v.as_str() {
        return (!text.is_empty()).then(|| text.to_owned());
    }
    let field = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().trim();
    let (subject, description) = (field("subject"), field("description"));
    match (subject.is_empty(), description.is_empty()) {
        (true, true) => None,
        (true, false) => Some(description.to_owned()),
        (false, true) => Some(subject.to_owned()),
        (false, false) => Some(format!("{subject}\n{description}")),
    }
}
