//! `agentgate run`: the flags, reading the task, running the planned steps
//! and printing the envelope and the audit line.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use agentgate_core::config::{Handoff, OnDirty, RetryOn, kind_named};
use agentgate_core::prompt::{TaskInput, task_from_stdin};
use agentgate_core::provider::PermissionMode;
use agentgate_core::run::{CancelRequest, EventSink, audit_line, run as run_once};
use agentgate_core::supervise::{Control, install_signal_forwarding};
use agentgate_protocol::Event;
use agentgate_store::{RunStore, Store};
use anyhow::Context;
use tokio::sync::mpsc;

use crate::output::print_json;
use crate::progress::Progress;

pub const AFTER_HELP: &str = "\
OUTPUT
  stdout gets the result envelope: indented on a terminal, one line
  otherwise. With --stream, stdout gets one JSON event per line as they
  happen, the last being `result`, which carries the envelope. On a
  terminal, stderr shows a progress line.

EXIT CODES
  0    success
  1    failure that retrying will not fix (auth, invalid session, ...)
  2    invalid input or usage
  75   every provider tried failed with a recoverable error (rate limit,
       quota, overload, invalid model, network, other provider errors)
  124  --timeout or --idle-timeout expired
  130  cancelled (SIGINT/SIGTERM; a second one kills at once)

AGENTS AND CHAINS
  --provider claude,codex,gemini tries the providers in order; --agent NAME
  and --chain NAME use the agents and chains of the config file (see
  `agentgate config show` and docs/config.md). With none of the three, the
  config's chain named `default` runs. The next agent is tried only after a
  recoverable error that the chain's retry_on admits, and only if the failed
  attempt left the workspace clean (--on-dirty). A provider whose quota is
  known exhausted is skipped until its reset time (--ignore-quota).

AUDIT
  Every run ends with one logfmt line on stderr (and, with the store, in
  $AGENTGATE_HOME/audit.log): run, chain, agent, provider, model, exit,
  elapsed, tokens_in, tokens_out, cost_usd, error, attempts.

ENVIRONMENT
  AGENTGATE_HOME      where the store lives
  AGENTGATE_CONFIG    the config file (see `agentgate config show`)
  AGENTGATE_NOW       the clock (RFC 3339) for quota skipping, for tests
  AGENTGATE_<P>_BIN   a provider CLI's executable, e.g. AGENTGATE_CLAUDE_BIN

FILES
  Runs are recorded in $AGENTGATE_HOME/agentgate.db (default
  ~/.local/share/agentgate) with each run's events.jsonl and stderr.log
  under runs/<run_id>/; see `agentgate runs`.";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The provider CLI: claude, codex, gemini, qwen, opencode, cursor, agy,
    /// or one described in the config file (see `agentgate providers`). A
    /// comma-separated list is a failover chain: `claude,codex,gemini`.
    #[arg(long, short = 'p', conflicts_with_all = ["agent", "chain"])]
    pub provider: Option<String>,
    /// A named agent of the config file (a comma-separated list is a
    /// failover chain of agents).
    #[arg(long, conflicts_with = "chain")]
    pub agent: Option<String>,
    /// A named failover chain of the config file.
    #[arg(long)]
    pub chain: Option<String>,
    /// The prompt; `-` or none reads it from stdin, where a JSON object is a
    /// task input: {"prompt": ..., "context": ..., "persona": ..., "files": [...]}.
    pub prompt: Option<String>,
    /// The model: a name the provider knows, or an alias of the config's
    /// `models:` (default: the agent's model, else the provider's
    /// default_model, else the CLI's own default).
    #[arg(long, short = 'm')]
    pub model: Option<String>,
    /// Which model of an agent to use: `thinking` (its `model`, the default)
    /// or `fast` (its `model_fast`).
    #[arg(long, value_parser = ["thinking", "fast"])]
    pub tier: Option<String>,
    /// What the agent may do unattended: default, plan, acceptEdits or
    /// bypass (no approvals, no sandbox). Default: the agent's, else plan for
    /// a `classify` agent, acceptEdits for an `edit` agent, else default.
    #[arg(long, value_parser = parse_mode)]
    pub permission_mode: Option<PermissionMode>,
    /// Same as --permission-mode bypass.
    #[arg(long, conflicts_with = "permission_mode")]
    pub yolo: bool,
    /// Instructions added to the CLI's system prompt (Claude
    /// --append-system-prompt, Codex developer_instructions; Gemini:
    /// GEMINI_SYSTEM_MD, which replaces its system prompt).
    #[arg(long, visible_alias = "append-system-prompt")]
    pub system: Option<String>,
    /// Read --system from a file.
    #[arg(long, conflicts_with = "system")]
    pub system_file: Option<PathBuf>,
    /// An agent definition Markdown file, put before the task.
    #[arg(long)]
    pub agent_file: Option<PathBuf>,
    /// Only this persona block of --agent-file: the first heading that
    /// starts with ID (case-insensitive). Not sent again on resume.
    #[arg(long, value_name = "ID")]
    pub persona: Option<String>,
    /// A context file put before the task (repeatable).
    #[arg(long = "context", value_name = "FILE")]
    pub context: Vec<PathBuf>,
    /// Take CONTEXT.md from this folder (default: the working directory's,
    /// when there is one).
    #[arg(long, value_name = "DIR")]
    pub context_dir: Option<PathBuf>,
    /// Cut the context to this many bytes, with a visible marker.
    #[arg(long, value_name = "BYTES")]
    pub context_max: Option<usize>,
    /// Do not include CONTEXT.md.
    #[arg(long)]
    pub skip_context_file: bool,
    /// Do not add the instruction that the agent runs unattended and must
    /// not ask for input.
    #[arg(long)]
    pub no_unattended_instruction: bool,
    /// Refuse a prompt larger than this (default 1 MiB).
    #[arg(long, value_name = "BYTES")]
    pub prompt_max_bytes: Option<usize>,
    /// Warn about a prompt larger than this (default 256 KiB).
    #[arg(long, value_name = "BYTES")]
    pub prompt_warn_bytes: Option<usize>,
    /// An extra directory the agent may use (repeatable).
    #[arg(long = "add-dir")]
    pub add_dirs: Vec<PathBuf>,
    /// The working directory of the agent (default: the agent's `cwd`, else
    /// the current one).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// A session name: the first run creates the provider's session, later
    /// runs with the same name resume it (recreated once if the CLI no
    /// longer knows it).
    #[arg(long, conflicts_with = "resume")]
    pub session: Option<String>,
    /// Resume the provider's native session id directly (one provider only).
    #[arg(long)]
    pub resume: Option<String>,
    /// Wall-clock limit of each attempt (e.g. 90s, 10m); exit 124 when it
    /// expires.
    #[arg(long, value_parser = crate::duration::parse)]
    pub timeout: Option<Duration>,
    /// Limit on silence: stop a CLI that prints nothing for this long.
    #[arg(long, value_parser = crate::duration::parse)]
    pub idle_timeout: Option<Duration>,
    /// Stop the CLI once it has retried a failed model request more than N
    /// times (it otherwise retries for minutes), so failover can act.
    #[arg(long)]
    pub max_provider_retries: Option<u32>,
    /// The CLI's executable (default: the config's `binary`, then
    /// $AGENTGATE_<PROVIDER>_BIN, then PATH). One provider only.
    #[arg(long)]
    pub binary: Option<PathBuf>,
    /// When a failed attempt changed the workspace before failover: stop
    /// (the default), continue, or stash (git stash, then go on).
    #[arg(long, value_parser = parse_on_dirty)]
    pub on_dirty: Option<OnDirty>,
    /// Pass the failed attempt's partial transcript to the next agent
    /// (`summary`), or not (`none`, the default).
    #[arg(long, value_parser = parse_handoff)]
    pub handoff: Option<Handoff>,
    /// Which recoverable errors hand the task on to the next agent, as a
    /// comma-separated list of error types (`quota,rate_limit`; legacy
    /// names like `allowance_exceeded` too). Default: the chain's or
    /// agent's `retry_on`, else every recoverable error.
    #[arg(long, value_parser = parse_retry_on, value_name = "TYPES")]
    pub retry_on: Option<RetryOn>,
    /// Run providers even when their quota is recorded as exhausted.
    #[arg(long)]
    pub ignore_quota: bool,
    /// A JSON Schema the answer must satisfy: the JSON is taken from the
    /// answer (fences stripped) into `structured_output`; an answer that
    /// fails it ends the attempt with invalid_output (and failover moves
    /// on). Codex also gets it natively (--output-schema).
    #[arg(long, value_name = "FILE")]
    pub output_schema: Option<PathBuf>,
    /// Print the events as JSON lines while the run goes, ending with the
    /// `result` event.
    #[arg(long)]
    pub stream: bool,
    /// Indent the envelope even when stdout is not a terminal.
    #[arg(long, conflicts_with = "compact")]
    pub pretty: bool,
    /// One-line envelope even on a terminal.
    #[arg(long)]
    pub compact: bool,
    /// An extra environment variable for the CLI, KEY=VALUE (repeatable).
    #[arg(long = "env", value_parser = parse_env)]
    pub env: Vec<(String, String)>,
    /// An extra argument appended to the CLI's own argv (repeatable).
    #[arg(long = "extra-arg", allow_hyphen_values = true)]
    pub extra_args: Vec<String>,
    /// Do not record the run in the store.
    #[arg(long)]
    pub no_store: bool,
    /// Print the invocations the run would make, as JSON (secrets
    /// redacted), with the prompt's size, the model resolution and the
    /// chain, without running anything or writing to the store.
    #[arg(long, conflicts_with = "stream")]
    pub dry_run: bool,
}

fn parse_mode(s: &str) -> Result<PermissionMode, String> {
    s.parse()
}

fn parse_on_dirty(s: &str) -> Result<OnDirty, String> {
    match s {
        "stop" => Ok(OnDirty::Stop),
        "continue" => Ok(OnDirty::Continue),
        "stash" => Ok(OnDirty::Stash),
        _ => Err(format!("`{s}`: expected stop, continue or stash")),
    }
}

fn parse_retry_on(s: &str) -> Result<RetryOn, String> {
    let mut kinds = Vec::new();
    for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let kind = kind_named(name).ok_or_else(|| {
            format!("`{name}` is not an error type (see docs/errors.md; patterns go in the config's retry_on)")
        })?;
        if !kind.recoverable() {
            return Err(format!(
                "`{name}` is not recoverable: a chain never moves on after it"
            ));
        }
        kinds.push(kind);
    }
    Ok(RetryOn {
        kinds,
        patterns: Vec::new(),
    })
}

fn parse_handoff(s: &str) -> Result<Handoff, String> {
    match s {
        "none" => Ok(Handoff::None),
        "summary" => Ok(Handoff::Summary),
        _ => Err(format!("`{s}`: expected none or summary")),
    }
}

fn parse_env(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| format!("`{s}` is not KEY=VALUE"))
}

impl Args {
    /// `--pretty`/`--compact`, else the terminal decides.
    pub fn pretty(&self) -> Option<bool> {
        if self.pretty {
            Some(true)
        } else if self.compact {
            Some(false)
        } else {
            None
        }
    }
}

/// Prints events as JSON lines, and feeds the progress line.
struct CliSink {
    stream: bool,
    progress: Option<Progress>,
}

impl EventSink for CliSink {
    fn emit(&mut self, event: &Event) {
        if let Some(p) = &mut self.progress {
            p.observe(event);
        }
        if self.stream {
            let mut out = std::io::stdout().lock();
            match serde_json::to_string(event) {
                Ok(line) => {
                    let _ = writeln!(out, "{line}");
                    let _ = out.flush();
                }
                Err(e) => tracing::error!("failed to encode event {}: {e}", event.seq),
            }
        }
    }
}

/// The task: the prompt argument as is, or stdin (plain text or a JSON
/// task input).
fn read_task(args: &Args) -> anyhow::Result<TaskInput> {
    let task = match args.prompt.as_deref() {
        Some(p) if p != "-" => TaskInput {
            prompt: p.to_owned(),
            ..TaskInput::default()
        },
        _ => {
            if std::io::stdin().is_terminal() {
                anyhow::bail!("no prompt: give it as an argument, or pipe it on stdin");
            }
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .context("failed to read the prompt from stdin")?;
            let text = String::from_utf8(bytes).map_err(|e| {
                anyhow::anyhow!(
                    "the prompt on stdin is not UTF-8 (invalid byte at offset {}); convert it first",
                    e.utf8_error().valid_up_to()
                )
            })?;
            task_from_stdin(&text)?
        }
    };
    if task.prompt.trim().is_empty() {
        anyhow::bail!("the prompt is empty");
    }
    Ok(task)
}

pub fn run(args: Args, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let task = read_task(&args)?;
    let cfg = crate::providers::config(config)?;
    for w in &cfg.warnings {
        eprintln!("agentgate: config: {w}");
    }
    if args.dry_run {
        return crate::run_dry::print(&args, &cfg, task);
    }
    let planned = crate::run_plan::plan(&args, &cfg, task)?;
    for w in &planned.warnings {
        eprintln!("agentgate: warning: {w}");
    }
    let opts = planned.opts;
    let store = if args.no_store {
        None
    } else {
        match Store::open_default() {
            Ok(s) => Some(s),
            Err(e) => {
                // A run must not be lost because the audit trail is unavailable.
                eprintln!("agentgate: warning: running without the store: {e}");
                None
            }
        }
    };
    if args.session.is_some() && store.is_none() {
        anyhow::bail!(
            "--session needs the run store (it maps the name to the provider's session id); drop --no-store"
        );
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    let progress = (!args.stream && std::io::stderr().is_terminal()).then(Progress::start);
    let mut sink = CliSink {
        stream: args.stream,
        progress,
    };
    let outcome = rt.block_on(async {
        let (ctl_tx, mut ctl_rx) = mpsc::channel::<Control>(4);
        let (cancel_tx, cancel_rx) = mpsc::channel::<CancelRequest>(4);
        let _forwarding = install_signal_forwarding(ctl_tx)?;
        tokio::spawn(async move {
            while let Some(c) = ctl_rx.recv().await {
                if let Control::Cancel { immediate } = c
                    && cancel_tx.send(CancelRequest { immediate }).await.is_err()
                {
                    break;
                }
            }
        });
        let store_ref: Option<&dyn RunStore> = store.as_ref().map(|s| s as &dyn RunStore);
        anyhow::Ok(run_once(opts, store_ref, &mut sink, cancel_rx).await)
    })?;
    if let Some(p) = sink.progress.take() {
        p.finish();
    }
    if !args.stream {
        print_json(&outcome.envelope, args.pretty())?;
    }
    let audit = audit_line(&outcome.envelope, outcome.exit_code);
    eprintln!("{audit}");
    if let Some(store) = &store {
        append_audit(&store.path().with_file_name("audit.log"), &audit);
    }
    Ok(ExitCode::from(u8::try_from(outcome.exit_code).unwrap_or(1)))
}

/// Append the audit line to `$AGENTGATE_HOME/audit.log` (next to the
/// database); a failure is a warning, never a lost run.
fn append_audit(path: &Path, line: &str) {
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| writeln!(f, "{line}"));
    if let Err(e) = written {
        eprintln!(
            "agentgate: warning: failed to append to {}: {e}",
            path.display()
        );
    }
}

/// Whether an environment variable's value must not be printed.
pub fn is_secret(key: &str) -> bool {
    let upper = key.to_ascii_uppercase();
    ["KEY", "TOKEN", "SECRET", "PASSWORD", "AUTH", "CREDENTIAL"]
        .iter()
        .any(|w| upper.contains(w))
}

/// The working directory of the run: --cwd, else the current one.
pub fn base_cwd(args: &Args) -> anyhow::Result<PathBuf> {
    match &args.cwd {
        Some(d) => d
            .canonicalize()
            .with_context(|| format!("--cwd {} does not exist", d.display())),
        None => std::env::current_dir().context("failed to read the current directory"),
    }
}
