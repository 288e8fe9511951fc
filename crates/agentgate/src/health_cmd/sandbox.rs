//! The sandbox part of `agentgate health`'s text: the kernel's features,
//! bubblewrap and the container engines, then one line per level with its
//! state and reason (the JSON is `agentgate_core::health::SandboxHealth`).

use std::fmt::Write as _;

use agentgate_core::health::{EngineHealth, HostCapability, ProgramHealth, SandboxHealth};
use agentgate_protocol::EnforcementState;

/// The sandbox's block of the report.
pub(super) fn text(sandbox: &SandboxHealth) -> String {
    let kernel = &sandbox.kernel;
    let mut out = String::new();
    let _ = writeln!(out, "SANDBOX ({})", sandbox.os);
    let landlock = match (kernel.landlock_abi, &kernel.landlock_note) {
        (Some(abi), _) => format!("ABI {abi}"),
        (None, Some(why)) => format!("no ({why})"),
        (None, None) => "no".to_owned(),
    };
    let rows: Vec<[String; 2]> = [
        ("Landlock".to_owned(), landlock),
        (
            "user namespace".to_owned(),
            capability(&kernel.user_namespace),
        ),
        (
            "network namespace".to_owned(),
            capability(&kernel.network_namespace),
        ),
        (
            "PID namespace".to_owned(),
            capability(&kernel.pid_namespace),
        ),
        ("bubblewrap".to_owned(), program(&sandbox.bubblewrap)),
    ]
    .into_iter()
    .chain(sandbox.engines.iter().map(|e| (e.name.clone(), engine(e))))
    .map(|(name, value)| [format!("  {name}"), value])
    .collect();
    // The table's header row is empty: the rows name themselves.
    out.push_str(crate::table::aligned(["", ""], &rows).trim_start_matches('\n'));
    out.push('\n');
    let levels: Vec<[String; 3]> = sandbox
        .levels
        .iter()
        .map(|l| {
            [
                l.level.to_string(),
                state(&l.state).to_owned(),
                l.reason.clone(),
            ]
        })
        .collect();
    out.push_str(&crate::table::aligned(
        ["LEVEL", "STATE", "REASON"],
        &levels,
    ));
    out
}

fn capability(cap: &HostCapability) -> String {
    match (cap.available, &cap.note) {
        (true, _) => "yes".to_owned(),
        (false, Some(why)) => format!("no ({why})"),
        (false, None) => "no".to_owned(),
    }
}

fn program(p: &ProgramHealth) -> String {
    let Some(path) = &p.path else {
        return "not found".to_owned();
    };
    let version = p.version.as_deref().unwrap_or("version unknown");
    match &p.error {
        Some(e) => format!("{version} ({}): {e}", path.display()),
        None => format!("{version} ({})", path.display()),
    }
}

fn engine(e: &EngineHealth) -> String {
    let found = program(&e.program);
    if !e.program.found {
        return found;
    }
    let took = e.info_ms.map_or(String::new(), |ms| format!(" in {ms} ms"));
    match (e.answers, &e.info_error) {
        (true, _) => format!("{found}, answers `{} info`{took}", e.name),
        (false, Some(why)) => format!("{found}, does not answer: {why}"),
        (false, None) => format!("{found}, does not answer"),
    }
}

fn state(s: &EnforcementState) -> &'static str {
    match s {
        EnforcementState::Enforced => "enforced",
        EnforcementState::Partial => "partial",
        EnforcementState::NotEnforced => "not_enforced",
        EnforcementState::NoLimit => "none",
    }
}
