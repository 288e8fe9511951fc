//! Claude Code: `claude -p --output-format stream-json --verbose`.

use std::path::Path;

use super::{PermissionMode, Plan, PlanError, Provider, RunRequest, os, push};
use crate::decode::Decoder;
use crate::decode::claude::ClaudeDecoder;

/// The Claude Code adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Claude;

impl Provider for Claude {
    fn name(&self) -> &str {
        "claude"
    }

    fn features(&self) -> super::Features {
        super::Features {
            streaming: true,
            resume: true,
            reasoning: true,
            usage: true,
            cost: true,
            permission_modes: true,
        }
    }

    fn binary_name(&self) -> &str {
        "claude"
    }

    fn plan(&self, req: &RunRequest, program: &Path, _scratch: &Path) -> Result<Plan, PlanError> {
        let mut args = Vec::new();
        push(
            &mut args,
            &["-p", "--output-format", "stream-json", "--verbose"],
        );
        let mode = match req.permission_mode {
            PermissionMode::Default => "default",
            PermissionMode::Plan => "plan",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Bypass => "bypassPermissions",
        };
        push(&mut args, &["--permission-mode", mode]);
        if let Some(m) = &req.model {
            push(&mut args, &["--model", m]);
        }
        if let Some(s) = &req.system {
            push(&mut args, &["--append-system-prompt", s]);
        }
        for d in &req.add_dirs {
            args.push(os("--add-dir"));
            args.push(d.as_os_str().to_owned());
        }
        if let Some(id) = &req.resume {
            push(&mut args, &["--resume", id]);
        }
        args.extend(req.extra_args.iter().map(os));
        let mut env = Vec::new();
        if let Some(n) = req.max_provider_retries {
            env.push((os("CLAUDE_CODE_MAX_RETRIES"), os(n.to_string())));
        }
        // Claude refuses bypassPermissions as root unless it is told it runs
        // in a sandbox. The caller asked for bypass explicitly, and agentgate
        // runs agents unattended (containers run as root), so say so.
        if req.permission_mode == PermissionMode::Bypass && super::running_as_root() {
            env.push((os("IS_SANDBOX"), os("1")));
        }
        Ok(Plan {
            program: program.to_path_buf(),
            args,
            env,
            // The prompt goes on stdin: argv has a per-argument size limit.
            stdin: Some(req.prompt.clone().into_bytes()),
            cwd: req.cwd.clone(),
            files: Vec::new(),
        })
    }

    fn decoder(&self) -> Box<dyn Decoder> {
        Box::new(ClaudeDecoder::new())
    }
}
