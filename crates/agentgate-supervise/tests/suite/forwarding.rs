//! SIGINT/SIGTERM to agentgate become `Control::Cancel` (its own binary:
//! it signals the test process itself).

use std::time::Duration;

use agentgate_supervise::{Control, install_signal_forwarding};
use nix::sys::signal::{Signal, raise};

#[tokio::test]
async fn first_signal_cancels_gracefully_and_the_next_ones_immediately() {
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let _forwarding = install_signal_forwarding(tx).unwrap();
    let mut got = Vec::new();
    for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGINT] {
        raise(signal).unwrap();
        let control = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap();
        got.push(control.unwrap());
    }
    assert_eq!(
        got,
        [
            Control::Cancel { immediate: false },
            Control::Cancel { immediate: true },
            Control::Cancel { immediate: true },
        ]
    );
}
