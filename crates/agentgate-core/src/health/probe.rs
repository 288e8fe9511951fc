//! One bounded probe of a program: `<cli> --version`, `bwrap --version`,
//! `podman info`. The program runs in its own process group with
//! agentgate's own variables scrubbed and stdin closed; the group is killed
//! at the bound (and whatever it left behind when it exits).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The default bound on one `--version` probe.
pub const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// What `<cli> --version` printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// The version number, e.g. `2.1.197`, when the output holds one.
    pub number: Option<String>,
    /// The first non-empty line of its output.
    pub line: String,
}

/// A probe that did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The executable could not be started.
    #[error("failed to start {program}: {source} (check that it is executable)")]
    Spawn {
        /// The executable.
        program: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It did not exit in time; it was killed.
    #[error("`{command}` did not exit within {}s and was killed", after.as_secs_f32())]
    TimedOut {
        /// The command line, e.g. `/usr/bin/podman info`.
        command: String,
        /// The bound.
        after: Duration,
    },
    /// It exited unsuccessfully.
    #[error("`{command}` failed ({status}): {output}")]
    Failed {
        /// The command line.
        command: String,
        /// The exit status.
        status: String,
        /// The first line of its output (stderr's, else stdout's).
        output: String,
    },
}

/// What a probe that exited successfully printed.
#[derive(Debug, Clone, Default)]
pub(crate) struct Printed {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Run `program args...` bounded by `timeout`; `Ok` when it exited 0.
pub(crate) fn run_bounded(
    program: &Path,
    args: &[&str],
    timeout: Duration,
) -> Result<Printed, ProbeError> {
    let command_line = || {
        std::iter::once(program.display().to_string())
            .chain(args.iter().map(|a| (*a).to_owned()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut command = Command::new(program);
    agentgate_supervise::own_env::scrub_command(&mut command);
    let mut child = command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|source| ProbeError::Spawn {
            program: program.to_path_buf(),
            source,
        })?;
    let readers = [
        child.stdout.take().map(|r| drain(Box::new(r))),
        child.stderr.take().map(|r| drain(Box::new(r))),
    ];
    let pgid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    let status = wait_bounded(&mut child, timeout);
    // The group outlives its leader only through what the program left behind.
    let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
    let _ = child.wait();
    let [stdout, stderr] = readers.map(|r| {
        r.and_then(|rx| rx.recv_timeout(Duration::from_secs(2)).ok())
            .unwrap_or_default()
    });
    let Some(status) = status else {
        return Err(ProbeError::TimedOut {
            command: command_line(),
            after: timeout,
        });
    };
    if !status.success() {
        let output = first_line(&stderr);
        return Err(ProbeError::Failed {
            command: command_line(),
            status: status.to_string(),
            output: if output.is_empty() {
                first_line(&stdout)
            } else {
                output
            },
        });
    }
    Ok(Printed { stdout, stderr })
}

fn wait_bounded(child: &mut std::process::Child, timeout: Duration) -> Option<ExitStatus> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(10)),
            _ => return None,
        }
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .to_owned()
}

/// Run `program --version` in its own process group, killing the group at
/// `timeout` (and whatever it left behind when it exits).
pub fn probe_version(program: &Path, timeout: Duration) -> Result<Version, ProbeError> {
    let Printed { stdout, stderr } = run_bounded(program, &["--version"], timeout)?;
    let number = version_number(&stdout).or_else(|| version_number(&stderr));
    let line = stdout
        .lines()
        .chain(stderr.lines())
        .map(str::trim)
        .find(|l| number.as_deref().is_none_or(|n| l.contains(n)) && !l.is_empty())
        .unwrap_or_default()
        .to_owned();
    Ok(Version { number, line })
}

fn drain(mut r: Box<dyn Read + Send>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        let _ = tx.send(String::from_utf8_lossy(&buf).into_owned());
    });
    rx
}

/// The first `N.N.N...` token of a text.
fn version_number(text: &str) -> Option<String> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
        .map(|w| w.trim_start_matches('v'))
        .find(|w| {
            let mut parts = w.split('.');
            let numeric = |p: Option<&str>| {
                p.is_some_and(|p| !p.is_empty() && p.starts_with(|c: char| c.is_ascii_digit()))
            };
            numeric(parts.next()) && numeric(parts.next())
        })
        .map(str::to_owned)
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_numbers() {
        assert_eq!(
            version_number("2.1.197 (Claude Code)").as_deref(),
            Some("2.1.197")
        );
        assert_eq!(
            version_number("codex-cli 0.169.0\n").as_deref(),
            Some("0.169.0")
        );
        assert_eq!(version_number("v1.2.3-beta").as_deref(), Some("1.2.3-beta"));
        assert_eq!(version_number("no version here."), None);
    }

    #[test]
    fn probe_kills_a_hung_cli() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("hang");
        std::fs::write(&script, "#!/bin/sh\nsleep 30\n").unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let start = Instant::now();
        let r = probe_version(&script, Duration::from_millis(300));
        assert!(matches!(r, Err(ProbeError::TimedOut { .. })), "{r:?}");
        assert!(start.elapsed() < Duration::from_secs(20));
    }

    #[test]
    fn probe_reports_failure() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("bad");
        std::fs::write(&script, "#!/bin/sh\necho 'broken install' >&2\nexit 3\n").unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let r = probe_version(&script, Duration::from_secs(10));
        match r {
            Err(ProbeError::Failed { output, .. }) => assert_eq!(output, "broken install"),
            other => panic!("expected a failure, got {other:?}"),
        }
    }
}
