//! [`CliEnv`]: the environment a CLI would run with, built the way the
//! attempt builds it (agentgate's own environment unless the request
//! clears it, less the request's removals, plus the request's `env`).

use std::collections::BTreeMap;
use std::fmt;

use crate::provider::CliRequest;

/// The environment a CLI would run with, and agentgate's own (where a
/// key variable the config names is read even when the CLI's is cleared).
#[derive(Clone, Default)]
pub struct CliEnv {
    vars: BTreeMap<String, String>,
    own: BTreeMap<String, String>,
}

impl CliEnv {
    /// From its parts: agentgate's environment `inherited`, whether the
    /// request clears it, the request's `env` (set last: it wins) and its
    /// removals (from the inherited environment).
    pub fn new(
        inherited: impl IntoIterator<Item = (String, String)>,
        env_clear: bool,
        env: &[(String, String)],
        env_remove: &[String],
    ) -> CliEnv {
        let own: BTreeMap<String, String> = inherited.into_iter().collect();
        let mut vars = if env_clear {
            BTreeMap::new()
        } else {
            own.iter()
                .filter(|(k, _)| !env_remove.iter().any(|r| r == *k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        for (k, v) in env {
            vars.insert(k.clone(), v.clone());
        }
        CliEnv { vars, own }
    }

    /// The environment `req`'s CLI would run with, from agentgate's own
    /// (variables that are not UTF-8 are left out: no CLI setting read
    /// here is one).
    pub fn for_request(req: &CliRequest) -> CliEnv {
        let own = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)));
        CliEnv::new(own, req.env_clear, &req.env, &req.env_remove)
    }

    /// A variable's value as the CLI would see it; an empty one is none.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.trim().is_empty())
    }

    /// A variable as the CLI would see it, else as agentgate's own
    /// environment has it (a key variable the config names).
    pub fn get_or_own(&self, name: &str) -> Option<&str> {
        self.get(name).or_else(|| {
            self.own
                .get(name)
                .map(String::as_str)
                .filter(|v| !v.trim().is_empty())
        })
    }
}

impl fmt::Debug for CliEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Values may be keys: names only.
        f.debug_struct("CliEnv")
            .field("vars", &self.vars.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect()
    }

    #[test]
    fn the_request_env_wins_removals_apply_to_the_inherited_and_clear_keeps_agentgates_own() {
        let own = pairs(&[("A", "own"), ("B", "own"), ("C", "own")]);
        let env = CliEnv::new(
            own.clone(),
            false,
            &pairs(&[("A", "req"), ("B", "req")]),
            &["B".into(), "C".into()],
        );
        assert_eq!(env.get("A"), Some("req"));
        // A removal takes the inherited value away, not the request's.
        assert_eq!(env.get("B"), Some("req"));
        assert_eq!(env.get("C"), None);
        assert_eq!(env.get_or_own("C"), Some("own"));
        let cleared = CliEnv::new(own, true, &pairs(&[("D", "")]), &[]);
        assert_eq!(cleared.get("A"), None);
        assert_eq!(cleared.get("D"), None, "an empty value is none");
        assert_eq!(cleared.get_or_own("A"), Some("own"));
    }

    #[test]
    fn a_requests_environment_starts_from_agentgates_own() {
        // Cargo runs the tests with a PATH.
        let path = std::env::var("PATH").unwrap();
        let req = CliRequest {
            env: vec![("EXTRA".into(), "1".into())],
            ..CliRequest::default()
        };
        let env = CliEnv::for_request(&req);
        assert_eq!(env.get("PATH"), Some(path.as_str()));
        assert_eq!(env.get("EXTRA"), Some("1"));
        let removed = CliRequest {
            env_remove: vec!["PATH".into()],
            ..req.clone()
        };
        assert_eq!(CliEnv::for_request(&removed).get("PATH"), None);
        let cleared = CliRequest {
            env_clear: true,
            ..req
        };
        let env = CliEnv::for_request(&cleared);
        assert_eq!(env.get("PATH"), None);
        assert_eq!(env.get_or_own("PATH"), Some(path.as_str()));
    }

    #[test]
    fn debug_shows_names_never_values() {
        let env = CliEnv::new(
            pairs(&[("ANTHROPIC_API_KEY", "sk-secret")]),
            false,
            &[],
            &[],
        );
        let text = format!("{env:?}");
        assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
        assert!(!text.contains("sk-secret"), "{text}");
    }
}
