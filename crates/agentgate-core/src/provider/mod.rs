//! Provider adapters: how to run each agent CLI unattended.
//!
//! An adapter is mostly data: the argv of a fresh and of a resumed run, the
//! environment, how permission modes map onto the CLI's flags, which decoder
//! reads its output, and where its session files live.

mod agy;
mod claude;
mod codex;
mod cursor;
mod custom;
mod gemini;
mod opencode;
mod qwen;

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

pub use agy::Agy;
pub use claude::Claude;
pub use codex::Codex;
pub use cursor::Cursor;
pub use custom::CustomProvider;
pub use gemini::Gemini;
pub use opencode::Opencode;
pub use qwen::Qwen;

use crate::decode::{Decoded, Decoder};

/// The providers agentgate has adapters for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProviderKind {
    /// Claude Code (`claude`).
    Claude,
    /// Codex (`codex`).
    Codex,
    /// Gemini CLI (`gemini`).
    Gemini,
    /// Qwen Code (`qwen`).
    Qwen,
    /// opencode (`opencode`).
    Opencode,
    /// Cursor's agent CLI (`cursor-agent`).
    Cursor,
    /// Google Antigravity's CLI (`agy`).
    Agy,
}

impl ProviderKind {
    /// Every provider, in the order `agentgate providers` lists them.
    pub const ALL: [ProviderKind; 7] = [
        ProviderKind::Claude,
        ProviderKind::Codex,
        ProviderKind::Gemini,
        ProviderKind::Qwen,
        ProviderKind::Opencode,
        ProviderKind::Cursor,
        ProviderKind::Agy,
    ];

    /// The provider's name as used on the command line and in envelopes.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Claude => "claude",
            ProviderKind::Codex => "codex",
            ProviderKind::Gemini => "gemini",
            ProviderKind::Qwen => "qwen",
            ProviderKind::Opencode => "opencode",
            ProviderKind::Cursor => "cursor",
            ProviderKind::Agy => "agy",
        }
    }

    /// The adapter.
    pub fn adapter(self) -> Arc<dyn Provider> {
        match self {
            ProviderKind::Claude => Arc::new(Claude),
            ProviderKind::Codex => Arc::new(Codex),
            ProviderKind::Gemini => Arc::new(Gemini),
            ProviderKind::Qwen => Arc::new(Qwen),
            ProviderKind::Opencode => Arc::new(Opencode),
            ProviderKind::Cursor => Arc::new(Cursor),
            ProviderKind::Agy => Arc::new(Agy),
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A provider name that agentgate does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown provider `{0}` (built in: claude, codex, gemini, qwen, opencode, cursor, agy; others can be described in the config file)"
)]
pub struct UnknownProvider(pub String);

impl FromStr for ProviderKind {
    type Err = UnknownProvider;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProviderKind::ALL
            .into_iter()
            .find(|p| p.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownProvider(s.to_owned()))
    }
}

/// How much the agent may do without asking (it never can ask: runs are
/// unattended, so what needs approval is refused by the CLI).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PermissionMode {
    /// The CLI's default: edits and commands need approval, so they are refused.
    #[default]
    Default,
    /// Read-only planning: nothing is changed.
    Plan,
    /// File edits are allowed, other actions need approval.
    AcceptEdits,
    /// Everything is allowed, without a sandbox (`--yolo`).
    Bypass,
}

impl FromStr for PermissionMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "default" => Ok(PermissionMode::Default),
            "plan" => Ok(PermissionMode::Plan),
            "acceptEdits" | "accept-edits" | "accept_edits" => Ok(PermissionMode::AcceptEdits),
            "bypass" | "bypassPermissions" | "yolo" => Ok(PermissionMode::Bypass),
            other => Err(format!(
                "unknown permission mode `{other}` (expected default, plan, acceptEdits or bypass)"
            )),
        }
    }
}

/// What the caller asks of one invocation.
#[derive(Debug, Clone, Default)]
pub struct RunRequest {
    /// The prompt.
    pub prompt: String,
    /// The model, as the provider names it; the CLI's default when `None`.
    pub model: Option<String>,
    /// What the agent may do.
    pub permission_mode: PermissionMode,
    /// Instructions appended to the CLI's system prompt.
    pub system: Option<String>,
    /// Extra directories the agent may read and write.
    pub add_dirs: Vec<PathBuf>,
    /// The working directory.
    pub cwd: PathBuf,
    /// The provider's native session id to resume.
    pub resume: Option<String>,
    /// Bound on the CLI's own retries of failed model requests, where the CLI
    /// has a setting for it.
    pub max_provider_retries: Option<u32>,
    /// Extra arguments appended to the CLI's argv.
    pub extra_args: Vec<String>,
    /// Extra environment for the CLI.
    pub env: Vec<(String, String)>,
    /// Start the CLI from an empty environment plus `env` (instead of
    /// agentgate's own environment plus `env`).
    pub env_clear: bool,
    /// A JSON Schema file the answer must satisfy; adapters whose CLI can
    /// enforce one natively (Codex `--output-schema`) pass it on.
    pub output_schema: Option<PathBuf>,
}

/// The invocation an adapter plans.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Environment variables to set (on top of agentgate's own environment).
    pub env: Vec<(OsString, OsString)>,
    /// Bytes for the CLI's stdin (then closed); `None` = no stdin.
    pub stdin: Option<Vec<u8>>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Files the plan wrote and the run must keep until the CLI exits (e.g.
    /// Gemini's system prompt file).
    pub files: Vec<PathBuf>,
}

impl Plan {
    /// The argv as text, for `--dry-run` and logs.
    pub fn display_args(&self) -> Vec<String> {
        self.args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }
}

/// A request an adapter cannot turn into an invocation.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The CLI has no way to do what was asked.
    #[error("{provider} cannot {what}")]
    Unsupported {
        /// The provider.
        provider: String,
        /// What it cannot do.
        what: String,
    },
    /// A file the plan needs could not be written.
    #[error("failed to write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Where the post-run hook may look.
#[derive(Debug, Clone)]
pub struct PostRun<'a> {
    /// The session id the run ended with.
    pub session_id: Option<&'a str>,
    /// The home directory the CLI ran with.
    pub home: Option<&'a Path>,
    /// The working directory.
    pub cwd: &'a Path,
}

/// How far an adapter has been checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verification {
    /// Its end-to-end tests run the real CLI (against `agentgate fake-llm`).
    LiveCli,
    /// Built and tested from the CLI's documented formats and transcripts;
    /// not run against the live CLI, which cannot be installed here.
    DocumentedFormat,
    /// Described by the user's config file.
    Config,
}

impl Verification {
    /// The label `agentgate providers` prints.
    pub fn as_str(self) -> &'static str {
        match self {
            Verification::LiveCli => "live CLI",
            Verification::DocumentedFormat => "documented formats, not the live CLI",
            Verification::Config => "described in config",
        }
    }
}

/// One provider CLI.
pub trait Provider: Send + Sync + fmt::Debug {
    /// The provider's name, as on the command line and in envelopes.
    fn name(&self) -> &str;

    /// The executable's name, looked up on `PATH`.
    fn binary_name(&self) -> &str;

    /// The environment variable that may name the executable
    /// (`AGENTGATE_CLAUDE_BIN`, ...).
    fn binary_env(&self) -> String {
        binary_env_for(self.name())
    }

    /// How far this adapter has been checked.
    fn verification(&self) -> Verification {
        Verification::LiveCli
    }

    /// `builtin` or `config`.
    fn adapter_kind(&self) -> &'static str {
        "builtin"
    }

    /// What the adapter supports, for `agentgate providers` and the docs.
    fn features(&self) -> Features {
        Features::default()
    }

    /// Plan one invocation. `scratch` is a folder of the run where the
    /// adapter may write files the CLI reads (it exists).
    fn plan(&self, req: &RunRequest, program: &Path, scratch: &Path) -> Result<Plan, PlanError>;

    /// A fresh decoder for one invocation's output.
    fn decoder(&self) -> Box<dyn Decoder>;

    /// Whether the CLI reports reasoning at all (in its output or a session
    /// file agentgate reads).
    fn exposes_reasoning(&self) -> bool {
        true
    }

    /// Facts recovered after the CLI exited (e.g. Gemini's thoughts, which
    /// only its session file holds).
    fn post_run(&self, ctx: &PostRun<'_>) -> Vec<Decoded> {
        let _ = ctx;
        Vec::new()
    }
}

/// What an adapter supports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    /// Events arrive while the CLI runs (not all at the end).
    pub streaming: bool,
    /// Sessions can be resumed.
    pub resume: bool,
    /// Reasoning is reported.
    pub reasoning: bool,
    /// Token usage is reported (else estimated).
    pub usage: bool,
    /// Cost is reported.
    pub cost: bool,
    /// Permission modes are mapped onto the CLI's flags.
    pub permission_modes: bool,
}

/// `AGENTGATE_<NAME>_BIN`, with characters other than letters and digits as `_`.
pub fn binary_env_for(name: &str) -> String {
    let upper: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("AGENTGATE_{upper}_BIN")
}

/// Find a provider's executable: an explicit path, then the
/// `AGENTGATE_<PROVIDER>_BIN` variable, then `PATH`.
pub fn locate_binary(
    provider: &dyn Provider,
    explicit: Option<&Path>,
) -> Result<PathBuf, BinaryNotFound> {
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(BinaryNotFound {
                provider: provider.name().to_owned(),
                env: provider.binary_env(),
                detail: format!("{} does not exist", p.display()),
            })
        };
    }
    if let Some(p) = std::env::var_os(provider.binary_env()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(BinaryNotFound {
                provider: provider.name().to_owned(),
                env: provider.binary_env(),
                detail: format!(
                    "{} names {}, which does not exist",
                    provider.binary_env(),
                    p.display()
                ),
            })
        };
    }
    let name = provider.binary_name();
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| BinaryNotFound {
            provider: provider.name().to_owned(),
            env: provider.binary_env(),
            detail: format!("`{name}` is not on PATH"),
        })
}

/// A provider CLI that is not installed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {provider} CLI was not found: {detail} (install it, or give its path with --binary or {env})"
)]
pub struct BinaryNotFound {
    /// The provider.
    pub provider: String,
    /// The variable that may name the executable.
    pub env: String,
    /// What was looked at.
    pub detail: String,
}

fn os(s: impl Into<OsString>) -> OsString {
    s.into()
}

fn push(args: &mut Vec<OsString>, items: &[&str]) {
    args.extend(items.iter().map(|s| OsString::from(*s)));
}

/// Whether agentgate runs as root (Claude refuses bypass mode as root unless
/// told it runs in a sandbox).
fn running_as_root() -> bool {
    nix::unistd::geteuid().is_root()
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

    fn argv(kind: ProviderKind, r: &RunRequest) -> Vec<String> {
        let dir = std::env::temp_dir();
        kind.adapter()
            .plan(r, Path::new("/bin/cli"), &dir)
            .unwrap()
            .display_args()
    }

    #[test]
    fn every_cli_gets_the_prompt_on_stdin_and_its_streaming_format() {
        for kind in [
            ProviderKind::Claude,
            ProviderKind::Codex,
            ProviderKind::Gemini,
        ] {
            let plan = kind
                .adapter()
                .plan(&req(), Path::new("/bin/cli"), &std::env::temp_dir())
                .unwrap();
            assert_eq!(plan.stdin.as_deref(), Some(&b"do it"[..]), "{kind}");
            assert_eq!(plan.cwd, PathBuf::from("/work"));
            assert!(
                !plan.display_args().iter().any(|a| a == "do it"),
                "{kind}: prompt in argv"
            );
        }
        assert_eq!(
            argv(ProviderKind::Claude, &req()),
            [
                "-p",
                "--output-format",
                "stream-json",
                "--verbose",
                "--permission-mode",
                "default"
            ]
        );
        assert_eq!(
            argv(ProviderKind::Codex, &req()),
            [
                "exec",
                "--json",
                "--skip-git-repo-check",
                "--sandbox",
                "workspace-write",
                "-"
            ]
        );
        assert_eq!(
            argv(ProviderKind::Gemini, &req()),
            [
                "--output-format",
                "stream-json",
                "--approval-mode",
                "default",
                "-p",
                ""
            ]
        );
    }

    #[test]
    fn model_system_dirs_and_resume_map_per_cli() {
        let r = RunRequest {
            model: Some("m1".into()),
            system: Some("Be \"brief\".".into()),
            add_dirs: vec![PathBuf::from("/extra")],
            resume: Some("S1".into()),
            ..req()
        };
        assert_eq!(
            argv(ProviderKind::Claude, &r),
            [
                "-p",
                "--output-format",
                "stream-json",
                "--verbose",
                "--permission-mode",
                "default",
                "--model",
                "m1",
                "--append-system-prompt",
                "Be \"brief\".",
                "--add-dir",
                "/extra",
                "--resume",
                "S1"
            ]
        );
        let dir = tempfile::tempdir().unwrap();
        let plan = ProviderKind::Gemini
            .adapter()
            .plan(&r, Path::new("/bin/gemini"), dir.path())
            .unwrap();
        assert_eq!(
            plan.display_args(),
            [
                "--output-format",
                "stream-json",
                "--approval-mode",
                "default",
                "-m",
                "m1",
                "--resume",
                "S1",
                "--include-directories",
                "/extra",
                "-p",
                ""
            ]
        );
        let (key, file) = &plan.env[0];
        assert_eq!(key, "GEMINI_SYSTEM_MD");
        assert_eq!(std::fs::read_to_string(file).unwrap(), "Be \"brief\".");
        // Codex refuses --add-dir on resume; say so rather than fail later.
        let err = ProviderKind::Codex
            .adapter()
            .plan(&r, Path::new("/bin/codex"), dir.path())
            .unwrap_err();
        assert!(err.to_string().contains("--add-dir"), "{err}");
        let r = RunRequest {
            add_dirs: Vec::new(),
            ..r
        };
        assert_eq!(
            argv(ProviderKind::Codex, &r),
            [
                "exec",
                "resume",
                "--json",
                "--skip-git-repo-check",
                "-c",
                "sandbox_mode=\"workspace-write\"",
                "-m",
                "m1",
                "-c",
                "developer_instructions=\"Be \\\"brief\\\".\"",
                "S1",
                "-"
            ]
        );
    }

    #[test]
    fn permission_modes_map_onto_each_cli() {
        let with = |mode| RunRequest {
            permission_mode: mode,
            ..req()
        };
        let claude: Vec<String> = [
            PermissionMode::Plan,
            PermissionMode::AcceptEdits,
            PermissionMode::Bypass,
        ]
        .into_iter()
        .map(|m| argv(ProviderKind::Claude, &with(m))[5].clone())
        .collect();
        assert_eq!(claude, ["plan", "acceptEdits", "bypassPermissions"]);
        assert!(
            argv(ProviderKind::Codex, &with(PermissionMode::Plan))
                .join(" ")
                .contains("--sandbox read-only")
        );
        assert!(
            argv(ProviderKind::Codex, &with(PermissionMode::Bypass))
                .contains(&"--dangerously-bypass-approvals-and-sandbox".to_owned())
        );
        let gemini = |m| argv(ProviderKind::Gemini, &with(m)).join(" ");
        assert!(gemini(PermissionMode::Plan).contains("--approval-mode plan"));
        assert!(
            gemini(PermissionMode::AcceptEdits).contains("--approval-mode auto_edit --skip-trust")
        );
        assert!(gemini(PermissionMode::Bypass).contains("--approval-mode yolo --skip-trust"));
        assert_eq!("yolo".parse::<PermissionMode>(), Ok(PermissionMode::Bypass));
        assert!(
            "root"
                .parse::<PermissionMode>()
                .unwrap_err()
                .contains("unknown permission mode")
        );
    }

    #[test]
    fn retry_bound_and_extra_args_reach_the_cli() {
        let r = RunRequest {
            max_provider_retries: Some(2),
            extra_args: vec!["--debug".into()],
            ..req()
        };
        let plan = ProviderKind::Claude
            .adapter()
            .plan(&r, Path::new("/bin/claude"), &std::env::temp_dir())
            .unwrap();
        assert!(
            plan.env
                .contains(&("CLAUDE_CODE_MAX_RETRIES".into(), "2".into()))
        );
        assert_eq!(
            plan.display_args().last().map(String::as_str),
            Some("--debug")
        );
    }

    #[test]
    fn provider_names_parse_and_missing_binaries_say_what_to_do() {
        assert_eq!("Claude".parse::<ProviderKind>(), Ok(ProviderKind::Claude));
        assert!("nonesuch".parse::<ProviderKind>().is_err());
        let err = locate_binary(&Claude, Some(Path::new("/nonexistent/claude"))).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("/nonexistent/claude does not exist"),
            "{text}"
        );
        assert!(text.contains("AGENTGATE_CLAUDE_BIN"), "{text}");
    }
}
