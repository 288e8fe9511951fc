//! A run asked for as data: the JSON body of `POST /v1/runs`, what
//! `agentgate submit` sends, what a schedule or a watched folder of the
//! config holds. It has the fields of `agentgate run`'s flags (snake_case:
//! `--idle-timeout` is `idle_timeout`) and the queue's own (`priority`,
//! `idempotency_key`, `not_before`).
//!
//! [`RunRequest::to_flags`] checks it and turns it into the [`RunFlags`]
//! and [`TaskInput`] the planner takes; every refusal names the field, as
//! data ([`RequestError::field`]); a refusal of the planner becomes one
//! through the planner's error's field (`From<PlanError>`, in `plan`).
//! Paths must be absolute: the request is run by a server whose working
//! directory is not the caller's (`agentgate submit` makes its flags'
//! paths absolute before sending).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::prompt::TaskInput;
use crate::retry_on::retry_on_from_names;
use crate::run_flags::{RunFlags, SessionBusy, Tier};
use crate::settings::{Handoff, OnDirty, PermissionMode, Settings, WorkspaceMode, parse_duration};

/// The longest `idempotency_key`, in bytes.
pub const IDEMPOTENCY_KEY_MAX: usize = 256;

/// The range of `priority` (higher runs first).
pub const PRIORITY_RANGE: std::ops::RangeInclusive<i64> = -1000..=1000;

/// The queue's own fields of a submission (a run's, a workflow's): the
/// priority within [`PRIORITY_RANGE`], a key of 1 to
/// [`IDEMPOTENCY_KEY_MAX`] bytes.
pub fn check_queue_fields(
    priority: i64,
    idempotency_key: Option<&str>,
) -> Result<(), RequestError> {
    if !PRIORITY_RANGE.contains(&priority) {
        return Err(RequestError::new(
            "priority",
            format!(
                "{} is out of range ({} to {})",
                priority,
                PRIORITY_RANGE.start(),
                PRIORITY_RANGE.end()
            ),
        ));
    }
    if let Some(key) = idempotency_key
        && (key.is_empty() || key.len() > IDEMPOTENCY_KEY_MAX)
    {
        return Err(RequestError::new(
            "idempotency_key",
            format!("must be 1 to {IDEMPOTENCY_KEY_MAX} bytes"),
        ));
    }
    Ok(())
}

/// A run asked for as data. `None` or an empty list leaves the choice to
/// the config and the defaults, as an absent flag does.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields, default)]
pub struct RunRequest {
    /// The prompt (exactly one of `prompt` and `task`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// A task input object: `{"prompt", "context", "persona", "files"}`, as
    /// `agentgate run` reads from stdin.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub task: Option<serde_json::Value>,
    /// The name of the file the task came from (a watched note's name): the
    /// prompt sends the task under `--- task: NAME ---` (as the task input's
    /// `file_name`; give it in one of the two places).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
    /// Providers tried in order (`--provider claude,codex`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub providers: Vec<String>,
    /// Agents of the config tried in order (`--agent`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    /// A chain of the config (`--chain`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain: Option<String>,
    /// `--model`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `thinking` or `fast` (`--tier`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// `default`, `plan`, `acceptEdits` or `bypass` (`--permission-mode`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    /// `--system`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// `--system-file` (absolute).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub system_file: Option<PathBuf>,
    /// `--agent-file` (absolute).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub agent_file: Option<PathBuf>,
    /// `--persona`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persona: Option<String>,
    /// `--context` files (absolute).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub context: Vec<PathBuf>,
    /// `--context-dir` (absolute).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub context_dir: Option<PathBuf>,
    /// `--context-max` bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_max: Option<usize>,
    /// `--skip-context-file`.
    #[serde(skip_serializing_if = "is_false")]
    pub skip_context_file: bool,
    /// `--no-unattended-instruction`.
    #[serde(skip_serializing_if = "is_false")]
    pub no_unattended_instruction: bool,
    /// `--prompt-max-bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_max_bytes: Option<usize>,
    /// `--prompt-warn-bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_warn_bytes: Option<usize>,
    /// `--add-dir` folders (absolute).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub add_dirs: Vec<PathBuf>,
    /// `--cwd` (absolute; default: the server's working directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub cwd: Option<PathBuf>,
    /// `--session`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// `wait` or `fail` (`--session-busy`; needs `session`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_busy: Option<SessionBusy>,
    /// `--warm` (needs `session`): keep the CLI running for the session's
    /// next turn (a server's turns go to its own warm processes).
    #[serde(skip_serializing_if = "is_false")]
    pub warm: bool,
    /// `--warm-idle` (needs `warm`): end the warm process after this long
    /// idle, e.g. `"10m"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_idle: Option<String>,
    /// `--resume`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume: Option<String>,
    /// `--timeout`, e.g. `"90s"`, `"10m"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// `--idle-timeout`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_timeout: Option<String>,
    /// `--timeout-warn`: when to warn before `timeout`, e.g. `"80%,95%"`,
    /// `"2m"`, `"off"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_warn: Option<String>,
    /// `--extend-on-activity`, e.g. `"5m"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extend_on_activity: Option<String>,
    /// `--max-timeout`, e.g. `"30m"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_timeout: Option<String>,
    /// `--max-provider-retries`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_provider_retries: Option<u32>,
    /// `--binary` (absolute).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub binary: Option<PathBuf>,
    /// `stop`, `continue` or `stash` (`--on-dirty`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_dirty: Option<OnDirty>,
    /// `none` or `summary` (`--handoff`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff: Option<Handoff>,
    /// Error types that hand the task on (`--retry-on`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retry_on: Vec<String>,
    /// `--ignore-quota`.
    #[serde(skip_serializing_if = "is_false")]
    pub ignore_quota: bool,
    /// Registry tools the agents may call, through agentgate's MCP server
    /// (`--tools`); the server's registry must have them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// `shared` or `worktree` (`--workspace`): with `worktree` the run
    /// works in a fresh git worktree of the repository holding `cwd`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<WorkspaceMode>,
    /// `--output-schema` (absolute).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub output_schema: Option<PathBuf>,
    /// `--env KEY=VALUE` pairs.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// `--extra-arg` values.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra_args: Vec<String>,
    /// `append` (the default) or `replace` (`--extra-args-mode`): whether
    /// `extra_args` replace the agent's and the provider's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra_args_mode: Option<crate::settings::ExtraArgsMode>,
    /// `--reasoning-effort`: `none`, `minimal`, `low`, `medium`, `high`,
    /// `xhigh` or `max`, for the CLIs with a knob for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
    /// `--thinking-budget`: tokens of thinking, for the CLIs with a knob
    /// for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_budget: Option<u32>,
    /// `--max-turns` (Claude Code).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    /// `--max-context-tokens`: with `session`, when the session's last
    /// turn passed this context length, this turn starts a new native
    /// session under the same name (over the agent's `max_context_tokens`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_context_tokens: Option<u64>,
    /// `--rotate-handoff`: `none`, `summary` or `prompt` (with
    /// `rotate_prompt`): how a rotated session is seeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotate_handoff: Option<String>,
    /// `--rotate-prompt`: the text a rotated session's first prompt starts
    /// with (`rotate_handoff: prompt`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotate_prompt: Option<String>,
    /// `--max-cost`: the most this run may spend, in USD; past it the CLI
    /// is stopped and the run ends with `budget`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    /// `--max-tokens`: the most tokens (input + output) this run may spend.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// `--label key=value` pairs: stored with the job and its run, in the
    /// envelope, and what `?label=` filters and cancels by label match
    /// (see `agentgate_protocol::check_labels` for the bounds).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// `--skill NAME`: the skill each provider invokes its own way (the
    /// prompt may then be left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
    /// `--input JSON`: the skill's input (a string is passed as its text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<serde_json::Value>,
    /// `--debug-prompt`: save the prompt sent, redacted, as `prompt.txt` in
    /// the run folder.
    #[serde(skip_serializing_if = "is_false")]
    pub debug_prompt: bool,
    /// `--gateway` (`true`) or `--no-gateway` (`false`): a model gateway in
    /// front of the run's CLIs, or none; absent: the server's config says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gateway: Option<bool>,
    /// `--record-model-calls`: keep the model calls in the run's folder.
    #[serde(skip_serializing_if = "is_false")]
    pub record_model_calls: bool,
    /// `--max-model-calls`: the run's model calls at most (needs a gateway).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_model_calls: Option<u32>,
    /// `--max-input-tokens`: input tokens over the run's calls, at most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_input_tokens: Option<u64>,
    /// `--max-output-tokens`: output tokens over the run's calls, at most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// `--max-model-time`: wall time of model calls, summed, at most (`10m`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_model_time: Option<String>,
    /// `--sandbox`: `off`, `workspace`, `strict` or `container`, how the
    /// run's CLIs are confined (over the agent's and the server's config);
    /// absent: the config says. A level below the config's
    /// `sandbox.require` is refused (422, field `sandbox`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(example = "workspace"))]
    pub sandbox: Option<String>,
    /// Higher runs first (-1000 to 1000, default 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub priority: i64,
    /// A repeated key returns the run the first request created.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// Not started before this time (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_before: Option<Timestamp>,
    /// An http(s) URL that gets this run's `run.ended` webhook, signed
    /// with the config's `webhooks:` secret (docs/operating/webhooks.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schema(format = "uri", example = "https://hooks.example.com/run-ended")
    )]
    pub callback_url: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !b
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

/// A request refused: which field, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct RequestError {
    /// The field at fault (`prompt`, `timeout`, `env.KEY`, ...).
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl RequestError {
    /// A refusal of `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        RequestError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl RunRequest {
    /// `warm_idle` as a duration.
    pub fn warm_idle(&self) -> Result<Option<std::time::Duration>, RequestError> {
        duration("warm_idle", self.warm_idle.as_deref())
    }

    /// Parse a request from JSON text. Text that is not JSON, or that gives
    /// a key twice, is a [`RequestError`] on the field `request`; see
    /// [`RunRequest::from_value`] for the rest.
    pub fn from_json(text: &str) -> Result<RunRequest, RequestError> {
        let value = agentgate_protocol::strict_json::from_str(text).map_err(|e| {
            if e.is_data() {
                RequestError::new("request", e.to_string())
            } else {
                RequestError::new("request", format!("not JSON: {e}"))
            }
        })?;
        RunRequest::from_value(value)
    }

    /// Read a request from parsed JSON. Unknown fields and values of the
    /// wrong type are refused, naming the field.
    pub fn from_value(value: serde_json::Value) -> Result<RunRequest, RequestError> {
        let serde_json::Value::Object(fields) = value else {
            return Err(RequestError::new("request", "expected a JSON object"));
        };
        let whole = serde_json::Value::Object(fields.clone());
        serde_json::from_value(whole).map_err(|e| {
            // serde_json's message names an unknown field but not the field
            // of a value of the wrong type: read the fields one at a time
            // to find it.
            let culprit = fields.iter().find(|(k, v)| {
                let one = serde_json::Map::from_iter([((*k).clone(), (*v).clone())]);
                serde_json::from_value::<RunRequest>(serde_json::Value::Object(one)).is_err()
            });
            let field = culprit.map_or("request", |(k, _)| k.as_str());
            RequestError::new(field, e.to_string())
        })
    }

    /// Check the request and turn it into what the planner takes. The
    /// checks here need no config; the plan made from the result can still
    /// be refused (an unknown provider, a missing file).
    pub fn to_flags(&self) -> Result<(RunFlags, TaskInput), RequestError> {
        let task = self.task_input()?;
        self.check_choice()?;
        self.check_queue_fields()?;
        for (field, path) in self.paths() {
            if !path.is_absolute() {
                return Err(RequestError::new(
                    field,
                    format!("`{}` is not an absolute path", path.display()),
                ));
            }
        }
        if self.session.is_some() && self.resume.is_some() {
            return Err(RequestError::new(
                "resume",
                "give session or resume, not both",
            ));
        }
        if self.session_busy.is_some() && self.session.is_none() {
            return Err(RequestError::new("session_busy", "needs a session"));
        }
        if self.warm && self.session.is_none() {
            return Err(RequestError::new("warm", "needs a session"));
        }
        if self.warm_idle.is_some() && !self.warm {
            return Err(RequestError::new("warm_idle", "needs warm"));
        }
        self.warm_idle()?;
        if let Some(url) = &self.callback_url {
            crate::webhook_url::WebhookUrl::parse(url)
                .map_err(|e| RequestError::new("callback_url", e))?;
        }
        agentgate_protocol::check_labels(&self.labels)
            .map_err(|e| RequestError::new("labels", e.to_string()))?;
        if let Some(name) = self.env.keys().find(|k| k.is_empty() || k.contains('=')) {
            return Err(RequestError::new(
                "env",
                format!("`{name}` is not a variable name"),
            ));
        }
        let permission_mode = self
            .permission_mode
            .as_deref()
            .map(str::parse::<PermissionMode>)
            .transpose()
            .map_err(|e| RequestError::new("permission_mode", e))?;
        let retry_on = if self.retry_on.is_empty() {
            None
        } else {
            Some(
                retry_on_from_names(&self.retry_on.join(","))
                    .map_err(|e| RequestError::new("retry_on", e))?,
            )
        };
        let flags = RunFlags {
            providers: self.providers.clone(),
            agents: self.agents.clone(),
            chain: self.chain.clone(),
            model: self.model.clone(),
            tier: self.tier.unwrap_or_default(),
            settings: Settings {
                binary: self.binary.clone(),
                timeout: duration("timeout", self.timeout.as_deref())?,
                idle_timeout: duration("idle_timeout", self.idle_timeout.as_deref())?,
                timeout_warn: self
                    .timeout_warn
                    .as_deref()
                    .map(crate::settings::parse_timeout_warn)
                    .transpose()
                    .map_err(|e| RequestError::new("timeout_warn", e))?,
                extend_on_activity: duration(
                    "extend_on_activity",
                    self.extend_on_activity.as_deref(),
                )?,
                max_timeout: duration("max_timeout", self.max_timeout.as_deref())?,
                max_provider_retries: self.max_provider_retries,
                permission_mode,
                system: self.system.clone(),
                cwd: self.cwd.clone(),
                output_schema: self.output_schema.clone(),
                retry_on,
                workspace: self.workspace,
                env: self.env.clone().into_iter().collect(),
                extra_args: self.extra_args.clone(),
                extra_args_mode: self.extra_args_mode,
                env_remove: Vec::new(),
                reasoning_effort: self
                    .reasoning_effort
                    .as_deref()
                    .map(agentgate_providers::reasoning::parse_effort)
                    .transpose()
                    .map_err(|e| RequestError::new("reasoning_effort", e))?,
                unsupported_effort: None,
                thinking_budget: self.thinking_budget,
                max_turns: match self.max_turns {
                    Some(0) => {
                        return Err(RequestError::new("max_turns", "at least 1"));
                    }
                    n => n,
                },
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
            session_busy: self.session_busy.unwrap_or_default(),
            on_dirty: self.on_dirty,
            handoff: self.handoff,
            ignore_quota: self.ignore_quota,
            now: None,
            // MCP servers are given through the library's flags only.
            mcp_servers: Vec::new(),
            tools: self.tools.clone(),
            labels: self.labels.clone(),
            // A server's run logs go where its config says, never where a
            // request says (a request names no folder of the server's).
            log_dir: None,
            log_name: None,
            skill: self.skill.as_ref().map(|name| crate::run_flags::SkillCall {
                name: name.clone(),
                input: self.input.clone(),
            }),
            effort_levels: crate::run_flags::EffortLevels::default(),
            debug_prompt: self.debug_prompt,
            gateway: self.gateway,
            record_model_calls: self.record_model_calls,
            gateway_limits: self.gateway_limits()?,
            sandbox: self
                .sandbox
                .as_deref()
                .map(str::parse::<agentgate_protocol::SandboxLevel>)
                .transpose()
                .map_err(|e| RequestError::new("sandbox", e.to_string()))?,
            rotation: crate::session_rotation::RotationSettings {
                max_context_tokens: match self.max_context_tokens {
                    Some(0) => {
                        return Err(RequestError::new("max_context_tokens", "at least 1"));
                    }
                    n => n,
                },
                handoff: crate::session_rotation::RotationHandoff::from_parts(
                    self.rotate_handoff.as_deref(),
                    self.rotate_prompt.as_deref(),
                )
                .map_err(|e| RequestError::new("rotate_handoff", e))?,
            },
            budget: crate::budget::Limits::checked(self.max_cost_usd, self.max_tokens)
                .map_err(|why| RequestError::new("max_cost_usd", why))?,
        };
        Ok((flags, task))
    }

    /// At most one of `providers`, `agents` and `chain`; no blank names.
    fn check_choice(&self) -> Result<(), RequestError> {
        let given = [
            ("providers", !self.providers.is_empty()),
            ("agents", !self.agents.is_empty()),
            ("chain", self.chain.is_some()),
        ];
        let mut named = given.iter().filter(|(_, on)| *on).map(|(f, _)| *f);
        if let (Some(first), Some(second)) = (named.next(), named.next()) {
            return Err(RequestError::new(
                second,
                format!("give one of providers, agents and chain (also given: {first})"),
            ));
        }
        for (field, list) in [("providers", &self.providers), ("agents", &self.agents)] {
            if list.iter().any(|n| n.trim().is_empty()) {
                return Err(RequestError::new(field, "a name is empty"));
            }
        }
        Ok(())
    }

    fn check_queue_fields(&self) -> Result<(), RequestError> {
        check_queue_fields(self.priority, self.idempotency_key.as_deref())
    }

    /// Every path the request holds, with its field.
    fn paths(&self) -> impl Iterator<Item = (&'static str, &Path)> {
        let single = [
            ("system_file", &self.system_file),
            ("agent_file", &self.agent_file),
            ("context_dir", &self.context_dir),
            ("cwd", &self.cwd),
            ("binary", &self.binary),
            ("output_schema", &self.output_schema),
        ];
        let single = single
            .into_iter()
            .filter_map(|(f, p)| p.as_deref().map(|p| (f, p)));
        let lists = self
            .context
            .iter()
            .map(|p| ("context", p.as_path()))
            .chain(self.add_dirs.iter().map(|p| ("add_dirs", p.as_path())));
        single.chain(lists)
    }
}

fn duration(field: &str, value: Option<&str>) -> Result<Option<std::time::Duration>, RequestError> {
    value
        .map(parse_duration)
        .transpose()
        .map_err(|e| RequestError::new(field, e))
}

mod task_input;

#[cfg(test)]
mod tests;
