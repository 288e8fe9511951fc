//! `agentgate-core`: the engine of agentgate.
//!
//! # Running a chain
//!
//! [`Engine`] is the short path: a config, then one call per request.
//!
//! ```no_run
//! # fn main() -> Result<(), agentgate_core::EngineError> {
//! use agentgate_core::{Engine, RunRequest};
//!
//! let engine = Engine::from_config_file("agentgate.yaml")?;
//! let request = RunRequest {
//!     prompt: Some("Fix the lint".into()),
//!     chain: Some("default".into()),
//!     ..RunRequest::default()
//! };
//! let outcome = engine.run(&request)?; // `run_async` inside tokio
//! println!("{}", outcome.envelope.response);
//! # Ok(())
//! # }
//! ```
//!
//! # The API, in the order of a run
//!
//! - the config: [`Config`] read from a [`ConfigSource`], with its agents
//!   ([`AgentSpec`]), chains ([`ChainSpec`]), schedules and queue settings;
//! - what is asked: a [`RunRequest`] (the API's body, checked field by
//!   field: [`RequestError`]) or the flags of `agentgate run` as
//!   [`RunFlags`] with a [`TaskInput`]; the prompt's parts
//!   ([`PromptParts`], [`assemble_prompt`]);
//! - planning: [`plan()`] turns config and flags into a [`Plan`] of
//!   [`Step`]s ([`PlanError`]); [`dry_run_report`] is what `--dry-run`
//!   prints;
//! - running: [`run()`] executes a plan with [`RunOptions`], an optional
//!   store, an [`EventSink`] and a cancel channel ([`CancelRequest`]), and
//!   returns a [`RunOutcome`]: for each step the provider (one of
//!   `agentgate_providers`) builds the CLI's command line,
//!   `agentgate_supervise` runs it in its own process group with timeouts
//!   and cancellation, the provider's decoder turns its output into
//!   protocol events, the accumulator builds the result envelope and the
//!   classifier types the error; failover moves to the next step when that
//!   is safe ([`RetryOn`]), and the run is written to the store
//!   (`agentgate_store`'s traits: this crate takes the store without its
//!   backends; a program that opens one enables them);
//! - around a run: approvals ([`ApprovalPolicy`]), the workspace's checks
//!   and worktrees ([`Snapshot`], [`Worktree`]), redaction ([`Redactor`]),
//!   quotas ([`exhausted_quota`]; what the gateway reads off the wire:
//!   [`record_wire_quota`]), schedules ([`CronExpr`]), bounded reads
//!   ([`read_text_file`]).
//!
//! A few parts keep a module of their own, where their names read better
//! under it: [`warm`] (sessions kept alive between turns, one module per
//! CLI protocol), [`session_host`] (the process that holds them for
//! `agentgate run --warm`), [`sealed`] (sealing a queued request's
//! secrets), and the reports of three commands: [`health`] (`agentgate
//! health`), [`provider_listing`] (`agentgate providers`) and
//! [`quota_report`] (`agentgate quota`).
//!
//! Layers, lowest first: the leaves (`settings`, `retry_on`, `run_flags`,
//! `read_limit`, `redact`, `prompt`, ...), `approvals`, `warm`, `request`
//! (a run asked for as data), `config`, `quota`, `plan`, `run`, the
//! session host, and the [`Engine`] over them; no module imports one above
//! it. The modules are private: everything public is re-exported here or
//! lives in one of the public modules above.

#![warn(missing_docs)]

mod app_server;
mod approvals;
pub mod budget;
mod catalog;
mod coalesce;
mod config;
mod cost;
mod cron;
mod engine;
mod gateway_limits;
pub mod health;
pub mod log_name;
mod output_schema;
mod plan;
mod private_file;
mod prompt;
pub mod provider_listing;
mod quota;
mod quota_inbox;
pub mod quota_report;
mod read_limit;
mod reasoning_fallback;
mod redact;
mod request;
mod retry_on;
mod run;
mod run_flags;
pub mod sealed;
pub mod session_host;
mod session_rotation;
mod settings;
mod skills;
mod skills_native;
pub mod warm;
mod webhook_url;
mod workspace;

pub use approvals::pattern::{path_glob, text_glob};
pub use approvals::{
    ApprovalPolicy, DEFAULT_ASK_TIMEOUT, Decision, Rule, ToolCall, ToolClass, Verdict,
    class_of_acp_kind, class_of_tool, unwrap_shell,
};
pub use catalog::{
    CachedCatalog, CatalogRefresher, FETCH_TIMEOUT, ModelListError, ModelQuery, ProviderModels,
    catalog_entry, list_models,
};
pub use coalesce::{Chunk, ChunkFollower, CoalesceMode, CoalesceOptions, Coalescer};
pub use config::{
    ACCOUNT_MAX_LEN, AgentMode, AgentSpec, CATCH_UP_MAX, CONFIG_ENV, CONFIG_VERSION, ChainSpec,
    Config, ConfigError, ConfigFormat, ConfigSource, ContainerSpec, DEFAULT_CATALOG_REFRESH,
    DEFAULT_CHAIN, DEFAULT_MAX_RUNNING, DEFAULT_POLL, DEFAULT_SETTLE, Discovery,
    EVENT_LOG_MIN_BYTES, EventLogSpec, GARDENER_CONFIG_ENV, GARDENER_PROJECT_FILE,
    GEMINI_CAPACITY_FALLBACK, GatewayLimits, GatewayProviderSpec, GatewaySpec, Handoff,
    LEGACY_NAMES, LeaseExpiry, MIN_POLL, ModelChoice, ModelSource, ModelValidation, ModelsSpec,
    OnDirty, OnFailure, Origins, Overlap, PROJECT_FILES, ProviderDefaults, QueueSpec, RetryOn,
    RetryPattern, SandboxConfig, SandboxLevel, SandboxProviderSpec, ScheduleSpec, ToolsSpec,
    UnknownProvider, WRAPPER_CONFIG_VARS, WRAPPER_FILES, WatchSpec, WebhookEvent,
    WebhookSecretSource, WebhookSubscription, WebhooksSpec, WrapperModels, account_env_for,
    check_account, find_wrapper_models, kind_named, quota_key, retry_admits, retry_on_from_names,
    split_quota_key,
};
pub use cost::{
    CardEntry, FlagThreshold, Lookup as RateCardLookup, PerMillion, PricedAttempt, Pricing,
    RateCard, builtin_card, parse_card,
};
pub use cron::{CronError, CronExpr};
pub use engine::{Engine, EngineError};
pub use output_schema::{OutputSchema, OutputSchemaError};
pub use plan::report::{report as dry_run_report, report_ok as dry_run_report_ok};
pub use plan::{
    EditScope, Plan, PlanError, PromptShape, Step, StepGateway, StepSandbox,
    automation_sandbox_faults, check_sandbox_policy, plan,
};
pub use prompt::{
    AssembledPrompt, CONTEXT_FILE, DEFAULT_MAX_BYTES, DEFAULT_WARN_BYTES, FILE_NAME_MAX, FileRole,
    INSTRUCTIONS_LEAD, InstructionFile, PieceKind, PromptError, PromptParts, PromptPiece,
    SCHEMA_INSTRUCTION, TASK_INPUT_FIELDS, TaskInput, UNATTENDED_INSTRUCTION,
    assemble as assemble_prompt, check_file_name, estimate_tokens, schema_instruction,
    task_from_stdin, truncation_marker,
};
pub use quota::{
    exhausted_quota, is_quota_hold, record_quota, record_wire_quota, usage_percent,
    window_utilization,
};
pub use read_limit::{
    BoundedLines, CAPTURE_LINE_MAX_BYTES, CONFIG_MAX_BYTES, MIB, OUTPUT_SCHEMA_MAX_BYTES,
    ReadLimitError, STDIN_PROMPT_MAX_BYTES, SYSTEM_FILE_MAX_BYTES, read_text, read_text_file,
};
pub use reasoning_fallback::{FallbackSession, SEARCHED_RUNS, SessionFiles, reasoning_fallback};
pub use redact::{
    CONFIG_MARKER, MIN_SECRET_BYTES, Redactor, RedactorBuilder, is_secret, is_secret_flag,
    mask_secret_flags, secret_flag_values,
};
pub use request::{
    IDEMPOTENCY_KEY_MAX, PRIORITY_RANGE, RequestError, RunRequest, check_queue_fields,
};
pub use run::{
    CancelRequest, EventSink, NullSink, PROMPT_FILE_NAME, RunOptions, RunOutcome,
    STDERR_TAIL_BYTES, SYSTEM_PROMPT_FILE_NAME, Tail, ToolServer, ToolServerSource, append_audit,
    audit_line, new_run_id, parse_capture, parse_capture_streams, raw_line, run, system_read_paths,
};
pub use run_flags::{
    EffortLevels, EffortLevelsFn, NOW_ENV, RunFlags, SessionBusy, SkillCall, Tier,
    check_skill_name, names as split_names, now_from_env,
};
pub use session_rotation::{
    RotationDue, RotationHandoff, RotationPolicy, RotationSettings, SUMMARY_REQUEST, rotation_due,
    seeded_prompt,
};
pub use settings::{
    ExtraArgsMode, PermissionMode, Settings, UnsupportedEffort, WorkspaceMode, parse_duration,
    parse_timeout_warn,
};
pub use skills::{SkillListError, SkillQuery, SkillRow, list_skills};
pub use webhook_url::{WEBHOOK_URL_MAX, WebhookUrl};
pub use workspace::{
    Change, ChangeKind, DEFAULT_WALK_LIMIT, RepoLocation, Snapshot, SnapshotKind, WorkspaceError,
    Worktree, add_worktree, head_commit, locate_repository, outside_allowlist, remove_worktree,
    stash as git_stash,
};
