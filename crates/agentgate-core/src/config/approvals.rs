//! `approvals:`: how a run in permission mode `ask` answers its CLI's
//! permission requests (see `crate::approvals`).
//!
//! ```yaml
//! approvals:
//!   default: deny            # what no rule decides: allow | deny | ask
//!   ask_timeout: 2m          # an `ask` nobody answers is denied after this
//!   rules:                   # in order; the first whose every field holds decides
//!     - {class: read, decision: allow}
//!     - {class: write, path: "src/**", decision: allow}
//!     - {class: shell, command: "git status*", decision: allow}
//!     - {tool: "mcp__*", decision: ask}
//!     - {class: web, decision: deny}
//! ```

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::yaml::{Fault, Secs};
use crate::approvals::{ApprovalPolicy, Decision, Rule, ToolClass};

/// `approvals:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawApprovals {
    default: Option<Spanned<RawDecision>>,
    ask_timeout: Option<Spanned<Secs>>,
    #[serde(default)]
    rules: Vec<Spanned<RawRule>>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum RawDecision {
    Allow,
    Deny,
    Ask,
}

impl From<RawDecision> for Decision {
    fn from(d: RawDecision) -> Decision {
        match d {
            RawDecision::Allow => Decision::Allow,
            RawDecision::Deny => Decision::Deny,
            RawDecision::Ask => Decision::Ask,
        }
    }
}

/// One rule as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRule {
    class: Option<ToolClass>,
    tool: Option<String>,
    path: Option<String>,
    command: Option<String>,
    decision: RawDecision,
}

/// Check `approvals:`.
pub(super) fn convert(raw: &RawApprovals) -> Result<ApprovalPolicy, Fault> {
    let mut policy = ApprovalPolicy::default();
    if let Some(d) = &raw.default {
        policy.default = d.value.into();
    }
    if let Some(t) = &raw.ask_timeout {
        if t.value.0.is_zero() {
            return Err(Fault::at(
                t,
                "approvals.ask_timeout: give a duration above 0",
            ));
        }
        policy.ask_timeout = t.value.0;
    }
    for (i, r) in raw.rules.iter().enumerate() {
        let rule = &r.value;
        let label = format!("approvals.rules[{i}] (line {})", r.referenced.line());
        if rule.class.is_none()
            && rule.tool.is_none()
            && rule.path.is_none()
            && rule.command.is_none()
        {
            return Err(Fault::at(
                r,
                format!(
                    "approvals.rules[{i}]: a rule needs at least one of class, tool, path, command (use `default:` for the rest)"
                ),
            ));
        }
        for (field, value) in [
            ("tool", &rule.tool),
            ("path", &rule.path),
            ("command", &rule.command),
        ] {
            if value.as_deref().is_some_and(|v| v.trim().is_empty()) {
                return Err(Fault::at(
                    r,
                    format!("approvals.rules[{i}].{field} is empty"),
                ));
            }
        }
        policy.rules.push(Rule {
            class: rule.class,
            tool: rule.tool.clone(),
            path: rule.path.clone(),
            command: rule.command.clone(),
            decision: rule.decision.into(),
            label,
        });
    }
    Ok(policy)
}
