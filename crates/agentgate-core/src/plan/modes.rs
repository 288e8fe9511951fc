//! An agent's `mode:` as a permission mode its step's CLI has.
//!
//! `mode: classify` asks for `plan` (read-only), `mode: edit` for
//! `acceptEdits`. Every built-in adapter has both. A CLI described in the
//! config has only the modes its `permission_modes` gives, and `default`
//! (its own mode, which needs no flag). When it lacks the mode asked for,
//! the step runs in `default`, never in a more permissive mode it declares
//! (`acceptEdits` or `bypass` for classify, `bypass` for edit), and says so:
//! a plan warning and a `status` notice at each attempt. Modes rank `plan` <
//! `default` < `acceptEdits` < `bypass`, so classify ends one rank above
//! what it asked, and the notice says that too. The mode's file policy
//! holds either way: a classify step that changed a file fails, an edit
//! step that changed one outside `allow` too.
//!
//! A permission mode asked for by name (`--permission-mode`, `--yolo`, an
//! agent's or a provider's `permission_mode:`) is never mapped: a CLI
//! without it refuses the run.

use crate::config::{AgentMode, AgentSpec};
use crate::settings::PermissionMode;
use agentgate_providers::Provider;
use agentgate_providers::argv::mode_name;

/// The permission mode of a step of `agent` (if any) on `provider`, and
/// what to tell the caller when the agent's mode had to be mapped.
/// `named`: the mode asked for by name (the combined settings').
pub(super) fn permission_mode(
    named: Option<PermissionMode>,
    agent: Option<&AgentSpec>,
    provider: &dyn Provider,
) -> (PermissionMode, Option<String>) {
    if let Some(m) = named {
        return (m, None);
    }
    let Some((agent, mode)) = agent.and_then(|a| a.mode.as_ref().map(|m| (a, m))) else {
        return (PermissionMode::Default, None);
    };
    let (wanted, policy) = match mode {
        AgentMode::Classify => (
            PermissionMode::Plan,
            "one rank above what it asked; a file it changes still fails the run",
        ),
        AgentMode::Edit { .. } => (
            PermissionMode::AcceptEdits,
            "it may be unable to change files; a change outside `allow` still fails the run",
        ),
    };
    if provider.takes_permission_mode(wanted) {
        return (wanted, None);
    }
    let (flag, key) = mode_name(wanted);
    let cli = provider.name();
    let notice = format!(
        "agent `{}` has mode {}, which asks for permission mode {flag}; `{cli}` declares no `permission_modes.{key}`, so it runs in permission mode default (no permission flag, unless its config gives `permission_modes.default`): {policy}",
        agent.name,
        mode.as_str(),
    );
    (PermissionMode::Default, Some(notice))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::config::{Config, ConfigSource};

    fn config(modes: &str) -> Config {
        let text = format!(
            "version: 1\nproviders:\n  mycli:\n    command: [mycli, \"{{prompt}}\"]\n{modes}agents:\n  reader:\n    provider: mycli\n    mode: classify\n  writer:\n    provider: mycli\n    mode: edit\n  free:\n    provider: mycli\n  claude-reader:\n    provider: claude\n    mode: classify\n"
        );
        Config::parse(&text, ConfigSource::Flag(PathBuf::from("/c/a.yaml"))).unwrap()
    }

    fn mode_of(
        cfg: &Config,
        agent: &str,
        named: Option<PermissionMode>,
    ) -> (PermissionMode, Option<String>) {
        let a = cfg.agent(agent).unwrap();
        let p = cfg.resolve_provider(&a.provider).unwrap();
        permission_mode(named, Some(a), p.as_ref())
    }

    #[test]
    fn a_mode_the_cli_declares_is_taken_as_asked() {
        let cfg = config("    permission_modes: {plan: [--read-only], accept_edits: [--edits]}\n");
        assert_eq!(mode_of(&cfg, "reader", None), (PermissionMode::Plan, None));
        assert_eq!(
            mode_of(&cfg, "writer", None),
            (PermissionMode::AcceptEdits, None)
        );
        assert_eq!(mode_of(&cfg, "free", None), (PermissionMode::Default, None));
        // A built-in adapter has every mode.
        assert_eq!(
            mode_of(&cfg, "claude-reader", None),
            (PermissionMode::Plan, None)
        );
    }

    #[test]
    fn a_missing_mode_becomes_default_never_a_more_permissive_one_and_says_so() {
        // Only more permissive modes declared: neither is taken.
        let cfg = config("    permission_modes: {accept_edits: [--edits], bypass: [--yolo]}\n");
        let (mode, notice) = mode_of(&cfg, "reader", None);
        assert_eq!(mode, PermissionMode::Default);
        let notice = notice.unwrap();
        assert!(
            notice.contains("agent `reader` has mode classify")
                && notice.contains("no `permission_modes.plan`")
                && notice.contains("a file it changes still fails the run"),
            "{notice}"
        );
        let cfg = config("    permission_modes: {bypass: [--yolo]}\n");
        let (mode, notice) = mode_of(&cfg, "writer", None);
        assert_eq!(mode, PermissionMode::Default);
        assert!(
            notice
                .unwrap()
                .contains("no `permission_modes.accept_edits`")
        );
        // None declared at all: the shipped `local-llm` example's case.
        let cfg = config("");
        assert_eq!(mode_of(&cfg, "reader", None).0, PermissionMode::Default);
        assert_eq!(mode_of(&cfg, "writer", None).0, PermissionMode::Default);
    }

    #[test]
    fn a_mode_asked_for_by_name_is_never_mapped() {
        let cfg = config("");
        assert_eq!(
            mode_of(&cfg, "reader", Some(PermissionMode::Bypass)),
            (PermissionMode::Bypass, None)
        );
    }
}
