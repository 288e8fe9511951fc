//! The `agentgate` command line.

mod cli_process;
mod config_cmd;
mod demo_cmd;
mod fake_llm;
mod health_cmd;
mod logging;
mod mcp_cmd;
mod models_cmd;
mod output;
mod parse_cmd;
mod providers_cmd;
mod quota_cmd;
mod remote;
mod remote_cmd;
mod run;
mod runs_cmd;
mod serve_cmd;
mod service_runtime;
mod sessions_cmd;
mod skills_cmd;
mod store_open;
mod submit_cmd;
mod table;
mod token_cmd;
mod tool_cmd;
mod tools_cmd;
mod usage_cmd;
mod worker_cmd;
mod workflow_cmd;
mod workflow_submit;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Run AI coding-agent CLIs unattended behind one contract.
#[derive(Debug, Parser)]
#[command(name = "agentgate", version, about, long_about = None, after_long_help = OUTPUT_HELP)]
struct Cli {
    /// The config file. Default: $AGENTGATE_CONFIG, else $GARDENER_CLI_CONFIG,
    /// else agentgate.yaml, .agentgate/config.yaml or
    /// .gardener/cli_agents.yaml in the working directory or an ancestor
    /// (nearest folder first), else $XDG_CONFIG_HOME/agentgate/config.yaml
    /// (~/.config/agentgate/...). UTF-8, at most 1 MiB.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The run store: a SQLite file's path, or a PostgreSQL URL shared by
    /// many hosts (postgres://USER@HOST/DB; over a Unix socket:
    /// postgres://USER@localhost/DB?host=/run/postgresql; sslmode= as
    /// libpq takes it). Default: $AGENTGATE_STORE, else the config's
    /// `store:`, else agentgate.db in agentgate's data folder.
    #[arg(long, global = true, value_name = "STORE")]
    store: Option<String>,
    /// Log more on stderr: -v info, -vv debug, -vvv trace (agentgate's own
    /// logs; other libraries stay at warn). Wins over $AGENTGATE_LOG.
    /// stdout is never touched.
    #[arg(short, long, global = true, action = clap::ArgAction::Count, conflicts_with = "quiet")]
    verbose: u8,
    /// Errors only on stderr: no warnings, notes, progress line or audit
    /// line (the audit line is still appended to audit.log). Wins over
    /// $AGENTGATE_LOG. stdout is unchanged.
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

const OUTPUT_HELP: &str = "\
LOGS (every command)
  Logs go to stderr, never stdout. How much, first that applies: -q (errors
  only), -v/-vv/-vvv (agentgate's info/debug/trace), $AGENTGATE_LOG (tracing
  EnvFilter directives: `info`, `debug`, `agentgate_server=debug,sqlx=info`;
  TARGET=LEVEL pairs and a bare default LEVEL, comma-separated), else
  warnings and errors. A flag wins over the variable.

OUTPUT ERRORS (every command)
  stdout closed (a pipe whose reader exited, `| head -1`): nothing more is
  printed, nothing on stderr, exit 141. Any other write error (a full disk):
  one line on stderr, exit 74. Error messages go to stderr; a bad input or
  usage is exit 2.";

#[derive(Debug, Subcommand)]
enum Command {
    /// Run one prompt through an agent CLI, or a failover chain of them, and
    /// print the result envelope.
    #[command(after_long_help = run::AFTER_HELP)]
    Run(Box<run::Args>),
    /// List recent runs, or show one with its events.
    ///
    /// A run's status is running, succeeded, failed, cancelled or abandoned:
    /// abandoned is a run whose agentgate process died before it finished
    /// (checked by pid and start time on this host; a run started on another
    /// host sharing the store shows as running).
    Runs(runs_cmd::Args),
    /// Report what the stored runs spent: runs by outcome, tokens by class
    /// and cost, by day, week or month and one dimension (provider, model,
    /// agent, chain, session, API token, team, label), as a table, JSON or
    /// CSV.
    #[command(after_long_help = usage_cmd::AFTER_HELP)]
    Usage(usage_cmd::Args),
    /// List the logical sessions (`--session NAME`): each provider's native
    /// session, turns, the last turn's context length, and the rotations
    /// `max_context_tokens` made, with why.
    Sessions(sessions_cmd::Args),
    /// Make, list and revoke the API tokens of `agentgate serve` (each
    /// with scopes, an optional team, expiry and max_running), on the
    /// store directly. A token is printed once; the store keeps its hash.
    Token(token_cmd::Args),
    /// Run every installed CLI through one scripted tool turn, offline,
    /// against the built-in model server, and print a table.
    Demo(demo_cmd::Args),
    /// Decode a saved CLI output capture into the envelope (runs nothing).
    ///
    /// Exits 0 once the capture is decoded; the envelope's `error_type` and
    /// `exit_code` say how the run ended (a capture without the CLI's final
    /// record is a recoverable `provider_error`, exit code 75).
    Parse(parse_cmd::Args),
    /// List every provider, built in or described in the config file, with
    /// its adapter kind, whether its CLI is found, its verification level
    /// and what it supports.
    Providers(providers_cmd::Args),
    /// List the skills (`SKILL.md` folders) each provider's CLI can see:
    /// the project's, from the working directory up to the repository
    /// root, then the user's (honouring CLAUDE_CONFIG_DIR, CODEX_HOME,
    /// ...), with name, description, scope, path and how a run invokes
    /// it. Reads the folders only: offline, starts no CLI. A bad
    /// `SKILL.md` is reported on its row.
    Skills(skills_cmd::Args),
    /// List the models each provider's CLI offers, read from the CLI
    /// itself where it can tell (`opencode models`, `cursor-agent models`,
    /// Codex's app-server `model/list`), else agentgate's bundled table
    /// (Gemini, Claude, Qwen: source `static`). A CLI's list is cached in
    /// the data folder (`catalogs/`) for `models.refresh` (1 h); a failed
    /// refresh keeps the older copy, marked stale. Exits 1 when a provider
    /// named with --provider has no catalog to show.
    Models(models_cmd::Args),
    /// Check each provider without calling a model: installed or not, path,
    /// `--version`, login evidence, session support and the probe's latency;
    /// and what this host can enforce for `--sandbox` (Landlock, namespaces,
    /// bubblewrap, container engines), per level. Exits 1 when a provider
    /// named with --provider is unusable.
    Health(health_cmd::Args),
    /// Show, per provider, the last usage-limit state seen and when it resets.
    Quota(quota_cmd::Args),
    /// Show the resolved config file and where each value came from
    /// (`config show [--json]`), or check it (`config check`).
    Config(config_cmd::Args),
    /// The deterministic tools agents call: list them, describe one (its
    /// manifest and input schema, JSON), check them (manifest, entry,
    /// policy, selftest).
    #[command(after_long_help = tools_cmd::AFTER_HELP)]
    Tools(tools_cmd::Args),
    /// Run a deterministic tool of the registry under the runner (limits,
    /// policy, heartbeats, cancellation) and print its result envelope.
    #[command(after_long_help = tool_cmd::AFTER_HELP)]
    Tool(tool_cmd::Args),
    /// Run workflows of tool, agent, parallel and decision steps,
    /// checkpointed in the store and resumable; list and show their runs.
    #[command(after_long_help = workflow_cmd::AFTER_HELP)]
    Workflow(workflow_cmd::Args),
    /// Serve the tool registry over the Model Context Protocol on stdio.
    #[command(after_long_help = mcp_cmd::AFTER_HELP)]
    Mcp(mcp_cmd::Args),
    /// Serve agentgate's HTTP API on 127.0.0.1:7700 (bearer-token auth on
    /// /v1, JSON errors, graceful shutdown on SIGTERM/SIGINT).
    #[command(after_long_help = serve_cmd::AFTER_HELP)]
    Serve(serve_cmd::Args),
    /// Run the jobs of a shared queue, without HTTP: the executor of
    /// `serve`, on the store's queue, with this host's own limits
    /// (--concurrency, --providers); drains on SIGTERM.
    #[command(after_long_help = worker_cmd::AFTER_HELP)]
    Worker(worker_cmd::Args),
    /// Send a run to an `agentgate serve` (the flags of `agentgate run`);
    /// with --wait or --stream, print what `agentgate run` prints.
    #[command(after_long_help = submit_cmd::AFTER_HELP)]
    Submit(Box<submit_cmd::Args>),
    /// Cancel a run on an `agentgate serve` (a queued run at once, a running
    /// one through its supervisor).
    Cancel(remote_cmd::CancelArgs),
    /// Follow a run's events on an `agentgate serve`, as JSON lines, to its
    /// result; exit with the run's exit code.
    Tail(remote_cmd::TailArgs),
    /// Serve a scripted model (Anthropic, OpenAI and Gemini wire protocols)
    /// on 127.0.0.1, to run agent CLIs offline and deterministically.
    #[command(after_long_help = agentgate_fakellm::SCRIPT_HELP)]
    FakeLlm(fake_llm::Args),
    /// Internal: the session host of `agentgate run --warm`.
    #[command(name = "__session-host", hide = true)]
    SessionHost {
        /// Its folder.
        #[arg(long)]
        dir: std::path::PathBuf,
        /// Its key (see `HostAddress`).
        #[arg(long)]
        key: String,
    },
    /// Internal: leads the agent's process group and kills it if agentgate dies.
    #[command(name = "__keeper", hide = true)]
    Keeper {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
}

fn main() -> ExitCode {
    // The keeper starts once per CLI run, on the run's critical path:
    // dispatch it before clap builds the whole command tree, and before
    // anything else (it must not touch the terminal).
    let mut args = std::env::args_os();
    match args.nth(1) {
        Some(a) if a == agentgate_supervise::KEEPER_SUBCOMMAND => {
            agentgate_supervise::keeper_main(args.collect())
        }
        // The sandbox a tool runs in: like the keeper, before clap and
        // before anything else (it becomes the tool).
        Some(a) if a == agentgate_tools::sandbox::SANDBOX_SUBCOMMAND => {
            std::process::exit(agentgate_tools::sandbox::sandbox_main(args.collect()))
        }
        _ => {}
    }
    let cli = Cli::parse();
    let config = cli.config;
    let store = cli.store;
    output::set_quiet(cli.quiet);
    let command = match cli.command {
        // Reached only with options before `__keeper`, which agentgate
        // never passes; still the keeper, before anything else.
        Command::Keeper { args } => agentgate_supervise::keeper_main(args),
        other => other,
    };
    logging::init(cli.verbose, cli.quiet);
    let result = match command {
        Command::Run(args) => run::run(*args, config.as_deref(), store.as_deref()),
        Command::Runs(args) => runs_cmd::run(args, config.as_deref(), store.as_deref()),
        Command::Usage(args) => usage_cmd::run(args, config.as_deref(), store.as_deref()),
        Command::Sessions(args) => sessions_cmd::run(args, config.as_deref(), store.as_deref()),
        Command::Token(args) => token_cmd::run(args, config.as_deref(), store.as_deref()),
        Command::Parse(args) => parse_cmd::run(args, config.as_deref()),
        Command::Providers(args) => providers_cmd::run(args, config.as_deref()),
        Command::Skills(args) => skills_cmd::run(args, config.as_deref()),
        Command::Models(args) => models_cmd::run(args, config.as_deref()),
        Command::Health(args) => health_cmd::run(args, config.as_deref()),
        Command::Quota(args) => quota_cmd::run(args, config.as_deref(), store.as_deref()),
        Command::Config(args) => config_cmd::run(args, config.as_deref()),
        Command::Demo(args) => demo_cmd::run(args),
        Command::Tools(args) => tools_cmd::run(args, config.as_deref()),
        Command::Tool(args) => tool_cmd::run(args, config.as_deref(), store.as_deref()),
        Command::Workflow(args) => workflow_cmd::run(args, config.as_deref(), store.as_deref()),
        Command::Mcp(args) => mcp_cmd::run(args, config.as_deref(), store.as_deref()),
        Command::Serve(args) => serve_cmd::run(args, config.as_deref(), store.as_deref()),
        Command::Worker(args) => worker_cmd::run(args, config.as_deref(), store.as_deref()),
        Command::Submit(args) => submit_cmd::run(*args),
        Command::Cancel(args) => remote_cmd::cancel(args),
        Command::Tail(args) => remote_cmd::tail(args),
        Command::FakeLlm(args) => fake_llm::run(args),
        Command::SessionHost { dir, key } => run::serve_session_host(dir, key),
        Command::Keeper { .. } => Ok(ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) => output::exit_for_error(&e),
    }
}

#[cfg(test)]
mod tests {
    /// clap checks a command's definition (unique flag and group names,
    /// valid conflicts) only when it is built: build every subcommand.
    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
