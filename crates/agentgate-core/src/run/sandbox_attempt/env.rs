//! The environment of a sandboxed CLI: an allowlist. From agentgate's
//! own environment it keeps only the basics (`PATH`, `HOME`, the user, the
//! shell, the locale, the terminal, the time zone), the CLI's own
//! variables (its provider's `sandbox_env_allow`) and the configured
//! `env_allow`; every variable the command or the run's `env` sets
//! explicitly is kept too; agentgate's own variables never are. The
//! result is the whole environment (`Invocation::env_clear`).

use std::ffi::{OsStr, OsString};

use agentgate_providers::env_allowed;
use agentgate_supervise::Invocation;

/// What every CLI keeps of agentgate's environment under a sandbox.
pub(super) const BASE_ALLOW: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LC_*",
    "TERM",
    "COLORTERM",
    "TZ",
    "NO_COLOR",
];

/// `inv`'s environment made explicit and whole: of `inherited` (agentgate's
/// own environment), the variables `allow` (names, or prefixes ending in
/// `*`) or [`BASE_ALLOW`] keep and `inv` does not remove; then every
/// variable `inv` sets. `inv` starts from an empty environment after it.
pub(super) fn confine_env(
    inv: &mut Invocation,
    inherited: impl Iterator<Item = (OsString, OsString)>,
    allow: &[String],
) {
    let allow: Vec<&str> = BASE_ALLOW
        .iter()
        .copied()
        .chain(allow.iter().map(String::as_str))
        .collect();
    let mut env: Vec<(OsString, OsString)> = Vec::new();
    if !inv.env_clear {
        env.extend(
            inherited.filter(|(name, _)| {
                kept(name, &allow) && !inv.env_remove.iter().any(|r| r == name)
            }),
        );
    }
    for (name, value) in inv.env.drain(..) {
        match env.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => env.push((name, value)),
        }
    }
    inv.env = agentgate_supervise::own_env::scrub(env);
    inv.env_clear = true;
    inv.env_remove.clear();
}

fn kept(name: &OsStr, allow: &[&str]) -> bool {
    name.to_str().is_some_and(|n| env_allowed(n, allow))
}

/// Set `name` to `value` in `inv`'s (explicit) environment.
pub(super) fn set(inv: &mut Invocation, name: &str, value: impl Into<OsString>) {
    let value = value.into();
    match inv.env.iter_mut().find(|(n, _)| n == name) {
        Some(slot) => slot.1 = value,
        None => inv.env.push((name.into(), value)),
    }
}

/// The value of `name` in `inv`'s (explicit) environment.
pub(super) fn get(inv: &Invocation, name: &str) -> Option<OsString> {
    inv.env
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        list.iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    }

    fn names(inv: &Invocation) -> Vec<String> {
        let mut n: Vec<String> = inv
            .env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    }

    #[test]
    fn only_the_basics_the_clis_own_and_the_explicit_variables_pass() {
        let host = pairs(&[
            ("PATH", "/usr/bin"),
            ("HOME", "/home/u"),
            ("LC_ALL", "C.UTF-8"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
            ("GITHUB_TOKEN", "gh"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("OPENAI_API_KEY", "sk-oai"),
            ("AGENTGATE_TOKEN", "own"),
            ("CORP_CA", "/etc/ca.pem"),
            ("REMOVED_ONE", "x"),
        ]);
        let mut inv = Invocation::new("claude");
        inv.env = pairs(&[
            ("MY_RUN_VAR", "from --env"),
            ("PATH", "/opt/bin:/usr/bin"),
            ("AGENTGATE_HOME", "/data"),
        ]);
        inv.env_remove = vec!["ANTHROPIC_API_KEY".into()];
        let allow = vec![
            "ANTHROPIC_*".to_owned(),
            "CLAUDE_*".to_owned(),
            "CORP_CA".to_owned(),
        ];
        confine_env(&mut inv, host.into_iter(), &allow);
        assert!(inv.env_clear);
        assert!(inv.env_remove.is_empty());
        assert_eq!(
            names(&inv),
            ["CORP_CA", "HOME", "LC_ALL", "MY_RUN_VAR", "PATH"],
            "no cloud or GitHub keys, no other CLI's key, no removed or own variable"
        );
        assert_eq!(get(&inv, "PATH"), Some("/opt/bin:/usr/bin".into()));
    }

    #[test]
    fn an_invocation_that_clears_its_environment_inherits_nothing() {
        let mut inv = Invocation::new("x");
        inv.env_clear = true;
        inv.env = pairs(&[("A", "1")]);
        confine_env(&mut inv, pairs(&[("PATH", "/bin")]).into_iter(), &[]);
        assert_eq!(names(&inv), ["A"]);
        set(&mut inv, "TMPDIR", "/tmp/x");
        set(&mut inv, "A", "2");
        assert_eq!(get(&inv, "A"), Some("2".into()));
        assert_eq!(names(&inv), ["A", "TMPDIR"]);
    }
}
