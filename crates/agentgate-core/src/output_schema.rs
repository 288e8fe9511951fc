//! `--output-schema`: extract the JSON answer and validate it.
//!
//! Models wrap JSON in prose and Markdown fences, so [`OutputSchema::check`]
//! looks for the answer in three places, in order: the whole response, the
//! fenced ```` ```json ```` (or bare ```` ``` ````) blocks, and the balanced
//! JSON objects and arrays in the text. Schemas are compiled offline: a
//! `$ref` that points outside the file is refused, never fetched.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use jsonschema::{Retrieve, Uri, Validator};
use serde_json::Value;

use crate::read_limit::{OUTPUT_SCHEMA_MAX_BYTES, read_text_file};

/// How many validation errors a failure message lists.
const MAX_LISTED_ERRORS: usize = 3;
/// How many characters of one validation error a failure message keeps (an
/// error can quote the whole offending value).
const MAX_ERROR_CHARS: usize = 200;
/// How many brackets the search for JSON embedded in prose tries as the start
/// of a value before giving up.
const MAX_OPENERS: usize = 32;
/// How many JSON values found in one response are tried against the schema.
const MAX_CANDIDATES: usize = 16;

/// A compiled JSON Schema that a run's final answer must satisfy.
#[derive(Debug)]
pub struct OutputSchema {
    path: PathBuf,
    raw: Value,
    validator: Validator,
}

/// Why a schema file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum OutputSchemaError {
    /// The file could not be read.
    #[error("failed to read the output schema {path}: {reason}")]
    Read {
        /// The schema file.
        path: PathBuf,
        /// Why (a file larger than [`OUTPUT_SCHEMA_MAX_BYTES`] or not UTF-8
        /// included; in the message, so not a `source`).
        reason: crate::read_limit::ReadLimitError,
    },
    /// The file is not JSON.
    #[error("failed to parse the output schema {path} as JSON: {source}")]
    NotJson {
        /// The schema file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// The file is JSON but not a schema the validator accepts, or it refers
    /// to a schema outside the file.
    #[error("failed to compile the output schema {path}: {reason}")]
    Invalid {
        /// The schema file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

/// Refuses every external `$ref`: agentgate never fetches schemas over the
/// network, and a run must not depend on files the schema merely points at.
struct NoFetch;

/// The words every refused `$ref` is explained with.
const NO_FETCH: &str = "agentgate does not fetch referenced schemas (no network or file access)";

impl Retrieve for NoFetch {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!(
            "the schema refers to {uri}, and {NO_FETCH}: copy that schema into the file under `$defs` and refer to it as `#/$defs/...`"
        )
        .into())
    }
}

impl OutputSchema {
    /// Reads and compiles the JSON Schema in `path`.
    pub fn load(path: &Path) -> Result<OutputSchema, OutputSchemaError> {
        let text = read_text_file(path, OUTPUT_SCHEMA_MAX_BYTES, "an output schema").map_err(
            |reason| OutputSchemaError::Read {
                path: path.to_path_buf(),
                reason,
            },
        )?;
        let raw: Value =
            serde_json::from_str(&text).map_err(|source| OutputSchemaError::NotJson {
                path: path.to_path_buf(),
                source,
            })?;
        Self::from_value(path, raw)
    }

    /// Compiles an already-parsed schema; `path` is only used in messages.
    pub fn from_value(path: &Path, raw: Value) -> Result<OutputSchema, OutputSchemaError> {
        let validator = jsonschema::options()
            .with_retriever(NoFetch)
            .build(&raw)
            .map_err(|e| OutputSchemaError::Invalid {
                path: path.to_path_buf(),
                reason: compile_error(&e),
            })?;
        Ok(OutputSchema {
            path: path.to_path_buf(),
            raw,
            validator,
        })
    }

    /// The schema file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema as parsed (what a CLI with native support is given).
    pub fn raw(&self) -> &Value {
        &self.raw
    }

    /// Extracts the JSON answer from a model's response and validates it.
    /// Returns the answer, or one line saying why it is not acceptable.
    ///
    /// The answer is the whole response when it parses as JSON; otherwise
    /// the candidates are the ```` ```json ```` (or bare ```` ``` ````) blocks,
    /// then the balanced objects and arrays in the text, in order, and the
    /// first that satisfies the schema is the answer (so a stray `[1]` in the
    /// prose does not hide it). When none does, the largest is reported on.
    pub fn check(&self, response: &str) -> Result<Value, String> {
        if response.trim().is_empty() {
            return Err("the answer is empty (expected JSON matching the output schema)".into());
        }
        let candidates = json_candidates(response);
        let mut largest: Option<&Candidate> = None;
        for c in &candidates {
            if self.validator.is_valid(&c.value) {
                return Ok(c.value.clone());
            }
            if largest.is_none_or(|l| c.len > l.len) {
                largest = Some(c);
            }
        }
        let Some(answer) = largest else {
            return Err(
                "the answer contains no JSON (expected a JSON value matching the output schema, alone or in a ```json block)"
                    .into(),
            );
        };
        Err(self.mismatch(&answer.value))
    }

    /// One line listing the first few ways `answer` breaks the schema.
    fn mismatch(&self, answer: &Value) -> String {
        let mut listed = Vec::new();
        let mut more = 0usize;
        for e in self.validator.iter_errors(answer) {
            if listed.len() < MAX_LISTED_ERRORS {
                let at = e.instance_path().as_str();
                let at = if at.is_empty() { "/" } else { at };
                listed.push(format!(
                    "{at}: {}",
                    one_line(&e.to_string(), MAX_ERROR_CHARS)
                ));
            } else {
                more += 1;
            }
        }
        let mut msg = format!(
            "the answer does not match the schema: {}",
            listed.join("; ")
        );
        if more > 0 {
            let _ = write!(msg, "; and {more} more");
        }
        msg
    }
}

/// Why a schema did not compile, with what to do about it.
fn compile_error(e: &jsonschema::ValidationError<'_>) -> String {
    let what = one_line(&e.to_string(), usize::MAX);
    if let jsonschema::error::ValidationErrorKind::Referencing(_) = e.kind() {
        if what.contains(NO_FETCH) {
            return what;
        }
        if what.contains("meta-schema") {
            return format!(
                "{what}; name a standard draft in `$schema` (draft 4, 6, 7, 2019-09 or 2020-12) or leave it out"
            );
        }
        return format!(
            "{what}; {NO_FETCH}: keep referenced schemas in the file under `$defs` and refer to them as `#/$defs/...`"
        );
    }
    let at = e.instance_path().as_str();
    let at = if at.is_empty() { "/" } else { at };
    format!("{what} (at {at} in the schema; it is JSON but not a valid JSON Schema)")
}

/// Collapses whitespace runs (newlines included) to one space and cuts the
/// text to `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.chars().count() > max {
        let cut: String = out.chars().take(max).collect();
        return format!("{cut}…");
    }
    out
}

/// A JSON value found in a response, with the length of its text.
struct Candidate {
    value: Value,
    len: usize,
}

/// The JSON values a response may be answering with, in order of preference:
/// the whole text alone if it parses, else the fenced blocks, then the
/// balanced objects and arrays in the text (at most [`MAX_CANDIDATES`] in all).
fn json_candidates(response: &str) -> Vec<Candidate> {
    let trimmed = response.trim();
    if let Ok(value) = serde_json::from_str(trimmed) {
        return vec![Candidate {
            value,
            len: trimmed.len(),
        }];
    }
    let mut found = fenced_json(response);
    embedded_json(response, &mut found);
    found
}

/// The ```` ```json ```` and bare ```` ``` ```` blocks whose content parses.
fn fenced_json(response: &str) -> Vec<Candidate> {
    let mut found = Vec::new();
    let mut lines = response.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```") else {
            continue;
        };
        let info = info.trim();
        let wanted = info.is_empty() || info.eq_ignore_ascii_case("json");
        let mut body = String::new();
        for inner in lines.by_ref() {
            if inner.trim_start().starts_with("```") {
                break;
            }
            if wanted {
                body.push_str(inner);
                body.push('\n');
            }
        }
        if wanted
            && found.len() < MAX_CANDIDATES
            && let Ok(value) = serde_json::from_str(body.trim())
        {
            found.push(Candidate {
                value,
                len: body.len(),
            });
        }
    }
    found
}

/// Adds the balanced `{...}` and `[...]` in the text that parse as JSON
/// (not those nested in one already found). Brackets inside JSON strings do
/// not count. Each opener tried scans at most the rest of the text, and at
/// most [`MAX_OPENERS`] are tried, so the work stays linear in its size.
fn embedded_json(response: &str, found: &mut Vec<Candidate>) {
    let bytes = response.as_bytes();
    let mut start = 0;
    for _ in 0..MAX_OPENERS {
        if found.len() >= MAX_CANDIDATES {
            return;
        }
        let Some(at) = bytes[start..].iter().position(|b| *b == b'{' || *b == b'[') else {
            return;
        };
        let open = start + at;
        start = open + 1;
        if let Some(end) = balanced_end(bytes, open)
            && let Ok(value) = serde_json::from_slice(&bytes[open..=end])
        {
            found.push(Candidate {
                value,
                len: end + 1 - open,
            });
            start = end + 1;
        }
    }
}

/// The index of the bracket that closes the one at `open`, if the text has it.
fn balanced_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut stack = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => stack.push(b'}'),
            b'[' => stack.push(b']'),
            b'}' | b']' => {
                if stack.pop() != Some(b) {
                    return None;
                }
                if stack.is_empty() {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> OutputSchema {
        OutputSchema::from_value(
            Path::new("triage.json"),
            json!({
                "type": "object",
                "properties": {
                    "priority": {"enum": ["low", "high"]},
                    "labels": {"type": "array", "items": {"type": "string"}},
                    "count": {"type": "integer"}
                },
                "required": ["priority"],
                "additionalProperties": false
            }),
        )
        .unwrap()
    }

    fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn the_whole_response_is_the_answer_when_it_parses() {
        let v = schema()
            .check("  {\"priority\": \"low\", \"labels\": [\"bug\"]}\n")
            .unwrap();
        assert_eq!(v, json!({"priority": "low", "labels": ["bug"]}));
    }

    #[test]
    fn a_fenced_json_block_is_the_answer() {
        let text = "Here is the triage:\n\n```json\n{\"priority\": \"high\"}\n```\n\nDone.";
        assert_eq!(schema().check(text).unwrap(), json!({"priority": "high"}));
        let bare = "Result:\n```\n{\"priority\": \"low\"}\n```";
        assert_eq!(schema().check(bare).unwrap(), json!({"priority": "low"}));
        // A fence in another language is not the answer.
        let other = "```python\nprint({'a': 1})\n```\n```json\n{\"priority\": \"low\"}\n```";
        assert_eq!(schema().check(other).unwrap(), json!({"priority": "low"}));
    }

    #[test]
    fn json_embedded_in_prose_is_found_and_brackets_in_strings_do_not_count() {
        let text = "I looked [carefully]. The answer is {\"priority\": \"high\", \"labels\": [\"a}b\", \"c\\\"]\"]} as requested.";
        assert_eq!(
            schema().check(text).unwrap(),
            json!({"priority": "high", "labels": ["a}b", "c\"]"]})
        );
    }

    #[test]
    fn a_stray_json_value_in_the_prose_does_not_hide_the_answer() {
        let text = "As noted in [1] and [2, 3], the answer is:\n{\"priority\": \"low\"}";
        assert_eq!(schema().check(text).unwrap(), json!({"priority": "low"}));
        // When nothing matches, the largest candidate is the one reported on.
        let err = schema()
            .check("See [1]: {\"priority\": \"urgent\", \"labels\": []}")
            .unwrap_err();
        assert!(err.contains("/priority: \"urgent\""), "{err}");
    }

    #[test]
    fn a_response_without_json_says_so() {
        let err = schema()
            .check("I could not decide on a priority.")
            .unwrap_err();
        assert!(err.contains("the answer contains no JSON"), "{err}");
        let err = schema().check(" \n").unwrap_err();
        assert!(err.contains("the answer is empty"), "{err}");
    }

    #[test]
    fn a_mismatch_names_the_paths_on_one_line() {
        let err = schema()
            .check("{\"priority\": \"urgent\", \"labels\": [1], \"count\": 1.5, \"extra\": true}")
            .unwrap_err();
        assert!(
            err.starts_with("the answer does not match the schema: "),
            "{err}"
        );
        assert!(err.contains("/priority: \"urgent\" is not one of"), "{err}");
        assert!(
            err.contains("/labels/0: 1 is not of type \"string\""),
            "{err}"
        );
        assert!(err.contains("; and 1 more"), "{err}");
        assert!(!err.contains('\n'), "{err}");
        let err = schema().check("[1, 2]").unwrap_err();
        assert!(err.contains("/: [1,2] is not of type \"object\""), "{err}");
    }

    #[test]
    fn a_schema_can_be_shared_across_tasks() {
        fn send_sync<T: Send + Sync>(_: &T) {}
        send_sync(&schema());
    }

    #[test]
    fn a_valid_answer_is_returned() {
        let v = schema()
            .check("```json\n{\"priority\": \"low\", \"count\": 3}\n```")
            .unwrap();
        assert_eq!(v["count"], 3);
    }

    #[test]
    fn a_remote_ref_fails_at_load_without_fetching() {
        let dir = tempfile::tempdir().unwrap();
        // A port nothing listens on: were it fetched, the error would be a
        // connection error, not ours.
        let path = write(
            &dir,
            "remote.json",
            r#"{"type": "object", "properties": {"a": {"$ref": "http://127.0.0.1:9/defs.json#/a"}}}"#,
        );
        let err = OutputSchema::load(&path).unwrap_err().to_string();
        assert!(err.contains("remote.json"), "{err}");
        assert!(err.contains("does not fetch referenced schemas"), "{err}");
        assert!(err.contains("http://127.0.0.1:9/defs.json"), "{err}");
        // The meta-schema named by `$schema` is built in, not fetched.
        let path = write(
            &dir,
            "meta.json",
            r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}"#,
        );
        let s = OutputSchema::load(&path).unwrap();
        assert_eq!(s.path(), path);
        assert_eq!(s.raw()["type"], "string");
        assert!(s.check("\"ok\"").is_ok());
    }

    #[test]
    fn an_invalid_schema_or_a_file_that_is_not_json_fails_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "bad-schema.json", r#"{"type": 12}"#);
        let err = OutputSchema::load(&path).unwrap_err();
        assert!(matches!(err, OutputSchemaError::Invalid { .. }), "{err}");
        let err = err.to_string();
        assert!(err.contains("bad-schema.json"), "{err}");
        assert!(err.contains("failed to compile"), "{err}");
        assert!(err.contains("at /type in the schema"), "{err}");

        let path = write(
            &dir,
            "draft.json",
            r#"{"$schema": "https://example.com/my-draft"}"#,
        );
        let err = OutputSchema::load(&path).unwrap_err().to_string();
        assert!(err.contains("name a standard draft"), "{err}");

        let path = write(&dir, "not-json.json", "type: object\n");
        let err = OutputSchema::load(&path).unwrap_err();
        assert!(matches!(err, OutputSchemaError::NotJson { .. }), "{err}");
        assert!(err.to_string().contains("not-json.json"), "{err}");

        let err = OutputSchema::load(&dir.path().join("missing.json")).unwrap_err();
        assert!(matches!(err, OutputSchemaError::Read { .. }), "{err}");
        assert!(err.to_string().contains("missing.json"), "{err}");
    }

    #[test]
    fn huge_responses_without_json_are_searched_in_bounded_work() {
        // Unclosed openers: each try scans the rest, but only a bounded
        // number of tries are made.
        let text = "{[".repeat(500_000);
        assert!(schema().check(&text).unwrap_err().contains("no JSON"));
        let mut text = "x".repeat(1_000_000);
        text.push_str("{\"priority\": \"low\"}");
        assert_eq!(schema().check(&text).unwrap(), json!({"priority": "low"}));
    }
}
