//! The flags of `agentgate run`, and the [`RunFlags`] they stand for.

use std::path::PathBuf;
use std::time::Duration;

use agentgate_core::{ExtraArgsMode, PermissionMode, Settings, WorkspaceMode};
use agentgate_core::{Handoff, OnDirty, RetryOn, retry_on_from_names};
use agentgate_core::{RunFlags, SessionBusy, Tier, split_names as names};
use agentgate_core::{parse_duration, parse_timeout_warn};

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
  74   the output could not be written (e.g. a full disk); one line on stderr.
       Also a run that succeeded but that the store did not record (a full
       disk, a read-only store, a store that cannot be opened): the envelope
       is printed, the reason is on stderr (--no-store: run without it)
  75   every provider tried failed with a recoverable error (rate limit,
       quota, overload, invalid model, network, other provider errors),
       or the --session was in use by another run (session_busy)
  124  --timeout or --idle-timeout expired
  130  cancelled (SIGINT/SIGTERM; a second one kills at once)
  141  stdout was closed (`| head -1`); nothing more is printed
  With 74 and 141 the run still ran to its end and is recorded in the
  store with its own outcome (see the audit line and `agentgate runs`).

AGENTS AND CHAINS
  --provider claude,codex,gemini tries the providers in order; --agent NAME
  and --chain NAME use the agents and chains of the config file (see
  `agentgate config show` and docs/config.md). With none of the three, the
  config's chain named `default` runs. The next agent is tried only after a
  recoverable error that the chain's retry_on admits, and only if the failed
  attempt left the workspace clean (--on-dirty). A provider whose quota is
  known exhausted is skipped until its reset time (--ignore-quota).

WARM SESSIONS
  --warm --session NAME (claude, codex, gemini, qwen, opencode) sends the
  turn to a session host: one process per user, data folder and
  environment, started by the first such run (detached; its files,
  socket and log are in $AGENTGATE_HOME/warm/). It
  keeps the CLI alive after the turn; the session's next --warm run is sent
  to the living process (the envelope's `warm` says started, reused or
  replaced). An idle process ends after --warm-idle, at most 4 per provider
  are kept, and the host exits 10s after it holds none. Ctrl-C cancels the
  turn, not the process. Killing the host ends every CLI it held.
  `agentgate submit --warm` asks the server to hold the process instead.

AUDIT
  Every run ends with one logfmt line on stderr (and, with the store, in
  $AGENTGATE_HOME/audit.log): run, chain, agent, provider, model, exit,
  elapsed, tokens_in, tokens_out, cost_usd, error, attempts.

ENVIRONMENT
  AGENTGATE_HOME      where the store lives
  AGENTGATE_CONFIG    the config file (see `agentgate config show`)
  AGENTGATE_NOW       the clock (RFC 3339) for quota skipping, for tests
  AGENTGATE_<P>_BIN   a provider CLI's executable, e.g. AGENTGATE_CLAUDE_BIN
  OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf,
  grpc), OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME
                      export the run's trace over OTLP (off without them)
  TRACEPARENT         the W3C trace context the run's span continues

FILES
  Runs are recorded in $AGENTGATE_HOME/agentgate.db (default
  ~/.local/share/agentgate) with each run's events.jsonl and stderr.log
  under runs/<run_id>/; see `agentgate runs`.";

#[derive(Debug, clap::Args)]
// `--coalesce` cuts the events `--stream` prints (`tail` always prints them).
#[command(mut_arg("coalesce", |a| a.requires("stream")))]
pub struct Args {
    /// The provider CLI: claude, codex, gemini, qwen, opencode, cursor, agy,
    /// or one described in the config file (see `agentgate providers`). A
    /// comma-separated list is a failover chain: `claude,codex,gemini`.
    #[arg(long, short = 'p', conflicts_with_all = ["agent", "chain"], value_parser = parse_names)]
    pub provider: Option<Names>,
    /// A named agent of the config file (a comma-separated list is a
    /// failover chain of agents).
    #[arg(long, conflicts_with = "chain", value_parser = parse_names)]
    pub agent: Option<Names>,
    /// A named failover chain of the config file.
    #[arg(long)]
    pub chain: Option<String>,
    /// The prompt; `-` or none reads it from stdin (UTF-8, at most 10 MiB),
    /// where a JSON object is a task input: {"prompt": ..., "context": ...,
    /// "persona": ..., "files": [...]}.
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
    /// What the agent may do unattended: default, plan, acceptEdits,
    /// bypass (no approvals, no sandbox) or ask (the CLI asks before a tool
    /// call and the config's `approvals:` policy answers; claude, codex,
    /// gemini, qwen and opencode, through their long-lived modes). Default: the
    /// agent's, else plan for a `classify` agent, acceptEdits for an `edit`
    /// agent, else default.
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
    /// Read --system from a file (UTF-8, at most 10 MiB).
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
    /// When another run is using the same --session: wait for it to finish
    /// (the default; at most --timeout, unbounded without one), or fail at
    /// once with error `session_busy`, exit 75. One run per session name at
    /// a time keeps one native session and an exact turn count.
    #[arg(long, value_parser = parse_session_busy, default_value = "wait", requires = "session")]
    pub session_busy: SessionBusy,
    /// Keep the CLI running after the turn, in its long-lived mode, and
    /// send the session's next turn to it (Claude Code, Codex, Gemini CLI,
    /// Qwen Code, opencode): the per-user session host holds it across invocations
    /// (see WARM SESSIONS).
    #[arg(long, requires = "session", conflicts_with_all = ["dry_run", "no_store"])]
    pub warm: bool,
    /// With --warm: end the session's process after it has been idle this
    /// long (default 10m).
    #[arg(long, value_parser = parse_duration, requires = "warm", value_name = "DUR")]
    pub warm_idle: Option<Duration>,
    /// Resume the provider's native session id directly (one provider only).
    #[arg(long)]
    pub resume: Option<String>,
    /// Wall-clock limit of each attempt (e.g. 90s, 10m); exit 124 when it
    /// expires.
    #[arg(long, value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// Limit on silence: stop a CLI that prints nothing for this long.
    #[arg(long, value_parser = parse_duration)]
    pub idle_timeout: Option<Duration>,
    /// Emit `timeout_warning` status events before --timeout expires, at
    /// shares of it or times left, comma-separated (`80%,95%`, `5m,1m`;
    /// `off`). Default: the agent's or provider's `timeout_warn`, else none.
    #[arg(long, value_parser = check_timeout_warn, value_name = "WHEN")]
    pub timeout_warn: Option<String>,
    /// When --timeout expires while the CLI printed something within this
    /// long, move the deadline this much later (a `timeout_extended`
    /// event), up to --max-timeout.
    #[arg(long, value_parser = parse_duration, value_name = "DUR")]
    pub extend_on_activity: Option<Duration>,
    /// The limit of --extend-on-activity, from the attempt's start
    /// (default: three times --timeout).
    #[arg(long, value_parser = parse_duration, value_name = "DUR")]
    pub max_timeout: Option<Duration>,
    /// Stop the CLI once it has retried a failed model request more than N
    /// times (it otherwise retries for minutes), so failover can act.
    #[arg(long)]
    pub max_provider_retries: Option<u32>,
    /// How hard the model thinks: none, minimal, low, medium, high, xhigh
    /// or max. Codex: `-c model_reasoning_effort`; Claude Code: `--effort`
    /// (low to max; models without effort think with a budget); Gemini
    /// CLI: a thinking level (Gemini 3) or budget for the model, in its
    /// settings; opencode: `--variant`. Other CLIs run without it (a
    /// warning). Where the model's levels are known, one it does not take
    /// is clamped or dropped (`unsupported_effort:`). The envelope's
    /// `effort` says what was applied. Default: the agent's or provider's
    /// `reasoning_effort`.
    #[arg(long, value_parser = agentgate_providers::reasoning::parse_effort, value_name = "LEVEL")]
    pub reasoning_effort: Option<String>,
    /// Tokens the model may think: Claude Code's MAX_THINKING_TOKENS (for
    /// models that think with a budget), Gemini CLI's thinkingBudget (over
    /// --reasoning-effort). Other CLIs run without it (a warning).
    #[arg(long, value_name = "TOKENS")]
    pub thinking_budget: Option<u32>,
    /// Stop the agent after N turns (Claude Code's --max-turns): the run
    /// ends with error `max_turns`, not recoverable. Other CLIs run
    /// without the limit (a warning).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,
    /// `replace`: the --extra-arg values replace the agent's and the
    /// provider's `extra_args` instead of following them (`append`, the
    /// default).
    #[arg(long, value_parser = parse_extra_args_mode, value_name = "MODE")]
    pub extra_args_mode: Option<ExtraArgsMode>,
    /// The CLI's executable (default: the config's `binary`, then
    /// `$AGENTGATE_<PROVIDER>_BIN`, then PATH). One provider only.
    #[arg(long)]
    pub binary: Option<PathBuf>,
    /// When a failed attempt changed the workspace before failover: stop
    /// (the default), continue, or stash (git stash, then go on).
    #[arg(long, value_parser = parse_on_dirty)]
    pub on_dirty: Option<OnDirty>,
    /// Where the CLI works: `shared` (the default: in --cwd itself) or
    /// `worktree` (in a fresh git worktree of the repository holding
    /// --cwd, on a branch `agentgate/<run_id>`, checked out from HEAD;
    /// removed after the run if nothing changed, kept and reported in the
    /// envelope's `workspace` if something did). Default: the agent's
    /// `workspace:`.
    #[arg(long, value_parser = parse_workspace, value_name = "MODE")]
    pub workspace: Option<WorkspaceMode>,
    /// Pass the failed attempt's partial transcript to the next agent
    /// (`summary`), or not (`none`, the default).
    #[arg(long, value_parser = parse_handoff)]
    pub handoff: Option<Handoff>,
    /// Which recoverable errors hand the task on to the next agent, as a
    /// comma-separated list of error types (`quota,rate_limit`; legacy
    /// names like `allowance_exceeded` too). Default: the chain's or
    /// agent's `retry_on`, else every recoverable error.
    #[arg(long, value_parser = retry_on_from_names, value_name = "TYPES")]
    pub retry_on: Option<RetryOn>,
    /// Run providers even when their quota is recorded as exhausted.
    #[arg(long)]
    pub ignore_quota: bool,
    /// Save the prompt each attempt sends, secrets redacted, as
    /// `prompt.txt` in the run folder (mode 600; `agentgate runs show RUN`
    /// names it). Also the config's `debug_prompt: true`.
    #[arg(long)]
    pub debug_prompt: bool,
    /// The envelope to print: `agentgate` (every field), or `wrapper`: the
    /// shell wrappers' envelope field for field, for consumers that
    /// validate strictly against it (agentgate's additions left out,
    /// `reasoning` the 600-character summary, `tool_activity` only when a
    /// tool ran). Default: the config's `envelope:`, else agentgate.
    #[arg(long, value_name = "FORMAT")]
    pub envelope: Option<agentgate_protocol::EnvelopeFormat>,
    /// Run no CLI: print the reasoning and token figures of the session
    /// named by --session (or of native session id --resume) from its
    /// latest run recorded in the store (`run_id` is that run's), else,
    /// for a session agentgate never ran, from the last turn in the CLI's
    /// own session file (Claude Code, Codex, Gemini CLI; `run_id` empty):
    /// `reasoning`, `reasoning_summary`, `tokens_used`,
    /// `metadata.reasoning_source`, and `fallback` saying which was read.
    /// Any prompt is ignored.
    #[arg(long)]
    pub reasoning_fallback: bool,
    /// Let the agent call these registry tools (comma-separated; see
    /// `agentgate tools list`) for this run only, through agentgate's MCP
    /// server: each call runs under the tool runner and is recorded as a
    /// tool run whose parent is this run. Added to the agent's own
    /// `tools:`. Claude, Codex, Gemini, Qwen and opencode.
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    pub tools: Vec<String>,
    /// A JSON Schema the answer must satisfy: the JSON is taken from the
    /// answer (fences stripped) into `structured_output`; an answer that
    /// fails it ends the attempt with invalid_output (and failover moves
    /// on). Codex also gets it natively (--output-schema). At most 10 MiB.
    #[arg(long, value_name = "FILE")]
    pub output_schema: Option<PathBuf>,
    /// Print the events as JSON lines while the run goes, ending with the
    /// `result` event.
    #[arg(long)]
    pub stream: bool,
    #[command(flatten)]
    pub coalesce: super::coalesce::CoalesceArgs,
    #[command(flatten)]
    pub gateway: super::gateway_args::GatewayArgs,
    #[command(flatten)]
    pub sandbox: super::sandbox_args::SandboxArgs,
    #[command(flatten)]
    pub rotation: super::rotation_args::RotationArgs,
    #[command(flatten)]
    pub budget: super::budget_args::BudgetArgs,
    /// What stdout gets: `json`, the envelope (the default), or `text`:
    /// the answer alone and a newline (a failed run prints nothing there,
    /// its error on stderr, and exits with its code). The run is recorded
    /// as usual.
    #[arg(long, value_enum, default_value = "json", conflicts_with = "stream")]
    pub output: OutputFormat,
    /// Indent the envelope even when stdout is not a terminal.
    #[arg(long, conflicts_with = "compact")]
    pub pretty: bool,
    /// One-line envelope even on a terminal.
    #[arg(long)]
    pub compact: bool,
    /// An extra environment variable for the CLI, KEY=VALUE (repeatable).
    /// The value of a KEY with KEY, TOKEN, SECRET, PASSWORD, AUTH or
    /// CREDENTIAL in its name (8 bytes or more) is replaced by
    /// `[redacted:KEY]` in everything the run prints or stores; so are
    /// inherited variables of such names.
    #[arg(long = "env", value_parser = parse_env)]
    pub env: Vec<(String, String)>,
    /// An extra argument appended to the CLI's own argv (repeatable). The
    /// value of a secret-looking flag (`--api-key=V`, or `--api-key V` as
    /// two arguments) is redacted like a secret variable's.
    #[arg(long = "extra-arg", allow_hyphen_values = true)]
    pub extra_args: Vec<String>,
    /// A label KEY=VALUE for the run (repeatable, at most 16): stored with
    /// the run (and the session it creates), put in the envelope, and
    /// matched by `agentgate runs --label`, `agentgate cancel --label` and
    /// the API's `?label=`. A key is 1 to 63 ASCII letters, digits, `.`,
    /// `_`, `-` (starting with a letter or digit); a value 1 to 256 bytes.
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    pub labels: Vec<(String, String)>,
    /// Also write the run's log file in DIR (made if missing, mode 700;
    /// the file 600): a header (run id, labels, providers, start time),
    /// the CLI's stderr as it comes, and the answer at the end, secrets
    /// redacted. A folder that cannot be written is a warning, never a
    /// lost run. Over the config's `log_dir:` (an agent's, then the
    /// file's). `agentgate run` only: a server writes its config's.
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,
    /// The log file's name: `{label:KEY}`, `{labels}` (every value, in
    /// key order), `{run}`, `{ts}` (start, UTC), `{provider}`; a missing
    /// label is dropped with its separator, and the name is made safe (no
    /// `/`, no `..`). Default `{labels}_{ts}_{run}.log`; over `log_name:`.
    #[arg(long, value_name = "TEMPLATE")]
    pub log_name: Option<String>,
    /// Invoke the skill NAME (a `SKILL.md` folder the provider's CLI
    /// reads; `agentgate skills` lists them) the provider's own way: the
    /// prompt `/NAME INPUT` for Claude Code and Qwen Code, a `$NAME`
    /// mention for Codex, `--command NAME` for opencode, else a prompt that
    /// names the skill and carries its instructions. A skill the provider
    /// cannot see fails before any CLI starts (in a chain, that provider
    /// is skipped). The prompt is then optional (added after the input).
    #[arg(long, value_name = "NAME")]
    pub skill: Option<String>,
    /// The skill's input: JSON (a JSON string is passed as its text), or
    /// `-` to read it from stdin.
    #[arg(long, value_name = "JSON|-", requires = "skill")]
    pub input: Option<String>,
    /// Do not record the run in the store. Without it, a store that
    /// cannot be opened or written (a full disk, a read-only file) makes
    /// the run exit non-zero (74 for a run that succeeded).
    #[arg(long)]
    pub no_store: bool,
    /// Print the invocations the run would make, as JSON (secrets
    /// redacted), with the prompt's size, the model resolution and the
    /// chain, without running anything or writing to the store.
    #[arg(long, conflicts_with = "stream")]
    pub dry_run: bool,
}

fn check_timeout_warn(s: &str) -> Result<String, String> {
    parse_timeout_warn(s).map(|_| s.to_owned())
}

/// `--output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// The envelope, as JSON.
    Json,
    /// The answer's text alone.
    Text,
}

fn parse_extra_args_mode(s: &str) -> Result<ExtraArgsMode, String> {
    s.parse()
}

fn parse_mode(s: &str) -> Result<PermissionMode, String> {
    s.parse()
}

fn parse_session_busy(s: &str) -> Result<SessionBusy, String> {
    match s {
        "wait" => Ok(SessionBusy::Wait),
        "fail" => Ok(SessionBusy::Fail),
        _ => Err(format!("`{s}`: expected wait or fail")),
    }
}

fn parse_workspace(s: &str) -> Result<WorkspaceMode, String> {
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

/// A comma-separated list of names, as `--provider` and `--agent` take.
#[derive(Debug, Clone)]
pub struct Names(pub Vec<String>);

/// `a,b,c`: one name or more.
fn parse_names(s: &str) -> Result<Names, String> {
    let list = names(s);
    if list.is_empty() {
        return Err(format!("`{s}` names no provider or agent"));
    }
    Ok(Names(list))
}

fn parse_handoff(s: &str) -> Result<Handoff, String> {
    match s {
        "none" => Ok(Handoff::None),
        "summary" => Ok(Handoff::Summary),
        _ => Err(format!("`{s}`: expected none or summary")),
    }
}

fn parse_label(s: &str) -> Result<(String, String), String> {
    agentgate_protocol::parse_label(s).map_err(|e| e.to_string())
}

fn parse_env(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| format!("`{s}` is not KEY=VALUE"))
}

impl Args {
    /// What the flags ask of the run.
    pub fn flags(&self) -> RunFlags {
        RunFlags {
            providers: self.provider.clone().map(|n| n.0).unwrap_or_default(),
            agents: self.agent.clone().map(|n| n.0).unwrap_or_default(),
            chain: self.chain.clone(),
            model: self.model.clone(),
            tier: match self.tier.as_deref() {
                Some("fast") => Tier::Fast,
                _ => Tier::Thinking,
            },
            settings: Settings {
                binary: self.binary.clone(),
                timeout: self.timeout,
                idle_timeout: self.idle_timeout,
                timeout_warn: self
                    .timeout_warn
                    .as_deref()
                    .and_then(|w| parse_timeout_warn(w).ok()),
                extend_on_activity: self.extend_on_activity,
                max_timeout: self.max_timeout,
                max_provider_retries: self.max_provider_retries,
                permission_mode: if self.yolo {
                    Some(PermissionMode::Bypass)
                } else {
                    self.permission_mode
                },
                system: self.system.clone(),
                cwd: self.cwd.clone(),
                output_schema: self.output_schema.clone(),
                retry_on: self.retry_on.clone(),
                workspace: self.workspace,
                env: self.env.clone(),
                extra_args: self.extra_args.clone(),
                extra_args_mode: self.extra_args_mode,
                env_remove: Vec::new(),
                reasoning_effort: self.reasoning_effort.clone(),
                unsupported_effort: None,
                thinking_budget: self.thinking_budget,
                max_turns: self.max_turns,
            },
            system_file: self.system_file.clone(),
            agent_file: self.agent_file.clone(),
            persona: self.persona.clone(),
            context: self.context.clone(),
            context_dir: self.context_dir.clone(),
            context_max: self.context_max,
            skip_context_file: self.skip_context_file,
            no_unattended_instruction: self.no_unattended_instruction,
            prompt_max_bytes: self.prompt_max_bytes,
            prompt_warn_bytes: self.prompt_warn_bytes,
            add_dirs: self.add_dirs.clone(),
            session: self.session.clone(),
            resume: self.resume.clone(),
            session_busy: self.session_busy,
            on_dirty: self.on_dirty,
            handoff: self.handoff,
            ignore_quota: self.ignore_quota,
            now: None,
            rotation: self.rotation.settings(),
            budget: self.budget.limits(),
            mcp_servers: Vec::new(),
            tools: self.tools.clone(),
            labels: self.labels.iter().cloned().collect(),
            log_dir: self.log_dir.clone(),
            log_name: self.log_name.clone(),
            skill: None,
            effort_levels: agentgate_core::EffortLevels::default(),
            debug_prompt: self.debug_prompt,
            gateway: self.gateway.choice(),
            record_model_calls: self.gateway.record_model_calls,
            gateway_limits: self.gateway.limits(),
            sandbox: self.sandbox.sandbox,
        }
    }

    /// `--skill` and `--input` as the run's skill call (`--input -` reads
    /// stdin); `None` without `--skill`.
    pub fn skill_call(&self) -> anyhow::Result<Option<agentgate_core::SkillCall>> {
        let Some(name) = &self.skill else {
            return Ok(None);
        };
        agentgate_core::check_skill_name(name).map_err(|e| anyhow::anyhow!("--skill: {e}"))?;
        Ok(Some(agentgate_core::SkillCall {
            name: name.clone(),
            input: self.skill_input()?,
        }))
    }

    /// `--input` parsed as JSON (`-`: stdin's).
    pub fn skill_input(&self) -> anyhow::Result<Option<serde_json::Value>> {
        let text = match self.input.as_deref() {
            None => return Ok(None),
            Some("-") if self.prompt.as_deref() == Some("-") => {
                anyhow::bail!(
                    "--input - and the prompt `-` both read stdin: give one of them as an argument"
                )
            }
            Some("-") => super::request::read_stdin_input()?,
            Some(t) => t.to_owned(),
        };
        agentgate_protocol::strict_json::from_str(text.trim())
            .map(Some)
            .map_err(|e| {
                anyhow::anyhow!("--input is not JSON ({e}); quote a text as a JSON string")
            })
    }

    /// The `--label` flags as a whole: a key given twice, or more than 16
    /// labels, is refused (each one was checked as it was parsed).
    pub fn check_labels(&self) -> anyhow::Result<agentgate_protocol::Labels> {
        agentgate_protocol::parse_labels(
            self.labels
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .iter()
                .map(String::as_str),
        )
        .map_err(|e| anyhow::anyhow!("--label: {e}"))
    }

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
