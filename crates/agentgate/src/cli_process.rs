//! What every command that starts agent CLIs or tools shares: the keeper
//! put in front of each, and SIGINT/SIGTERM turned into cancel requests.
//! (`run`, `tool`, `workflow`, `serve` and `worker` use it; it uses none of
//! them.)

use agentgate_core::CancelRequest;
use agentgate_supervise::{Control, SignalForwarding, install_signal_forwarding};
use tokio::sync::mpsc;

/// The keeper to start in front of the CLI: `agentgate-keeper` next to this
/// binary when it is there (it starts in a fraction of the time), else this
/// binary's own `__keeper` subcommand.
pub(crate) fn keeper_path() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let small = exe.with_file_name(KEEPER_BINARY);
    Some(if small.is_file() { small } else { exe })
}

/// The file name of the keeper-only binary.
const KEEPER_BINARY: &str = "agentgate-keeper";

/// SIGINT and SIGTERM to agentgate become cancel requests (a second one:
/// kill at once), as long as the returned guard lives.
pub(crate) fn forward_signals() -> anyhow::Result<(SignalForwarding, mpsc::Receiver<CancelRequest>)>
{
    let (ctl_tx, mut ctl_rx) = mpsc::channel::<Control>(4);
    let (cancel_tx, cancel_rx) = mpsc::channel::<CancelRequest>(4);
    let forwarding = install_signal_forwarding(ctl_tx)?;
    tokio::spawn(async move {
        while let Some(c) = ctl_rx.recv().await {
            if let Control::Cancel { immediate } = c
                && cancel_tx.send(CancelRequest { immediate }).await.is_err()
            {
                break;
            }
        }
    });
    Ok((forwarding, cancel_rx))
}
