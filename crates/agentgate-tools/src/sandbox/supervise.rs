//! `agentgate __sandbox SPEC_FILE`: the sandbox process the runner
//! supervises. It starts `agentgate __sandbox --apply` (which applies the
//! limits and becomes the tool), writes the first report once the limits
//! are known and before the tool starts, outlives the tool, and writes the
//! final report with the tool's exit, CPU time and peak memory.
//!
//! When the spec asks to hide the other processes, it first enters a new
//! PID namespace (`pidns.rs`) and starts `__sandbox --init` instead, pid 1
//! of that namespace, which starts `--apply` in turn and reports the tool's
//! end on the status pipe. Where the namespace is refused, it starts
//! `--apply` itself and tells it why (the `processes` entry).
//!
//! It ignores nothing but outlives its child: SIGINT, SIGTERM, SIGHUP and
//! SIGQUIT get do-nothing handlers (handlers, not `SIG_IGN`, so that `exec`
//! resets them and the tool, in the same process group, gets the runner's
//! termination signals with their default actions). SIGKILL of the group
//! ends it too; the first report is then what the runner has.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::signal::Signal;

use super::handshake::{FAILED_RLIMITS, Isolation, Prepared, inherit_across_exec, parse_records};
use super::init::PROCESSES_LIMIT;
use super::pidns::enter_pid_namespace;
use super::report::{no_limit, not_enforced};
use super::{
    EXIT_SANDBOX_FAILED, SANDBOX_SUBCOMMAND, SandboxExit, SandboxReport, SandboxSpec,
    exit_code_for_spawn_error,
};

/// Run the sandbox for the spec at `spec_path`; the exit code to exit with.
pub(crate) fn supervise_main(spec_path: &Path) -> i32 {
    let spec = match SandboxSpec::read(spec_path) {
        Ok(spec) => spec,
        Err(e) => {
            eprintln!("agentgate sandbox: {e}");
            if let Some(report_path) = SandboxSpec::report_path_of(spec_path) {
                let _ = SandboxReport::failed_before_start(e.to_string())
                    .write_atomically(&report_path);
            }
            return EXIT_SANDBOX_FAILED;
        }
    };
    match run(&spec, spec_path) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("agentgate sandbox: {message}");
            let _ = SandboxReport::failed_before_start(message).write_atomically(&spec.report_path);
            EXIT_SANDBOX_FAILED
        }
    }
}

fn run(spec: &SandboxSpec, spec_path: &Path) -> Result<i32, String> {
    // Before anything else: a user namespace needs a single thread.
    let stage = if !spec.isolate_processes {
        Stage::Apply(Isolation {
            processes: no_limit(),
            netns: None,
            warnings: Vec::new(),
        })
    } else {
        match enter_pid_namespace() {
            Ok(()) => Stage::Init,
            Err(why) => Stage::Apply(Isolation {
                processes: not_enforced(PROCESSES_LIMIT, why),
                netns: None,
                warnings: Vec::new(),
            }),
        }
    };
    outlive_termination_signals()?;
    let (mut child, status, go) = start_next(spec_path, &stage)?;
    let mut status = BufReader::new(status);
    let mut line = String::new();
    let prepared: Option<Prepared> = match status.read_line(&mut line) {
        Ok(_) => serde_json::from_str(&line).ok(),
        Err(_) => None,
    };
    let Some(prepared) = prepared else {
        drop(go);
        let ended = child.wait().map_err(|e| format!("failed to wait: {e}"))?;
        return Err(format!(
            "the sandbox failed before starting the tool ({})",
            describe(ended)
        ));
    };
    let mut report = SandboxReport {
        cpu: prepared.cpu,
        memory: prepared.memory,
        filesystem: prepared.filesystem,
        network: prepared.network,
        private_files: prepared.private_files,
        processes: prepared.processes,
        warnings: prepared.warnings,
        spawn_error: None,
        exit: None,
    };
    if let Err(e) = report.write_atomically(&spec.report_path) {
        drop(go);
        let _ = child.wait();
        return Err(format!(
            "failed to write the report {}: {e}",
            spec.report_path.display()
        ));
    }
    let mut go = go;
    let said_go = go.write_all(b"g");
    drop(go);
    said_go.map_err(|e| format!("failed to start the tool: {e}"))?;
    let mut rest = Vec::new();
    let _ = status.read_to_end(&mut rest);
    let ended = child
        .wait()
        .map_err(|e| format!("failed to wait for the tool: {e}"))?;
    let records = parse_records(&rest);
    let exit_code = if let Some((what, errno)) = records.failure {
        let error = std::io::Error::from_raw_os_error(errno);
        report.spawn_error = Some(if what == FAILED_RLIMITS {
            format!("failed to set the resource limits: {error}")
        } else {
            format!("failed to start {}: {error}", spec.program.display())
        });
        eprintln!(
            "agentgate sandbox: {}",
            report.spawn_error.as_deref().unwrap_or("")
        );
        exit_code_for_spawn_error(errno)
    } else {
        // The tool's end: pid 1's record of it when there is one (pid 1
        // cannot end by the tool's signal), else the child's own.
        let (code, signal) = records
            .ended
            .unwrap_or_else(|| (ended.code(), ended.signal()));
        report.exit = Some(exit_of(code, signal));
        code.or_else(|| signal.map(|s| 128 + s))
            .unwrap_or(EXIT_SANDBOX_FAILED)
    };
    report.write_atomically(&spec.report_path).map_err(|e| {
        format!(
            "failed to write the report {}: {e}",
            spec.report_path.display()
        )
    })?;
    Ok(exit_code)
}

/// What the sandbox starts: pid 1 of the new PID namespace, or the
/// process that becomes the tool, told of the isolation.
enum Stage {
    Init,
    Apply(Isolation),
}

/// Start `agentgate __sandbox --init` or `--apply` with the two pipes.
fn start_next(
    spec_path: &Path,
    stage: &Stage,
) -> Result<(Child, std::io::PipeReader, std::io::PipeWriter), String> {
    let pipe_error = |e: &dyn std::fmt::Display| format!("failed to create a pipe: {e}");
    let (status_r, status_w) = std::io::pipe().map_err(|e| pipe_error(&e))?;
    let (go_r, go_w) = std::io::pipe().map_err(|e| pipe_error(&e))?;
    inherit_across_exec(&status_w).map_err(|e| pipe_error(&e))?;
    inherit_across_exec(&go_r).map_err(|e| pipe_error(&e))?;
    let program =
        std::env::current_exe().map_err(|e| format!("failed to find the agentgate binary: {e}"))?;
    let mut command = Command::new(&program);
    command.arg(SANDBOX_SUBCOMMAND);
    match stage {
        Stage::Init => command.arg("--init"),
        Stage::Apply(_) => command.arg("--apply"),
    };
    command
        .arg(spec_path)
        .arg(status_w.as_raw_fd().to_string())
        .arg(go_r.as_raw_fd().to_string());
    if let Stage::Apply(isolation) = stage {
        let json = serde_json::to_string(isolation)
            .map_err(|e| format!("failed to write the isolation: {e}"))?;
        command.arg(json);
    }
    let child = command
        .spawn()
        .map_err(|e| format!("failed to start {}: {e}", program.display()))?;
    // Only the child holds these ends now: its end of file is ours.
    drop(status_w);
    drop(go_r);
    Ok((child, status_r, go_w))
}

/// Do-nothing handlers for the termination table's signals.
fn outlive_termination_signals() -> Result<(), String> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    // The flag is never read: the handler exists only so that the signal
    // does not end the sandbox.
    let delivered = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
        signal_hook::flag::register(signal, delivered.clone())
            .map_err(|e| format!("failed to install a signal handler: {e}"))?;
    }
    Ok(())
}

fn exit_of(code: Option<i32>, signal: Option<i32>) -> SandboxExit {
    let (cpu_ms, max_rss_kib) = match getrusage(UsageWho::RUSAGE_CHILDREN) {
        Ok(usage) => {
            let ms = |t: nix::sys::time::TimeVal| {
                (t.tv_sec().max(0) as u64) * 1000 + (t.tv_usec().max(0) as u64) / 1000
            };
            (
                ms(usage.user_time()) + ms(usage.system_time()),
                usage.max_rss().max(0) as u64,
            )
        }
        Err(_) => (0, 0),
    };
    SandboxExit {
        code,
        signal: signal.map(signal_name),
        cpu_ms,
        max_rss_kib,
    }
}

/// `SIGXCPU` for 24; `SIG35` for a number without a name.
pub(crate) fn signal_name(signal: i32) -> String {
    Signal::try_from(signal)
        .map(|s| s.as_str().to_owned())
        .unwrap_or_else(|_| format!("SIG{signal}"))
}

fn describe(status: std::process::ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("killed by {}", signal_name(signal)),
        _ => "ended".to_owned(),
    }
}
