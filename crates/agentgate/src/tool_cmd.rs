//! `agentgate tool NAME [ARGS...]`: one run of a registry tool under the
//! runner ([`agentgate_tools::runner`] does the work; this parses and
//! prints).

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use agentgate_core::Config;
use agentgate_core::parse_duration;
use agentgate_store::store_choice;
use agentgate_tools::invoke::{RunOverrides, request_for};
use agentgate_tools::mcp::ToolRelay;
use agentgate_tools::registry::Registry;
use agentgate_tools::runner::{RunnerSetup, run_tool};
use anyhow::Context as _;

use crate::output::{Stdout, exit_code};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the run's events as JSON lines while it runs (the tool's
    /// messages as `tool_message` events; the last event, `result`,
    /// carries the envelope) instead of the envelope at the end.
    #[arg(long)]
    stream: bool,
    /// The deadline (e.g. 90s, 10m); default: the manifest's
    /// `timeouts.run_s`, else 30m. Within the policy's `caps.run_s`.
    #[arg(long, value_parser = parse_duration, value_name = "DUR")]
    timeout: Option<Duration>,
    /// End the run with E_HEARTBEAT_MISSED when the tool prints no progress
    /// or heartbeat for this long; default: the manifest's
    /// `timeouts.heartbeat_s`, else 90s.
    #[arg(long, value_parser = parse_duration, value_name = "DUR")]
    heartbeat: Option<Duration>,
    /// After a cancel (Ctrl-C, SIGTERM), how long the tool has to stop by
    /// itself once CANCEL_FILE exists, before SIGINT, SIGTERM, SIGKILL.
    #[arg(long, value_parser = parse_duration, value_name = "DUR", default_value = "10s")]
    cancel_grace: Duration,
    /// Continue in the workspace of an earlier run of the same tool (its
    /// checkpoints are there).
    #[arg(long, value_name = "RUN")]
    resume: Option<String>,
    /// Copy this file or folder into the run's workspace (under its own
    /// name) before the tool starts; repeatable. It must resolve (`..` and
    /// symbolic links followed) into the working folder or the tool's own
    /// read paths, and never into agentgate's own files.
    #[arg(long = "copy-in", value_name = "PATH")]
    copy_in: Vec<std::path::PathBuf>,
    /// Record the run as started by this agent run.
    #[arg(long, value_name = "RUN")]
    parent_run: Option<String>,
    /// The tool (see `agentgate tools list`).
    name: String,
    /// The tool's arguments, as they are.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

/// Examples, for `agentgate tool --help`.
pub const AFTER_HELP: &str = "\
The tool runs in its own workspace (the run's folder in the store), with a
scoped environment (never an AGENTGATE_* variable), under its manifest's
limits and the tool policy, in a PID namespace of its own (no other process
visible) and without access to agentgate's own files (the data folder, the
store, the config, token files); its run is recorded (`agentgate runs`).
Prints the result envelope: status (ok, error, cancelled, action_required),
code, class (the registry's, else the manifest's exit-code meaning, else the
tool's own `retryable`), retryable, artifacts (each checked against its
SHA-256), metrics, limits and what enforced them. Exiting ok without a
valid `result` message is E_PROTOCOL unless the manifest says
`result_required: false`.

EXIT STATUS
  0 ok or action_required; 2 refused by the policy or bad usage; 124
  deadline or heartbeat missed; 130 cancelled; 75 a retryable error; 1 any
  other error.

EXAMPLES
  agentgate tool --copy-in notes.txt word_count --input notes.txt --output count.json
  agentgate tool --timeout 10m --stream data_migrator --source in --target out
  agentgate tool --resume r20261125T080000-1a2b3c4d data_migrator --source in";

/// Run `agentgate tool`.
pub fn run(
    args: Args,
    config_flag: Option<&Path>,
    store_flag: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let (cfg, registry) = registry(config_flag)?;
    let overrides = RunOverrides {
        timeout: args.timeout,
        heartbeat: args.heartbeat,
        cancel_grace: Some(args.cancel_grace),
    };
    let mut request = request_for(
        &registry,
        &args.name,
        args.args,
        &overrides,
        agentgate_tools::invoke::caller_env(),
    )?;
    request.resume_from = args.resume;
    request.parent_run_id = args.parent_run;
    request.copy_in = args.copy_in;
    request.copy_in_base =
        Some(std::env::current_dir().context("cannot read the working directory")?);
    let (store, setup) = runner(&cfg, store_flag)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let stream = args.stream;
    let mut out = Stdout::new();
    let envelope = runtime.block_on(async {
        let (_forwarding, cancel) = crate::cli_process::forward_signals()?;
        let mut observer = |event: &agentgate_protocol::Event| {
            if stream {
                // A closed stdout stops the printing, not the run: it is
                // recorded all the same.
                let _ = out.json_line(event);
            }
        };
        let envelope =
            run_tool(request, &setup, store.as_ref(), &mut observer, Some(cancel)).await?;
        anyhow::Ok(envelope)
    })?;
    if !stream {
        out.json(&envelope, None)?;
    }
    if let Some(failure) = out.failure() {
        return Ok(failure.exit());
    }
    Ok(exit_code(envelope.exit_code))
}

/// The config and the tool registry found from the working directory.
pub(crate) fn registry(config_flag: Option<&Path>) -> anyhow::Result<(Config, Registry)> {
    let cfg = Config::load(config_flag)?;
    let registry = registry_of(&cfg)?;
    Ok((cfg, registry))
}

/// The tool registry of `cfg`, found from the working directory.
pub(crate) fn registry_of(cfg: &Config) -> anyhow::Result<Registry> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    Ok(Registry::discover(cfg, &cwd)?)
}

/// The run store and how this binary runs tools (itself as the sandbox,
/// its keeper).
pub(crate) fn runner(
    cfg: &Config,
    store_flag: Option<&str>,
) -> anyhow::Result<(
    std::sync::Arc<dyn agentgate_store::StoreBackend>,
    RunnerSetup,
)> {
    let location = store_choice::choose(store_choice::given(store_flag)?, cfg.store.as_ref())?;
    let store = store_choice::open(&location).context("failed to open the run store")?;
    store.set_event_log_bound(cfg.event_log.max_bytes);
    let setup =
        tool_runner(cfg, Some(&location), &[]).context("cannot find the agentgate binary")?;
    Ok((store, setup))
}

/// How this binary runs tools: itself as the sandbox, its keeper, and
/// agentgate's own files kept from every tool (the data folder, the store
/// of `location`, the config file of `cfg`, `token_files`); `None` when its
/// own path cannot be read.
pub(crate) fn tool_runner(
    cfg: &Config,
    location: Option<&agentgate_store::StoreLocation>,
    token_files: &[std::path::PathBuf],
) -> Option<RunnerSetup> {
    let config_file = cfg.source.path().and_then(|p| std::path::absolute(p).ok());
    Some(RunnerSetup {
        sandbox_program: std::env::current_exe().ok()?,
        keeper: crate::cli_process::keeper_path(),
        private_paths: agentgate_tools::runner::private_paths(
            config_file.as_deref(),
            location,
            token_files,
        ),
    })
}

/// The [`tool_runner`] of `agentgate serve` and `agentgate worker`, over
/// the config and store they start with, and their token file.
pub(crate) fn service_tool_runner(
    config_flag: Option<&Path>,
    store_flag: Option<&str>,
    token_file: Option<&Path>,
) -> anyhow::Result<Option<RunnerSetup>> {
    let cfg = Config::load(config_flag)?;
    let location = store_choice::choose(store_choice::given(store_flag)?, cfg.store.as_ref())?;
    let token_files: Vec<std::path::PathBuf> =
        token_file.map(Path::to_path_buf).into_iter().collect();
    Ok(tool_runner(&cfg, Some(&location), &token_files))
}

/// The session host's registry tools: one relay per config, folder and
/// store its clients named, kept while the host runs (a warm CLI keeps
/// its MCP server, hence its relay, across turns).
#[derive(Debug, Default)]
pub(crate) struct HostTools {
    relays: std::sync::Mutex<Vec<(String, agentgate_core::ToolServer, ToolRelay)>>,
}

impl agentgate_core::ToolServerSource for HostTools {
    fn tool_server(
        &self,
        config: &agentgate_core::ConfigSource,
        cwd: &Path,
        store: &str,
    ) -> Result<agentgate_core::ToolServer, String> {
        let found = (|| {
            let cfg = Config::load_source(config.clone())?;
            let registry = Registry::discover(&cfg, cwd)?;
            Ok((cfg, registry, agentgate_store::StoreLocation::parse(store)?))
        })()
        .map_err(|e: anyhow::Error| format!("{e:#}"))?;
        let (cfg, registry, location) = found;
        // One relay per config, registry and store, however many folders
        // its clients run in.
        let key = format!("{config:?}\n{:?}\n{store}", registry.root);
        let mut relays = self
            .relays
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, server, _)) = relays.iter().find(|(k, _, _)| *k == key) {
            return Ok(server.clone());
        }
        let runner = tool_runner(&cfg, Some(&location), &[])
            .ok_or_else(|| "cannot find the agentgate binary".to_owned())?;
        let made = relay_for(&registry, location, runner).map_err(|e| format!("{e:#}"))?;
        let server = made.0.clone();
        relays.push((key, made.0, made.1));
        Ok(server)
    }
}

/// How a run's agents get registry tools: this binary's `mcp --relay`,
/// relaying to the returned relay, which runs the tools of `cfg`'s
/// registry and records them into `store` (see
/// [`agentgate_tools::for_agents`]). Keep the relay while agents may call
/// tools.
pub(crate) fn tool_server(
    cfg: &Config,
    store: &agentgate_store::StoreLocation,
    token_files: &[std::path::PathBuf],
) -> anyhow::Result<(agentgate_core::ToolServer, ToolRelay)> {
    let runner =
        tool_runner(cfg, Some(store), token_files).context("cannot find the agentgate binary")?;
    relay_for(&registry_of(cfg)?, store.clone(), runner)
}

fn relay_for(
    registry: &Registry,
    store: agentgate_store::StoreLocation,
    runner: RunnerSetup,
) -> anyhow::Result<(agentgate_core::ToolServer, ToolRelay)> {
    let program = std::env::current_exe().context("cannot find the agentgate binary")?;
    Ok(agentgate_tools::for_agents::tool_server(
        registry, program, runner, store,
    )?)
}

/// The [`tool_server`] of `agentgate serve` and `agentgate worker`, over
/// the config and store they start with. Without a usable registry there
/// is none (a run asking for tools then fails, saying so), unless an
/// agent of the config has `tools:`: then the service does not start.
pub(crate) fn service_tool_server(
    config_flag: Option<&Path>,
    store_flag: Option<&str>,
    token_file: Option<&Path>,
) -> anyhow::Result<Option<(agentgate_core::ToolServer, ToolRelay)>> {
    let cfg = Config::load(config_flag)?;
    let store = store_choice::choose(store_choice::given(store_flag)?, cfg.store.as_ref())?;
    let token_files: Vec<std::path::PathBuf> =
        token_file.map(Path::to_path_buf).into_iter().collect();
    match tool_server(&cfg, &store, &token_files) {
        Ok(server) => Ok(Some(server)),
        Err(e) => match cfg.agents.iter().find(|a| !a.tools.is_empty()) {
            Some(agent) => Err(e.context(format!(
                "agent `{}` has tools, but its tools cannot be offered",
                agent.name
            ))),
            None => {
                tracing::debug!("no registry tools for agents: {e:#}");
                Ok(None)
            }
        },
    }
}
