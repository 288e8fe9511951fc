//! The config file: versioned, strict YAML.
//!
//! ```yaml
//! version: 1
//! providers:
//!   mycli:
//!     command: [mycli, --print, [--model, "{model}"], "{prompt}"]
//!     output: jsonl
//!     final: {type: result}
//!     text: /result
//!     session_id: /session_id
//! ```
//!
//! An unknown key is an error that names the key and its line, so that a
//! typo never silently changes what runs. [`Discovery`] says which file is
//! read; `providers:` describes CLIs agentgate has no adapter for
//! ([`CustomProviderSpec`], run by [`agentgate_providers::CustomProvider`]) and
//! gives providers their defaults ([`ProviderDefaults`]); `agents:`
//! ([`AgentSpec`]) and `chains:` ([`ChainSpec`]) name what runs;
//! `redact:` lists values a run must never print or store; `queue:`
//! ([`QueueSpec`]) bounds `agentgate serve`'s queue; `schedules:` and
//! `watch:` ([`ScheduleSpec`], [`WatchSpec`]) are the runs `agentgate
//! serve` starts by itself; `tools:` ([`ToolsSpec`]) says where the
//! deterministic tools are (`agentgate-tools` reads their manifests);
//! `event_log:` ([`EventLogSpec`]) bounds each run's stored events;
//! `gateway:` ([`GatewaySpec`]) puts a model gateway in front of runs;
//! `sandbox:` ([`SandboxConfig`]) confines their CLIs and sets the level
//! `serve` and `worker` require;
//! `models:` ([`ModelsSpec`]) how catalogs are kept and used; `pricing:`
//! overrides and extends the rate card (`crate::cost`). Two
//! formats users migrate from are read too, told apart by their content
//! ([`ConfigFormat`]). `docs/config.md` is the reference,
//! `docs/custom-providers.md` the guide to described CLIs.

mod accounts;
mod agent;
mod approvals;
mod automation;
mod budgets;
mod chain;
mod cli_agents;
mod custom;
mod defaults;
mod discover;
mod event_log;
mod file;
mod gateway;
mod model;
mod models;
mod origin;
mod parsed;
mod paths;
mod pricing;
mod providers_yaml;
mod queue;
mod retry;
mod sandbox;
mod settings;
mod source;
mod tools;
mod webhooks;
mod wrapper_models;
mod yaml;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use crate::retry_on::{
    LEGACY_NAMES, RetryOn, RetryPattern, kind_named, retry_admits, retry_on_from_names,
};
pub use accounts::{ACCOUNT_MAX_LEN, account_env_for, check_account, quota_key, split_quota_key};
pub use agent::{AgentMode, AgentSpec};
pub use automation::{
    CATCH_UP_MAX, DEFAULT_POLL, DEFAULT_SETTLE, MIN_POLL, OnFailure, Overlap, ScheduleSpec,
    WatchSpec,
};
pub use chain::{ChainSpec, Handoff, OnDirty};
pub use cli_agents::DEFAULT_CHAIN;
pub use defaults::ProviderDefaults;
pub use discover::{
    CONFIG_ENV, Discovery, GARDENER_CONFIG_ENV, GARDENER_PROJECT_FILE, PROJECT_FILES,
};
pub use event_log::{EVENT_LOG_MIN_BYTES, EventLogSpec};
pub use gateway::{GatewayLimits, GatewayProviderSpec, GatewaySpec};
pub use model::{ModelChoice, ModelSource};
pub use models::{DEFAULT_CATALOG_REFRESH, GEMINI_CAPACITY_FALLBACK, ModelValidation, ModelsSpec};
pub use origin::Origins;
pub use queue::{DEFAULT_MAX_RUNNING, LeaseExpiry, QueueSpec};
pub use sandbox::{ContainerSpec, SandboxConfig, SandboxLevel, SandboxProviderSpec};
pub use source::{CONFIG_VERSION, ConfigError, ConfigFormat, ConfigSource};
pub use tools::ToolsSpec;
pub use webhooks::{WebhookEvent, WebhookSecretSource, WebhookSubscription, WebhooksSpec};
pub use wrapper_models::{WRAPPER_CONFIG_VARS, WRAPPER_FILES, WrapperModels, find_wrapper_models};

use crate::read_limit::{CONFIG_MAX_BYTES, read_text_file};
use agentgate_providers::custom::{CustomProvider, CustomProviderSpec};
use agentgate_providers::{Provider, builtin, builtin_names, builtins, description};

/// A loaded config.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Where it came from.
    pub source: ConfigSource,
    /// The custom providers, in file order.
    pub providers: Vec<CustomProviderSpec>,
    /// The file's format.
    pub format: ConfigFormat,
    /// Per-provider defaults, in file order (one per `providers:` entry).
    pub defaults: Vec<ProviderDefaults>,
    /// The agents, in file order.
    pub agents: Vec<AgentSpec>,
    /// The chains, in file order.
    pub chains: Vec<ChainSpec>,
    /// Literal values (`redact:`) that every run replaces with `[redacted]`
    /// in what it prints and stores, as it does secret-named variables.
    pub redact: Vec<String>,
    /// `queue:`: the limits and policies of `agentgate serve`'s queue.
    pub queue: QueueSpec,
    /// `store:`: the store every command uses unless `--store` or
    /// `AGENTGATE_STORE` names one (a PostgreSQL URL, or a SQLite file).
    pub store: Option<agentgate_store::StoreLocation>,
    /// The schedules (`schedules:`), in file order: runs `agentgate serve`
    /// enqueues at each fire of a cron expression.
    pub schedules: Vec<ScheduleSpec>,
    /// The watched folders (`watch:`), in file order: each new file becomes
    /// a run of `agentgate serve`.
    pub watches: Vec<WatchSpec>,
    /// `tools:`: where the deterministic tools are (the registry, the
    /// policy file) and the tools the file defines itself.
    pub tools: ToolsSpec,
    /// `approvals:`: how permission requests of runs in mode `ask` are
    /// answered (no section: every request denied).
    pub approvals: crate::approvals::ApprovalPolicy,
    /// `event_log:`: the bound on each run's event log.
    pub event_log: EventLogSpec,
    /// `gateway:`: the model gateway in front of runs (which runs, their
    /// limits, the upstreams and keys per provider).
    pub gateway: GatewaySpec,
    /// `sandbox:`: how agent CLIs are confined (the level of runs, the
    /// level `serve` and `worker` require, what the CLIs may keep, read,
    /// write and reach).
    pub sandbox: SandboxConfig,
    /// `models:`: catalog refresh, model validation, Gemini's capacity
    /// fallback.
    pub models: ModelsSpec,
    /// `log_dir:`: every run writes its log file in this folder (see
    /// `agentgate run --log-dir`); an agent's `log_dir:` wins for runs it
    /// starts, the flag over both.
    pub log_dir: Option<PathBuf>,
    /// `log_name:`: the log file's name template (`crate::log_name`).
    pub log_name: Option<String>,
    /// `debug_prompt:`: every run saves the prompt it sends, redacted, as
    /// `prompt.txt` in its run folder (see `agentgate run --debug-prompt`).
    pub debug_prompt: bool,
    /// `quota_inbox:`: the folder each quota error is also written to as
    /// a JSON file (`crate::quota_inbox`), for orchestrators that read files.
    pub quota_inbox: Option<PathBuf>,
    /// `envelope:`: the envelope `agentgate run` prints (`agentgate`, or
    /// `wrapper` for the shell wrappers' form; `--envelope` wins).
    pub envelope: agentgate_protocol::EnvelopeFormat,
    /// `pricing:`: the rate card with the file's entries in front of the
    /// built-in ones, and the CLI-vs-card flag's threshold.
    pub pricing: crate::cost::Pricing,
    /// `budgets:`: limits on what runs spend (`crate::budget`).
    pub budgets: crate::budget::Budgets,
    /// `webhooks:`: the signing secret's source, whether private addresses
    /// may be delivered to, the subscriptions.
    pub webhooks: WebhooksSpec,
    /// The accounts the environment names (`AGENTGATE_<PROVIDER>_ACCOUNT`),
    /// by provider; they win over the file's `account:` (see
    /// [`Config::account`]).
    pub account_env: Vec<(String, String)>,
    /// What the file asks that agentgate does not do (e.g. cli_agents
    /// command arguments that a built-in adapter replaces).
    pub warnings: Vec<String>,
}

impl Config {
    /// The config of this process: `flag` (`--config`), else discovery
    /// from the environment and the working directory.
    /// It also reads the accounts the environment names
    /// (`AGENTGATE_<PROVIDER>_ACCOUNT`).
    pub fn load(flag: Option<&Path>) -> Result<Config, ConfigError> {
        Config::load_source(Discovery::from_process(flag)?.find()?)
    }

    /// The config at `source`, found before (the session host reads the
    /// file its client found), with the account variables of this
    /// process's environment.
    pub fn load_source(source: ConfigSource) -> Result<Config, ConfigError> {
        let mut config = Config::read(source)?;
        config.read_account_env(&|name| std::env::var(name).ok())?;
        Ok(config)
    }

    /// The config that `discovery` finds.
    pub fn discover(discovery: &Discovery) -> Result<Config, ConfigError> {
        Config::read(discovery.find()?)
    }

    /// Read the file of `source` (nothing for [`ConfigSource::Default`]).
    pub fn read(source: ConfigSource) -> Result<Config, ConfigError> {
        let Some(path) = source.path() else {
            return Ok(Config::default());
        };
        let text = read_text_file(path, CONFIG_MAX_BYTES, "a config file").map_err(|e| {
            ConfigError::Read {
                path: path.to_path_buf(),
                reason: e,
            }
        })?;
        let file = path.to_path_buf();
        let config = Config::parse(&text, source)?;
        tracing::info!(
            file = %file.display(),
            found_by = config.source.kind(),
            format = config.format.as_str(),
            "read the config file"
        );
        Ok(config)
    }

    /// Parse a config's text (any of the [`ConfigFormat`]s); `source`
    /// names the file in errors, and relative paths are relative to its
    /// folder.
    pub fn parse(text: &str, source: ConfigSource) -> Result<Config, ConfigError> {
        let path = source
            .path()
            .map_or_else(|| PathBuf::from("<config>"), Path::to_path_buf);
        let p = file::parse(text, &path)?;
        Ok(Config {
            source,
            providers: p.providers,
            format: p.format,
            defaults: p.defaults,
            agents: p.agents,
            chains: p.chains,
            redact: p.redact,
            queue: p.queue,
            store: p.store,
            warnings: p.warnings,
            schedules: p.schedules,
            watches: p.watches,
            tools: p.tools,
            approvals: p.approvals,
            event_log: p.event_log,
            gateway: p.gateway,
            sandbox: p.sandbox,
            models: p.models,
            log_dir: p.log_dir,
            log_name: p.log_name,
            debug_prompt: p.debug_prompt,
            quota_inbox: p.quota_inbox,
            envelope: p.envelope,
            pricing: p.pricing,
            budgets: p.budgets,
            webhooks: p.webhooks,
            account_env: Vec::new(),
        })
    }

    /// The agent `name`.
    pub fn agent(&self, name: &str) -> Option<&AgentSpec> {
        self.agents.iter().find(|a| a.name == name.trim())
    }

    /// The chain `name`.
    pub fn chain(&self, name: &str) -> Option<&ChainSpec> {
        self.chains.iter().find(|c| c.name == name.trim())
    }

    /// The defaults of `provider` (a built-in name in any case, or a
    /// described CLI's name).
    pub fn provider_defaults(&self, provider: &str) -> Option<&ProviderDefaults> {
        let provider = provider.trim();
        let canonical = description(provider).map_or(provider, |d| d.name);
        self.defaults
            .iter()
            .find(|d| d.provider == canonical)
            .or_else(|| {
                self.defaults
                    .iter()
                    .find(|d| d.provider.eq_ignore_ascii_case(canonical))
            })
    }

    /// The description of the custom provider `name` (exact, else ignoring
    /// case).
    pub fn provider_spec(&self, name: &str) -> Option<&CustomProviderSpec> {
        let name = name.trim();
        self.providers.iter().find(|p| p.name == name).or_else(|| {
            self.providers
                .iter()
                .find(|p| p.name.eq_ignore_ascii_case(name))
        })
    }

    /// The custom provider `name`, ready to run.
    pub fn provider(&self, name: &str) -> Option<CustomProvider> {
        self.provider_spec(name)
            .map(|s| CustomProvider::from_checked(s.clone()))
    }

    /// The model of a run of `provider`: `flag` (`--model`), else
    /// `agent_model`; a requested name that is an alias of the provider's
    /// `models:` becomes its target; with nothing requested, the provider's
    /// `default_model` (itself alias-resolved); else the CLI's default.
    pub fn resolve_model(
        &self,
        provider: &str,
        flag: Option<&str>,
        agent_model: Option<&str>,
    ) -> ModelChoice {
        self.resolve_model_with(provider, None, flag, agent_model)
    }

    /// [`Config::resolve_model`] with a wrapper `providers.yaml`'s aliases
    /// and `default_model` first ([`find_wrapper_models`]).
    pub fn resolve_model_with(
        &self,
        provider: &str,
        wrapper: Option<&WrapperModels>,
        flag: Option<&str>,
        agent_model: Option<&str>,
    ) -> ModelChoice {
        model::resolve(
            provider,
            &self.model_layers(provider, wrapper),
            flag,
            agent_model,
        )
    }

    fn model_layers<'a>(
        &'a self,
        provider: &str,
        wrapper: Option<&'a WrapperModels>,
    ) -> Vec<model::Layer<'a>> {
        let canonical = description(provider.trim()).map_or(provider.trim(), |d| d.name);
        wrapper
            .and_then(|w| w.provider(canonical).map(|d| (d, Some(w.path.as_path()))))
            .into_iter()
            .chain(self.provider_defaults(provider).map(|d| (d, None)))
            .collect()
    }

    /// The provider's `default_model` (alias-resolved): the model of a run
    /// that requests none, and of the one retry after an invalid-model
    /// error. `None`: the config gives none.
    pub fn default_model(&self, provider: &str) -> Option<String> {
        self.default_model_with(provider, None)
    }

    /// [`Config::default_model`] with a wrapper `providers.yaml`'s first.
    pub fn default_model_with(
        &self,
        provider: &str,
        wrapper: Option<&WrapperModels>,
    ) -> Option<String> {
        model::default_model(&self.model_layers(provider, wrapper)).map(|(m, _)| m)
    }

    /// Every custom provider, in file order.
    pub fn custom_providers(&self) -> Vec<CustomProvider> {
        self.providers
            .iter()
            .map(|s| CustomProvider::from_checked(s.clone()))
            .collect()
    }

    /// The provider `name`: a built-in one, else one this config describes.
    pub fn resolve_provider(&self, name: &str) -> Result<Arc<dyn Provider>, UnknownProvider> {
        if let Some(p) = builtin(name) {
            return Ok(p);
        }
        if let Some(p) = self.provider(name) {
            return Ok(Arc::new(p));
        }
        let described = match self.source.path() {
            None => {
                "no config file was found (see docs/custom-providers.md to describe another CLI)"
                    .to_owned()
            }
            Some(path) if self.providers.is_empty() => {
                format!("the config file {} describes none", path.display())
            }
            Some(path) => format!(
                "the config file {} describes {}",
                path.display(),
                self.providers
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Err(UnknownProvider {
            name: name.to_owned(),
            message: format!(
                "unknown provider `{name}` (built in: {}; {described})",
                builtin_names()
            ),
        })
    }

    /// Every provider: the built-in ones, then the config's, in file order.
    pub fn all_providers(&self) -> Vec<Arc<dyn Provider>> {
        builtins()
            .into_iter()
            .chain(
                self.custom_providers()
                    .into_iter()
                    .map(|p| Arc::new(p) as Arc<dyn Provider>),
            )
            .collect()
    }
}

/// A provider name that is neither built in nor described in the config.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct UnknownProvider {
    /// The name asked for.
    pub name: String,
    /// What was asked, and which providers there are.
    pub message: String,
}

#[cfg(test)]
mod tests;
