//! What the egress proxy of `strict` (`egress_allow`) refused, told to the
//! run as `status` notices: each refusal as it happens (the attempt's loop
//! waits on [`next_refusal`]), those still queued when the CLI ends, and
//! the proxy's totals (refusals past the proxy's notice limit are only
//! counted there).

use agentgate_gateway::{EgressNotice, EgressSummary};

use super::AttemptSandbox;

/// The notice of one refused destination.
fn refusal(notice: &EgressNotice) -> String {
    match notice {
        EgressNotice::Refused {
            destination,
            reason,
        } => format!("sandbox egress: refused {destination}: {reason}"),
    }
}

/// The notice of the proxy's totals.
fn totals(summary: EgressSummary) -> String {
    format!(
        "sandbox egress: {} tunnel(s) opened, {} destination(s) refused",
        summary.tunnels, summary.refused
    )
}

/// The next refusal of `sandbox`'s egress proxy, as a notice; pending
/// forever without a proxy.
pub(crate) async fn next_refusal(sandbox: &mut Option<AttemptSandbox>) -> Option<String> {
    match sandbox.as_mut().and_then(|s| s.egress_notices.as_mut()) {
        Some(rx) => rx.recv().await.map(|n| refusal(&n)),
        None => std::future::pending().await,
    }
}

impl AttemptSandbox {
    /// Once the CLI has ended (or a warm process's turn): the refusals
    /// not yet told, then the proxy's totals since the last time (nothing
    /// without a proxy).
    pub(crate) fn egress_left(&mut self) -> Vec<String> {
        let mut left = Vec::new();
        if let Some(rx) = self.egress_notices.as_mut() {
            while let Ok(n) = rx.try_recv() {
                left.push(refusal(&n));
            }
        }
        if let Some(proxy) = &self.egress {
            // A warm process's proxy serves one turn after another: each
            // turn is told its own.
            let now = proxy.summary();
            let before = std::mem::replace(&mut self.egress_told, now);
            left.push(totals(EgressSummary {
                tunnels: now.tunnels.saturating_sub(before.tunnels),
                refused: now.refused.saturating_sub(before.refused),
            }));
        }
        left
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentgate_gateway::EgressRefusal;

    #[test]
    fn a_refusal_names_the_destination_and_why() {
        let n = EgressNotice::Refused {
            destination: "127.0.0.1:9".to_owned(),
            reason: EgressRefusal::HostNotAllowed,
        };
        assert_eq!(
            refusal(&n),
            "sandbox egress: refused 127.0.0.1:9: the host is not in the run's egress_allow"
        );
        let t = totals(EgressSummary {
            tunnels: 1,
            refused: 2,
        });
        assert_eq!(
            t,
            "sandbox egress: 1 tunnel(s) opened, 2 destination(s) refused"
        );
    }
}
