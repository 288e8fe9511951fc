//! Gemini CLI: `gemini --output-format stream-json -p ""` with the prompt on
//! stdin (the CLI appends `-p`'s text to its stdin).

use std::path::Path;

use super::{PermissionMode, Plan, PlanError, PostRun, Provider, RunRequest, os, push};
use crate::decode::gemini::GeminiDecoder;
use crate::decode::{Decoded, Decoder};

/// The Gemini CLI adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Gemini;

impl Provider for Gemini {
    fn name(&self) -> &str {
        "gemini"
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
        "gemini"
    }

    fn plan(&self, req: &RunRequest, program: &Path, scratch: &Path) -> Result<Plan, PlanError> {
        let mut args = Vec::new();
        push(&mut args, &["--output-format", "stream-json"]);
        match req.permission_mode {
            // --yolo is overridden back to default approval in a folder the
            // CLI does not trust; --skip-trust trusts it for this run only.
            PermissionMode::Bypass => push(&mut args, &["--approval-mode", "yolo", "--skip-trust"]),
            PermissionMode::AcceptEdits => {
                push(&mut args, &["--approval-mode", "auto_edit", "--skip-trust"])
            }
            PermissionMode::Plan => push(&mut args, &["--approval-mode", "plan"]),
            PermissionMode::Default => push(&mut args, &["--approval-mode", "default"]),
        }
        if let Some(m) = &req.model {
            push(&mut args, &["-m", m]);
        }
        if let Some(id) = &req.resume {
            push(&mut args, &["--resume", id]);
        }
        for d in &req.add_dirs {
            args.push(os("--include-directories"));
            args.push(d.as_os_str().to_owned());
        }
        args.extend(req.extra_args.iter().map(os));
        // The prompt is read from stdin; `-p` puts the CLI in headless mode.
        push(&mut args, &["-p", ""]);
        let mut env = Vec::new();
        let mut files = Vec::new();
        if let Some(s) = &req.system {
            // Gemini CLI has no "append to the system prompt": the file named
            // by GEMINI_SYSTEM_MD replaces its built-in system prompt.
            let path = scratch.join("gemini-system.md");
            std::fs::write(&path, s).map_err(|source| PlanError::Write {
                path: path.clone(),
                source,
            })?;
            env.push((os("GEMINI_SYSTEM_MD"), path.as_os_str().to_owned()));
            files.push(path);
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
        Box::new(GeminiDecoder::new())
    }

    fn post_run(&self, ctx: &PostRun<'_>) -> Vec<Decoded> {
        // Gemini's thoughts are only in its session file.
        let (Some(id), Some(home)) = (ctx.session_id, ctx.home) else {
            return Vec::new();
        };
        crate::decode::gemini_session::recovered_thoughts(&home.join(".gemini"), id)
    }
}
