//! An agent's permissions file on Codex, which has no per-tool allow or
//! deny list: what `permissions::settings` maps (`deny` of shell, write
//! and web) becomes `-c` overrides on the command line.
//!
//! - `features.shell_tool=false` takes its shell tools (`exec_command`,
//!   `shell`) away: they are not offered to the model, and a call to one
//!   is answered as an unknown tool.
//! - `sandbox_mode="read-only"` with `approval_policy="never"` makes every
//!   write fail, its patch tool's and its shell's alike. A sandbox set on
//!   the command line wins over a `-c` one, so the mode's `--sandbox` and
//!   `--yolo`'s `--dangerously-bypass-approvals-and-sandbox` are taken out
//!   first: a file that denies writes is stricter than any mode.
//! - `web_search="disabled"` turns its web search off.
//!
//! A warm `app-server` thread gets the same overrides on its command line,
//! and its sandbox over the wire (`warm/modes.rs` asks
//! [`denies_writes`]).

use std::ffi::OsString;

use serde_json::Value;

use super::super::argv::Context;
use super::super::permissions::{self, Permissions, PermissionsWay};
use super::super::provider::{CliCommand, CommandError};

/// The flag `--yolo` gives `codex exec`.
const BYPASS_FLAG: &str = "--dangerously-bypass-approvals-and-sandbox";

/// Whether `p` runs Codex in the read-only sandbox (it denies writes).
pub fn denies_writes(p: &Permissions) -> bool {
    overrides(p).iter().any(|(k, _)| k == "sandbox_mode")
}

/// The `-c` overrides of `p` (key, TOML value).
fn overrides(p: &Permissions) -> Vec<(String, String)> {
    match permissions::settings(PermissionsWay::CodexConfig, "codex", p).0 {
        Some(Value::Object(map)) => map
            .into_iter()
            .filter_map(|(k, v)| v.as_str().map(|v| (k, v.to_owned())))
            .collect(),
        _ => Vec::new(),
    }
}

/// Adds the overrides after the mode's arguments, the mode's sandbox taken
/// out when the file sets one.
pub(super) fn permissions(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let Some(p) = &ctx.request.permissions else {
        return Ok(());
    };
    let overrides = overrides(p);
    if overrides.iter().any(|(k, _)| k == "sandbox_mode") {
        remove_sandbox_args(&mut cmd.args);
    }
    for (key, value) in overrides {
        cmd.args.push(OsString::from("-c"));
        cmd.args.push(OsString::from(format!("{key}={value}")));
    }
    Ok(())
}

/// Takes `--sandbox X`, `-c sandbox_mode=X`, `-c approval_policy=X` and the
/// bypass flag out of `args`.
fn remove_sandbox_args(args: &mut Vec<OsString>) {
    let mut kept = Vec::with_capacity(args.len());
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_string_lossy();
        let next = args.get(i + 1).map(|n| n.to_string_lossy().into_owned());
        let sets_sandbox = |n: &Option<String>| {
            n.as_deref().is_some_and(|n| {
                n.starts_with("sandbox_mode=") || n.starts_with("approval_policy=")
            })
        };
        if a == BYPASS_FLAG {
            i += 1;
        } else if a == "--sandbox" || (a == "-c" && sets_sandbox(&next)) {
            i += 2;
        } else {
            kept.push(args[i].clone());
            i += 1;
        }
    }
    *args = kept;
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::PermissionMode;
    use crate::codex::CODEX;
    use crate::provider::{CliRequest, Provider};

    fn file(v: Value) -> Permissions {
        Permissions::from_value(v).unwrap()
    }

    fn command(p: Permissions, mode: PermissionMode, resume: bool) -> CliCommand {
        let dir = tempfile::tempdir().unwrap();
        let r = CliRequest {
            permissions: Some(p),
            permission_mode: mode,
            resume: resume.then(|| "019a-thread".to_owned()),
            ..CliRequest::default()
        };
        CODEX
            .command(&r, Path::new("/bin/codex"), &dir.path().into())
            .unwrap()
    }

    #[test]
    fn a_denied_shell_turns_the_shell_tool_off_and_web_search_too() {
        let c = command(
            file(json!({"deny": ["shell", "web"]})),
            PermissionMode::Bypass,
            false,
        );
        let argv = c.display_args().join(" ");
        assert!(argv.contains("-c features.shell_tool=false"), "{argv}");
        assert!(argv.contains("-c web_search=\"disabled\""), "{argv}");
        // The mode stays: nothing denied writes.
        assert!(argv.contains(BYPASS_FLAG), "{argv}");
        assert!(
            c.notices.iter().all(|n| !n.contains("not")),
            "{:?}",
            c.notices
        );
    }

    #[test]
    fn a_denied_write_makes_every_mode_read_only_and_never_asking() {
        for (mode, resume) in [
            (PermissionMode::Bypass, false),
            (PermissionMode::Default, false),
            (PermissionMode::Default, true),
            (PermissionMode::Plan, true),
        ] {
            let c = command(file(json!({"deny": ["write"]})), mode, resume);
            let argv = c.display_args();
            let joined = argv.join(" ");
            assert!(!joined.contains(BYPASS_FLAG), "{joined}");
            assert!(!argv.iter().any(|a| a == "--sandbox"), "{joined}");
            assert_eq!(
                argv.iter()
                    .filter(|a| a.starts_with("sandbox_mode="))
                    .count(),
                1,
                "{joined}"
            );
            assert!(joined.contains("-c sandbox_mode=\"read-only\""), "{joined}");
            assert!(joined.contains("-c approval_policy=\"never\""), "{joined}");
            assert!(denies_writes(&file(json!({"deny": ["write"]}))));
        }
    }

    #[test]
    fn what_codex_cannot_enforce_is_said_not_to_be_applied() {
        let c = command(
            file(json!({"deny": ["read", "shell"], "allow": ["web"]})),
            PermissionMode::Default,
            false,
        );
        assert!(
            c.notices.iter().any(|n| n.contains("not fully applied")
                && n.contains("deny `read`")
                && n.contains("allow web")),
            "{:?}",
            c.notices
        );
        assert!(
            c.display_args()
                .join(" ")
                .contains("features.shell_tool=false")
        );
        let native = command(
            Permissions::Native(json!({"sandbox_mode": "read-only"})),
            PermissionMode::Default,
            false,
        );
        assert!(
            native.notices.iter().any(|n| n.contains("was not applied")),
            "{:?}",
            native.notices
        );
        assert!(!denies_writes(&file(json!({"deny": ["shell"]}))));
    }
}
