//! Codex: `codex exec --json ... -` (prompt on stdin).

use std::path::Path;

use super::{PermissionMode, Plan, PlanError, Provider, RunRequest, os, push};
use crate::decode::Decoder;
use crate::decode::codex::CodexDecoder;

/// The Codex adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Codex;

/// A TOML basic string for `-c key=value` (Codex parses the value as TOML).
fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Provider for Codex {
    fn name(&self) -> &str {
        "codex"
    }

    fn features(&self) -> super::Features {
        super::Features {
            streaming: true,
            resume: true,
            reasoning: true,
            usage: true,
            cost: false,
            permission_modes: true,
        }
    }

    fn binary_name(&self) -> &str {
        "codex"
    }

    fn plan(&self, req: &RunRequest, program: &Path, _scratch: &Path) -> Result<Plan, PlanError> {
        let mut args = Vec::new();
        push(&mut args, &["exec"]);
        if req.resume.is_some() {
            push(&mut args, &["resume"]);
        }
        push(&mut args, &["--json", "--skip-git-repo-check"]);
        let sandbox = match req.permission_mode {
            PermissionMode::Bypass => None,
            PermissionMode::AcceptEdits | PermissionMode::Default => Some("workspace-write"),
            PermissionMode::Plan => Some("read-only"),
        };
        match sandbox {
            None => push(&mut args, &["--dangerously-bypass-approvals-and-sandbox"]),
            // `codex exec resume` rejects `--sandbox` (0.169); the config
            // override sets the same thing.
            Some(mode) if req.resume.is_some() => {
                args.push(os("-c"));
                args.push(os(format!("sandbox_mode={}", toml_string(mode))));
            }
            Some(mode) => push(&mut args, &["--sandbox", mode]),
        }
        // A resumed thread does not inherit the model: pass it every time.
        if let Some(m) = &req.model {
            push(&mut args, &["-m", m]);
        }
        if let Some(s) = &req.system {
            args.push(os("-c"));
            args.push(os(format!("developer_instructions={}", toml_string(s))));
        }
        if !req.add_dirs.is_empty() {
            if req.resume.is_some() {
                return Err(PlanError::Unsupported {
                    provider: "codex".into(),
                    what: "take --add-dir when resuming a session (codex exec resume rejects it)"
                        .into(),
                });
            }
            for d in &req.add_dirs {
                args.push(os("--add-dir"));
                args.push(d.as_os_str().to_owned());
            }
        }
        // Accepted by `codex exec` and `codex exec resume` alike. Codex runs
        // in `req.cwd`, so a relative path (meant from agentgate's own working
        // directory) is made absolute first.
        if let Some(schema) = &req.output_schema {
            args.push(os("--output-schema"));
            let schema = std::path::absolute(schema).unwrap_or_else(|_| schema.clone());
            args.push(schema.into_os_string());
        }
        args.extend(req.extra_args.iter().map(os));
        if let Some(id) = &req.resume {
            args.push(os(id));
        }
        // `-` reads the prompt from stdin (argv has a per-argument size limit).
        args.push(os("-"));
        Ok(Plan {
            program: program.to_path_buf(),
            args,
            env: Vec::new(),
            stdin: Some(req.prompt.clone().into_bytes()),
            cwd: req.cwd.clone(),
            files: Vec::new(),
        })
    }

    fn decoder(&self) -> Box<dyn Decoder> {
        Box::new(CodexDecoder::new())
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::toml_string;
    use crate::provider::{PermissionMode, Provider, RunRequest};

    fn argv(r: &RunRequest) -> Vec<String> {
        super::Codex
            .plan(r, Path::new("/bin/codex"), &std::env::temp_dir())
            .unwrap()
            .display_args()
    }

    #[test]
    fn an_output_schema_is_passed_natively_fresh_and_on_resume() {
        let fresh = RunRequest {
            prompt: "triage".into(),
            cwd: PathBuf::from("/work"),
            output_schema: Some(PathBuf::from("/schemas/triage.json")),
            extra_args: vec!["--ephemeral".into()],
            ..RunRequest::default()
        };
        assert_eq!(
            argv(&fresh),
            [
                "exec",
                "--json",
                "--skip-git-repo-check",
                "--sandbox",
                "workspace-write",
                "--output-schema",
                "/schemas/triage.json",
                "--ephemeral",
                "-"
            ]
        );
        let resumed = RunRequest {
            resume: Some("S1".into()),
            extra_args: Vec::new(),
            ..fresh
        };
        assert_eq!(
            argv(&resumed),
            [
                "exec",
                "resume",
                "--json",
                "--skip-git-repo-check",
                "-c",
                "sandbox_mode=\"workspace-write\"",
                "--output-schema",
                "/schemas/triage.json",
                "S1",
                "-"
            ]
        );
    }

    #[test]
    fn a_resumed_run_sets_the_sandbox_through_the_config() {
        // `codex exec resume` has no `--sandbox` flag.
        let with = |mode| RunRequest {
            resume: Some("S1".into()),
            permission_mode: mode,
            ..RunRequest::default()
        };
        let plan = argv(&with(PermissionMode::Plan)).join(" ");
        assert!(plan.contains("-c sandbox_mode=\"read-only\""), "{plan}");
        assert!(!plan.contains("--sandbox"), "{plan}");
        let bypass = argv(&with(PermissionMode::Bypass));
        assert!(
            bypass.contains(&"--dangerously-bypass-approvals-and-sandbox".to_owned()),
            "{bypass:?}"
        );
        assert!(!bypass.join(" ").contains("sandbox_mode"), "{bypass:?}");
    }

    #[test]
    fn a_relative_output_schema_is_made_absolute_from_agentgates_directory() {
        let r = RunRequest {
            cwd: PathBuf::from("/elsewhere"),
            output_schema: Some(PathBuf::from("schemas/triage.json")),
            ..RunRequest::default()
        };
        let args = argv(&r);
        let at = args.iter().position(|a| a == "--output-schema").unwrap();
        let expected = std::env::current_dir().unwrap().join("schemas/triage.json");
        assert_eq!(args[at + 1], expected.to_string_lossy());
    }

    #[test]
    fn no_output_schema_flag_without_a_schema() {
        let args = argv(&RunRequest::default());
        assert!(!args.iter().any(|a| a == "--output-schema"), "{args:?}");
    }

    #[test]
    fn toml_strings_escape_quotes_backslashes_and_controls() {
        assert_eq!(
            toml_string("a \"b\" \\ c\nd\u{1}"),
            "\"a \\\"b\\\" \\\\ c\\nd\\u0001\""
        );
    }
}
