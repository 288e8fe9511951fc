//! An edit agent's structured summary file (the Gardener's
//! `last_cli_result.json`): after each finished attempt of a step whose
//! agent has `summary_file:`, agentgate writes what it observed (the files
//! the attempt changed in the workspace, the answer, the structured output,
//! the error), not what the agent claims. The file is replaced atomically
//! (a temporary file in the same folder, then a rename) with mode 600: a
//! reader never sees half a file, and the answer may be private.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

use agentgate_protocol::{Envelope, ErrorInfo};
use serde_json::{Value, json};

use super::checks::Untold;
use crate::workspace::Change;

/// The longest `summary` taken from the answer's text, in characters.
const SUMMARY_MAX_CHARS: usize = 1000;

/// The summary of one attempt, as written.
pub(super) fn summary(
    agent: Option<&str>,
    envelope: &Envelope,
    error: Option<&ErrorInfo>,
    changes: Option<&Result<Vec<Change>, Untold>>,
) -> Value {
    let (files, files_error) = match changes {
        Some(Ok(list)) => (
            list.iter()
                .map(|c| json!({"path": c.path, "change": c.kind.as_str()}))
                .collect(),
            None,
        ),
        Some(Err(e)) => (Vec::new(), Some(e.to_string())),
        None => (Vec::new(), Some("not observed".to_owned())),
    };
    json!({
        "agent": agent,
        "provider": envelope.provider,
        "model": envelope.model,
        "ok": error.is_none(),
        "files_edited": files,
        "files_error": files_error,
        "summary": summary_text(envelope),
        "structured_output": envelope.structured_output,
        "error": error.map(|e| json!({"type": e.kind.as_str(), "message": e.message})),
    })
}

/// The structured output's `summary` (else `reasoning`) when it is text,
/// else the answer's first paragraph, at most [`SUMMARY_MAX_CHARS`].
fn summary_text(envelope: &Envelope) -> String {
    let from_output = envelope.structured_output.as_ref().and_then(|v| {
        ["summary", "reasoning"]
            .iter()
            .find_map(|k| v.get(k).and_then(Value::as_str))
    });
    let text = from_output.unwrap_or_else(|| {
        let answer = envelope.response.trim();
        answer.split("\n\n").next().unwrap_or(answer)
    });
    text.trim().chars().take(SUMMARY_MAX_CHARS).collect()
}

/// Replace `path` with `value` (pretty JSON), atomically, mode 600; the
/// folder is created when missing.
pub(super) fn write(path: &Path, value: &Value) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(format!(".{}", name.to_string_lossy()));
    let mut text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    text.push('\n');
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;
    use std::path::PathBuf;

    use agentgate_protocol::{ErrorKind, ErrorSource};

    use super::*;
    use crate::workspace::ChangeKind;

    #[test]
    fn the_summary_lists_what_changed_and_says_what_the_answer_said() {
        let mut env = Envelope {
            provider: Some("claude".into()),
            response: "Filed the note under garden/roses.md.\n\nDetails follow.".into(),
            ..Envelope::default()
        };
        let changes = Ok(vec![Change {
            path: PathBuf::from("garden/roses.md"),
            kind: ChangeKind::Modified,
        }]);
        let v = summary(Some("gardener"), &env, None, Some(&changes));
        assert_eq!(v["agent"], "gardener");
        assert_eq!(v["ok"], true);
        assert_eq!(
            v["files_edited"],
            json!([{"path": "garden/roses.md", "change": "modified"}])
        );
        assert_eq!(v["summary"], "Filed the note under garden/roses.md.");
        // A structured answer's own summary wins.
        env.structured_output = Some(json!({"action": "append", "reasoning": "roses"}));
        let err = ErrorInfo::new(ErrorKind::Timeout, ErrorSource::Internal, "late");
        let v = summary(None, &env, Some(&err), None);
        assert_eq!(v["summary"], "roses");
        assert_eq!(v["ok"], false);
        assert_eq!(v["error"]["type"], "timeout");
        assert_eq!(v["files_error"], "not observed");
    }

    #[test]
    fn the_file_is_replaced_whole_with_mode_600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".gardener/last_cli_result.json");
        write(&path, &json!({"n": 1})).unwrap();
        write(&path, &json!({"n": 2})).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            json!({"n": 2})
        );
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // No temporary file left behind.
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
}
