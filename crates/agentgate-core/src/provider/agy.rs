//! Google Antigravity's CLI: `agy --print=PROMPT --print-timeout=86400s
//! [--model=M] [--dangerously-skip-permissions | --mode=plan |
//! --mode=accept-edits] [--add-dir=D]... [--conversation=ID]`.
//!
//! Built from agy's documented formats and flags and the flags public
//! wrappers use (see `crates/agentgate-fixtures/transcripts/README.md`),
//! not run against the live CLI, which cannot be installed here.
//!
//! - Every flag is written `--flag=value` (agy parses flags with Go's
//!   `flag` package; the prompt attached with `=` cannot be taken for a
//!   flag). agy has no system-prompt flag: `--system` is put in front of
//!   the prompt, followed by a blank line.
//! - `--print-timeout` defaults to five minutes; agentgate's own
//!   `--timeout` and `--idle-timeout` govern instead, so it is set to a day.
//! - `--model` exists in agy 1.1 and later (the ids `agy models` lists);
//!   agy 1.0 took the model from `~/.gemini/antigravity-cli/settings.json`
//!   only and rejects the flag.
//! - A fresh run passes no `--conversation` (agy mints the id; an unknown
//!   id only earns a warning and a new conversation). The id is learned
//!   after the run from agy's state folder (`decode::agy::transcript`),
//!   with the reasoning, tool calls and token counts of the turn.

use std::ffi::OsString;
use std::path::Path;
use std::time::SystemTime;

use super::{
    Features, PermissionMode, Plan, PlanError, PostRun, Provider, RunRequest, Verification, os,
};
use crate::decode::agy::{AgyDecoder, transcript};
use crate::decode::{Decoded, Decoder};

/// The longest argument Linux passes to a program (`MAX_ARG_STRLEN`, 128
/// KiB with its terminating NUL).
const MAX_ARG_BYTES: usize = 128 * 1024 - 1;

/// agy's own limit on a `--print` run: a day, so that agentgate's timeouts
/// are the ones that apply.
const PRINT_TIMEOUT: &str = "--print-timeout=86400s";

/// The Antigravity adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Agy;

impl Provider for Agy {
    fn name(&self) -> &str {
        "agy"
    }

    fn binary_name(&self) -> &str {
        "agy"
    }

    fn verification(&self) -> Verification {
        Verification::DocumentedFormat
    }

    fn features(&self) -> Features {
        Features {
            streaming: false,
            resume: true,
            reasoning: true,
            usage: false,
            cost: false,
            permission_modes: true,
        }
    }

    fn plan(&self, req: &RunRequest, program: &Path, _scratch: &Path) -> Result<Plan, PlanError> {
        let mut args = vec![print_argument(req)?, os(PRINT_TIMEOUT)];
        if let Some(m) = &req.model {
            args.push(os(format!("--model={m}")));
        }
        match req.permission_mode {
            PermissionMode::Bypass => args.push(os("--dangerously-skip-permissions")),
            PermissionMode::Plan => args.push(os("--mode=plan")),
            PermissionMode::AcceptEdits => args.push(os("--mode=accept-edits")),
            PermissionMode::Default => {}
        }
        for d in &req.add_dirs {
            let mut a = OsString::from("--add-dir=");
            a.push(d.as_os_str());
            args.push(a);
        }
        if let Some(id) = &req.resume {
            args.push(os(format!("--conversation={id}")));
        }
        args.extend(req.extra_args.iter().map(os));
        Ok(Plan {
            program: program.to_path_buf(),
            args,
            env: Vec::new(),
            stdin: None,
            cwd: req.cwd.clone(),
            files: Vec::new(),
        })
    }

    fn decoder(&self) -> Box<dyn Decoder> {
        Box::new(AgyDecoder::new())
    }

    fn post_run(&self, ctx: &PostRun<'_>) -> Vec<Decoded> {
        let Some(home) = ctx.home else {
            return Vec::new();
        };
        transcript::recovered(home, ctx.cwd, ctx.session_id, SystemTime::now())
    }
}

/// `--print=PROMPT`, with the system instructions in front of the prompt.
fn print_argument(req: &RunRequest) -> Result<OsString, PlanError> {
    let prompt = match req.system.as_deref().filter(|s| !s.trim().is_empty()) {
        Some(system) => format!("{system}\n\n{}", req.prompt),
        None => req.prompt.clone(),
    };
    if prompt.contains('\0') {
        return Err(unsupported(
            "take a prompt containing a NUL byte (the prompt is a command-line argument)",
        ));
    }
    let arg = format!("--print={prompt}");
    if arg.len() > MAX_ARG_BYTES {
        return Err(unsupported(&format!(
            "take a prompt of {} bytes: agy reads it from one command-line argument, which is limited to 128 KiB; put the material in a file and name it in the prompt",
            prompt.len()
        )));
    }
    Ok(os(arg))
}

fn unsupported(what: &str) -> PlanError {
    PlanError::Unsupported {
        provider: "agy".into(),
        what: what.into(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn req() -> RunRequest {
        RunRequest {
            prompt: "do it".into(),
            cwd: PathBuf::from("/work"),
            ..RunRequest::default()
        }
    }

    fn argv(r: &RunRequest) -> Vec<String> {
        Agy.plan(r, Path::new("/bin/agy"), &std::env::temp_dir())
            .unwrap()
            .display_args()
    }

    #[test]
    fn a_fresh_run_prints_with_a_day_long_print_timeout() {
        assert_eq!(argv(&req()), ["--print=do it", "--print-timeout=86400s"]);
        let plan = Agy
            .plan(&req(), Path::new("/bin/agy"), &std::env::temp_dir())
            .unwrap();
        assert_eq!((plan.stdin, plan.cwd), (None, PathBuf::from("/work")));
    }

    #[test]
    fn model_modes_dirs_resume_and_system_map_onto_flags() {
        let r = RunRequest {
            model: Some("gemini-3.1-pro-high".into()),
            permission_mode: PermissionMode::Bypass,
            add_dirs: vec![PathBuf::from("/extra")],
            resume: Some("3b4a1d20-3968-4ed2-90b3-00eea3060b02".into()),
            system: Some("Be brief.".into()),
            ..req()
        };
        assert_eq!(
            argv(&r),
            [
                "--print=Be brief.\n\ndo it",
                "--print-timeout=86400s",
                "--model=gemini-3.1-pro-high",
                "--dangerously-skip-permissions",
                "--add-dir=/extra",
                "--conversation=3b4a1d20-3968-4ed2-90b3-00eea3060b02"
            ]
        );
        let mode = |m| {
            argv(&RunRequest {
                permission_mode: m,
                ..req()
            })
            .join(" ")
        };
        assert!(mode(PermissionMode::Plan).ends_with("--mode=plan"));
        assert!(mode(PermissionMode::AcceptEdits).ends_with("--mode=accept-edits"));
        assert!(!mode(PermissionMode::Default).contains("--mode"));
    }

    #[test]
    fn a_prompt_too_long_for_one_argument_is_refused() {
        let r = RunRequest {
            prompt: "x".repeat(MAX_ARG_BYTES),
            ..req()
        };
        let err = Agy
            .plan(&r, Path::new("/bin/agy"), &std::env::temp_dir())
            .unwrap_err();
        assert!(
            err.to_string().starts_with("agy cannot take a prompt of"),
            "{err}"
        );
    }
}
