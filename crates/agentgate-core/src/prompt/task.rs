//! The task, as given on stdin: plain text or a JSON task input object.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use super::error::PromptError;
use super::parts::PromptParts;

/// The fields a JSON task input may have.
pub const TASK_INPUT_FIELDS: &[&str] =
    &["prompt", "task", "context", "persona", "files", "file_name"];

/// A task read from stdin.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TaskInput {
    /// What to do: the whole text, or the JSON's `prompt` (or `task`).
    pub prompt: String,
    /// The JSON's `context`: a string as is, other JSON pretty-printed.
    pub context: Option<String>,
    /// The JSON's `persona`.
    pub persona: Option<String>,
    /// The JSON's `files`: context files, relative to the run's working
    /// directory.
    pub files: Vec<PathBuf>,
    /// The JSON's `file_name`: the name of the file the task came from (a
    /// watched note's name), shown in the task's header line.
    pub file_name: Option<String>,
    /// Whether the text was a JSON task input object.
    pub json: bool,
}

impl TaskInput {
    /// Put this task into `parts`: the prompt becomes the task, `files` are
    /// added after the `--context` files, `context` becomes the task
    /// context, and `persona` is used unless `--persona` gave one.
    pub fn apply_to(self, parts: &mut PromptParts) {
        parts.task = self.prompt;
        parts.context_files.extend(self.files);
        if self.context.is_some() {
            parts.task_context = self.context;
        }
        if parts.persona.is_none() {
            parts.persona = self.persona;
        }
        parts.task_file_name = self.file_name;
    }
}

/// Read the task given on stdin. Text that is a JSON object (leading and
/// trailing white space aside) is a task input and must follow its format
/// (an object that gives a key twice is refused); any other text, including
/// text that starts with `{` but is not valid JSON, is the prompt itself.
pub fn task_from_stdin(text: &str) -> Result<TaskInput, PromptError> {
    let trimmed = text.trim();
    if trimmed.starts_with('{') {
        match agentgate_protocol::strict_json::from_str::<Value>(trimmed) {
            Ok(Value::Object(fields)) => return from_json(fields),
            // JSON that repeats a key is a task input whose meaning is not
            // clear: refused, never taken as the prompt.
            Err(e) if e.is_data() => return Err(PromptError::TaskInput(e.to_string())),
            _ => {}
        }
    }
    Ok(TaskInput {
        prompt: text.to_owned(),
        ..TaskInput::default()
    })
}

fn from_json(mut fields: Map<String, Value>) -> Result<TaskInput, PromptError> {
    let bad = |m: String| PromptError::TaskInput(m);
    let mut unknown: Vec<&str> = fields
        .keys()
        .map(String::as_str)
        .filter(|k| !TASK_INPUT_FIELDS.contains(k))
        .collect();
    if !unknown.is_empty() {
        unknown.sort_unstable();
        let names: Vec<String> = unknown.iter().map(|k| format!("`{k}`")).collect();
        return Err(bad(format!(
            "unknown field{} {}",
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        )));
    }
    let prompt = match (fields.remove("prompt"), fields.remove("task")) {
        (Some(_), Some(_)) => {
            return Err(bad("both `prompt` and `task` are given; keep one".into()));
        }
        (Some(v), None) => string_field("prompt", v)?,
        (None, Some(v)) => string_field("task", v)?,
        (None, None) => return Err(bad("`prompt` is missing".into())),
    };
    let Some(prompt) = prompt.filter(|p| !p.trim().is_empty()) else {
        return Err(bad("`prompt` is empty".into()));
    };
    let context = match fields.remove("context") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(other) => Some(serde_json::to_string_pretty(&other).map_err(|e| bad(e.to_string()))?),
    };
    let persona = fields
        .remove("persona")
        .map(|v| string_field("persona", v))
        .transpose()?
        .flatten();
    let files = match fields.remove("files") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|v| match v {
                Value::String(s) if !s.is_empty() => Ok(PathBuf::from(s)),
                other => Err(bad(format!("`files` holds {other}, not a path"))),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(bad(format!("`files` is {other}, not a list of paths"))),
    };
    let file_name = fields
        .remove("file_name")
        .map(|v| string_field("file_name", v))
        .transpose()?
        .flatten()
        .map(|n| check_file_name(&n).map_err(bad))
        .transpose()?;
    Ok(TaskInput {
        prompt,
        context,
        persona,
        files,
        file_name,
        json: true,
    })
}

/// The longest `file_name`, in bytes (a file name's limit on common file
/// systems).
pub const FILE_NAME_MAX: usize = 255;

/// `name` as a task's file name: one line, not blank, at most
/// [`FILE_NAME_MAX`] bytes (it goes into the prompt's header line as is).
pub fn check_file_name(name: &str) -> Result<String, String> {
    if name.trim().is_empty() {
        return Err("`file_name` is empty".into());
    }
    if name.chars().any(char::is_control) {
        return Err("`file_name` holds a control character (a line break?)".into());
    }
    if name.len() > FILE_NAME_MAX {
        return Err(format!("`file_name` is over {FILE_NAME_MAX} bytes"));
    }
    Ok(name.to_owned())
}

/// A string field's value; `null` is none.
fn string_field(name: &str, v: Value) -> Result<Option<String>, PromptError> {
    match v {
        Value::String(s) => Ok(Some(s)),
        Value::Null => Ok(None),
        other => Err(PromptError::TaskInput(format!(
            "`{name}` is {other}, not a string"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        task_from_stdin(text).unwrap_err().to_string()
    }

    #[test]
    fn plain_text_is_the_prompt_as_is() {
        let t = task_from_stdin("fix the bug\n").unwrap();
        assert_eq!(
            t,
            TaskInput {
                prompt: "fix the bug\n".into(),
                ..TaskInput::default()
            }
        );
    }

    #[test]
    fn text_that_only_looks_like_json_is_plain_text() {
        for text in ["{ not json", "{\"a\": 1} and more", "[1, 2]", "\"quoted\""] {
            let t = task_from_stdin(text).unwrap();
            assert_eq!((t.prompt.as_str(), t.json), (text, false));
        }
    }

    #[test]
    fn a_json_object_gives_every_field() {
        let t = task_from_stdin(
            r#"  {"prompt": "review", "context": {"pr": 12, "files": ["a.rs"]},
                "persona": "rev", "files": ["notes.md", "/abs/log.txt"]}  "#,
        )
        .unwrap();
        // Key order depends on serde_json's features: compare as JSON.
        let context = t.context.clone().unwrap();
        assert!(context.contains("\n  \"pr\": 12"), "not pretty: {context}");
        assert_eq!(
            serde_json::from_str::<Value>(&context).unwrap(),
            serde_json::json!({"pr": 12, "files": ["a.rs"]})
        );
        assert_eq!(
            t,
            TaskInput {
                prompt: "review".into(),
                context: Some(context),
                persona: Some("rev".into()),
                files: vec!["notes.md".into(), "/abs/log.txt".into()],
                file_name: None,
                json: true,
            }
        );
        let t = task_from_stdin(r#"{"task": "do it", "context": "as text"}"#).unwrap();
        assert_eq!(
            (t.prompt.as_str(), t.context.as_deref()),
            ("do it", Some("as text"))
        );
    }

    #[test]
    fn unknown_fields_are_errors_naming_them() {
        let msg = err(r#"{"prompt": "x", "promt": "y", "model": "z"}"#);
        assert!(msg.contains("unknown fields `model`, `promt`"), "{msg}");
        assert!(
            msg.starts_with("failed to read the JSON task input"),
            "{msg}"
        );
    }

    #[test]
    fn a_missing_empty_doubled_or_mistyped_prompt_is_an_error() {
        assert!(err(r#"{"context": "c"}"#).contains("`prompt` is missing"));
        assert!(err(r#"{"prompt": "  "}"#).contains("`prompt` is empty"));
        assert!(err(r#"{"prompt": "a", "task": "b"}"#).contains("keep one"));
        assert!(err(r#"{"prompt": 3}"#).contains("`prompt` is 3, not a string"));
        assert!(err(r#"{"prompt": "a", "files": "x.md"}"#).contains("not a list of paths"));
        assert!(err(r#"{"prompt": "a", "files": [1]}"#).contains("not a path"));
        // Given twice, the prompt is neither copy: refused, naming the key.
        let twice = err(r#"{"prompt": "a", "prompt": "b"}"#);
        assert!(twice.contains("duplicate key `prompt`"), "{twice}");
        let nested = err(r#"{"prompt": "a", "context": {"k": 1, "k": 2}}"#);
        assert!(
            nested.contains("duplicate key `k` in the object at `context`"),
            "{nested}"
        );
    }

    #[test]
    fn a_file_name_names_the_task_and_must_be_one_line() {
        let t = task_from_stdin(r#"{"prompt": "p", "file_name": "inbox/note 1.md"}"#).unwrap();
        assert_eq!(t.file_name.as_deref(), Some("inbox/note 1.md"));
        let mut parts = PromptParts::default();
        t.apply_to(&mut parts);
        assert_eq!(parts.task_file_name.as_deref(), Some("inbox/note 1.md"));
        assert!(err(r#"{"prompt": "p", "file_name": "a\nb"}"#).contains("control character"));
        assert!(err(r#"{"prompt": "p", "file_name": " "}"#).contains("`file_name` is empty"));
        assert!(err(r#"{"prompt": "p", "file_name": 1}"#).contains("not a string"));
    }

    #[test]
    fn applying_a_task_keeps_the_persona_given_by_flag() {
        let mut parts = PromptParts {
            persona: Some("writer".into()),
            context_files: vec!["a.md".into()],
            ..PromptParts::default()
        };
        TaskInput {
            prompt: "go".into(),
            context: Some("ctx".into()),
            persona: Some("rev".into()),
            files: vec!["b.md".into()],
            file_name: None,
            json: true,
        }
        .apply_to(&mut parts);
        assert_eq!(parts.task, "go");
        assert_eq!(parts.persona.as_deref(), Some("writer"));
        assert_eq!(parts.context_files, [PathBuf::from("a.md"), "b.md".into()]);
        assert_eq!(parts.task_context.as_deref(), Some("ctx"));
    }
}
