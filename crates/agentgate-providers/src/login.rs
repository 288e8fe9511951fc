//! Where a CLI keeps its login, as data each provider gives
//! ([`LoginFacts`]), and the one reader of it ([`login_evidence`]) that
//! `agentgate health` uses. Nothing here reads a secret's value.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// Where a provider's login comes from, as far as files and variables tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Login {
    /// The conclusion.
    pub state: LoginState,
    /// What was found, e.g. "ANTHROPIC_API_KEY is set".
    pub evidence: Vec<String>,
    /// Every place that was looked at.
    pub checked: Vec<String>,
}

/// One place a CLI may keep its login.
#[derive(Debug, Clone, Copy)]
pub enum LoginProbe {
    /// A credentials file: `file` in the folder `$dir_var` names, else in
    /// `~/dir`.
    Credentials {
        /// The variable that moves the folder, if any.
        dir_var: Option<&'static str>,
        /// The folder under the home folder.
        dir: &'static str,
        /// The file in it.
        file: &'static str,
    },
    /// A variable holding an API key.
    ApiKey(&'static str),
    /// A Gemini-style `settings.json` under the home folder whose
    /// `security.auth.selectedType` (or `selectedAuthType`) names the login.
    AuthType(&'static str),
    /// A file or folder under the home folder that tells something, but
    /// not whether a login is there.
    Hint(&'static str),
    /// What only code can read.
    Code(fn(&mut Probe<'_>)),
}

/// Where one provider keeps its login.
#[derive(Debug, Clone, Copy)]
pub struct LoginFacts {
    /// The places, in order (the first that finds a login decides the state).
    pub probes: &'static [LoginProbe],
    /// The state when none finds one: `NoneFound` when the probes cover
    /// every way the CLI logs in, else `Unknown`.
    pub otherwise: LoginState,
}

/// Collects the evidence for one provider's login.
pub struct Probe<'a> {
    home: &'a Path,
    env: &'a dyn Fn(&str) -> Option<String>,
    state: Option<LoginState>,
    evidence: Vec<String>,
    checked: Vec<String>,
}

impl std::fmt::Debug for Probe<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probe")
            .field("home", &self.home)
            .field("state", &self.state)
            .field("evidence", &self.evidence)
            .finish_non_exhaustive()
    }
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

    /// A variable's value, when set and not empty.
    pub fn var(&self, name: &str) -> Option<String> {
        (self.env)(name).filter(|v| !v.is_empty())
    }

    /// A folder from a variable, else under the home folder.
    pub fn dir(&self, var: &str, default: &str) -> PathBuf {
        self.var(var)
            .map(PathBuf::from)
            .unwrap_or_else(|| self.home.join(default))
    }

    /// Record a place that was looked at.
    pub fn checked(&mut self, place: String) {
        self.checked.push(place);
    }

    /// Record a login found, of `state`.
    pub fn found(&mut self, state: LoginState, evidence: String) {
        self.state.get_or_insert(state);
        self.evidence.push(evidence);
    }

    fn file(&mut self, path: &Path, state: LoginState) {
        self.checked.push(path.display().to_string());
        if path.is_file() {
            self.found(state, format!("{} exists", path.display()));
        }
    }

    fn key(&mut self, name: &str) {
        self.checked.push(format!("${name}"));
        if self.var(name).is_some() {
            self.found(LoginState::ApiKeyEnv, format!("{name} is set"));
        }
    }

    fn auth_type(&mut self, settings: &Path) {
        self.checked.push(settings.display().to_string());
        let Some(json) = std::fs::read_to_string(settings)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        else {
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

    fn hint(&mut self, path: &Path) {
        self.checked.push(path.display().to_string());
        if path.exists() {
            self.evidence.push(format!("{} exists", path.display()));
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

/// The login evidence a provider's `facts` point at (its
/// `Provider::login`), from files under `home` and the variables `env`
/// returns. Without facts (a CLI described in the config) it is `Unknown`.
pub fn login_evidence(
    facts: Option<&LoginFacts>,
    home: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Login {
    let mut p = Probe::new(home, env);
    let Some(facts) = facts else {
        return p.finish(LoginState::Unknown);
    };
    for probe in facts.probes {
        match *probe {
            LoginProbe::Credentials { dir_var, dir, file } => {
                let folder = match dir_var {
                    Some(var) => p.dir(var, dir),
                    None => home.join(dir),
                };
                p.file(&folder.join(file), LoginState::CredentialsFile);
            }
            LoginProbe::ApiKey(name) => p.key(name),
            LoginProbe::AuthType(settings) => p.auth_type(&home.join(settings)),
            LoginProbe::Hint(path) => p.hint(&home.join(path)),
            LoginProbe::Code(code) => code(&mut p),
        }
    }
    p.finish(facts.otherwise)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::Description;
    use crate::agy::AGY;
    use crate::claude::CLAUDE;
    use crate::codex::CODEX;
    use crate::cursor::CURSOR;
    use crate::gemini::GEMINI;
    use crate::opencode::OPENCODE;

    fn login(kind: &Description, home: &Path, vars: &[(&str, &str)]) -> Login {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        login_evidence(Some(&kind.login), home, &|k| vars.get(k).cloned())
    }

    #[test]
    fn claude_login_sources() {
        let home = tempfile::tempdir().unwrap();
        let l = login(&CLAUDE, home.path(), &[]);
        assert_eq!(l.state, LoginState::NoneFound);
        assert!(l.checked.iter().any(|c| c.ends_with(".credentials.json")));
        let l = login(&CLAUDE, home.path(), &[("ANTHROPIC_API_KEY", "sk-secret")]);
        assert_eq!(l.state, LoginState::ApiKeyEnv);
        assert_eq!(l.evidence, vec!["ANTHROPIC_API_KEY is set".to_owned()]);
        assert!(!format!("{l:?}").contains("sk-secret"));
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::write(home.path().join(".claude/.credentials.json"), "{}").unwrap();
        let l = login(&CLAUDE, home.path(), &[("ANTHROPIC_API_KEY", "k")]);
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
        let l = login(&CODEX, home.path(), &[("CODEX_HOME", &ch)]);
        assert_eq!(l.state, LoginState::NoneFound);
        let l = login(&CODEX, home.path(), &[("CODEX_HOME", &ch), ("X_KEY", "v")]);
        assert_eq!(l.state, LoginState::Settings);
        std::fs::write(codex_home.join("auth.json"), "{}").unwrap();
        let l = login(&CODEX, home.path(), &[("CODEX_HOME", &ch)]);
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
        let l = login(&GEMINI, home.path(), &[]);
        assert_eq!(l.state, LoginState::Settings);
        assert!(l.evidence[0].contains("oauth-personal"), "{l:?}");
    }

    #[test]
    fn unsure_providers_stay_unknown() {
        let home = tempfile::tempdir().unwrap();
        for kind in [&CURSOR, &AGY, &OPENCODE] {
            assert_eq!(login(kind, home.path(), &[]).state, LoginState::Unknown);
        }
        let l = login(&CURSOR, home.path(), &[("CURSOR_API_KEY", "k")]);
        assert_eq!(l.state, LoginState::ApiKeyEnv);
    }
}
