//! `agentgate tools check`: whether a tool can run. Four checks in order:
//! its manifest is valid, its entry is an executable file, the policy
//! admits it, and its `health.selftest` passes (exit 0 within
//! [`SELFTEST_TIMEOUT`]). A later check is skipped when an earlier one
//! fails (nothing runs a tool the policy refuses).
//!
//! The selftest runs under the supervisor as a tool run does (its own
//! process group, the keeper when given, nothing left behind) with a scoped
//! environment (an allowlist, the manifest's `env.require` and the seed's
//! run variables, in a throw-away workspace), but without the sandbox's
//! limits: it checks that the tool works, not that it stays in bounds.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentgate_supervise::{EndReason, Invocation, OutputLine, SupervisorConfig, supervise};
use serde::Serialize;
use tokio::sync::mpsc;

use crate::registry::{ListedTool, Registry, ResolvedTool};
use crate::runner::{SeedVars, scoped_env};

/// The longest a selftest may take.
pub const SELFTEST_TIMEOUT: Duration = Duration::from_secs(30);

/// How many of the selftest's last output lines a failure shows.
const TAIL_LINES: usize = 10;

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// It passed.
    Pass,
    /// It failed.
    Fail,
    /// It was not run (an earlier check failed, or nothing to run).
    Skip,
}

/// One check of a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckItem {
    /// `manifest`, `entry`, `policy` or `selftest`.
    pub check: &'static str,
    /// How it went.
    pub outcome: Outcome,
    /// What was seen.
    pub detail: String,
}

/// Every check of one tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolCheck {
    /// The tool.
    pub tool: String,
    /// Where it is defined.
    pub source: String,
    /// The checks, in order.
    pub checks: Vec<CheckItem>,
}

impl ToolCheck {
    /// No check failed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.outcome != Outcome::Fail)
    }
}

fn item(check: &'static str, outcome: Outcome, detail: impl Into<String>) -> CheckItem {
    CheckItem {
        check,
        outcome,
        detail: detail.into(),
    }
}

/// Check the listed tool `listed` of `registry`; `keeper` is the program
/// whose `__keeper` subcommand leads the selftest's group (agentgate
/// itself), if any.
pub async fn check_tool(
    registry: &Registry,
    listed: &ListedTool,
    keeper: Option<PathBuf>,
) -> ToolCheck {
    let mut checks = Vec::new();
    let skip_rest = |checks: &mut Vec<CheckItem>, from: usize, why: &str| {
        for name in ["manifest", "entry", "policy", "selftest"]
            .into_iter()
            .skip(from)
        {
            checks.push(item(name, Outcome::Skip, why));
        }
    };
    let tool = match &listed.state {
        Ok(tool) => {
            checks.push(item(
                "manifest",
                Outcome::Pass,
                format!("version {}", tool.manifest.version),
            ));
            tool
        }
        Err(e) => {
            checks.push(item("manifest", Outcome::Fail, e.to_string()));
            skip_rest(&mut checks, 1, "the manifest is broken");
            return finish(listed, checks);
        }
    };
    match executable(&tool.entry) {
        Ok(()) => checks.push(item(
            "entry",
            Outcome::Pass,
            tool.entry.display().to_string(),
        )),
        Err(why) => {
            checks.push(item("entry", Outcome::Fail, why));
            skip_rest(&mut checks, 2, "the entry cannot run");
            return finish(listed, checks);
        }
    }
    match registry.policy().check(tool) {
        Ok(limits) => checks.push(item(
            "policy",
            Outcome::Pass,
            format!(
                "admitted; limits: cpu_seconds {}, memory_mb {}, max_output_mb {}, run_s {}, heartbeat_s {}",
                or_none(limits.cpu_seconds),
                or_none(limits.memory_mb),
                or_none(limits.max_output_mb),
                limits.run_s,
                limits.heartbeat_s
            ),
        )),
        Err(refusal) => {
            checks.push(item("policy", Outcome::Fail, refusal.to_string()));
            skip_rest(&mut checks, 3, "the policy refuses the tool");
            return finish(listed, checks);
        }
    }
    checks.push(match &tool.manifest.health.selftest {
        None => item(
            "selftest",
            Outcome::Skip,
            "the manifest gives no health.selftest",
        ),
        Some(args) => match selftest(tool, args, keeper, &crate::invoke::caller_env()).await {
            Ok(detail) => item("selftest", Outcome::Pass, detail),
            Err(detail) => item("selftest", Outcome::Fail, detail),
        },
    });
    finish(listed, checks)
}

fn finish(listed: &ListedTool, checks: Vec<CheckItem>) -> ToolCheck {
    ToolCheck {
        tool: listed.name.clone(),
        source: listed.source.to_string(),
        checks,
    }
}

fn or_none(v: Option<u64>) -> String {
    v.map_or_else(|| "none".to_owned(), |v| v.to_string())
}

fn executable(entry: &Path) -> Result<(), String> {
    match std::fs::metadata(entry) {
        Err(e) => Err(format!("{}: {e}", entry.display())),
        Ok(m) if !m.is_file() => Err(format!("{} is not a file", entry.display())),
        Ok(m) if m.permissions().mode() & 0o111 == 0 => Err(format!(
            "{} is not executable (chmod +x it, with a #! line for a script)",
            entry.display()
        )),
        Ok(_) => Ok(()),
    }
}

/// Run the selftest; `Ok` with what it printed last, `Err` with why it
/// failed.
async fn selftest(
    tool: &ResolvedTool,
    args: &[String],
    keeper: Option<PathBuf>,
    caller_env: &[(String, String)],
) -> Result<String, String> {
    let scratch = tempfile::Builder::new()
        .prefix("agentgate-selftest-")
        .tempdir()
        .map_err(|e| format!("cannot create a workspace: {e}"))?;
    let dir = |name: &str| -> Result<PathBuf, String> {
        let path = scratch.path().join(name);
        std::fs::create_dir_all(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(path)
    };
    let (workspace, logs, tmp, home) = (dir("work")?, dir("logs")?, dir("tmp")?, dir("home")?);
    let run_id = format!("selftest-{}-{}", tool.manifest.name, std::process::id());
    let seed = SeedVars {
        run_id: &run_id,
        trace_id: &run_id,
        workspace: &workspace,
        logs: &logs,
        tmp: &tmp,
        home: &home,
        cancel_file: &scratch.path().join("CANCEL"),
        deadline_in: SELFTEST_TIMEOUT,
    };
    let env = scoped_env(&tool.manifest.env.require, caller_env, &seed).map_err(|missing| {
        format!(
            "E_ENV_MISSING: the manifest requires {} (env.require), not set",
            missing.join(", ")
        )
    })?;
    let env: Vec<(OsString, OsString)> = env
        .into_iter()
        .map(|(k, v)| (OsString::from(k), OsString::from(v)))
        .collect();
    let inv = Invocation {
        program: tool.entry.clone(),
        args: args.iter().map(OsString::from).collect(),
        env,
        env_clear: true,
        cwd: Some(workspace),
        ..Invocation::default()
    };
    let cfg = SupervisorConfig {
        timeout: Some(SELFTEST_TIMEOUT),
        keeper,
        ..SupervisorConfig::default()
    };
    let (lines_tx, mut lines_rx) = mpsc::channel::<OutputLine>(64);
    let (_control_tx, control_rx) = mpsc::channel(1);
    let collect = tokio::spawn(async move {
        let mut tail = std::collections::VecDeque::new();
        while let Some(line) = lines_rx.recv().await {
            if tail.len() == TAIL_LINES {
                tail.pop_front();
            }
            tail.push_back(String::from_utf8_lossy(&line.bytes).into_owned());
        }
        tail.into_iter().collect::<Vec<_>>().join(" | ")
    });
    let report = supervise(inv, cfg, lines_tx, control_rx)
        .await
        .map_err(|e| format!("E_SPAWN: cannot start {}: {e}", tool.entry.display()))?;
    let tail = collect.await.unwrap_or_default();
    let said = if tail.is_empty() {
        "no output".to_owned()
    } else {
        format!("output: {tail}")
    };
    if report.ended_by == EndReason::Timeout {
        return Err(format!(
            "did not finish within {} s (ended by the supervisor; {said})",
            SELFTEST_TIMEOUT.as_secs()
        ));
    }
    if !report.survivors.is_empty() {
        return Err(format!(
            "left processes that could not be ended: {}",
            report
                .survivors
                .iter()
                .map(|s| format!("{} ({})", s.pid, s.command))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    match (report.status.code, report.status.signal) {
        (Some(0), _) => Ok(format!("exit 0; {said}")),
        (Some(code), _) => Err(format!("exited with status {code}, not 0; {said}")),
        (None, Some(sig)) => Err(format!("killed by signal {sig}; {said}")),
        (None, None) => Err(format!("ended without a status; {said}")),
    }
}
