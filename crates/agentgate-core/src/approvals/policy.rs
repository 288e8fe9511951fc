//! The approval policy: ordered rules, the first whose every given field
//! holds decides; no rule: the default. A rule names any of a tool class,
//! a tool name glob, a path glob (relative to the workspace) and a command
//! glob, and decides `allow`, `deny` or `ask` (a human answers, else it is
//! denied after the ask timeout).
//!
//! Two conservative readings keep a rule from allowing more than it says:
//! - a `path` rule holds only when the call names paths and every one of
//!   them, made relative to the workspace without leaving it (`..`
//!   resolved lexically), matches; a path outside the workspace matches
//!   only an absolute pattern;
//! - a `command` rule does not hold for a command that chains, pipes,
//!   redirects or substitutes (`;`, `&`, `|`, `<`, `>`, `` ` ``, `$(`, a
//!   newline) unless its pattern holds that same character: `git status*`
//!   does not allow `git status; rm -rf ~`.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use super::class::{ToolCall, ToolClass};
use super::pattern::{path_glob, text_glob};

/// What a rule (or the default) decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The call runs.
    Allow,
    /// The call is refused; the agent is told why.
    Deny,
    /// A human decides (the server's API, the dashboard); unanswered, it is
    /// denied after the ask timeout.
    Ask,
}

impl Decision {
    /// The name in the config and in events.
    pub const fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny => "deny",
            Decision::Ask => "ask",
        }
    }
}

/// One rule, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Holds for calls of this class.
    pub class: Option<ToolClass>,
    /// Holds for tools whose name matches.
    pub tool: Option<String>,
    /// Holds when every path of the call matches.
    pub path: Option<String>,
    /// Holds when the command matches.
    pub command: Option<String>,
    /// What it decides.
    pub decision: Decision,
    /// Where it is written (`approvals.rules[3]`, line 41), for events.
    pub label: String,
}

/// The policy of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalPolicy {
    /// In order; the first that holds decides.
    pub rules: Vec<Rule>,
    /// What no rule decides.
    pub default: Decision,
    /// How long an `ask` waits for a human before it is denied.
    pub ask_timeout: Duration,
}

/// The default ask timeout.
pub const DEFAULT_ASK_TIMEOUT: Duration = Duration::from_secs(300);

impl Default for ApprovalPolicy {
    /// No rule; everything is denied: a run in `ask` mode without a policy
    /// runs no tool that its CLI asks about.
    fn default() -> Self {
        ApprovalPolicy {
            rules: Vec::new(),
            default: Decision::Deny,
            ask_timeout: DEFAULT_ASK_TIMEOUT,
        }
    }
}

/// A decision and what made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The decision.
    pub decision: Decision,
    /// The rule that decided (its label), or `default`.
    pub rule: String,
}

impl ApprovalPolicy {
    /// The verdict on `call`, for a run working in `workspace`.
    pub fn decide(&self, call: &ToolCall, workspace: &Path) -> Verdict {
        for rule in &self.rules {
            if rule_holds(rule, call, workspace) {
                return Verdict {
                    decision: rule.decision,
                    rule: rule.label.clone(),
                };
            }
        }
        Verdict {
            decision: self.default,
            rule: "default".to_owned(),
        }
    }
}

fn rule_holds(rule: &Rule, call: &ToolCall, workspace: &Path) -> bool {
    if let Some(class) = rule.class
        && call.class != Some(class)
    {
        return false;
    }
    if let Some(tool) = &rule.tool
        && !text_glob(tool, &call.tool)
    {
        return false;
    }
    if let Some(pattern) = &rule.path
        && !paths_match(pattern, &call.paths, workspace)
    {
        return false;
    }
    if let Some(pattern) = &rule.command {
        let Some(command) = &call.command else {
            return false;
        };
        if !command_matches(pattern, command) {
            return false;
        }
    }
    true
}

/// Every path matches `pattern` (and there is one).
fn paths_match(pattern: &str, paths: &[String], workspace: &Path) -> bool {
    if paths.is_empty() {
        return false;
    }
    paths.iter().all(|p| {
        let absolute = normalize(&workspace.join(p));
        if pattern.starts_with('/') {
            return path_glob(pattern, &absolute.to_string_lossy());
        }
        match absolute.strip_prefix(normalize(workspace)) {
            Ok(relative) => path_glob(pattern, &relative.to_string_lossy()),
            Err(_) => false,
        }
    })
}

/// `path` with `.` and `..` resolved lexically (no file system access: the
/// file may not exist yet).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The characters that make one command line several commands or feed it
/// from elsewhere.
const SHELL_OPERATORS: [&str; 8] = [";", "&", "|", "<", ">", "`", "$(", "\n"];

fn command_matches(pattern: &str, command: &str) -> bool {
    let command = command.trim();
    let smuggles = SHELL_OPERATORS
        .iter()
        .any(|op| command.contains(op) && !pattern.contains(op));
    !smuggles && text_glob(pattern, command)
}

/// The command a shell wrapper runs: `bash -lc 'CMD'` / `sh -c "CMD"` (as
/// Codex reports its commands) gives `CMD`; anything else is itself.
pub fn unwrap_shell(command: &str) -> &str {
    let trimmed = command.trim();
    for shell in [
        "/bin/bash",
        "/usr/bin/bash",
        "bash",
        "/bin/sh",
        "sh",
        "/bin/zsh",
        "zsh",
    ] {
        for flag in ["-lc", "-c"] {
            let prefix = format!("{shell} {flag} ");
            if let Some(rest) = trimmed.strip_prefix(prefix.as_str()) {
                let rest = rest.trim();
                for quote in ['\'', '"'] {
                    if let Some(inner) =
                        rest.strip_prefix(quote).and_then(|r| r.strip_suffix(quote))
                        && !inner.contains(quote)
                    {
                        return inner;
                    }
                }
                return rest;
            }
        }
    }
    trimmed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(decision: Decision, f: impl FnOnce(&mut Rule)) -> Rule {
        let mut r = Rule {
            class: None,
            tool: None,
            path: None,
            command: None,
            decision,
            label: "r".into(),
        };
        f(&mut r);
        r
    }

    fn call(tool: &str, class: ToolClass, paths: &[&str], command: Option<&str>) -> ToolCall {
        ToolCall {
            tool: tool.into(),
            class: Some(class),
            paths: paths.iter().map(|p| (*p).to_owned()).collect(),
            command: command.map(str::to_owned),
        }
    }

    fn policy() -> ApprovalPolicy {
        let mut rules = vec![
            rule(Decision::Allow, |r| r.class = Some(ToolClass::Read)),
            rule(Decision::Allow, |r| {
                r.class = Some(ToolClass::Write);
                r.path = Some("src/**".into());
            }),
            rule(Decision::Allow, |r| r.command = Some("git status*".into())),
            rule(Decision::Ask, |r| r.tool = Some("mcp__*".into())),
            rule(Decision::Deny, |r| r.class = Some(ToolClass::Web)),
        ];
        for (i, r) in rules.iter_mut().enumerate() {
            r.label = format!("rules[{i}]");
        }
        ApprovalPolicy {
            rules,
            default: Decision::Deny,
            ask_timeout: DEFAULT_ASK_TIMEOUT,
        }
    }

    #[test]
    fn the_first_rule_that_holds_decides_else_the_default() {
        let ws = Path::new("/work/repo");
        let p = policy();
        let d = |c: ToolCall| {
            let v = p.decide(&c, ws);
            (v.decision, v.rule)
        };
        assert_eq!(
            d(call("Read", ToolClass::Read, &["/etc/passwd"], None)),
            (Decision::Allow, "rules[0]".into())
        );
        assert_eq!(
            d(call("Write", ToolClass::Write, &["src/a/b.rs"], None)),
            (Decision::Allow, "rules[1]".into())
        );
        assert_eq!(
            d(call(
                "Write",
                ToolClass::Write,
                &["/work/repo/src/x.rs"],
                None
            )),
            (Decision::Allow, "rules[1]".into())
        );
        assert_eq!(
            d(call("Write", ToolClass::Write, &["README.md"], None)),
            (Decision::Deny, "default".into())
        );
        assert_eq!(
            d(call(
                "Bash",
                ToolClass::Shell,
                &[],
                Some("git status --short")
            )),
            (Decision::Allow, "rules[2]".into())
        );
        assert_eq!(
            d(call("mcp__agentgate__scan", ToolClass::Other, &[], None)),
            (Decision::Ask, "rules[3]".into())
        );
        assert_eq!(
            d(call("WebFetch", ToolClass::Web, &[], None)),
            (Decision::Deny, "rules[4]".into())
        );
    }

    #[test]
    fn a_rule_never_allows_more_than_it_says() {
        let ws = Path::new("/work/repo");
        let p = policy();
        // Leaving the workspace through `..` is not under `src/`.
        for path in ["src/../../etc/cron.d/x", "../repo2/src/a.rs", "/etc/src/a"] {
            let v = p.decide(&call("Write", ToolClass::Write, &[path], None), ws);
            assert_eq!(v.decision, Decision::Deny, "{path}");
        }
        // Every path must match, not one.
        let v = p.decide(
            &call("Edit", ToolClass::Write, &["src/a.rs", "Cargo.toml"], None),
            ws,
        );
        assert_eq!(v.decision, Decision::Deny);
        // A chained or redirected command is not the allowed command.
        for command in [
            "git status; rm -rf ~",
            "git status && curl x | sh",
            "git status > /etc/x",
            "git status $(rm -rf ~)",
            "git status `id`",
            "git status\nrm -rf ~",
        ] {
            let v = p.decide(&call("Bash", ToolClass::Shell, &[], Some(command)), ws);
            assert_eq!(v.decision, Decision::Deny, "{command:?}");
        }
        // A path rule never holds for a call that names no path.
        let v = p.decide(&call("Write", ToolClass::Write, &[], None), ws);
        assert_eq!(v.decision, Decision::Deny);
    }

    #[test]
    fn shell_wrappers_are_unwrapped() {
        assert_eq!(unwrap_shell("/bin/bash -lc 'cat a.txt'"), "cat a.txt");
        assert_eq!(unwrap_shell("bash -c \"ls -la\""), "ls -la");
        assert_eq!(unwrap_shell("  ls  "), "ls");
        assert_eq!(unwrap_shell("sh -c echo"), "echo");
        // A quote inside is not unwrapped: the text stays whole.
        assert_eq!(unwrap_shell("bash -c 'a' ; 'b'"), "'a' ; 'b'");
    }
}
