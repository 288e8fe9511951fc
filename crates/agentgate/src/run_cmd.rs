//! `agentgate run`.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use agentgate_core::provider::{PermissionMode, RunRequest, locate_binary};
use agentgate_core::run::{CancelRequest, EventSink, RunOptions, run as run_once};
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

FILES
  Runs are recorded in $AGENTGATE_HOME/agentgate.db (default
  ~/.local/share/agentgate) with each run's events.jsonl and stderr.log
  under runs/<run_id>/; see `agentgate runs`.";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The provider CLI: claude, codex, gemini, qwen, opencode, cursor, agy,
    /// or one described in the config file (see `agentgate providers`).
    #[arg(long, short = 'p')]
    provider: String,
    /// The prompt; `-` or none reads it from stdin.
    prompt: Option<String>,
    /// The model, as the provider names it (the CLI's default when absent).
    #[arg(long, short = 'm')]
    model: Option<String>,
    /// What the agent may do unattended: default, plan, acceptEdits or
    /// bypass (no approvals, no sandbox).
    #[arg(long, default_value = "default", value_parser = parse_mode)]
    permission_mode: PermissionMode,
    /// Same as --permission-mode bypass.
    #[arg(long, conflicts_with = "permission_mode")]
    yolo: bool,
    /// Instructions added to the CLI's system prompt (Claude
    /// --append-system-prompt, Codex developer_instructions; Gemini:
    /// GEMINI_SYSTEM_MD, which replaces its system prompt).
    #[arg(long, visible_alias = "append-system-prompt")]
    system: Option<String>,
    /// Read --system from a file.
    #[arg(long, conflicts_with = "system")]
    system_file: Option<PathBuf>,
    /// An extra directory the agent may use (repeatable).
    #[arg(long = "add-dir")]
    add_dirs: Vec<PathBuf>,
    /// The working directory of the agent (default: the current one).
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// A session name: the first run creates the provider's session, later
    /// runs with the same name resume it (recreated once if the CLI no
    /// longer knows it).
    #[arg(long, conflicts_with = "resume")]
    session: Option<String>,
    /// Resume the provider's native session id directly.
    #[arg(long)]
    resume: Option<String>,
    /// Wall-clock limit (e.g. 90s, 10m); exit 124 when it expires.
    #[arg(long, value_parser = crate::duration::parse)]
    timeout: Option<Duration>,
    /// Limit on silence: stop a CLI that prints nothing for this long.
    #[arg(long, value_parser = crate::duration::parse)]
    idle_timeout: Option<Duration>,
    /// Stop the CLI once it has retried a failed model request more than N
    /// times (it otherwise retries for minutes), so failover can act.
    #[arg(long)]
    max_provider_retries: Option<u32>,
    /// The CLI's executable (default: $AGENTGATE_<PROVIDER>_BIN, then PATH).
    #[arg(long)]
    binary: Option<PathBuf>,
    /// Print the events as JSON lines while the run goes, ending with the
    /// `result` event.
    #[arg(long)]
    stream: bool,
    /// Indent the envelope even when stdout is not a terminal.
    #[arg(long, conflicts_with = "compact")]
    pretty: bool,
    /// One-line envelope even on a terminal.
    #[arg(long)]
    compact: bool,
    /// An extra environment variable for the CLI, KEY=VALUE (repeatable).
    #[arg(long = "env", value_parser = parse_env)]
    env: Vec<(String, String)>,
    /// An extra argument appended to the CLI's own argv (repeatable).
    #[arg(long = "extra-arg", allow_hyphen_values = true)]
    extra_args: Vec<String>,
    /// Do not record the run in the store.
    #[arg(long)]
    no_store: bool,
    /// Print the invocation the run would make, as JSON (secrets in --env
    /// redacted), without running anything or writing to the store.
    #[arg(long, conflicts_with = "stream")]
    dry_run: bool,
}

fn parse_mode(s: &str) -> Result<PermissionMode, String> {
    s.parse()
}

fn parse_env(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| format!("`{s}` is not KEY=VALUE"))
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

pub fn run(args: Args, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let prompt = match args.prompt.as_deref() {
        Some(p) if p != "-" => p.to_owned(),
        _ => {
            if std::io::stdin().is_terminal() {
                anyhow::bail!("no prompt: give it as an argument, or pipe it on stdin");
            }
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("failed to read the prompt from stdin")?;
            s
        }
    };
    if prompt.trim().is_empty() {
        anyhow::bail!("the prompt is empty");
    }
    let system = match &args.system_file {
        Some(f) => Some(
            std::fs::read_to_string(f)
                .with_context(|| format!("failed to read --system-file {}", f.display()))?,
        ),
        None => args.system.clone(),
    };
    let cwd = match &args.cwd {
        Some(d) => d
            .canonicalize()
            .with_context(|| format!("--cwd {} does not exist", d.display()))?,
        None => std::env::current_dir().context("failed to read the current directory")?,
    };
    let request = RunRequest {
        prompt,
        model: args.model.clone(),
        permission_mode: if args.yolo {
            PermissionMode::Bypass
        } else {
            args.permission_mode
        },
        system,
        add_dirs: args.add_dirs.clone(),
        cwd,
        resume: args.resume.clone(),
        max_provider_retries: args.max_provider_retries,
        extra_args: args.extra_args.clone(),
        env: args.env.clone(),
        env_clear: false,
        output_schema: None,
    };
    let home = args
        .env
        .iter()
        .find(|(k, _)| k == "HOME")
        .map(|(_, v)| PathBuf::from(v))
        .or_else(|| std::env::var_os("HOME").map(PathBuf::from));
    if args.dry_run {
        return dry_run(&args, config, &request);
    }
    let provider = crate::providers::resolve(&args.provider, config)?;
    let opts = RunOptions {
        provider,
        request,
        binary: args.binary.clone(),
        session: args.session.clone(),
        timeout: args.timeout,
        idle_timeout: args.idle_timeout,
        max_provider_retries: args.max_provider_retries,
        keeper: std::env::current_exe().ok(),
        home,
        ..RunOptions::default()
    };
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
        let pretty = if args.pretty {
            Some(true)
        } else if args.compact {
            Some(false)
        } else {
            None
        };
        print_json(&outcome.envelope, pretty)?;
    }
    Ok(ExitCode::from(u8::try_from(outcome.exit_code).unwrap_or(1)))
}

/// Whether an environment variable's value must not be printed.
fn is_secret(key: &str) -> bool {
    let upper = key.to_ascii_uppercase();
    ["KEY", "TOKEN", "SECRET", "PASSWORD", "AUTH", "CREDENTIAL"]
        .iter()
        .any(|w| upper.contains(w))
}

/// `--dry-run`: plan the invocation into a throwaway scratch folder and
/// print it; exit 0 when planning succeeded, 2 when it failed.
fn dry_run(args: &Args, config: Option<&Path>, request: &RunRequest) -> anyhow::Result<ExitCode> {
    let plan = plan_dry(args, config, request);
    let pretty = if args.pretty {
        Some(true)
    } else if args.compact {
        Some(false)
    } else {
        None
    };
    print_json(&plan, pretty)?;
    Ok(ExitCode::from(if plan["error"].is_null() { 0 } else { 2 }))
}

fn plan_dry(args: &Args, config: Option<&Path>, request: &RunRequest) -> serde_json::Value {
    use serde_json::{Map, Value, json};
    let mut out = json!({
        "dry_run": true,
        "provider": args.provider,
        "program": null,
        "argv": null,
        "env": {},
        "cwd": request.cwd.display().to_string(),
        "prompt_on_stdin": null,
        "prompt_bytes": request.prompt.len(),
        "prompt_tokens_estimate": request.prompt.chars().count().div_ceil(4),
        "model": request.model,
        "model_resolution": null,
        "session": args.session,
        "resume": request.resume,
        "error": null,
    });
    let error = |out: &mut Value, message: String| {
        out["error"] = json!({"kind": "invalid_input", "message": message});
    };
    let provider = match crate::providers::resolve(&args.provider, config) {
        Ok(p) => p,
        Err(e) => {
            error(&mut out, format!("{e:#}"));
            return out;
        }
    };
    let mut request = request.clone();
    if request.resume.is_none()
        && !args.no_store
        && let Some(name) = &args.session
        && let Some(id) = stored_session(name, provider.name())
    {
        request.resume = Some(id);
        out["resume"] = json!(request.resume);
    }
    let program = match locate_binary(provider.as_ref(), args.binary.as_deref()) {
        Ok(p) => {
            out["program"] = json!(p.display().to_string());
            p
        }
        Err(e) => {
            error(&mut out, e.to_string());
            // Still show the argv, with the bare executable name.
            PathBuf::from(provider.binary_name())
        }
    };
    let scratch = match tempfile::Builder::new()
        .prefix("agentgate-dry-run-")
        .tempdir()
    {
        Ok(d) => d,
        Err(e) => {
            error(&mut out, format!("failed to create a scratch folder: {e}"));
            return out;
        }
    };
    match provider.plan(&request, &program, scratch.path()) {
        Ok(plan) => {
            let mut argv = vec![plan.program.display().to_string()];
            argv.extend(plan.display_args());
            out["argv"] = json!(argv);
            let mut env = Map::new();
            let extra = request.env.iter().map(|(k, v)| (k.clone(), v.clone()));
            let planned = plan.env.iter().map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            });
            for (k, v) in planned.chain(extra) {
                let v = if is_secret(&k) {
                    "<redacted>".into()
                } else {
                    v
                };
                env.insert(k, Value::String(v));
            }
            out["env"] = Value::Object(env);
            out["cwd"] = json!(plan.cwd.display().to_string());
            out["prompt_on_stdin"] = json!(plan.stdin.is_some());
        }
        Err(e) => {
            out["error"] = json!({"kind": "invalid_input", "message": e.to_string()});
        }
    }
    out
}

/// The provider session `name` maps to, read from the store only if the
/// store already exists (a dry run creates nothing).
fn stored_session(name: &str, provider: &str) -> Option<String> {
    let path = agentgate_store::default_db_path().ok()?;
    if !path.is_file() {
        return None;
    }
    let store = Store::open(&path).ok()?;
    store
        .get_session(name, provider)
        .ok()
        .flatten()
        .map(|s| s.native_session_id)
}
