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
        match req.permission_mode {
            PermissionMode::Bypass => {
                push(&mut args, &["--dangerously-bypass-approvals-and-sandbox"])
            }
            PermissionMode::AcceptEdits | PermissionMode::Default => {
                push(&mut args, &["--sandbox", "workspace-write"]);
            }
            PermissionMode::Plan => push(&mut args, &["--sandbox", "read-only"]),
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
    use super::toml_string;

    #[test]
    fn toml_strings_escape_quotes_backslashes_and_controls() {
        assert_eq!(
            toml_string("a \"b\" \\ c\nd\u{1}"),
            "\"a \\\"b\\\" \\\\ c\\nd\\u0001\""
        );
    }
}
