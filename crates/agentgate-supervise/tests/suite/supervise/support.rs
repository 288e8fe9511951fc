//! Running the supervisor on the fixture programs, and checking that pids
//! are gone.

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentgate_supervise::{
    Control, ExitReport, Invocation, OutputLine, SuperviseError, SupervisorConfig,
    TerminationTable, supervise,
};
use nix::errno::Errno;
use nix::sys::signal::kill;
use nix::unistd::Pid;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// No test run may take longer than this, whatever goes wrong.
pub const RUN_BOUND: Duration = Duration::from_secs(30);
/// How long a pid may take to disappear after the run.
pub const GONE_BOUND: Duration = Duration::from_secs(10);

pub fn misbehave() -> Invocation {
    Invocation::new(env!("CARGO_BIN_EXE_misbehave"))
}

pub fn keeper_path() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_keeper"))
}

/// Small graces so the suite stays fast; a generous wall clock as a safety
/// net (tests that expect another ending would see `Timeout`).
pub fn config() -> SupervisorConfig {
    SupervisorConfig {
        timeout: Some(Duration::from_secs(20)),
        deadline: agentgate_supervise::DeadlinePolicy::default(),
        deadline_notices: None,
        idle_timeout: None,
        grace: TerminationTable {
            interrupt_grace: Duration::from_millis(300),
            terminate_grace: Duration::from_millis(300),
        },
        result_grace: Duration::from_millis(300),
        drain_timeout: Duration::from_millis(500),
        keeper: None,
        warm_keeper: None,
        spawned: None,
    }
}

/// A supervised run in progress.
pub struct Running {
    pub control: mpsc::Sender<Control>,
    seen: tokio::sync::watch::Receiver<usize>,
    task: JoinHandle<(Result<ExitReport, SuperviseError>, Vec<OutputLine>)>,
}

/// Starts `inv` under the supervisor. Lines are collected; a line that looks
/// like the CLI's result makes the collector send `Control::ResultSeen`, as
/// a decoder would.
pub fn start(inv: Invocation, cfg: SupervisorConfig) -> Running {
    let (lines_tx, mut lines_rx) = mpsc::channel::<OutputLine>(16);
    let (control, control_rx) = mpsc::channel(16);
    let results = control.clone();
    let (seen_tx, seen) = tokio::sync::watch::channel(0);
    let task = tokio::spawn(async move {
        let collect = tokio::spawn(async move {
            let mut lines = Vec::new();
            while let Some(line) = lines_rx.recv().await {
                if line.bytes.starts_with(br#"{"type":"result""#) {
                    let _ = results.send(Control::ResultSeen).await;
                }
                lines.push(line);
                seen_tx.send_replace(lines.len());
            }
            lines
        });
        let report = supervise(inv, cfg, lines_tx, control_rx).await;
        let lines = collect.await.unwrap();
        (report, lines)
    });
    Running {
        control,
        seen,
        task,
    }
}

impl Running {
    pub async fn finish(self) -> (ExitReport, Vec<OutputLine>) {
        let (report, lines) = self.try_finish().await;
        (report.unwrap(), lines)
    }

    pub async fn try_finish(self) -> (Result<ExitReport, SuperviseError>, Vec<OutputLine>) {
        drop(self.control);
        match tokio::time::timeout(RUN_BOUND, self.task).await {
            Ok(joined) => joined.unwrap(),
            Err(_) => panic!("the supervised run did not end within {RUN_BOUND:?}"),
        }
    }

    /// Waits until `n` lines have arrived (bounded).
    pub async fn wait_lines(&mut self, n: usize) {
        let waited = tokio::time::timeout(RUN_BOUND, self.seen.wait_for(|seen| *seen >= n)).await;
        assert!(
            matches!(waited, Ok(Ok(_))),
            "{n} lines did not arrive within {RUN_BOUND:?}"
        );
    }

    pub async fn send(&self, control: Control) {
        self.control.send(control).await.unwrap();
    }
}

/// Runs `inv` to its end.
pub async fn run(inv: Invocation, cfg: SupervisorConfig) -> (ExitReport, Vec<OutputLine>) {
    start(inv, cfg).finish().await
}

/// The lines' bytes as text, for whole-list assertions.
pub fn texts(lines: &[OutputLine]) -> Vec<String> {
    lines
        .iter()
        .map(|l| String::from_utf8_lossy(&l.bytes).into_owned())
        .collect()
}

pub fn signal_names(report: &ExitReport) -> Vec<&'static str> {
    report.signals_sent.iter().map(|s| s.signal).collect()
}

/// A temporary folder with a pid file path in it.
pub struct PidFile {
    _dir: tempfile::TempDir,
    pub path: PathBuf,
}

impl PidFile {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pids");
        PidFile { _dir: dir, path }
    }

    pub fn arg(&self) -> [std::ffi::OsString; 2] {
        ["--pid-file".into(), self.path.clone().into_os_string()]
    }

    /// The pids, once the file exists (misbehave writes it atomically).
    pub async fn wait(&self) -> Vec<i32> {
        let deadline = tokio::time::Instant::now() + GONE_BOUND;
        loop {
            if let Some(pids) = read_pids(&self.path) {
                return pids;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{} did not appear within {GONE_BOUND:?}",
                self.path.display()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub fn read(&self) -> Vec<i32> {
        read_pids(&self.path).unwrap_or_else(|| panic!("no pid file at {}", self.path.display()))
    }
}

fn read_pids(path: &Path) -> Option<Vec<i32>> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(text.lines().map(|l| l.trim().parse().unwrap()).collect())
}

/// Asserts that every pid disappears (polling, bounded).
pub async fn assert_all_gone(pids: &[i32]) {
    assert!(!pids.is_empty(), "no pid to check");
    let deadline = tokio::time::Instant::now() + GONE_BOUND;
    loop {
        let alive: Vec<i32> = pids.iter().copied().filter(|p| !is_gone(*p)).collect();
        if alive.is_empty() {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "processes still alive {GONE_BOUND:?} after the run: {alive:?} (of {pids:?})"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Asserts that the pid is alive right now.
pub fn assert_alive(pid: i32) {
    assert!(!is_gone(pid), "process {pid} should be alive");
}

/// A process is gone when `kill(pid, 0)` fails with ESRCH, or when it is a
/// zombie: a dead process whose parent has not reaped it yet (an orphaned
/// grandchild waits for init, which in some containers never reaps).
pub fn is_gone(pid: i32) -> bool {
    match kill(Pid::from_raw(pid), None) {
        Err(Errno::ESRCH) => true,
        _ => is_zombie(pid),
    }
}

#[cfg(target_os = "linux")]
fn is_zombie(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return true;
    };
    // The state follows the command name, which is in parentheses and may
    // itself contain spaces or parentheses.
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next());
    matches!(state, Some('Z' | 'X'))
}

#[cfg(not(target_os = "linux"))]
fn is_zombie(_pid: i32) -> bool {
    false
}
