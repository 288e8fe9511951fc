//! What a CLI needs inside a sandbox (`--sandbox`): the variables of its
//! own it keeps (names, or prefixes ending in `*`) and the state folders
//! and files it writes (its login, sessions, settings), each found from
//! the environment it runs with (a variable that names the folder wins
//! over the default under `HOME` or an XDG folder). Read by core's
//! `run/sandbox_attempt/`. A leaf: it imports nothing of the crate.

use std::ffi::OsString;
use std::path::PathBuf;

/// A CLI's needs inside a sandbox.
#[derive(Debug, Clone, Copy)]
pub struct SandboxFacts {
    /// Its own variables: names (`IS_SANDBOX`), or prefixes ending in `*`
    /// (`ANTHROPIC_*`).
    pub env_allow: &'static [&'static str],
    /// The folders and files it writes besides the workspace.
    pub state: &'static [StatePath],
}

impl SandboxFacts {
    /// A CLI agentgate knows nothing of: no variables, no state.
    pub const NONE: SandboxFacts = SandboxFacts {
        env_allow: &[],
        state: &[],
    };
}

/// One state folder (or file) of a CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatePath {
    /// The folder a variable names (`CODEX_HOME`), else `default` under
    /// `HOME` (`.codex`).
    Var {
        /// The variable.
        var: &'static str,
        /// The path under `HOME` without it.
        default: &'static str,
    },
    /// A path under `HOME` (`.gemini`).
    Home(&'static str),
    /// A path under an XDG base folder: the variable (`XDG_DATA_HOME`),
    /// else its default under `HOME` (`.local/share`), then `sub`.
    Xdg {
        /// `XDG_DATA_HOME`, `XDG_CONFIG_HOME`, `XDG_CACHE_HOME`,
        /// `XDG_STATE_HOME`.
        var: &'static str,
        /// The default under `HOME`.
        default: &'static str,
        /// The CLI's folder in it (`opencode`).
        sub: &'static str,
    },
}

impl StatePath {
    /// The path, from the environment the CLI runs with (`get`); `None`
    /// when it needs `HOME` and there is none.
    pub fn resolve(&self, get: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
        let var = |k: &str| get(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = || var("HOME");
        match *self {
            StatePath::Var { var: name, default } => {
                var(name).or_else(|| home().map(|h| h.join(default)))
            }
            StatePath::Home(rel) => home().map(|h| h.join(rel)),
            StatePath::Xdg {
                var: name,
                default,
                sub,
            } => var(name)
                .or_else(|| home().map(|h| h.join(default)))
                .map(|base| base.join(sub)),
        }
    }
}

/// Whether `name` is kept by `patterns` (names, or prefixes ending in `*`).
pub fn env_allowed(name: &str, patterns: &[&str]) -> bool {
    patterns.iter().any(|p| match p.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == *p,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variable_that_names_the_folder_wins_over_the_home_default() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let codex = StatePath::Var {
            var: "CODEX_HOME",
            default: ".codex",
        };
        assert_eq!(
            codex.resolve(&env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.codex"))
        );
        assert_eq!(
            codex.resolve(&env(&[("HOME", "/h"), ("CODEX_HOME", "/c")])),
            Some(PathBuf::from("/c"))
        );
        let data = StatePath::Xdg {
            var: "XDG_DATA_HOME",
            default: ".local/share",
            sub: "opencode",
        };
        assert_eq!(
            data.resolve(&env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.local/share/opencode"))
        );
        assert_eq!(
            data.resolve(&env(&[("HOME", "/h"), ("XDG_DATA_HOME", "/x")])),
            Some(PathBuf::from("/x/opencode"))
        );
        assert_eq!(StatePath::Home(".gemini").resolve(&env(&[])), None);
    }

    #[test]
    fn names_match_whole_and_prefixes_by_their_star() {
        let allow = ["ANTHROPIC_*", "IS_SANDBOX"];
        assert!(env_allowed("ANTHROPIC_API_KEY", &allow));
        assert!(env_allowed("IS_SANDBOX", &allow));
        assert!(!env_allowed("IS_SANDBOXED", &allow));
        assert!(!env_allowed("AWS_SECRET_ACCESS_KEY", &allow));
    }
}
