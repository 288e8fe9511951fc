//! `sandbox:`: how agent CLIs are confined (docs/guide/sandbox.md).
//!
//! ```yaml
//! sandbox:
//!   level: workspace            # every run's level (default: off); --sandbox wins
//!   require: workspace          # serve/worker refuse runs that ask for less (422)
//!   env_allow: [CORP_PROXY_CA, "MYTOOL_*"]   # more variables the CLI keeps
//!   hide: [~/.kube, ~/work/secrets]           # more paths hidden from the CLI
//!   read_allow: [/opt/sdk]      # more paths it may read
//!   write_allow: [~/.cache/pip] # more paths it may write
//!   egress_allow: [github.com:443, registry.npmjs.org:443]  # strict: through a CONNECT proxy
//!   container: {engine: podman, image: "localhost/agents:1", args: [--memory, 2g]}
//!   providers:
//!     codex: {level: strict, env_allow: [CODEX_EXTRA]}
//! ```

use std::path::PathBuf;

pub use agentgate_protocol::SandboxLevel;

/// One provider's sandbox settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxProviderSpec {
    /// The provider (a built-in name, or a described CLI's).
    pub provider: String,
    /// Its runs' level (over `sandbox.level`).
    pub level: Option<SandboxLevel>,
    /// More variables its CLI keeps.
    pub env_allow: Vec<String>,
}

/// `sandbox.container`: how `container` runs start the CLI.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContainerSpec {
    /// `docker`, `podman` or a path to either (or a compatible engine);
    /// `None`: `podman` if on `PATH`, else `docker`.
    pub engine: Option<String>,
    /// The image `run --rm` starts (must hold the CLI); or
    pub image: Option<String>,
    /// a running container to `exec` the CLI in.
    pub name: Option<String>,
    /// More arguments for `run` (or `exec`), before the image.
    pub args: Vec<String>,
}

/// `sandbox:` checked. Paths are absolute (`~` expanded, relative to the
/// config file's folder otherwise).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxConfig {
    /// Every run's level unless a provider's, an agent's, the request's or
    /// `--sandbox` says otherwise; `None` = `off`.
    pub level: Option<SandboxLevel>,
    /// `serve` and `worker` refuse a run whose level does not satisfy this
    /// ([`SandboxLevel::satisfies`]); `agentgate run` too.
    pub require: Option<SandboxLevel>,
    /// More variables every CLI keeps: names, or prefixes ending in `*`.
    pub env_allow: Vec<String>,
    /// More paths hidden from every CLI (besides `~/.ssh`, `~/.aws`, ...).
    pub hide: Vec<PathBuf>,
    /// More paths every CLI may read.
    pub read_allow: Vec<PathBuf>,
    /// More paths every CLI may write.
    pub write_allow: Vec<PathBuf>,
    /// `strict`: the `host:port` destinations reachable through the run's
    /// CONNECT proxy (besides the gateway).
    pub egress_allow: Vec<String>,
    /// `container`: how the CLI is started in a container.
    pub container: Option<ContainerSpec>,
    /// Per provider.
    pub providers: Vec<SandboxProviderSpec>,
}

impl SandboxConfig {
    /// The settings of `provider`, when the section names it.
    pub fn provider(&self, provider: &str) -> Option<&SandboxProviderSpec> {
        self.providers.iter().find(|p| p.provider == provider)
    }
}
