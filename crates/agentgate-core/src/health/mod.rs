//! Provider health: whether each CLI is installed, its version, where its
//! login comes from (read from the provider's description, see
//! [`agentgate_providers::Login`]) and whether it can resume sessions. No model
//! is called: the only process started is the CLI's `--version`
//! (`probe.rs`). And the host's sandbox support (`sandbox.rs`: bubblewrap,
//! the container engines, the kernel's side the caller probed; the data in
//! `host.rs`), judged per level (`levels.rs`).

mod host;
mod levels;
mod probe;
mod sandbox;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use agentgate_providers::{Login, LoginState, login_evidence};
use agentgate_providers::{Provider, locate_binary};

pub use host::{EngineHealth, HostCapability, KernelSupport, ProgramHealth};
pub use levels::{LevelSupport, level_support};
pub use probe::{DEFAULT_PROBE_TIMEOUT, ProbeError, Version, probe_version};
pub use sandbox::{CONTAINER_ENGINES, SandboxHealth, check_sandbox};

/// One provider's health.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProviderHealth {
    /// The provider's name.
    pub name: String,
    /// `builtin` or `config`.
    pub adapter_kind: &'static str,
    /// Whether its executable was found.
    pub installed: bool,
    /// The executable, when found.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub path: Option<PathBuf>,
    /// Why it was not found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_found: Option<String>,
    /// The version number `--version` printed.
    pub version: Option<String>,
    /// The line of `--version` output the number was read from.
    pub version_line: Option<String>,
    /// Why the version probe failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe_error: Option<String>,
    /// How long the version probe took, in milliseconds.
    pub latency_ms: Option<u64>,
    /// The login evidence.
    pub login: Login,
    /// Whether the adapter can resume sessions.
    pub sessions: bool,
    /// Installed and its version probe succeeded.
    pub usable: bool,
}

/// Check one provider: locate it, probe its version, read its login evidence.
pub fn check(
    provider: &dyn Provider,
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
    timeout: Duration,
) -> ProviderHealth {
    let login = match home {
        Some(h) => login_evidence(provider.login(), h, env),
        None => Login {
            state: LoginState::Unknown,
            evidence: vec!["HOME is not set".to_owned()],
            checked: Vec::new(),
        },
    };
    let mut health = ProviderHealth {
        name: provider.name().to_owned(),
        adapter_kind: provider.adapter_kind(),
        installed: false,
        path: None,
        not_found: None,
        version: None,
        version_line: None,
        probe_error: None,
        latency_ms: None,
        login,
        sessions: provider.features().resume,
        usable: false,
    };
    let program = match locate_binary(provider, None) {
        Ok(p) => p,
        Err(e) => {
            health.not_found = Some(e.detail);
            return health;
        }
    };
    health.installed = true;
    let start = Instant::now();
    let probe = probe_version(&program, timeout);
    health.latency_ms = Some(u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX));
    health.path = Some(program);
    match probe {
        Ok(v) => {
            health.version = v.number;
            health.version_line = Some(v.line);
            health.usable = true;
        }
        Err(e) => health.probe_error = Some(e.to_string()),
    }
    health
}

/// What `agentgate health --json` prints and `GET /v1/health` answers.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HealthReport {
    /// One entry per provider checked, in the order given.
    pub providers: Vec<ProviderHealth>,
    /// What this host can enforce for `--sandbox`.
    pub sandbox: SandboxHealth,
}

/// Check `providers` side by side (each probe is a separate CLI start-up,
/// each bounded by `timeout`), reading login evidence under `home` and
/// variables through `env`, and the sandbox's programs (found on `env`'s
/// `PATH`) with `kernel` (what `agentgate __sandbox --probe` found).
/// Blocks until every probe ended.
pub fn check_all(
    providers: &[std::sync::Arc<dyn Provider>],
    home: Option<&Path>,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
    timeout: Duration,
    kernel: KernelSupport,
) -> HealthReport {
    let path = env("PATH").map(std::ffi::OsString::from);
    std::thread::scope(|s| {
        let sandbox = s.spawn(|| check_sandbox(kernel, path.as_deref(), timeout));
        let handles: Vec<_> = providers
            .iter()
            .map(|p| s.spawn(move || check(p.as_ref(), home, env, timeout)))
            .collect();
        let providers = handles.into_iter().filter_map(|h| h.join().ok()).collect();
        HealthReport {
            providers,
            sandbox: sandbox.join().unwrap_or_default(),
        }
    })
}
