use nix::sys::signal::Signal;
use tokio::time::Instant;

use super::config::TerminationTable;
use super::group::ProcessGroup;
use super::keeper::SWEEP_SIGNAL;
use super::report::{EndReason, SignalSent};

/// With a keeper, how long it may take to end every process after being
/// asked to (its sweep gives up after one second) before the group gets
/// SIGKILL directly.
const KEEPER_SWEEP_LIMIT: std::time::Duration = std::time::Duration::from_secs(3);

/// The termination table in motion: which signal went out, which is next
/// and when.
///
/// With a keeper, the table's SIGKILL step is asked of the keeper (the
/// group leader), which SIGKILLs every process the CLI started, in the
/// group or not, and then exits; a SIGKILL to the group would kill the
/// keeper first. Should the keeper not exit within [`KEEPER_SWEEP_LIMIT`],
/// the group gets SIGKILL (not listed in `signals_sent`).
#[derive(Debug)]
pub(crate) struct Terminator {
    table: TerminationTable,
    group: ProcessGroup,
    keeper: bool,
    started: Instant,
    reason: Option<EndReason>,
    next: Option<(Instant, Signal)>,
    killed: bool,
    sent: Vec<SignalSent>,
}

impl Terminator {
    pub(crate) fn new(
        table: TerminationTable,
        group: ProcessGroup,
        keeper: bool,
        started: Instant,
    ) -> Self {
        Terminator {
            table,
            group,
            keeper,
            started,
            reason: None,
            next: None,
            killed: false,
            sent: Vec::new(),
        }
    }

    /// Starts the table (SIGINT now, SIGTERM and SIGKILL later) unless the
    /// run is already ending; the first reason is the one reported.
    pub(crate) fn begin(&mut self, reason: EndReason) {
        if self.reason.is_some() {
            return;
        }
        self.reason = Some(reason);
        self.send(Signal::SIGINT);
        self.next = Some((Instant::now() + self.table.interrupt_grace, Signal::SIGTERM));
    }

    /// SIGKILL now, whatever step the table is at.
    pub(crate) fn kill_now(&mut self, reason: EndReason) {
        self.reason.get_or_insert(reason);
        if !self.killed {
            self.next = None;
            self.send(Signal::SIGKILL);
        }
    }

    /// The run is ending: timeouts and the result grace no longer apply.
    pub(crate) fn is_ending(&self) -> bool {
        self.reason.is_some()
    }

    /// When the next step of the table is due.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.next.map(|(at, _)| at)
    }

    /// Takes the step that is due.
    pub(crate) fn advance(&mut self) {
        let Some((_, signal)) = self.next.take() else {
            return;
        };
        self.send(signal);
        if signal == Signal::SIGTERM {
            self.next = Some((Instant::now() + self.table.terminate_grace, Signal::SIGKILL));
        }
    }

    pub(crate) fn into_parts(self) -> (Option<EndReason>, Vec<SignalSent>) {
        (self.reason, self.sent)
    }

    fn send(&mut self, signal: Signal) {
        if signal == Signal::SIGKILL {
            if self.killed {
                // The keeper did not finish in time: the group directly.
                if let Err(e) = self.group.signal(signal) {
                    tracing::warn!(
                        pgid = self.group.id(),
                        "failed to kill the process group: {e}"
                    );
                }
                return;
            }
            self.killed = true;
            if self.keeper {
                if let Err(e) = self.group.signal_leader(SWEEP_SIGNAL) {
                    tracing::warn!(pgid = self.group.id(), "failed to signal the keeper: {e}");
                }
                self.next = Some((Instant::now() + KEEPER_SWEEP_LIMIT, Signal::SIGKILL));
                self.sent.push(SignalSent {
                    signal: signal.as_str(),
                    elapsed: self.started.elapsed(),
                });
                return;
            }
        }
        if let Err(e) = self.group.signal(signal) {
            tracing::warn!(
                pgid = self.group.id(),
                "failed to send {} to the process group: {e}",
                signal.as_str()
            );
        }
        self.sent.push(SignalSent {
            signal: signal.as_str(),
            elapsed: self.started.elapsed(),
        });
    }
}
