use nix::sys::signal::Signal;
use tokio::time::Instant;

use super::config::TerminationTable;
use super::group::ProcessGroup;
use super::report::{EndReason, SignalSent};

/// The termination table in motion: which signal went out, which is next
/// and when.
#[derive(Debug)]
pub(crate) struct Terminator {
    table: TerminationTable,
    group: ProcessGroup,
    started: Instant,
    reason: Option<EndReason>,
    next: Option<(Instant, Signal)>,
    killed: bool,
    sent: Vec<SignalSent>,
}

impl Terminator {
    pub(crate) fn new(table: TerminationTable, group: ProcessGroup, started: Instant) -> Self {
        Terminator {
            table,
            group,
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
            self.send(Signal::SIGKILL);
        }
        self.next = None;
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
            self.killed = true;
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
