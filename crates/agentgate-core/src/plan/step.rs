//! One planned step: an agent (a provider with its request, limits and
//! checks), as the run executes it and `--dry-run` shows it.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::config::ModelSource;
use crate::output_schema::OutputSchema;
use crate::prompt::PromptPiece;
use crate::retry_on::RetryOn;
use crate::settings::WorkspaceMode;
use agentgate_providers::{CliRequest, Provider};

/// Which files an agent may change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum EditScope {
    /// Not checked.
    #[default]
    Any,
    /// None (`mode: classify`).
    Nothing,
    /// Only under these paths, relative to the working directory or
    /// absolute (`mode: edit`).
    Only(Vec<PathBuf>),
}

/// What the prompt of a step is made of, for `--dry-run`.
#[derive(Debug, Clone, Default)]
pub struct PromptShape {
    /// The pieces of the prompt of a new session.
    pub parts: Vec<PromptPiece>,
    /// The pieces of the prompt of a resumed session.
    pub resumed_parts: Vec<PromptPiece>,
    /// The persona's heading, when one was selected.
    pub persona: Option<String>,
}

/// One agent of a run: a provider with its request and limits.
#[derive(Clone)]
pub struct Step {
    /// The agent's name, when it comes from the config.
    pub agent: Option<String>,
    /// The provider (a built-in description, or one described in config).
    pub provider: Arc<dyn Provider>,
    /// The invocation: prompt, model, permissions, retry bound, ...
    pub request: CliRequest,
    /// The prompt to send instead when the step resumes a session (the
    /// persona is not sent again); `None` = the same prompt.
    pub resumed_prompt: Option<String>,
    /// What the prompt is made of.
    pub prompt: PromptShape,
    /// The CLI's executable (found on `PATH` when `None`).
    pub binary: Option<PathBuf>,
    /// Wall-clock limit of each attempt.
    pub timeout: Option<Duration>,
    /// Limit on silence.
    pub idle_timeout: Option<Duration>,
    /// Warnings before `timeout` and its extension while the CLI prints.
    pub deadline: agentgate_supervise::DeadlinePolicy,
    /// Where the model came from.
    pub model_source: ModelSource,
    /// How the model was resolved (the envelope's `model_resolution`).
    pub model_resolution: Option<String>,
    /// The reasoning effort and thinking budget asked for and applied (the
    /// envelope's `effort`).
    pub effort: Option<agentgate_protocol::EffortReport>,
    /// The model to retry with, once, when the requested one is rejected as
    /// invalid; `None` = the CLI's own default (no model argument).
    pub default_model: Option<String>,
    /// The model to retry with, once, when the CLI reports its model out of
    /// capacity (Gemini's `models.gemini_capacity_fallback`); `None`: no
    /// such retry.
    pub capacity_fallback: Option<String>,
    /// The model gateway in front of this step's CLI (`--gateway`, the
    /// agent's or the config's `gateway:`); `None`: the CLI talks to its
    /// model directly.
    pub gateway: Option<StepGateway>,
    /// The sandbox this step's CLI runs in (`--sandbox`, the agent's, the
    /// provider's or the config's `sandbox:`); `None`: level `off`.
    pub sandbox: Option<StepSandbox>,
    /// Besides being recoverable, which errors hand on to the next step;
    /// `None` = every recoverable error.
    pub retry_on: Option<RetryOn>,
    /// The JSON Schema a successful answer must satisfy.
    pub output_schema: Option<Arc<OutputSchema>>,
    /// Which files the agent may change.
    pub edit_scope: EditScope,
    /// Where to write the structured summary of each finished attempt
    /// (an agent's `summary_file:`; absolute).
    pub summary_file: Option<PathBuf>,
    /// Where the CLI works: in `request.cwd` (shared), or in the same
    /// folder of the run's git worktree.
    pub workspace: WorkspaceMode,
    /// Registry tools the agent may call (`--tools` and the agent's
    /// `tools:`), offered by the run's
    /// `ToolServer` (in `run`) as one more MCP server.
    pub tools: Vec<String>,
    /// The key its provider's quota state is stored under on this host:
    /// the provider's name, or `provider@account` (see
    /// [`Config::quota_key`](crate::config::Config::quota_key)).
    pub quota_key: String,
    /// What the caller must be told before the step runs (an agent's mode
    /// mapped onto a permission mode its CLI has); each attempt emits them
    /// as `status` notices.
    pub notices: Vec<String>,
    /// When a `--session` turn starts a new native session instead of
    /// resuming (`--max-context-tokens`, the agent's
    /// `max_context_tokens`); `None`: never.
    pub rotation: Option<crate::session_rotation::RotationPolicy>,
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Step")
            .field("agent", &self.agent)
            .field("provider", &self.provider.name())
            .field("request", &self.request)
            .field("binary", &self.binary)
            .field("timeout", &self.timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("deadline", &self.deadline)
            .field("default_model", &self.default_model)
            .field("retry_on", &self.retry_on.is_some())
            .field("output_schema", &self.output_schema.is_some())
            .field("edit_scope", &self.edit_scope)
            .field("workspace", &self.workspace)
            .field("quota_key", &self.quota_key)
            .field("tools", &self.tools)
            .field("notices", &self.notices)
            .field("rotation", &self.rotation)
            .finish_non_exhaustive()
    }
}

impl Step {
    /// A step of `provider` with `request` and nothing else set.
    pub fn new(provider: Arc<dyn Provider>, request: CliRequest) -> Step {
        let quota_key = provider.name().to_owned();
        Step {
            quota_key,
            agent: None,
            provider,
            request,
            resumed_prompt: None,
            prompt: PromptShape::default(),
            binary: None,
            timeout: None,
            idle_timeout: None,
            deadline: agentgate_supervise::DeadlinePolicy::default(),
            model_source: ModelSource::CliDefault,
            model_resolution: None,
            effort: None,
            default_model: None,
            capacity_fallback: None,
            gateway: None,
            sandbox: None,
            retry_on: None,
            output_schema: None,
            edit_scope: EditScope::Any,
            summary_file: None,
            workspace: WorkspaceMode::Shared,
            tools: Vec::new(),
            notices: Vec::new(),
            rotation: None,
        }
    }

    /// The request to send: resuming `stored_session` (the native id a
    /// `--session` name maps to) unless the request resumes one already,
    /// and with the resumed prompt (no persona) when it resumes.
    pub fn request_for(&self, stored_session: Option<String>) -> CliRequest {
        let mut request = self.request.clone();
        if request.resume.is_none() {
            request.resume = stored_session;
        }
        if request.resume.is_some()
            && let Some(p) = &self.resumed_prompt
        {
            request.prompt = p.clone();
        }
        request
    }

    /// What the step is called in messages: the agent, else the provider.
    pub fn label(&self) -> String {
        match &self.agent {
            Some(a) if a != self.provider.name() => format!("{a} ({})", self.provider.name()),
            Some(a) => a.clone(),
            None => self.provider.name().to_owned(),
        }
    }
}

/// What a step's model gateway is started with: the run's limits and
/// recording, and the config's settings for the step's provider.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepGateway {
    /// The run's limits on its model use.
    pub limits: crate::config::GatewayLimits,
    /// Keep the model calls in the run's folder (`model-calls.jsonl`).
    pub record_model_calls: bool,
    /// CA certificates trusted for the upstream besides the system's.
    pub ca_file: Option<std::path::PathBuf>,
    /// Time allowed for the upstream's response headers.
    pub response_timeout: Option<std::time::Duration>,
    /// The upstream base URL, over the one the CLI would use.
    pub upstream: Option<String>,
    /// The variable of agentgate's environment that holds the real key.
    pub key_env: Option<String>,
    /// A file that holds the real key.
    pub key_file: Option<std::path::PathBuf>,
}

/// The sandbox a step's CLI runs in: its level (never `off`) and the
/// config's additions (the built-in rules are `run/sandbox_attempt.rs`'s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepSandbox {
    /// `workspace`, `strict` or `container`.
    pub level: agentgate_protocol::SandboxLevel,
    /// More variables the CLI keeps (the config's and its provider's
    /// `env_allow`): names, or prefixes ending in `*`.
    pub env_allow: Vec<String>,
    /// More paths hidden from the CLI.
    pub hide: Vec<PathBuf>,
    /// More paths the CLI may read.
    pub read_allow: Vec<PathBuf>,
    /// More paths the CLI may write.
    pub write_allow: Vec<PathBuf>,
    /// `strict`: `host:port` destinations reachable through the run's
    /// CONNECT proxy.
    pub egress_allow: Vec<String>,
    /// `container`: how the CLI is started in a container.
    pub container: Option<crate::config::ContainerSpec>,
}

impl StepSandbox {
    /// `level` with the built-in rules only (no additions, no container).
    pub fn at(level: agentgate_protocol::SandboxLevel) -> StepSandbox {
        StepSandbox {
            level,
            env_allow: Vec::new(),
            hide: Vec::new(),
            read_allow: Vec::new(),
            write_allow: Vec::new(),
            egress_allow: Vec::new(),
            container: None,
        }
    }
}
