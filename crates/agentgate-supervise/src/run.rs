use std::sync::Arc;

use nix::sys::signal::Signal;
use tokio::io::AsyncWriteExt as _;
use tokio::sync::{Notify, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep_until, timeout_at};

use super::config::SupervisorConfig;
use super::control::Control;
use super::deadline::{Wall, WallWake};
use super::error::SuperviseError;
use super::group::KillOnDrop;
use super::invocation::Invocation;
use super::leader::{self, Exited};
use super::lines::{OutputLine, Stream};
use super::reader::{ReaderEnd, read_lines};
use super::report::{EndReason, ExitReport};
use super::spawn::{Spawned, StdinWriter, spawn};
use super::terminate::Terminator;

/// Runs `inv` as the leader of a new process group and supervises it until
/// it has exited and its output is drained.
///
/// Every line of stdout and stderr goes to `lines` (consume it concurrently:
/// when the channel is full, reading pauses, the child blocks on its pipe,
/// and the idle watchdog sees silence; when the receiver is dropped, output
/// is read and discarded). `control` cancels the run or reports a seen
/// result; dropping its sender just stops control.
///
/// On return no process of the group is left: after the leader exits (by
/// itself or by the termination table) the whole group is SIGKILLed before
/// the leader is reaped. Dropping the returned future SIGKILLs the group
/// too. With [`SupervisorConfig::keeper`] on Linux, processes that left the
/// group (`setsid`) are ended as well: the keeper is their subreaper and
/// sweeps them, and names any it could not end in
/// [`ExitReport::survivors`]. Without a keeper they are out of reach; if
/// they hold stdout or stderr open, the drain gives up after
/// [`SupervisorConfig::drain_timeout`] and reports
/// [`ExitReport::output_leaked`].
///
/// Without a keeper, agentgate's own sudden death (SIGKILL) leaves the group
/// running; with it, the keeper ends the group and every descendant.
///
/// Must run inside a tokio runtime with the I/O and time drivers enabled
/// (`enable_all`); any flavour (current-thread or multi-thread) works.
pub async fn supervise(
    inv: Invocation,
    cfg: SupervisorConfig,
    lines: mpsc::Sender<OutputLine>,
    control: mpsc::Receiver<Control>,
) -> Result<ExitReport, SuperviseError> {
    supervise_with_stdin(inv, cfg, lines, control, None).await
}

/// [`supervise`] for a CLI that keeps reading its stdin (a warm session):
/// after the invocation's stdin bytes (give `Some(vec![])` for none, which
/// still pipes stdin), every chunk received on `more` is written to it, in
/// order; the child sees end of file once `more`'s senders are all dropped.
/// With `more` `None` this is [`supervise`].
pub async fn supervise_with_stdin(
    inv: Invocation,
    cfg: SupervisorConfig,
    lines: mpsc::Sender<OutputLine>,
    mut control: mpsc::Receiver<Control>,
    more: Option<mpsc::Receiver<Vec<u8>>>,
) -> Result<ExitReport, SuperviseError> {
    let Spawned {
        mut child,
        group,
        stdin,
    } = spawn(&inv, cfg.keeper.as_deref(), cfg.warm_keeper.as_ref())?;
    if let Some(spawned) = &cfg.spawned {
        let _ = spawned.set(group.id());
    }
    let started = Instant::now();
    let keeper = cfg.keeper.is_some();
    let mut guard = KillOnDrop::new(group, keeper);

    let _stdin_task = match (stdin, inv.stdin) {
        (Some(pipe), Some(bytes)) => {
            Some(AbortOnDrop(tokio::spawn(write_stdin(pipe, bytes, more))))
        }
        _ => None,
    };
    let activity = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    let mut readers = Readers::default();
    let survivors = keeper.then(Arc::default);
    if let Some(pipe) = child.stdout.take() {
        let task = read_lines(
            pipe,
            Stream::Stdout,
            lines.clone(),
            activity.clone(),
            stop_rx.clone(),
            None,
        );
        readers.handles.push(AbortOnDrop(tokio::spawn(task)));
    }
    if let Some(pipe) = child.stderr.take() {
        let task = read_lines(
            pipe,
            Stream::Stderr,
            lines,
            activity.clone(),
            stop_rx,
            survivors.clone(),
        );
        readers.handles.push(AbortOnDrop(tokio::spawn(task)));
    }

    let mut term = Terminator::new(cfg.grace, group, keeper, started);
    let mut wall = cfg
        .timeout
        .map(|t| Wall::new(started, t, cfg.deadline.clone()));
    let mut last_output: Option<Instant> = None;
    let mut idle = cfg.idle_timeout.map(|t| Instant::now() + t);
    let mut result_deadline: Option<Instant> = None;
    let mut control_open = true;

    let exited = {
        let exit = leader::exited(&mut child);
        tokio::pin!(exit);
        loop {
            let timers = !term.is_ending();
            let timeouts = timers && result_deadline.is_none();
            // Biased: the exit and the table's next step first, so a chatty
            // child cannot starve them; output only ever delays the idle
            // watchdog, which it is meant to.
            tokio::select! {
                biased;
                r = &mut exit => break r,
                () = sleep_opt(term.deadline()) => term.advance(),
                msg = control.recv(), if control_open => match msg {
                    None => control_open = false,
                    Some(Control::Cancel { immediate: true }) => term.kill_now(EndReason::Cancelled),
                    Some(Control::Cancel { immediate: false }) => term.begin(EndReason::Cancelled),
                    Some(Control::ResultSeen) => {
                        result_deadline.get_or_insert_with(|| Instant::now() + cfg.result_grace);
                    }
                    Some(Control::Activity) => idle = cfg.idle_timeout.map(|t| Instant::now() + t),
                },
                () = sleep_opt(result_deadline), if timers => term.begin(EndReason::ResultThenHang),
                () = sleep_opt(wall.as_ref().map(Wall::next_wake)), if timeouts => {
                    if let Some(w) = &mut wall {
                        match w.wake(Instant::now(), last_output) {
                            WallWake::Expired => term.begin(EndReason::Timeout),
                            WallWake::Notices(notices) => {
                                if let Some(tx) = &cfg.deadline_notices {
                                    for n in notices {
                                        let _ = tx.0.send(n);
                                    }
                                }
                            }
                        }
                    }
                }
                () = activity.notified() => {
                    let now = Instant::now();
                    last_output = Some(now);
                    idle = cfg.idle_timeout.map(|t| now + t);
                }
                () = sleep_opt(idle), if timeouts => term.begin(EndReason::IdleTimeout),
            }
        }
    };
    let wait_error = |source| SuperviseError::Wait {
        program: inv.program.clone(),
        pid: group.id(),
        source,
    };
    let exited = exited.map_err(wait_error)?;

    // The leader is gone (and on Linux still unreaped, so the group id is
    // still ours): kill whatever else of the group remains, then reap.
    if let Err(e) = group.signal(Signal::SIGKILL) {
        tracing::warn!(
            pgid = group.id(),
            "failed to kill the rest of the process group: {e}"
        );
    }
    let status = match exited {
        Exited::NotReaped => child.wait().await.map_err(wait_error)?,
        Exited::Reaped(status) => status,
    };
    guard.disarm();

    let drain_deadline = Instant::now() + cfg.drain_timeout;
    if timeout_at(drain_deadline, readers.join()).await.is_err() {
        // A process outside the group holds a pipe: take what is at hand,
        // then stop.
        let _ = stop.send(true);
        readers.join().await;
    }

    let (reason, signals_sent) = term.into_parts();
    let survivors = survivors
        .and_then(|reports| reports.lock().ok().map(|mut r| std::mem::take(&mut *r)))
        .unwrap_or_default();
    Ok(ExitReport {
        status: status.into(),
        ended_by: reason.unwrap_or(EndReason::Exited),
        signals_sent,
        output_leaked: readers.leaked,
        survivors,
        pgid: group.id(),
        duration: started.elapsed(),
    })
}

async fn write_stdin(mut pipe: StdinWriter, bytes: Vec<u8>, more: Option<mpsc::Receiver<Vec<u8>>>) {
    if let Err(e) = pipe.write_all(&bytes).await {
        // A child that exits or closes stdin early is not an error of ours.
        tracing::debug!("failed to write the child's stdin: {e}");
        return;
    }
    if let Some(mut more) = more {
        while let Some(chunk) = more.recv().await {
            let written = match pipe.write_all(&chunk).await {
                Ok(()) => pipe.flush().await,
                Err(e) => Err(e),
            };
            if let Err(e) = written {
                tracing::debug!("failed to write the child's stdin: {e}");
                return;
            }
        }
    }
    // Dropping the pipe (or the warm keeper's socket, whose only other
    // end is the child's stdin) closes it: the child sees end of file.
}

async fn sleep_opt(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The output readers of one run.
#[derive(Debug, Default)]
struct Readers {
    handles: Vec<AbortOnDrop<ReaderEnd>>,
    leaked: bool,
}

impl Readers {
    /// Waits for every reader; cancel-safe (a finished reader is removed).
    async fn join(&mut self) {
        while let Some(handle) = self.handles.last_mut() {
            let end = (&mut handle.0).await;
            self.handles.pop();
            if matches!(end, Ok(ReaderEnd::Leaked)) {
                self.leaked = true;
            }
        }
    }
}

/// A task that is aborted when its handle is dropped.
#[derive(Debug)]
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
