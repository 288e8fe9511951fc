//! The workflow run's own event stream: numbered from where the run's log
//! ends (a resumed run continues its `seq`), handed to the caller's
//! observer, and synced at every checkpoint (`task_done`, the final
//! state) so a process killed after a step ended finds the step's outcome
//! on resume.
//!
//! Steps run concurrently (a `parallel` group) share one journal behind a
//! mutex; events of one step stay in the order that step wrote them.

use std::sync::{Arc, Mutex, MutexGuard};

use agentgate_protocol::{Event, EventBody};
use agentgate_store::{RunFiles, StoreError};
use jiff::Timestamp;

/// Receives a workflow run's events as they are written.
pub type WorkflowObserver = Box<dyn FnMut(&Event) + Send>;

/// A workflow run's event writer, shared by its steps.
#[derive(Clone)]
pub(super) struct Journal {
    inner: Arc<Mutex<Inner>>,
    run_id: String,
}

struct Inner {
    files: RunFiles,
    seq: u64,
    observer: WorkflowObserver,
    /// The first write that failed: the run cannot checkpoint any more.
    failed: Option<String>,
}

impl Journal {
    /// A journal writing `files` from `seq` on.
    pub(super) fn new(run_id: &str, files: RunFiles, seq: u64, observer: WorkflowObserver) -> Self {
        Journal {
            inner: Arc::new(Mutex::new(Inner {
                files,
                seq,
                observer,
                failed: None,
            })),
            run_id: run_id.to_owned(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A step that panicked while holding the lock left whole events
        // behind it (one write per event): go on with them.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The workflow run's id.
    pub(super) fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Writes one event and hands it to the observer.
    pub(super) fn emit(&self, body: EventBody) {
        let mut inner = self.lock();
        let ts = Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string();
        let event = Event::new(self.run_id.clone(), inner.seq, ts, body);
        inner.seq += 1;
        // Within the one line limit (a step's event nested in
        // `task_progress` may not be), for the log and the observer alike.
        let event = agentgate_protocol::fit(event);
        if let Err(e) = inner.files.write_event(&event) {
            note_failure(&mut inner, &self.run_id, &e);
        }
        (inner.observer)(&event);
    }

    /// Writes one event and waits until every event so far is stored
    /// durably: a checkpoint. `Err` when any write of the run failed (the
    /// checkpoint cannot be trusted).
    pub(super) fn checkpoint(&self, body: EventBody) -> Result<(), String> {
        self.emit(body);
        self.sync()
    }

    /// Waits until every event so far is stored durably.
    pub(super) fn sync(&self) -> Result<(), String> {
        let mut inner = self.lock();
        if let Err(e) = inner.files.sync() {
            note_failure(&mut inner, &self.run_id, &e);
        }
        match &inner.failed {
            Some(reason) => Err(reason.clone()),
            None => Ok(()),
        }
    }
}

fn note_failure(inner: &mut Inner, run_id: &str, e: &StoreError) {
    if inner.failed.is_none() {
        tracing::warn!("workflow run {run_id}: cannot write its events: {e}");
        inner.failed = Some(format!("cannot record the workflow's events: {e}"));
    }
}
