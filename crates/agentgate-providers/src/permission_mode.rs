//! How much an agent may do without asking: the permission mode every
//! provider's argv table renders (and the engine's settings carry).

use std::str::FromStr;

/// How much the agent may do without asking. In every mode but `Ask` the
/// CLI cannot ask (runs are unattended), so what needs approval is refused
/// by the CLI; in `Ask` it asks agentgate, which answers from the approval
/// policy (`approvals:` in the config) through the CLI's long-lived mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PermissionMode {
    /// The CLI's default: edits and commands need approval, so they are refused.
    #[default]
    Default,
    /// Read-only planning: nothing is changed.
    Plan,
    /// File edits are allowed, other actions need approval.
    AcceptEdits,
    /// Everything is allowed, without a sandbox (`--yolo`).
    Bypass,
    /// The CLI asks before each tool call that needs approval, and the
    /// approval policy answers (only providers with a long-lived mode).
    Ask,
}

impl PermissionMode {
    /// `default`, `plan`, `acceptEdits` or `bypass`, as the flag takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::Plan => "plan",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Bypass => "bypass",
            PermissionMode::Ask => "ask",
        }
    }
}

impl FromStr for PermissionMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "default" => Ok(PermissionMode::Default),
            "plan" => Ok(PermissionMode::Plan),
            "acceptEdits" | "accept-edits" | "accept_edits" => Ok(PermissionMode::AcceptEdits),
            "bypass" | "bypassPermissions" | "yolo" => Ok(PermissionMode::Bypass),
            "ask" => Ok(PermissionMode::Ask),
            other => Err(format!(
                "unknown permission mode `{other}` (expected default, plan, acceptEdits, bypass or ask)"
            )),
        }
    }
}
