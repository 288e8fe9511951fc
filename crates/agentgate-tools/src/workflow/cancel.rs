//! Cancellation in a workflow: a tree of scopes. The workflow's scope is
//! cancelled by its caller (a signal, the server's cancel) or its
//! deadline; a `fail_fast` group opens a child scope that its first
//! failed member cancels. A running step's run is cancelled when any scope
//! above it is, and a second (or `immediate`) request is passed on too, so
//! a second Ctrl-C kills at once.

use std::future::Future;
use std::pin::pin;

use agentgate_core::CancelRequest;
use futures_util::future::{Either, select};
use tokio::sync::{mpsc, watch};

/// One scope: cancelled once `request` holds a request.
#[derive(Clone)]
pub(super) struct Scope {
    chain: Vec<watch::Receiver<Option<CancelRequest>>>,
}

/// The handle that cancels a scope.
pub(super) struct Canceller {
    tx: watch::Sender<Option<CancelRequest>>,
}

impl Canceller {
    /// Cancels the scope. A request to a scope cancelled already, whoever
    /// asked first (the caller, the deadline, a failed member), is a
    /// second request: it kills at once.
    pub(super) fn cancel(&self, request: CancelRequest) {
        self.tx.send_modify(|now| {
            let immediate = request.immediate || now.is_some();
            *now = Some(CancelRequest { immediate });
        });
    }
}

impl Scope {
    /// A root scope and its canceller.
    pub(super) fn root() -> (Scope, Canceller) {
        let (tx, rx) = watch::channel(None);
        (Scope { chain: vec![rx] }, Canceller { tx })
    }

    /// A scope inside this one: cancelled with it, or on its own.
    pub(super) fn child(&self) -> (Scope, Canceller) {
        let (tx, rx) = watch::channel(None);
        let mut chain = self.chain.clone();
        chain.push(rx);
        (Scope { chain }, Canceller { tx })
    }

    /// The strongest request any scope above holds now.
    pub(super) fn request(&self) -> Option<CancelRequest> {
        let mut out: Option<CancelRequest> = None;
        for rx in &self.chain {
            if let Some(r) = *rx.borrow() {
                out = Some(CancelRequest {
                    immediate: r.immediate || out.is_some_and(|o| o.immediate),
                });
            }
        }
        out
    }

    /// Whether the scope is cancelled.
    pub(super) fn is_cancelled(&self) -> bool {
        self.request().is_some()
    }

    /// Waits until any scope above changes (a new request).
    async fn changed(&mut self) {
        let waits: Vec<_> = self
            .chain
            .iter_mut()
            .map(|rx| Box::pin(async move { rx.changed().await.is_ok() }))
            .collect();
        let (ok, _, _) = futures_util::future::select_all(waits).await;
        if !ok {
            // A canceller is gone without cancelling: nothing more will
            // come from it; wait forever on the others (or not at all).
            std::future::pending::<()>().await;
        }
    }

    /// Waits until the scope is cancelled.
    pub(super) async fn cancelled(&mut self) {
        while !self.is_cancelled() {
            self.changed().await;
        }
    }

    /// Runs `work` (given the receiving end of a run's cancel channel),
    /// passing every cancel request of this scope on to it until it ends.
    pub(super) async fn run_with<F, Fut, T>(&self, work: F) -> T
    where
        F: FnOnce(mpsc::Receiver<CancelRequest>) -> Fut,
        Fut: Future<Output = T>,
    {
        let (tx, rx) = mpsc::channel(4);
        let mut watcher = self.clone();
        let mut sent: Option<CancelRequest> = None;
        let mut work = pin!(work(rx));
        loop {
            if let Some(now) = watcher.request()
                && sent != Some(now)
            {
                // The run takes a second request as "kill now".
                let _ = tx.try_send(now);
                sent = Some(now);
            }
            let change = pin!(watcher.changed());
            match select(work.as_mut(), change).await {
                Either::Left((out, _)) => return out,
                Either::Right(((), _)) => {}
            }
        }
    }

    /// Sleeps for `wait` unless the scope is cancelled first; `false` when
    /// it was.
    pub(super) async fn sleep(&self, wait: std::time::Duration) -> bool {
        let mut watcher = self.clone();
        tokio::select! {
            () = tokio::time::sleep(wait) => !self.is_cancelled(),
            () = watcher.cancelled() => false,
        }
    }
}
