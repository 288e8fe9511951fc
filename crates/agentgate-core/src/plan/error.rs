//! Why a run could not be planned. Every variant says what to do next;
//! nothing was run.
//!
//! The message speaks `agentgate run`'s flags; [`PlanError::field`] names
//! the field of a run request (`POST /v1/runs`, a schedule's, a watched
//! folder's) the error is about, as data: each variant knows its field, or
//! carries the one it was made for. Nothing reads it back from the text.

use std::path::PathBuf;

use crate::config::UnknownProvider;
use crate::output_schema::OutputSchemaError;
use crate::prompt::PromptError;

/// A run that cannot be planned.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// No provider, agent or chain was asked for, and the config has no
    /// chain `default`.
    #[error("no provider: give --provider, --agent or --chain ({0})")]
    NoProvider(String),
    /// A provider neither built in nor described in the config.
    #[error(transparent)]
    UnknownProvider(#[from] UnknownProvider),
    /// An agent the config does not define.
    #[error("unknown agent `{name}` ({known})")]
    UnknownAgent {
        /// The name asked for.
        name: String,
        /// Which agents there are.
        known: String,
    },
    /// A chain the config does not define.
    #[error("unknown chain `{name}` ({known})")]
    UnknownChain {
        /// The name asked for.
        name: String,
        /// Which chains there are.
        known: String,
    },
    /// A setting that applies to one provider, given for several.
    #[error("{message}")]
    OneProviderOnly {
        /// The request field of the setting (`binary`, `resume`).
        field: &'static str,
        /// What to do instead.
        message: &'static str,
    },
    /// A working directory that does not exist.
    #[error("{described} does not exist: {source}")]
    Cwd {
        /// `--cwd DIR`, or `the working directory DIR of agent NAME`.
        described: String,
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file or folder of the flags could not be read.
    #[error("failed to read {what}: {source}")]
    Read {
        /// The request field it was given as (`system_file`), or `request`
        /// for what the request does not name (the current directory).
        field: &'static str,
        /// `--system-file PATH`, `the current directory`.
        what: String,
        /// Why.
        source: std::io::Error,
    },
    /// An input file could not be read, is larger than its limit or is
    /// not UTF-8 ([`read_text_file`](crate::read_text_file)).
    #[error("failed to read {what}: {reason}")]
    ReadInput {
        /// The request field it was given as (`system_file`).
        field: &'static str,
        /// `--system-file PATH`.
        what: String,
        /// Why (in the message, so not a `source`).
        reason: crate::read_limit::ReadLimitError,
    },
    /// An agent's permissions file is not one.
    #[error("the permissions file {path} of agent `{agent}` cannot be used: {reason}")]
    Permissions {
        /// The agent.
        agent: String,
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        reason: String,
    },
    /// The prompt could not be assembled.
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// A file of the task input's `files` could not be used (read as
    /// context files are, so its message is a context file's).
    #[error(transparent)]
    TaskFile(PromptError),
    /// An output schema that cannot be used.
    #[error(transparent)]
    OutputSchema(#[from] OutputSchemaError),
    /// A variable the run's environment or an MCP server's would set is
    /// one of agentgate's own (`AGENTGATE_*`), which never reach a CLI or
    /// a tool ([`agentgate_supervise::own_env`]).
    #[error(
        "{place} sets `{name}`: agentgate's own variables (AGENTGATE_*) never reach an agent's CLI or its tools; remove it (from --env, the request's `env`, the config's `env:` or the MCP server's `env`)"
    )]
    OwnVariable {
        /// The request field that sets it (`env`), or `request` for what a
        /// request cannot give (an MCP server's environment).
        field: &'static str,
        /// Where: `the run's environment`, `MCP server NAME`.
        place: String,
        /// The variable.
        name: String,
    },
    /// A skill the step's CLI cannot see (`--skill`): the CLIs themselves
    /// would pass an unknown `/name` to the model in silence.
    #[error("skill `{name}` not found for {provider} (searched {searched})")]
    SkillNotFound {
        /// The skill asked for.
        name: String,
        /// The provider.
        provider: String,
        /// The folders looked in.
        searched: String,
    },
    /// A skill whose `SKILL.md` cannot be used.
    #[error("skill `{name}` of {provider} cannot be used: {path}: {reason}")]
    SkillUnusable {
        /// The skill.
        name: String,
        /// The provider.
        provider: String,
        /// Its `SKILL.md`.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The wrapper `providers.yaml` a variable names is missing or bad.
    #[error(
        "the wrapper providers.yaml (AI_CLI_PROVIDERS_CONFIG / AUTONOM8_PROVIDERS_CONFIG): {0}"
    )]
    WrapperModels(#[source] crate::config::ConfigError),
    /// A model name that is the tail of several of the catalog's ids
    /// (`invalid_input`).
    #[error(
        "invalid_input: {provider} model `{model}` is ambiguous in its catalog: it could be {candidates}; give the full id"
    )]
    ModelAmbiguous {
        /// The provider.
        provider: String,
        /// The name asked for.
        model: String,
        /// The ids it could be, comma-separated.
        candidates: String,
    },
    /// A model the CLI's own catalog lacks, with `models.validate: strict`
    /// (`invalid_model`).
    #[error(
        "invalid_model: {provider} has no model `{model}` in its catalog (`agentgate models --provider {provider}` lists them; `--refresh` asks the CLI again)"
    )]
    ModelNotInCatalog {
        /// The provider.
        provider: String,
        /// The name asked for.
        model: String,
    },
    /// `--record-model-calls` or a limit on model use, and no step has a
    /// gateway to keep or enforce it.
    #[error("{flag} needs a model gateway: add --gateway (or `gateway:` in the config)")]
    NeedsGateway {
        /// The flag, e.g. `--max-model-calls`.
        flag: &'static str,
    },
    /// A step whose sandbox level does not meet the config's
    /// `sandbox.require` (`invalid_input`): `serve` and `worker` refuse
    /// the request with 422 on the field `sandbox`.
    #[error(
        "invalid_input: {provider} would run at sandbox level `{level}` ({from}), and this config requires `{required}` (`sandbox.require`): ask for {met} (--sandbox {required}; a request's \"sandbox\": \"{required}\")"
    )]
    SandboxBelowRequired {
        /// The step's provider (and agent).
        provider: String,
        /// The level the step would run at.
        level: agentgate_protocol::SandboxLevel,
        /// Where that level came from (`--sandbox`, an agent's `sandbox:`,
        /// the config's `sandbox.level`, the default).
        from: String,
        /// The level the config requires.
        required: agentgate_protocol::SandboxLevel,
        /// The levels that meet it, for the message.
        met: String,
    },
    /// Sandbox level `strict` for a provider that cannot run behind the
    /// model gateway (its only way out of the sandbox's network).
    #[error(
        "sandbox level `strict` reaches the model only through the model gateway, and {provider} cannot run behind one ({why}): give it --sandbox workspace or container"
    )]
    SandboxNeedsRoute {
        /// The provider.
        provider: String,
        /// Why it has no gateway route.
        why: &'static str,
    },
    /// Sandbox level `strict` with the gateway turned off by the flags.
    #[error(
        "sandbox level `strict` reaches the model only through the model gateway: drop --no-gateway (a request's \"gateway\": false)"
    )]
    SandboxGatewayOff,
    /// Sandbox level `container` without `sandbox.container` in the config.
    #[error(
        "sandbox level `container` needs `sandbox.container` in the config (its engine, and the image to start or a running container's name)"
    )]
    SandboxNoContainer,
    /// No step of a chain can see the skill: each one's reason.
    #[error("no provider of the run can use skill `{name}`: {reasons}")]
    SkillNowhere {
        /// The skill asked for.
        name: String,
        /// Each provider's reason, joined.
        reasons: String,
    },
}

impl PlanError {
    /// The field of a run request this error is about: the snake_case
    /// name of the `agentgate run` flag at fault (`providers`, `cwd`,
    /// `system_file`, ...), or `request` when no field of the request is
    /// (the server's own working directory, an MCP server of the library's
    /// flags).
    pub fn field(&self) -> &'static str {
        match self {
            PlanError::NoProvider(_) | PlanError::UnknownProvider(_) => "providers",
            PlanError::UnknownAgent { .. } | PlanError::Permissions { .. } => "agents",
            PlanError::UnknownChain { .. } => "chain",
            PlanError::NeedsGateway { .. } | PlanError::SandboxGatewayOff => "gateway",
            PlanError::SandboxBelowRequired { .. }
            | PlanError::SandboxNeedsRoute { .. }
            | PlanError::SandboxNoContainer => "sandbox",
            PlanError::Cwd { .. } => "cwd",
            PlanError::OutputSchema(_) => "output_schema",
            PlanError::Prompt(e) => e.field(),
            PlanError::TaskFile(_) => "task",
            PlanError::SkillNotFound { .. }
            | PlanError::SkillUnusable { .. }
            | PlanError::SkillNowhere { .. } => "skill",
            PlanError::ModelAmbiguous { .. }
            | PlanError::ModelNotInCatalog { .. }
            | PlanError::WrapperModels(_) => "model",
            PlanError::OneProviderOnly { field, .. }
            | PlanError::Read { field, .. }
            | PlanError::ReadInput { field, .. }
            | PlanError::OwnVariable { field, .. } => field,
        }
    }
}

/// A run request the planner refused: the field is the one the error
/// carries ([`PlanError::field`]), never read from its message.
impl From<PlanError> for crate::request::RequestError {
    fn from(e: PlanError) -> Self {
        crate::request::RequestError::new(e.field(), e.to_string())
    }
}

#[cfg(test)]
mod tests;
