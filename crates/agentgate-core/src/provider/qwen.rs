//! Qwen Code: `qwen --output-format stream-json --approval-mode MODE` with
//! the prompt on stdin (without a prompt argument and with stdin not a
//! terminal, Qwen runs headless and reads its prompt from stdin).
//!
//! Qwen re-launches itself as a child node process with the same stdio;
//! the supervisor's process-group kill stops both.
//!
//! Usage: Qwen's totals are cumulative over a session and include its
//! background memory-extraction request; see `decode::qwen` for how a run
//! reports its own figures.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::{Features, PermissionMode, Plan, PlanError, PostRun, Provider, RunRequest, os, push};
use crate::decode::qwen::{QwenDecoder, session_totals};
use crate::decode::{Decoded, Decoder};

/// The most Qwen reads from stdin (8 MiB); it truncates the rest.
const MAX_STDIN_PROMPT: usize = 8 * 1024 * 1024;

/// Qwen's variable naming its system settings file, which overrides the
/// user's and the project's settings.
const SYSTEM_SETTINGS_ENV: &str = "QWEN_CODE_SYSTEM_SETTINGS_PATH";

/// Qwen's variable naming its system defaults file; by default it sits next
/// to the system settings file, so it must be pinned when that one moves.
const SYSTEM_DEFAULTS_ENV: &str = "QWEN_CODE_SYSTEM_DEFAULTS_PATH";

/// The Qwen Code adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Qwen;

impl Provider for Qwen {
    fn name(&self) -> &str {
        "qwen"
    }

    fn binary_name(&self) -> &str {
        "qwen"
    }

    fn features(&self) -> Features {
        Features {
            streaming: true,
            resume: true,
            reasoning: true,
            usage: true,
            cost: false,
            permission_modes: true,
        }
    }

    fn plan(&self, req: &RunRequest, program: &Path, scratch: &Path) -> Result<Plan, PlanError> {
        if req.prompt.len() > MAX_STDIN_PROMPT {
            return Err(PlanError::Unsupported {
                provider: "qwen".into(),
                what: format!(
                    "take a prompt of {} bytes: it reads at most 8 MiB from stdin and drops the rest",
                    req.prompt.len()
                ),
            });
        }
        let mut args = Vec::new();
        push(&mut args, &["--output-format", "stream-json"]);
        let mode = match req.permission_mode {
            PermissionMode::Default => "default",
            PermissionMode::Plan => "plan",
            PermissionMode::AcceptEdits => "auto-edit",
            PermissionMode::Bypass => "yolo",
        };
        push(&mut args, &["--approval-mode", mode]);
        if let Some(m) = &req.model {
            push(&mut args, &["-m", m]);
        }
        if let Some(s) = &req.system {
            push(&mut args, &["--append-system-prompt", s]);
        }
        for d in &req.add_dirs {
            args.push(os("--include-directories"));
            args.push(d.as_os_str().to_owned());
        }
        if let Some(id) = &req.resume {
            push(&mut args, &["--resume", id]);
        }
        args.extend(req.extra_args.iter().map(os));
        let mut env = Vec::new();
        let mut files = Vec::new();
        if let Some(n) = req.max_provider_retries {
            let (vars, file) = retry_settings(n, req, scratch)?;
            env.extend(vars);
            files.push(file);
        }
        Ok(Plan {
            program: program.to_path_buf(),
            args,
            env,
            stdin: Some(req.prompt.clone().into_bytes()),
            cwd: req.cwd.clone(),
            files,
        })
    }

    fn decoder(&self) -> Box<dyn Decoder> {
        Box::new(QwenDecoder::new())
    }

    fn post_run(&self, ctx: &PostRun<'_>) -> Vec<Decoded> {
        // The session's totals with the reasoning tokens, which only the
        // session file has; they replace `result.usage`'s equal figures.
        let (Some(id), Some(home)) = (ctx.session_id, ctx.home) else {
            return Vec::new();
        };
        session_totals(&home.join(".qwen"), id)
            .map(Decoded::ThreadTotals)
            .into_iter()
            .collect()
    }
}

/// Bounds Qwen's retries: `model.generationConfig.maxRetries` is its only
/// knob (no flag or variable sets it), so the plan writes a copy of the
/// system settings file with that key set and points Qwen at the copy. The
/// user's and the project's settings stay untouched and still apply below
/// it. Returns the variables to set and the file written.
fn retry_settings(
    retries: u32,
    req: &RunRequest,
    scratch: &Path,
) -> Result<(Vec<(OsString, OsString)>, PathBuf), PlanError> {
    let original = env_of(req, SYSTEM_SETTINGS_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(default_system_settings);
    let defaults = env_of(req, SYSTEM_DEFAULTS_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            original
                .parent()
                .unwrap_or(Path::new("/"))
                .join("system-defaults.json")
        });
    let unsupported = |why: String| PlanError::Unsupported {
        provider: "qwen".into(),
        what: format!(
            "bound its retries: {why} (fix that file, or run without --max-provider-retries)"
        ),
    };
    let mut settings = match std::fs::read_to_string(&original) {
        Ok(text) => match serde_json::from_str(&strip_json_comments(&text)) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(unsupported(format!(
                    "its system settings {} are not a JSON object",
                    original.display()
                )));
            }
            Err(e) => {
                return Err(unsupported(format!(
                    "failed to parse its system settings {}: {e}",
                    original.display()
                )));
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut map = Map::new();
            map.insert("$version".into(), json!(4));
            map
        }
        Err(e) => {
            return Err(unsupported(format!(
                "failed to read its system settings {}: {e}",
                original.display()
            )));
        }
    };
    // Indexing a JSON object inserts what is missing; only a non-object in
    // the way must be replaced first.
    let model = settings.entry("model").or_insert(Value::Null);
    if !model.is_object() {
        *model = Value::Object(Map::new());
    }
    let generation = &mut model["generationConfig"];
    if !generation.is_object() {
        *generation = Value::Object(Map::new());
    }
    generation["maxRetries"] = json!(retries);
    let text = Value::Object(settings).to_string();
    let path = write_by_content(scratch, &text)?;
    let vars = vec![
        (os(SYSTEM_SETTINGS_ENV), path.as_os_str().to_owned()),
        (os(SYSTEM_DEFAULTS_ENV), defaults.into_os_string()),
    ];
    Ok((vars, path))
}

/// Writes `text` to `scratch/qwen-system-settings-<hash of text>.json`,
/// atomically: runs without a store share one scratch folder, and runs
/// that need the same settings share the file.
fn write_by_content(scratch: &Path, text: &str) -> Result<PathBuf, PlanError> {
    use std::hash::{DefaultHasher, Hash, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    let path = scratch.join(format!("qwen-system-settings-{:016x}.json", h.finish()));
    let partial = scratch.join(format!(
        "qwen-system-settings-{:016x}.{}-{}.tmp",
        h.finish(),
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&partial, text)
        .and_then(|()| std::fs::rename(&partial, &path))
        .map_err(|source| {
            let _ = std::fs::remove_file(&partial);
            PlanError::Write {
                path: path.clone(),
                source,
            }
        })?;
    Ok(path)
}

/// A variable as the CLI will see it: the request's own environment first,
/// then agentgate's (unless the request starts from an empty environment).
fn env_of(req: &RunRequest, key: &str) -> Option<OsString> {
    if let Some((_, v)) = req.env.iter().rev().find(|(k, _)| k == key) {
        return Some(v.into());
    }
    if req.env_clear {
        return None;
    }
    std::env::var_os(key).filter(|v| !v.is_empty())
}

fn default_system_settings() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/QwenCode/settings.json")
    } else {
        PathBuf::from("/etc/qwen-code/settings.json")
    }
}

/// Qwen's settings files may carry `//` and `/* */` comments (it strips
/// them before parsing); string contents are left alone.
fn strip_json_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(escaped) = chars.next() {
                        out.push(escaped);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> RunRequest {
        RunRequest {
            prompt: "do it".into(),
            cwd: PathBuf::from("/work"),
            ..RunRequest::default()
        }
    }

    fn plan(r: &RunRequest, scratch: &Path) -> Plan {
        Qwen.plan(r, Path::new("/bin/qwen"), scratch).unwrap()
    }

    #[test]
    fn the_prompt_goes_on_stdin_and_the_stream_is_stream_json() {
        let p = plan(&req(), &std::env::temp_dir());
        assert_eq!(
            p.display_args(),
            [
                "--output-format",
                "stream-json",
                "--approval-mode",
                "default"
            ]
        );
        assert_eq!(p.stdin.as_deref(), Some(&b"do it"[..]));
        assert_eq!(p.cwd, PathBuf::from("/work"));
        assert!(p.env.is_empty() && p.files.is_empty());
    }

    #[test]
    fn model_system_dirs_resume_and_modes_map_onto_flags() {
        let r = RunRequest {
            model: Some("qwen3-coder-plus".into()),
            system: Some("Be \"brief\".".into()),
            add_dirs: vec![PathBuf::from("/a"), PathBuf::from("/b")],
            resume: Some("S1".into()),
            extra_args: vec!["--debug".into()],
            permission_mode: PermissionMode::Bypass,
            ..req()
        };
        assert_eq!(
            plan(&r, &std::env::temp_dir()).display_args(),
            [
                "--output-format",
                "stream-json",
                "--approval-mode",
                "yolo",
                "-m",
                "qwen3-coder-plus",
                "--append-system-prompt",
                "Be \"brief\".",
                "--include-directories",
                "/a",
                "--include-directories",
                "/b",
                "--resume",
                "S1",
                "--debug"
            ]
        );
        let mode = |m| {
            let r = RunRequest {
                permission_mode: m,
                ..req()
            };
            plan(&r, &std::env::temp_dir()).display_args()[3].clone()
        };
        assert_eq!(mode(PermissionMode::Plan), "plan");
        assert_eq!(mode(PermissionMode::AcceptEdits), "auto-edit");
    }

    #[test]
    fn a_retry_bound_extends_the_system_settings_in_a_copy() {
        let dir = tempfile::tempdir().unwrap();
        let system = dir.path().join("etc-settings.json");
        std::fs::write(
            &system,
            "// admin settings\n{\"$version\": 4, /* keep */ \"model\": {\"name\": \"a//b\"}, \"x\": 1}",
        )
        .unwrap();
        let scratch = dir.path().join("run");
        std::fs::create_dir(&scratch).unwrap();
        let r = RunRequest {
            max_provider_retries: Some(2),
            env: vec![(SYSTEM_SETTINGS_ENV.into(), system.display().to_string())],
            ..req()
        };
        let p = plan(&r, &scratch);
        let copy = p.files[0].clone();
        assert_eq!(p.files.len(), 1);
        assert_eq!(copy.parent(), Some(scratch.as_path()));
        // Named by its content: another run with the same bound shares it.
        assert_eq!(plan(&r, &scratch).files, p.files);
        assert_eq!(
            std::fs::read_dir(&scratch).unwrap().count(),
            1,
            "no leftovers"
        );
        assert_eq!(
            p.env,
            [
                (os(SYSTEM_SETTINGS_ENV), copy.clone().into_os_string()),
                (
                    os(SYSTEM_DEFAULTS_ENV),
                    dir.path().join("system-defaults.json").into_os_string()
                ),
            ]
        );
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&copy).unwrap()).unwrap();
        assert_eq!(
            written,
            json!({"$version": 4, "x": 1, "model": {"name": "a//b", "generationConfig": {"maxRetries": 2}}})
        );
        // The original is left alone.
        assert!(
            std::fs::read_to_string(&system)
                .unwrap()
                .starts_with("// admin")
        );
    }

    #[test]
    fn a_retry_bound_without_system_settings_writes_a_fresh_file() {
        let dir = tempfile::tempdir().unwrap();
        let r = RunRequest {
            max_provider_retries: Some(0),
            env: vec![(
                SYSTEM_SETTINGS_ENV.into(),
                dir.path().join("none.json").display().to_string(),
            )],
            ..req()
        };
        let p = plan(&r, dir.path());
        let written = std::fs::read_to_string(&p.files[0]).unwrap();
        let written: Value = serde_json::from_str(&written).unwrap();
        assert_eq!(
            written,
            json!({"$version": 4, "model": {"generationConfig": {"maxRetries": 0}}})
        );
    }

    #[test]
    fn unusable_requests_say_why() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, "[1, 2]").unwrap();
        let r = RunRequest {
            max_provider_retries: Some(1),
            env: vec![(SYSTEM_SETTINGS_ENV.into(), bad.display().to_string())],
            ..req()
        };
        let err = Qwen
            .plan(&r, Path::new("/bin/qwen"), dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a JSON object"), "{err}");
        assert!(err.contains("--max-provider-retries"), "{err}");
        let huge = RunRequest {
            prompt: "x".repeat(MAX_STDIN_PROMPT + 1),
            ..req()
        };
        let err = Qwen
            .plan(&huge, Path::new("/bin/qwen"), dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("8 MiB"), "{err}");
    }

    #[test]
    fn post_run_reads_the_session_totals_with_reasoning() {
        let home = tempfile::tempdir().unwrap();
        let chats = home.path().join(".qwen/projects/-work/chats");
        std::fs::create_dir_all(&chats).unwrap();
        let record = json!({"type": "system", "subtype": "ui_telemetry", "systemPayload": {"uiEvent": {
            "event.name": "qwen-code.api_response", "input_token_count": 120,
            "output_token_count": 9, "cached_content_token_count": 20, "thoughts_token_count": 4}}});
        std::fs::write(chats.join("S1.jsonl"), format!("{record}\n{record}\n")).unwrap();
        let ctx = |id| PostRun {
            session_id: Some(id),
            home: Some(home.path()),
            cwd: Path::new("/work"),
        };
        let want = agentgate_protocol::Usage {
            input_tokens: 240,
            output_tokens: 18,
            cache_read_input_tokens: 40,
            reasoning_tokens: 8,
            total_tokens: 258,
            ..agentgate_protocol::Usage::default()
        };
        assert_eq!(Qwen.post_run(&ctx("S1")), [Decoded::ThreadTotals(want)]);
        assert!(Qwen.post_run(&ctx("S2")).is_empty());
    }

    #[test]
    fn comments_are_stripped_outside_strings() {
        assert_eq!(
            strip_json_comments("{\"a\": \"x//y\\\"/*z*/\", // c\n\"b\": /* d */ 1}"),
            "{\"a\": \"x//y\\\"/*z*/\", \n\"b\":   1}"
        );
    }
}
