use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::control::Control;

/// Turns SIGINT and SIGTERM sent to agentgate into [`Control::Cancel`] for
/// one run: the first asks for the termination table
/// (`immediate: false`), every later one for SIGKILL now
/// (`immediate: true`), like a second Ctrl-C.
///
/// This is needed because the supervised CLI runs in its own process group:
/// the terminal's Ctrl-C reaches agentgate's group only, never the CLI's.
///
/// Must be called inside a tokio runtime. Forwarding stops when the returned
/// guard is dropped or the receiver of `control` is gone. Note that, as with
/// any tokio signal listener, SIGINT and SIGTERM no longer kill agentgate by
/// default once this was called, for the rest of the process's life; the
/// caller decides what they mean after the run (usually: exit with 130).
pub fn install_signal_forwarding(
    control: mpsc::Sender<Control>,
) -> std::io::Result<SignalForwarding> {
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let task = tokio::spawn(async move {
        let mut received = 0u32;
        loop {
            tokio::select! {
                Some(()) = interrupt.recv() => {}
                Some(()) = terminate.recv() => {}
                else => break,
            }
            received = received.saturating_add(1);
            let cancel = Control::Cancel {
                immediate: received > 1,
            };
            if control.send(cancel).await.is_err() {
                break;
            }
        }
    });
    Ok(SignalForwarding { task })
}

/// Keeps signal forwarding on; dropping it stops forwarding.
#[derive(Debug)]
pub struct SignalForwarding {
    task: JoinHandle<()>,
}

impl Drop for SignalForwarding {
    fn drop(&mut self) {
        self.task.abort();
    }
}
