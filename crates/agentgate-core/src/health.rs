//! Provider health: whether each CLI is installed, its version, where its
//! login comes from and whether it can resume sessions. No model is called:
//! the only process started is the CLI's `--version`.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::provider::{Provider, locate_binary};

/// The default bound on one `--version` probe.
pub const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a provider's login comes from, as far as files and variables tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoginState {
    /// The CLI's own credentials file exists (an interactive login).
    CredentialsFile,
    /// An API-key variable the CLI reads is set.
    ApiKeyEnv,
    /// The CLI's settings name the login (an auth type, a key, or a variable
    /// that is set).
    Settings,
    /// None of the places the CLI keeps its login holds one.
    NoneFound,
    /// agentgate does not know where this CLI keeps its login, or what it
    /// found is not conclusive.
    Unknown,
}

impl LoginState {
    /// The label the health table prints.
    pub fn as_str(self) -> &'static str {
        match self {
            LoginState::CredentialsFile => "credentials file",
            LoginState::ApiKeyEnv => "api key env",
            LoginState::Settings => "settings",
            LoginState::NoneFound => "none found",
            LoginState::Unknown => "unknown",
        }
    }
}

/// The login state with what it rests on. Never holds a secret's value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Login {
    /// The conclusion.
    pub state: LoginState,
    /// What was found, e.g. "ANTHROPIC_API_KEY is set".
    pub evidence: Vec<String>,
    /// Every place that was looked at.
    pub checked: Vec<String>,
}

/// Collects the evidence for one provider's login.
struct Probe<'a> {
    home: &'a Path,
    env: &'a dyn Fn(&str) -> Option<String>,
    state: Option<LoginState>,
    evidence: Vec<String>,
    checked: Vec<String>,
}

impl<'a> Probe<'a> {
    fn new(home: &'a Path, env: &'a dyn Fn(&str) -> Option<String>) -> Self {
        Probe {
            home,
            env,
            state: None,
            evidence: Vec::new(),
            checked: Vec::new(),
        }
    }

    fn var(&self, name: &str) -> Option<String> {
        (self.env)(name).filter(|v| !v.is_empty())
    }

    /// A directory from a variable, else under the home directory.
    fn dir(&self, var: &str, default: &str) -> PathBuf {
        self.var(var)
            .map(PathBuf::from)
            .unwrap_or_else(|| self.home.join(default))
    }

    fn found(&mut self, state: LoginState, evidence: String) {
        self.state.get_or_insert(state);
        self.evidence.push(evidence);
    }

    fn file(&mut self, path: &Path, state: LoginState) -> bool {
        self.checked.push(path.display().to_string());
        let exists = path.is_file();
        if exists {
            self.found(state, format!("{} exists", path.display()));
        }
        exists
    }

    fn key(&mut self, name: &str) {
        self.checked.push(format!("${name}"));
        if self.var(name).is_some() {
            self.found(LoginState::ApiKeyEnv, format!("{name} is set"));
        }
    }

    /// `security.auth.selectedType` (or the older `selectedAuthType`) of a
    /// Gemini-style settings.json.
    fn auth_type(&mut self, settings: &Path) {
        self.checked.push(settings.display().to_string());
        let Some(json) = read_json(settings) else {
            return;
        };
        let selected = json
            .pointer("/security/auth/selectedType")
            .or_else(|| json.get("selectedAuthType"))
            .and_then(|v| v.as_str());
        if let Some(t) = selected {
            self.found(
                LoginState::Settings,
                format!("{} selects auth type {t}", settings.display()),
            );
        }
    }

    fn finish(self, nothing: LoginState) -> Login {
        Login {
            state: self.state.unwrap_or(nothing),
            evidence: self.evidence,
            checked: self.checked,
        }
    }
}

fn read_json(path: &Path) -> Option<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// The login evidence of a built-in provider, from files under `home` and
/// the variables `env` returns. Providers agentgate has no facts for (those
/// described in the config) are `Unknown`.
pub fn login_evidence(
    provider: &dyn Provider,
    home: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Login {
    let mut p = Probe::new(home, env);
    if provider.adapter_kind() != "builtin" {
        return p.finish(LoginState::Unknown);
    }
    match provider.name() {
        "claude" => {
            let dir = p.dir("CLAUDE_CONFIG_DIR", ".claude");
            p.file(&dir.join(".credentials.json"), LoginState::CredentialsFile);
            p.key("ANTHROPIC_API_KEY");
            p.finish(LoginState::NoneFound)
        }
        "codex" => {
            let dir = p.dir("CODEX_HOME", ".codex");
            p.file(&dir.join("auth.json"), LoginState::CredentialsFile);
            p.key("OPENAI_API_KEY");
            codex_env_keys(&mut p, &dir.join("config.toml"));
            p.finish(LoginState::NoneFound)
        }
        "gemini" => {
            let dir = home.join(".gemini");
            p.file(&dir.join("oauth_creds.json"), LoginState::CredentialsFile);
            p.key("GEMINI_API_KEY");
            p.key("GOOGLE_API_KEY");
            p.auth_type(&dir.join("settings.json"));
            p.finish(LoginState::NoneFound)
        }
        "qwen" => {
            let dir = home.join(".qwen");
            p.file(&dir.join("oauth_creds.json"), LoginState::CredentialsFile);
            p.key("OPENAI_API_KEY");
            p.auth_type(&dir.join("settings.json"));
            p.finish(LoginState::NoneFound)
        }
        "opencode" => {
            let data = p.dir("XDG_DATA_HOME", ".local/share");
            p.file(
                &data.join("opencode/auth.json"),
                LoginState::CredentialsFile,
            );
            let config = p.dir("XDG_CONFIG_HOME", ".config").join("opencode");
            let mut files = vec![config.join("opencode.json"), config.join("opencode.jsonc")];
            if let Some(f) = p.var("OPENCODE_CONFIG") {
                files.push(PathBuf::from(f));
            }
            for f in files {
                p.checked.push(f.display().to_string());
                let text = std::fs::read_to_string(&f).unwrap_or_default();
                if text.contains("\"apiKey\"") {
                    p.found(
                        LoginState::Settings,
                        format!("{} gives a provider apiKey", f.display()),
                    );
                }
            }
            // opencode also reads each model provider's own variables;
            // nothing found above is therefore not conclusive.
            p.finish(LoginState::Unknown)
        }
        "cursor" => {
            p.key("CURSOR_API_KEY");
            let config = home.join(".cursor/cli-config.json");
            p.checked.push(config.display().to_string());
            if config.is_file() {
                // The CLI's config, which may or may not hold the login.
                p.evidence.push(format!("{} exists", config.display()));
            }
            p.finish(LoginState::Unknown)
        }
        "agy" => {
            let dir = home.join(".gemini/antigravity-cli");
            p.checked.push(dir.display().to_string());
            if dir.is_dir() {
                p.evidence.push(format!("{} exists", dir.display()));
            }
            p.finish(LoginState::Unknown)
        }
        _ => p.finish(LoginState::Unknown),
    }
}

/// Codex's `[model_providers.X]` tables name the variable holding their key
/// with `env_key = "VAR"`.
fn codex_env_keys(p: &mut Probe<'_>, config: &Path) {
    p.checked.push(config.display().to_string());
    let text = std::fs::read_to_string(config).unwrap_or_default();
    for line in text.lines() {
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        if k.trim() != "env_key" {
            continue;
        }
        let var = v.trim().trim_matches(|c| c == '"' || c == '\'');
        if !var.is_empty() && p.var(var).is_some() {
            p.found(
                LoginState::Settings,
                format!("{} names env_key {var}, which is set", config.display()),
            );
        }
    }
}

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
    let mut child = Command::new(program)
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
pub struct ProviderHealth {
    /// The provider's name.
    pub name: String,
    /// `builtin` or `config`.
    pub adapter_kind: &'static str,
    /// Whether its executable was found.
    pub installed: bool,
    /// The executable, when found.
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
        Some(h) => login_evidence(provider, h, env),
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::provider::ProviderKind;

    fn login(kind: ProviderKind, home: &Path, vars: &[(&str, &str)]) -> Login {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        login_evidence(kind.adapter().as_ref(), home, &|k| vars.get(k).cloned())
    }

    #[test]
    fn claude_login_sources() {
        let home = tempfile::tempdir().unwrap();
        let l = login(ProviderKind::Claude, home.path(), &[]);
        assert_eq!(l.state, LoginState::NoneFound);
        assert!(l.checked.iter().any(|c| c.ends_with(".credentials.json")));
        let l = login(
            ProviderKind::Claude,
            home.path(),
            &[("ANTHROPIC_API_KEY", "sk-secret")],
        );
        assert_eq!(l.state, LoginState::ApiKeyEnv);
        assert_eq!(l.evidence, vec!["ANTHROPIC_API_KEY is set".to_owned()]);
        assert!(!format!("{l:?}").contains("sk-secret"));
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::write(home.path().join(".claude/.credentials.json"), "{}").unwrap();
        let l = login(
            ProviderKind::Claude,
            home.path(),
            &[("ANTHROPIC_API_KEY", "k")],
        );
        assert_eq!(l.state, LoginState::CredentialsFile);
        assert_eq!(l.evidence.len(), 2);
    }

    #[test]
    fn codex_env_key_in_config() {
        let home = tempfile::tempdir().unwrap();
        let codex_home = home.path().join("ch");
        std::fs::create_dir_all(&codex_home).unwrap();
        std::fs::write(
            codex_home.join("config.toml"),
            "model_provider = \"x\"\n[model_providers.x]\nenv_key = \"X_KEY\"\n",
        )
        .unwrap();
        let ch = codex_home.display().to_string();
        let l = login(ProviderKind::Codex, home.path(), &[("CODEX_HOME", &ch)]);
        assert_eq!(l.state, LoginState::NoneFound);
        let l = login(
            ProviderKind::Codex,
            home.path(),
            &[("CODEX_HOME", &ch), ("X_KEY", "v")],
        );
        assert_eq!(l.state, LoginState::Settings);
        std::fs::write(codex_home.join("auth.json"), "{}").unwrap();
        let l = login(ProviderKind::Codex, home.path(), &[("CODEX_HOME", &ch)]);
        assert_eq!(l.state, LoginState::CredentialsFile);
    }

    #[test]
    fn gemini_settings_auth_type() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
        std::fs::write(
            home.path().join(".gemini/settings.json"),
            r#"{"security":{"auth":{"selectedType":"oauth-personal"}}}"#,
        )
        .unwrap();
        let l = login(ProviderKind::Gemini, home.path(), &[]);
        assert_eq!(l.state, LoginState::Settings);
        assert!(l.evidence[0].contains("oauth-personal"), "{l:?}");
    }

    #[test]
    fn unsure_providers_stay_unknown() {
        let home = tempfile::tempdir().unwrap();
        for kind in [
            ProviderKind::Cursor,
            ProviderKind::Agy,
            ProviderKind::Opencode,
        ] {
            assert_eq!(login(kind, home.path(), &[]).state, LoginState::Unknown);
        }
        let l = login(
            ProviderKind::Cursor,
            home.path(),
            &[("CURSOR_API_KEY", "k")],
        );
        assert_eq!(l.state, LoginState::ApiKeyEnv);
    }

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
