//! Cursor's agent CLI: `cursor-agent --print --output-format stream-json
//! --workspace W --trust [--force --approve-mcps | --mode plan] [--model M]
//! [--resume ID] PROMPT`.
//!
//! Built from cursor-agent's documented formats and flags (see
//! `crates/agentgate-fixtures/transcripts/README.md`), not run against the
//! live CLI, which cannot be installed here.
//!
//! - The prompt is the last argument, as the docs show; cursor-agent has no
//!   system-prompt flag, so `--system` is put in front of the prompt,
//!   followed by a blank line. A prompt starting with `-` gets a leading
//!   space so the CLI does not read it as a flag.
//! - `--trust` is always given (headless runs refuse an untrusted folder).
//!   With it alone cursor-agent reads and edits files and has shell
//!   commands rejected: that is both `default` and `acceptEdits`. `plan` is
//!   `--mode plan`; `bypass` is `--force` (every command allowed unless the
//!   config denies it) with `--approve-mcps`.
//! - cursor-agent has no option for directories beyond `--workspace`, so
//!   `--add-dir` is refused rather than silently dropped.

use std::path::Path;

use super::{
    Features, PermissionMode, Plan, PlanError, Provider, RunRequest, Verification, os, push,
};
use crate::decode::Decoder;
use crate::decode::cursor::CursorDecoder;

/// The longest argument Linux passes to a program (`MAX_ARG_STRLEN`, 128
/// KiB with its terminating NUL).
const MAX_ARG_BYTES: usize = 128 * 1024 - 1;

/// The Cursor adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cursor;

impl Provider for Cursor {
    fn name(&self) -> &str {
        "cursor"
    }

    fn binary_name(&self) -> &str {
        "cursor-agent"
    }

    fn verification(&self) -> Verification {
        Verification::DocumentedFormat
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

    fn plan(&self, req: &RunRequest, program: &Path, _scratch: &Path) -> Result<Plan, PlanError> {
        if !req.add_dirs.is_empty() {
            return Err(unsupported(
                "use --add-dir: cursor-agent works in its --workspace only; run from a --cwd that contains every directory the agent needs",
            ));
        }
        let mut args = Vec::new();
        push(&mut args, &["--print", "--output-format", "stream-json"]);
        args.push(os("--workspace"));
        args.push(req.cwd.as_os_str().to_owned());
        push(&mut args, &["--trust"]);
        match req.permission_mode {
            PermissionMode::Bypass => push(&mut args, &["--force", "--approve-mcps"]),
            PermissionMode::Plan => push(&mut args, &["--mode", "plan"]),
            PermissionMode::AcceptEdits | PermissionMode::Default => {}
        }
        if let Some(m) = &req.model {
            push(&mut args, &["--model", m]);
        }
        if let Some(id) = &req.resume {
            push(&mut args, &["--resume", id]);
        }
        args.extend(req.extra_args.iter().map(os));
        args.push(os(prompt_argument(req)?));
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
        Box::new(CursorDecoder::new())
    }
}

/// The prompt as cursor-agent's last argument, with the system
/// instructions in front.
fn prompt_argument(req: &RunRequest) -> Result<String, PlanError> {
    let mut prompt = match req.system.as_deref().filter(|s| !s.trim().is_empty()) {
        Some(system) => format!("{system}\n\n{}", req.prompt),
        None => req.prompt.clone(),
    };
    if prompt.starts_with('-') {
        prompt.insert(0, ' ');
    }
    if prompt.contains('\0') {
        return Err(unsupported(
            "take a prompt containing a NUL byte (the prompt is a command-line argument)",
        ));
    }
    if prompt.len() > MAX_ARG_BYTES {
        return Err(unsupported(&format!(
            "take a prompt of {} bytes: cursor-agent reads it from one command-line argument, which is limited to 128 KiB; put the material in a file and name it in the prompt",
            prompt.len()
        )));
    }
    Ok(prompt)
}

fn unsupported(what: &str) -> PlanError {
    PlanError::Unsupported {
        provider: "cursor".into(),
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
        Cursor
            .plan(r, Path::new("/bin/cursor-agent"), &std::env::temp_dir())
            .unwrap()
            .display_args()
    }

    #[test]
    fn a_fresh_run_prints_stream_json_in_a_trusted_workspace() {
        assert_eq!(
            argv(&req()),
            [
                "--print",
                "--output-format",
                "stream-json",
                "--workspace",
                "/work",
                "--trust",
                "do it"
            ]
        );
        let plan = Cursor
            .plan(
                &req(),
                Path::new("/bin/cursor-agent"),
                &std::env::temp_dir(),
            )
            .unwrap();
        assert_eq!(plan.stdin, None);
        assert_eq!(plan.cwd, PathBuf::from("/work"));
    }

    #[test]
    fn model_resume_modes_and_system_map_onto_flags() {
        let r = RunRequest {
            model: Some("sonnet-4.5".into()),
            resume: Some("c6b62c6f".into()),
            system: Some("Be brief.".into()),
            permission_mode: PermissionMode::Bypass,
            extra_args: vec!["--sandbox".into(), "disabled".into()],
            ..req()
        };
        assert_eq!(
            argv(&r),
            [
                "--print",
                "--output-format",
                "stream-json",
                "--workspace",
                "/work",
                "--trust",
                "--force",
                "--approve-mcps",
                "--model",
                "sonnet-4.5",
                "--resume",
                "c6b62c6f",
                "--sandbox",
                "disabled",
                "Be brief.\n\ndo it"
            ]
        );
        let plan = RunRequest {
            permission_mode: PermissionMode::Plan,
            ..req()
        };
        assert!(argv(&plan).join(" ").contains("--trust --mode plan do it"));
        let edits = RunRequest {
            permission_mode: PermissionMode::AcceptEdits,
            ..req()
        };
        assert!(!argv(&edits).iter().any(|a| a == "--force" || a == "--mode"));
    }

    #[test]
    fn prompts_that_look_like_flags_or_do_not_fit_are_handled() {
        let dash = RunRequest {
            prompt: "--help me".into(),
            ..req()
        };
        assert_eq!(argv(&dash).last().map(String::as_str), Some(" --help me"));
        let huge = RunRequest {
            prompt: "x".repeat(MAX_ARG_BYTES + 1),
            ..req()
        };
        let err = Cursor
            .plan(&huge, Path::new("/bin/cursor-agent"), &std::env::temp_dir())
            .unwrap_err();
        assert!(err.to_string().contains("128 KiB"), "{err}");
        let dirs = RunRequest {
            add_dirs: vec![PathBuf::from("/extra")],
            ..req()
        };
        let err = Cursor
            .plan(&dirs, Path::new("/bin/cursor-agent"), &std::env::temp_dir())
            .unwrap_err();
        assert!(
            err.to_string().starts_with("cursor cannot use --add-dir"),
            "{err}"
        );
    }
}
