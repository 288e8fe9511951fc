//! Accounts: which login of a provider's CLI this host's runs use, so that
//! hosts sharing a store share a quota only when they share an account.
//!
//! A provider's usage limit belongs to the account its CLI is logged in to,
//! not to the provider: two hosts whose `claude` is logged in to different
//! subscriptions run out separately. The quota state is stored under a
//! *quota key*: the provider's name (`claude`) when no account is named, or
//! `provider@account` (`claude@team-a`) when one is. Every process that
//! names the same account for a provider (and every process that names
//! none) reads and writes the same state, so a quota exhausted on one host
//! is skipped by all of them until its reset, and by none of the others.
//!
//! The account is named, never guessed: `account:` under the provider in
//! the config, or `AGENTGATE_<PROVIDER>_ACCOUNT` in the environment (which
//! wins, so one config file can be shared by hosts logged in to different
//! accounts). A name is 1 to 64 letters, digits, `.`, `_` or `-`.

use super::Config;
use super::source::ConfigError;

/// The longest account name.
pub const ACCOUNT_MAX_LEN: usize = 64;

/// `AGENTGATE_<PROVIDER>_ACCOUNT`, with characters other than letters and
/// digits as `_` (as `AGENTGATE_<PROVIDER>_BIN`).
pub fn account_env_for(provider: &str) -> String {
    agentgate_providers::provider_env_var(provider, "ACCOUNT")
}

/// `name`, trimmed, if it is a valid account name; else why not.
pub fn check_account(name: &str) -> Result<String, String> {
    let name = name.trim();
    if name.is_empty() {
        return Err("an account name is empty".into());
    }
    if name.len() > ACCOUNT_MAX_LEN {
        return Err(format!(
            "an account name is at most {ACCOUNT_MAX_LEN} characters"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
    {
        return Err(format!(
            "the account name `{name}` has `{c}`: use letters, digits, `.`, `_` and `-`"
        ));
    }
    Ok(name.to_owned())
}

/// The key a provider's quota state is stored under: `provider`, or
/// `provider@account`.
pub fn quota_key(provider: &str, account: Option<&str>) -> String {
    match account {
        Some(a) => format!("{provider}@{a}"),
        None => provider.to_owned(),
    }
}

/// A quota key split into its provider and account.
pub fn split_quota_key(key: &str) -> (&str, Option<&str>) {
    match key.split_once('@') {
        Some((p, a)) => (p, Some(a)),
        None => (key, None),
    }
}

impl Config {
    /// The account this host's runs of `provider` use: the environment's
    /// `AGENTGATE_<PROVIDER>_ACCOUNT` (read by [`Config::load`]), else the
    /// provider's `account:` in the file.
    pub fn account(&self, provider: &str) -> Option<&str> {
        let canonical = self.canonical_provider_name(provider);
        self.account_env
            .iter()
            .find(|(p, _)| *p == canonical)
            .map(|(_, a)| a.as_str())
            .or_else(|| {
                self.provider_defaults(provider)
                    .and_then(|d| d.account.as_deref())
            })
    }

    /// The key `provider`'s quota state is stored under on this host (see
    /// the module's doc).
    pub fn quota_key(&self, provider: &str) -> String {
        quota_key(
            &self.canonical_provider_name(provider),
            self.account(provider),
        )
    }

    /// Read `AGENTGATE_<PROVIDER>_ACCOUNT` for every provider, from `var`
    /// (the process's environment in [`Config::load`]).
    pub(super) fn read_account_env(
        &mut self,
        var: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        let names: Vec<String> = self
            .all_providers()
            .iter()
            .map(|p| p.name().to_owned())
            .collect();
        for name in names {
            let env = account_env_for(&name);
            if let Some(value) = var(&env) {
                let account =
                    check_account(&value).map_err(|message| ConfigError::Environment {
                        variable: env.clone(),
                        message,
                    })?;
                self.account_env.push((name, account));
            }
        }
        Ok(())
    }

    /// A built-in provider's name in its canonical case, else `provider`.
    fn canonical_provider_name(&self, provider: &str) -> String {
        let provider = provider.trim();
        agentgate_providers::description(provider)
            .map_or(provider, |d| d.name)
            .to_owned()
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::config::ConfigSource;

    fn config(text: &str) -> Config {
        Config::parse(text, ConfigSource::Flag(PathBuf::from("/c/agentgate.yaml"))).unwrap()
    }

    #[test]
    fn the_environment_names_the_account_over_the_file() {
        let mut cfg = config("version: 1\nproviders:\n  claude:\n    account: team-a\n");
        assert_eq!(cfg.quota_key("claude"), "claude@team-a");
        assert_eq!(cfg.quota_key("Claude"), "claude@team-a");
        assert_eq!(cfg.quota_key("codex"), "codex");
        cfg.read_account_env(&|v| match v {
            "AGENTGATE_CLAUDE_ACCOUNT" => Some("team-b".into()),
            "AGENTGATE_CODEX_ACCOUNT" => Some(" ops.1 ".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(cfg.quota_key("claude"), "claude@team-b");
        assert_eq!(cfg.quota_key("codex"), "codex@ops.1");
    }

    #[test]
    fn a_bad_account_name_is_refused_with_its_source() {
        let mut cfg = config("version: 1\n");
        let e = cfg
            .read_account_env(&|v| (v == "AGENTGATE_GEMINI_ACCOUNT").then(|| "a b".into()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("AGENTGATE_GEMINI_ACCOUNT"), "{e}");
        assert!(e.contains("has ` `"), "{e}");
        let e = Config::parse(
            "version: 1\nproviders:\n  claude:\n    account: \"x@y\"\n",
            ConfigSource::Flag(PathBuf::from("/c/agentgate.yaml")),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 4"), "{e}");
        assert!(e.contains("has `@`"), "{e}");
        assert!(check_account(&"a".repeat(65)).is_err());
        assert!(check_account("").is_err());
    }

    #[test]
    fn a_key_splits_back_into_provider_and_account() {
        assert_eq!(split_quota_key("claude@team-a"), ("claude", Some("team-a")));
        assert_eq!(split_quota_key("codex"), ("codex", None));
        assert_eq!(quota_key("codex", None), "codex");
    }
}
