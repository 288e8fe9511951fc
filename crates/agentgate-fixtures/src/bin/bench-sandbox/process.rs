//! One timed process: spawned, its stdout and stderr read to the end, its
//! exit reaped, all within a bound (a run that hangs is killed and counted
//! as a failure, never waited for).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// The bound on one run.
pub const RUN_LIMIT: Duration = Duration::from_secs(60);

/// A process to run: program, arguments, extra environment.
#[derive(Debug, Clone)]
pub struct Job {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
}

/// A run that exited 0: its wall time (spawn to exit, output read) and
/// its stdout.
#[derive(Debug)]
pub struct Finished {
    pub wall: Duration,
    pub stdout: Vec<u8>,
}

/// Runs `job` with stdin closed; `Err` with what it said unless it exits 0
/// within [`RUN_LIMIT`].
pub fn run(job: &Job) -> Result<Finished, String> {
    let mut cmd = Command::new(&job.program);
    cmd.args(&job.args)
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let child = cmd
        .spawn()
        .map_err(|e| format!("failed to start {}: {e}", job.program.display()))?;
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = match rx.recv_timeout(RUN_LIMIT) {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => return Err(format!("failed to wait for {}: {e}", job.program.display())),
        Err(_) => {
            let _ = kill(pid, Signal::SIGKILL);
            return Err(format!(
                "`{}` did not exit within {}s and was killed",
                line(job),
                RUN_LIMIT.as_secs()
            ));
        }
    };
    let wall = started.elapsed();
    if !output.status.success() {
        return Err(format!(
            "`{}` ended with {}; stderr: {}; stdout: {}",
            line(job),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim(),
            String::from_utf8_lossy(&output.stdout).trim(),
        ));
    }
    Ok(Finished {
        wall,
        stdout: output.stdout,
    })
}

fn line(job: &Job) -> String {
    std::iter::once(job.program.display().to_string())
        .chain(job.args.iter().map(|a| a.to_string_lossy().into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}
