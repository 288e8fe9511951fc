//! Provider health: whether each CLI is installed, its version, where its
//! login comes from (read from the provider's description, see
//! [`agentgate_providers::Login`]) and whether it can resume sessions. No model
//! is called: the only process started is the CLI's `--version`.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;

use agentgate_providers::{Login, LoginState, login_evidence};
use agentgate_providers::{Provider, locate_binary};

/// The default bound on one `--version` probe.
pub const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// What `<cli> --version` printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// The version number, e.g. `2.1.197`, when the output holds one.
    pub number: Option<String>,
    /// The first non-empty line of its output.
    pub line: String,
}

/// A `--version` probe that did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The executable could not be started.
    #[error("failed to start {program}: {source} (check that it is executable)")]
    Spawn {
        /// The executable.
        program: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It did not exit in time; it was killed.
    #[error("`{program} --version` did not exit within {}s and was killed", after.as_secs())]
    TimedOut {
        /// The executable.
        program: PathBuf,
        /// The bound.
        after: Duration,
    },
    /// It exited unsuccessfully.
    #[error("`{program} --version` failed ({status}): {output}")]
    Failed {
        /// The executable.
        program: PathBuf,
        /// The exit status.
        status: String,
        /// The first line of its output.
        output: String,
    },
}

/// Run `program --version` in its own process group, killing the group at
/// `timeout` (and whatever it left behind when it exits).
pub fn probe_version(program: &Path, timeout: Duration) -> Result<Version, ProbeError> {
    let mut command = Command::new(program);
    agentgate_supervise::own_env::scrub_command(&mut command);
    let mut child = command
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|source| ProbeError::Spawn {
            program: program.to_path_buf(),
            source,
        })?;
    let readers = [
        child.stdout.take().map(|r| drain(Box::new(r))),
        child.stderr.take().map(|r| drain(Box::new(r))),
    ];
    let pgid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(10)),
            _ => break None,
        }
    };
    // The group outlives its leader only through what the CLI left behind.
    let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
    let _ = child.wait();
    let [out, err] = readers.map(|r| {
        r.and_then(|rx| rx.recv_timeout(Duration::from_secs(2)).ok())
            .unwrap_or_default()
    });
    let Some(status) = status else {
        return Err(ProbeError::TimedOut {
            program: program.to_path_buf(),
            after: timeout,
        });
    };
    let first_line = |s: &str| {
        s.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or_default()
            .to_owned()
    };
    if !status.success() {
        let output = first_line(&err);
        return Err(ProbeError::Failed {
            program: program.to_path_buf(),
            status: status.to_string(),
            output: if output.is_empty() {
                first_line(&out)
            } else {
                output
            },
        });
    }
    let number = version_number(&out).or_else(|| version_number(&err));
    let line = out
        .lines()
        .chain(err.lines())
        .map(str::trim)
        .find(|l| number.as_deref().is_none_or(|n| l.contains(n)) && !l.is_empty())
        .unwrap_or_default()
        .to_owned();
    Ok(Version { number, line })
}

fn drain(mut r: Box<dyn Read + Send>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        let _ = tx.send(String::from_utf8_lossy(&buf).into_owned());
    });
    rx
}

/// The first `N.N.N...` token of a text.
fn version_number(text: &str) -> Option<String> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
        .map(|w| w.trim_start_matches('v'))
        .find(|w| {
            let mut parts = w.split('.');
            let numeric = |p: Option<&str>| {
                p.is_some_and(|p| !p.is_empty() && p.starts_with(|c: char| c.is_ascii_digit()))
            };
            numeric(parts.next()) && numeric(parts.next())
        })
        .map(str::to_owned)
}

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
}

/// Check `providers` side by side (each probe is a separate CLI start-up,
/// each bounded by `timeout`), reading login evidence under `home` and
/// variables through `env`. Blocks until every probe ended.
pub fn check_all(
    providers: &[std::sync::Arc<dyn Provider>],
    home: Option<&Path>,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
    timeout: Duration,
) -> HealthReport {
    let providers = std::thread::scope(|s| {
        let handles: Vec<_> = providers
            .iter()
            .map(|p| s.spawn(move || check(p.as_ref(), home, env, timeout)))
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    HealthReport { providers }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_numbers() {
        assert_eq!(
            version_number("2.1.197 (Claude Code)").as_deref(),
            Some("2.1.197")
        );
        assert_eq!(
            version_number("codex-cli 0.169.0\n").as_deref(),
            Some("0.169.0")
        );
        assert_eq!(version_number("v1.2.3-beta").as_deref(), Some("1.2.3-beta"));
        assert_eq!(version_number("no version here."), None);
    }

    #[test]
    fn probe_kills_a_hung_cli() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("hang");
        std::fs::write(&script, "#!/bin/sh\nsleep 30\n").unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let start = Instant::now();
        let r = probe_version(&script, Duration::from_millis(300));
        assert!(matches!(r, Err(ProbeError::TimedOut { .. })), "{r:?}");
        assert!(start.elapsed() < Duration::from_secs(20));
    }

    #[test]
    fn probe_reports_failure() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("bad");
        std::fs::write(&script, "#!/bin/sh\necho 'broken install' >&2\nexit 3\n").unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let r = probe_version(&script, Duration::from_secs(10));
        match r {
            Err(ProbeError::Failed { output, .. }) => assert_eq!(output, "broken install"),
            other => panic!("expected a failure, got {other:?}"),
        }
    }
}
