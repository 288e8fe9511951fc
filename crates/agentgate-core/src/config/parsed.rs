//! What every file format yields, and the checks they share: the leaf the
//! format readers (`file.rs`, `cli_agents.rs`, `providers_yaml.rs`) all
//! import.

use serde_saphyr::Spanned;

use super::agent::AgentSpec;
use super::automation::{ScheduleSpec, WatchSpec};
use super::chain::ChainSpec;
use super::defaults::ProviderDefaults;
use super::queue::QueueSpec;
use super::source::{CONFIG_VERSION, ConfigFormat};
use super::tools::ToolsSpec;
use super::yaml::Fault;
use agentgate_providers::custom::CustomProviderSpec;

/// What a file holds, checked.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub format: ConfigFormat,
    pub providers: Vec<CustomProviderSpec>,
    pub defaults: Vec<ProviderDefaults>,
    pub agents: Vec<AgentSpec>,
    pub chains: Vec<ChainSpec>,
    pub redact: Vec<String>,
    pub queue: QueueSpec,
    pub store: Option<agentgate_store::StoreLocation>,
    pub warnings: Vec<String>,
    pub schedules: Vec<ScheduleSpec>,
    pub watches: Vec<WatchSpec>,
    pub tools: ToolsSpec,
    pub approvals: crate::approvals::ApprovalPolicy,
    pub event_log: super::event_log::EventLogSpec,
    pub gateway: super::gateway::GatewaySpec,
    /// `sandbox:`.
    pub sandbox: super::sandbox::SandboxConfig,
    pub models: super::models::ModelsSpec,
    pub log_dir: Option<std::path::PathBuf>,
    pub log_name: Option<String>,
    pub debug_prompt: bool,
    pub quota_inbox: Option<std::path::PathBuf>,
    pub envelope: agentgate_protocol::EnvelopeFormat,
    /// `pricing:`.
    pub pricing: crate::cost::Pricing,
    /// `budgets:`.
    pub budgets: crate::budget::Budgets,
    /// `webhooks:`.
    pub webhooks: super::webhooks::WebhooksSpec,
}

/// Check the version a file declares.
pub(super) fn check_version(version: &Spanned<u32>) -> Result<(), Fault> {
    if version.value != CONFIG_VERSION {
        return Err(Fault::at(
            version,
            format!(
                "unsupported config version {} (this agentgate reads version {CONFIG_VERSION})",
                version.value
            ),
        ));
    }
    Ok(())
}

/// The keys of a provider's defaults, for messages.
pub(super) fn defaults_keys() -> &'static str {
    "binary, extra_args, extra_args_mode, env, env_remove, models, default_model, max_provider_retries, timeout, idle_timeout, timeout_warn, extend_on_activity, max_timeout, reasoning_effort, unsupported_effort, thinking_budget and max_turns"
}
