//! How a tool run ended, decided once the tool is gone.
//!
//! The first rule that applies wins:
//!
//! 1. the runner ended it: output cap (`E_OUTPUT_LIMIT`), heartbeat
//!    (`E_HEARTBEAT_MISSED`), deadline (`E_TIMEOUT`), the caller's cancel
//!    (`cancelled`);
//! 2. it never started (`E_SPAWN`);
//! 3. the kernel ended it for CPU (`SIGXCPU`, or `SIGKILL` at the limit:
//!    `E_CPU_LIMIT`);
//! 4. the tool reported an `error` (its code, classed by the first witness
//!    that speaks: the registry's table for a code it lists, else the
//!    manifest's meaning of the exit status, `retryable_error` or
//!    `fatal_error`, else the `retryable` of the tool's own message);
//! 5. it failed after an allocation was refused under `memory_mb`
//!    (`E_MEMORY_LIMIT`, from its exit and its stderr);
//! 6. it failed after the sandbox refused a path or a connection
//!    (`E_PERMISSION`, from its exit and its stderr);
//! 7. the tool reported `cancelled`;
//! 8. the tool reported a `result`: not `ok` (`E_RESULT_NOT_OK`), an
//!    artifact missing or not matching its hash (`E_ARTIFACT_MISSING`,
//!    `E_ARTIFACT_MISMATCH`), else `ok`;
//! 9. only the exit status is left: `action_required` if the tool asked for
//!    decisions; the `ok` status without a valid `result` is `E_PROTOCOL`
//!    (a `result` or an `error` ends a run), or `ok` when the manifest says
//!    `result_required: false`; `E_EXIT_RETRYABLE`, `E_EXIT_FATAL`,
//!    `E_EXIT_UNEXPECTED`.

use std::path::Path;
use std::time::Duration;

use agentgate_protocol::{
    ArtifactCheck, ArtifactState, Enforcement, EnforcementState, ExitMeaning, LimitsReport,
    ToolErrorClass, ToolExit, ToolStatus,
};
use agentgate_supervise::{EndReason, ExitReport, SuperviseError};

use super::artifacts::check_artifacts;
use super::request::{ClassifyCode, RunLimits};
use super::watch::{RunnerCause, Seen};
use crate::error_codes as codes;
use crate::manifest::ExitCodes;
use crate::sandbox::SandboxReport;

/// Texts a runtime prints when an allocation fails.
const OUT_OF_MEMORY: &[&str] = &[
    "MemoryError",
    "Cannot allocate memory",
    "out of memory",
    "Out of memory",
    "bad_alloc",
    "memory allocation of",
    "heap out of memory",
];

/// Texts a program prints when the sandbox refused a file or a connection
/// (Landlock answers `EACCES`; a network namespace has no route).
const DENIED: &[&str] = &[
    "Permission denied",
    "PermissionError",
    "EACCES",
    "Operation not permitted",
    "Network is unreachable",
    "ENETUNREACH",
];

/// Everything the verdict is decided from.
pub(super) struct Evidence<'a> {
    pub seen: &'a Seen,
    pub report: &'a Result<ExitReport, SuperviseError>,
    pub sandbox: Option<&'a SandboxReport>,
    pub exit_codes: &'a ExitCodes,
    /// The manifest's `result_required`.
    pub result_required: bool,
    pub limits: &'a RunLimits,
    pub workspace: &'a Path,
    pub classify: &'a ClassifyCode,
}

/// The outcome part of the envelope.
pub(super) struct Verdict {
    pub status: ToolStatus,
    pub code: Option<String>,
    pub class: Option<ToolErrorClass>,
    pub retryable: bool,
    pub error: Option<String>,
    pub hint: Option<String>,
    pub artifacts: Vec<ArtifactCheck>,
    pub tool_exit: Option<ToolExit>,
    pub cpu_ms: Option<u64>,
    pub max_rss_kib: Option<u64>,
    pub limits: LimitsReport,
    pub warnings: Vec<String>,
    pub metrics: serde_json::Map<String, serde_json::Value>,
    pub actions: Vec<agentgate_protocol::ActionRequest>,
    pub stderr_tail: Option<String>,
}

enum Decided {
    Ok,
    ActionRequired,
    Cancelled(String),
    Error {
        code: String,
        message: String,
        hint: Option<String>,
    },
}

fn error(code: &str, message: String) -> Decided {
    Decided::Error {
        code: code.to_owned(),
        message,
        hint: None,
    }
}

pub(super) fn decide(ev: &Evidence<'_>) -> Verdict {
    let seen = ev.seen;
    let mut warnings = seen.warnings.clone();
    if let Some(sandbox) = ev.sandbox {
        warnings.extend(sandbox.warnings.iter().cloned());
    }
    let exit = tool_exit(ev);
    let meaning = exit.as_ref().map(|e| e.meaning);
    let exit_info = ev.sandbox.and_then(|s| s.exit.as_ref());
    let artifacts = seen
        .result
        .as_ref()
        .map(|r| check_artifacts(&r.artifacts, ev.workspace))
        .unwrap_or_default();
    let timed_out = matches!(ev.report, Ok(r) if r.ended_by == EndReason::Timeout);
    let spawn_error = match (ev.report, ev.sandbox) {
        (Err(e), _) => Some(e.to_string()),
        (Ok(_), Some(s)) => s.spawn_error.clone(),
        (Ok(_), None) => None,
    };
    let failed = meaning != Some(ExitMeaning::Ok);
    let signal = exit.as_ref().and_then(|e| e.signal.as_deref());
    let cpu_hit = ev.limits.cpu_seconds.is_some_and(|limit| {
        signal == Some("SIGXCPU")
            || (signal == Some("SIGKILL")
                && exit_info.is_some_and(|e| e.cpu_ms >= limit.saturating_mul(1000)))
    });
    let out_of_memory = ev.limits.memory_mb.is_some()
        && failed
        && OUT_OF_MEMORY
            .iter()
            .any(|text| seen.stderr_tail.text().contains(text));

    let restricted = ev.sandbox.is_some_and(|s| {
        [&s.filesystem, &s.network].iter().any(|e| {
            matches!(
                e.state,
                EnforcementState::Enforced | EnforcementState::Partial
            )
        })
    });
    let denied = restricted
        && failed
        && DENIED
            .iter()
            .any(|text| seen.stderr_tail.text().contains(text));

    let decided = if seen.cause == Some(RunnerCause::OutputLimit) {
        error(
            codes::E_OUTPUT_LIMIT,
            format!(
                "the tool printed more than {} bytes on stdout; it was stopped",
                ev.limits.max_output_bytes
            ),
        )
    } else if seen.cause == Some(RunnerCause::HeartbeatMissed) {
        error(
            codes::E_HEARTBEAT_MISSED,
            format!(
                "no progress or heartbeat from the tool for {}",
                seconds(ev.limits.heartbeat.unwrap_or_default())
            ),
        )
    } else if timed_out {
        error(
            codes::E_TIMEOUT,
            format!("the deadline of {} passed", seconds(ev.limits.timeout)),
        )
    } else if seen.cause == Some(RunnerCause::Cancelled) {
        Decided::Cancelled(match &seen.cancelled {
            Some(_) => "cancelled: the tool stopped on its cancel file".to_owned(),
            None => "cancelled: the tool was terminated".to_owned(),
        })
    } else if let Some(reason) = spawn_error {
        error(
            codes::E_SPAWN,
            format!("the tool could not be started: {reason}"),
        )
    } else if cpu_hit {
        error(
            codes::E_CPU_LIMIT,
            format!(
                "the tool used its {} CPU seconds and was killed",
                ev.limits.cpu_seconds.unwrap_or_default()
            ),
        )
    } else if let Some(err) = &seen.error {
        Decided::Error {
            code: err.code.clone(),
            message: err
                .msg
                .clone()
                .unwrap_or_else(|| format!("the tool reported {}", err.code)),
            hint: err.hint.clone(),
        }
    } else if out_of_memory {
        error(
            codes::E_MEMORY_LIMIT,
            format!(
                "the tool failed after an allocation was refused under its {} MiB limit",
                ev.limits.memory_mb.unwrap_or_default()
            ),
        )
    } else if denied {
        error(
            codes::E_PERMISSION,
            "the tool failed after the sandbox refused a file or a connection outside its \
             permissions"
                .to_owned(),
        )
    } else if seen.cancelled.is_some() {
        warnings.push("the tool reported `cancelled` though the run was not cancelled".to_owned());
        Decided::Cancelled("cancelled: the tool reported it".to_owned())
    } else if let Some(result) = &seen.result {
        from_result(&result.status, &artifacts, meaning, &mut warnings)
    } else {
        from_exit(
            exit.as_ref(),
            !seen.actions.is_empty(),
            ev.result_required.then_some(seen.bad_result.as_deref()),
        )
    };
    if let Some(ToolExit {
        code: Some(code),
        meaning: ExitMeaning::Unexpected,
        ..
    }) = &exit
    {
        warnings.push(format!(
            "exit status {code} is not one of the manifest's exit_codes"
        ));
    }

    let (status, code, message, hint) = match decided {
        Decided::Ok => (ToolStatus::Ok, None, None, None),
        Decided::ActionRequired => (ToolStatus::ActionRequired, None, None, None),
        Decided::Cancelled(message) => (ToolStatus::Cancelled, None, Some(message), None),
        Decided::Error {
            code,
            message,
            hint,
        } => (ToolStatus::Error, Some(code), Some(message), hint),
    };
    let (class, retryable) = match &code {
        None => (None, false),
        Some(code) => {
            let (class, retryable) = super::runner_code_class(code)
                .unwrap_or_else(|| class_of_tool_code(code, ev, exit.as_ref(), &mut warnings));
            (Some(class), retryable)
        }
    };
    Verdict {
        status,
        code,
        class,
        retryable,
        error: message,
        hint,
        artifacts,
        tool_exit: exit,
        cpu_ms: exit_info.map(|e| e.cpu_ms),
        max_rss_kib: exit_info.map(|e| e.max_rss_kib),
        limits: limits_report(ev),
        warnings,
        metrics: seen
            .result
            .as_ref()
            .and_then(|r| r.metrics.clone())
            .unwrap_or_default(),
        actions: seen.actions.clone(),
        stderr_tail: Some(seen.stderr_tail.text()).filter(|t| !t.is_empty()),
    }
}

fn from_result(
    status: &str,
    artifacts: &[ArtifactCheck],
    meaning: Option<ExitMeaning>,
    warnings: &mut Vec<String>,
) -> Decided {
    if status != "ok" {
        return error(
            codes::E_RESULT_NOT_OK,
            format!("the tool's result has status `{status}`"),
        );
    }
    if let Some(bad) = artifacts
        .iter()
        .find(|a| a.state == ArtifactState::Mismatch)
    {
        return error(
            codes::E_ARTIFACT_MISMATCH,
            format!(
                "artifact {}: the file's SHA-256 is {}, the tool declared {}",
                bad.path,
                bad.actual_sha256.as_deref().unwrap_or("?"),
                bad.sha256.as_deref().unwrap_or("?")
            ),
        );
    }
    if let Some(gone) = artifacts.iter().find(|a| a.state == ArtifactState::Missing) {
        return error(
            codes::E_ARTIFACT_MISSING,
            format!("artifact {}: no such file ({})", gone.path, gone.resolved),
        );
    }
    if meaning.is_some_and(|m| m != ExitMeaning::Ok) {
        warnings.push("the tool reported `ok` but did not exit with its ok status".to_owned());
    }
    Decided::Ok
}

/// The class of a code the tool reported, and whether a retry may succeed,
/// from the first witness that speaks: the registry's table (the runner's
/// codes and `error_codes.yaml`) for a code it lists; else what the
/// manifest says the exit status means (`retryable_error`: retryable;
/// `fatal_error`: not); else the `retryable` the tool wrote in its `error`
/// message; else `unknown`, not retryable. A witness after the registry
/// leaves a warning that says which spoke.
fn class_of_tool_code(
    code: &str,
    ev: &Evidence<'_>,
    exit: Option<&ToolExit>,
    warnings: &mut Vec<String>,
) -> (ToolErrorClass, bool) {
    if let Some(listed) = (ev.classify)(code) {
        return listed;
    }
    let unlisted = format!("`{code}` is not in the error codes registry");
    let status = exit.and_then(|e| e.code).unwrap_or_default();
    match exit.map(|e| e.meaning) {
        Some(ExitMeaning::RetryableError) => {
            warnings.push(format!(
                "{unlisted}: retryable, as the exit status {status} is the manifest's retryable_error"
            ));
            return (ToolErrorClass::Retryable, true);
        }
        Some(ExitMeaning::FatalError) => {
            warnings.push(format!(
                "{unlisted}: not retryable, as the exit status {status} is the manifest's fatal_error"
            ));
            return (ToolErrorClass::Unknown, false);
        }
        Some(ExitMeaning::Ok | ExitMeaning::Unexpected) | None => {}
    }
    match ev.seen.error.as_ref().and_then(|e| e.retryable) {
        Some(true) => {
            warnings.push(format!(
                "{unlisted}: retryable, as the tool's error message says"
            ));
            (ToolErrorClass::Retryable, true)
        }
        Some(false) | None => (ToolErrorClass::Unknown, false),
    }
}

/// The outcome from the exit status alone. `missing_result` is `Some` when
/// the manifest requires a `result` (holding why one seen was not valid).
fn from_exit(
    exit: Option<&ToolExit>,
    asked: bool,
    missing_result: Option<Option<&str>>,
) -> Decided {
    let Some(exit) = exit else {
        return error(
            codes::E_EXIT_UNEXPECTED,
            "the tool's end is unknown".to_owned(),
        );
    };
    let status = match (&exit.code, &exit.signal) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => "an unknown status".to_owned(),
    };
    match exit.meaning {
        ExitMeaning::Ok if asked => Decided::ActionRequired,
        ExitMeaning::Ok => match missing_result {
            None => Decided::Ok,
            Some(why) => error(
                codes::E_PROTOCOL,
                format!(
                    "the tool ended with {status} (ok) without a valid `result` message{}: a \
                     `result` or an `error` message ends a run (a tool that reports by its exit \
                     status alone says `result_required: false` in its manifest)",
                    why.map(|w| format!(" ({w})")).unwrap_or_default()
                ),
            ),
        },
        ExitMeaning::RetryableError => error(
            codes::E_EXIT_RETRYABLE,
            format!("the tool ended with {status} (retryable_error) without reporting an error"),
        ),
        ExitMeaning::FatalError => error(
            codes::E_EXIT_FATAL,
            format!("the tool ended with {status} (fatal_error) without reporting an error"),
        ),
        ExitMeaning::Unexpected => error(
            codes::E_EXIT_UNEXPECTED,
            format!("the tool ended with {status}, which its manifest does not list"),
        ),
    }
}

/// How the tool ended: from the sandbox's report, else from the sandbox
/// process itself (it exits with the tool's status).
fn tool_exit(ev: &Evidence<'_>) -> Option<ToolExit> {
    let (code, signal) = match ev.sandbox.and_then(|s| s.exit.as_ref()) {
        Some(exit) => (exit.code, exit.signal.clone()),
        None => {
            let report = ev.report.as_ref().ok()?;
            if ev.sandbox.is_some_and(|s| s.spawn_error.is_some()) {
                return None;
            }
            let signal = report.status.signal.map(signal_name);
            (report.status.code, signal)
        }
    };
    let meaning = match (code, &signal) {
        (Some(code), _) if code == ev.exit_codes.ok => ExitMeaning::Ok,
        (Some(code), _) if Some(code) == ev.exit_codes.retryable_error => {
            ExitMeaning::RetryableError
        }
        (Some(code), _) if Some(code) == ev.exit_codes.fatal_error => ExitMeaning::FatalError,
        _ => ExitMeaning::Unexpected,
    };
    Some(ToolExit {
        code,
        signal,
        meaning,
    })
}

fn signal_name(signal: i32) -> String {
    nix::sys::signal::Signal::try_from(signal)
        .map_or_else(|_| format!("signal {signal}"), |s| s.as_str().to_owned())
}

fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

fn limits_report(ev: &Evidence<'_>) -> LimitsReport {
    match ev.sandbox {
        Some(s) => LimitsReport {
            cpu: s.cpu.clone(),
            memory: s.memory.clone(),
            output: Enforcement {
                limit: format!("{} bytes on stdout", ev.limits.max_output_bytes),
                state: EnforcementState::Enforced,
                by: Some("runner".to_owned()),
                note: None,
            },
            filesystem: s.filesystem.clone(),
            network: s.network.clone(),
            private_files: s.private_files.clone(),
            processes: s.processes.clone(),
        },
        None => limits_without_sandbox(ev.limits),
    }
}

/// The verdict of a run that ended before its tool started (the policy
/// refused it, a required variable is missing).
pub(super) fn not_started(limits: &RunLimits, code: &str, message: String) -> Verdict {
    let (class, retryable) =
        super::runner_code_class(code).unwrap_or((ToolErrorClass::Unknown, false));
    let ev_limits = limits_without_sandbox(limits);
    Verdict {
        status: ToolStatus::Error,
        code: Some(code.to_owned()),
        class: Some(class),
        retryable,
        error: Some(message),
        hint: None,
        artifacts: Vec::new(),
        tool_exit: None,
        cpu_ms: None,
        max_rss_kib: None,
        limits: ev_limits,
        warnings: Vec::new(),
        metrics: serde_json::Map::new(),
        actions: Vec::new(),
        stderr_tail: None,
    }
}

fn limits_without_sandbox(limits: &RunLimits) -> LimitsReport {
    let missing = |limit: String| Enforcement {
        limit,
        state: EnforcementState::NotEnforced,
        by: None,
        note: Some("the tool did not start".to_owned()),
    };
    LimitsReport {
        cpu: missing(
            limits
                .cpu_seconds
                .map_or_else(|| "none".to_owned(), |s| format!("{s} s")),
        ),
        memory: missing(
            limits
                .memory_mb
                .map_or_else(|| "none".to_owned(), |m| format!("{m} MiB")),
        ),
        output: missing(format!("{} bytes on stdout", limits.max_output_bytes)),
        filesystem: missing("the manifest's paths".to_owned()),
        network: missing("the manifest's egress".to_owned()),
        private_files: missing("agentgate's own files".to_owned()),
        processes: missing("other processes hidden".to_owned()),
    }
}
