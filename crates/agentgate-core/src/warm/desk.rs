//! Where people's answers to `ask` decisions reach the runs waiting for
//! them: a run in permission mode `ask` opens its place at the desk
//! ([`ApprovalDesk::open`]) for as long as it runs, and a server's route
//! (`POST /v1/runs/{id}/approvals/{request_id}`) hands an answer in with
//! [`ApprovalDesk::answer`]. The run's approver (`approve.rs`) reads
//! them; an answer to a request nobody waits for any more is refused by
//! the approver's check of the id, never applied to another request.
//!
//! A place also knows the process group of the CLI whose requests it takes
//! ([`ApprovalDesk::open_for`]): the server refuses an answer sent from
//! inside a seated run's processes ([`ApprovalDesk::process_groups`]), so
//! an agent that got hold of the API token still cannot allow its own
//! requests.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::mpsc;

/// A human's answer to a request, by agentgate's request id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HumanAnswer {
    /// The `request_id` of the `approval_request` event.
    pub request_id: String,
    /// Allow it?
    pub allow: bool,
    /// Why, for the agent (a denial).
    pub message: Option<String>,
}

/// Why an answer could not be handed in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeskError {
    /// No run of that id waits for answers here (it ended, it is not in
    /// `ask` mode, or it runs elsewhere).
    #[error("run {0} is not waiting for approvals here")]
    NoSuchRun(String),
    /// The request is not one the run waits on now.
    #[error("run {run_id} has no pending approval request {request_id}")]
    NotPending {
        /// The run.
        run_id: String,
        /// The request.
        request_id: String,
    },
}

#[derive(Debug, Default)]
struct Desk {
    runs: HashMap<String, Place>,
    /// Numbers the places, so a seat closes its own only.
    opened: u64,
    /// Told of each request a run starts waiting on.
    listener: Option<Arc<dyn AskListener>>,
}

/// Told when a seated run starts waiting on a person (a server's
/// `approval.requested` webhook): called outside the desk's lock, on the
/// run's thread, so it must be short.
pub trait AskListener: Send + Sync + std::fmt::Debug {
    /// `run_id` waits on a person for `request_id` from now.
    fn asked(&self, run_id: &str, request_id: &str);
}

/// Where a CLI's process group id is written once it is spawned (the
/// supervisor's spawn sets it; a place may open before that).
pub type ProcessGroupCell = Arc<std::sync::OnceLock<u32>>;

#[derive(Debug)]
struct Place {
    answers: mpsc::Sender<HumanAnswer>,
    pending: Vec<String>,
    number: u64,
    /// The process group of the CLI (its keeper's), once it is spawned.
    group: ProcessGroupCell,
}

/// The desk (cheap to clone: shared).
#[derive(Debug, Clone, Default)]
pub struct ApprovalDesk {
    desk: Arc<Mutex<Desk>>,
}

/// A run's place at the desk: its answers arrive on `answers`; leaving
/// (dropping it) closes the place.
#[derive(Debug)]
pub struct Seat {
    desk: ApprovalDesk,
    run_id: String,
    number: u64,
    /// The answers handed in for this run.
    pub answers: mpsc::Receiver<HumanAnswer>,
}

impl ApprovalDesk {
    /// An empty desk.
    pub fn new() -> Self {
        ApprovalDesk::default()
    }

    fn lock(&self) -> MutexGuard<'_, Desk> {
        self.desk
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Open `run_id`'s place (replacing an older one of the same id).
    pub fn open(&self, run_id: &str) -> Seat {
        self.open_for(run_id, ProcessGroupCell::default())
    }

    /// Open `run_id`'s place for a CLI whose process group id is (or will
    /// be) in `group` (replacing an older place of the same id).
    pub fn open_for(&self, run_id: &str, group: ProcessGroupCell) -> Seat {
        let (tx, rx) = mpsc::channel(16);
        let mut desk = self.lock();
        desk.opened += 1;
        let number = desk.opened;
        desk.runs.insert(
            run_id.to_owned(),
            Place {
                answers: tx,
                pending: Vec::new(),
                number,
                group,
            },
        );
        Seat {
            desk: self.clone(),
            run_id: run_id.to_owned(),
            number,
            answers: rx,
        }
    }

    /// Hand in a person's answer for `run_id`.
    pub fn answer(&self, run_id: &str, answer: HumanAnswer) -> Result<(), DeskError> {
        let mut desk = self.lock();
        let place = desk
            .runs
            .get_mut(run_id)
            .ok_or_else(|| DeskError::NoSuchRun(run_id.to_owned()))?;
        let Some(at) = place.pending.iter().position(|r| *r == answer.request_id) else {
            return Err(DeskError::NotPending {
                run_id: run_id.to_owned(),
                request_id: answer.request_id,
            });
        };
        place.pending.remove(at);
        place
            .answers
            .try_send(answer)
            .map_err(|_| DeskError::NoSuchRun(run_id.to_owned()))
    }

    /// The runs with a place at the desk now, by id.
    pub fn runs(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.lock().runs.keys().cloned().collect();
        ids.sort();
        ids
    }

    /// The process groups of the CLIs of every run seated now, by run:
    /// answers sent from inside them are the agents', not a person's.
    pub fn process_groups(&self) -> Vec<(String, u32)> {
        let mut groups: Vec<(String, u32)> = self
            .lock()
            .runs
            .iter()
            .filter_map(|(id, p)| p.group.get().map(|g| (id.clone(), *g)))
            .collect();
        groups.sort();
        groups
    }

    /// Tell `listener` of every request a run starts waiting on from now
    /// (replacing an earlier listener).
    pub fn set_ask_listener(&self, listener: Arc<dyn AskListener>) {
        self.lock().listener = Some(listener);
    }

    /// The requests `run_id` waits on a person for now.
    pub fn pending(&self, run_id: &str) -> Vec<String> {
        self.lock()
            .runs
            .get(run_id)
            .map(|p| p.pending.clone())
            .unwrap_or_default()
    }
}

impl Seat {
    /// The run waits on a person for `request_id` from now.
    pub fn waiting_for(&self, request_id: &str) {
        let listener = {
            let mut desk = self.desk.lock();
            if let Some(p) = desk.runs.get_mut(&self.run_id) {
                p.pending.push(request_id.to_owned());
            }
            desk.listener.clone()
        };
        if let Some(listener) = listener {
            listener.asked(&self.run_id, request_id);
        }
    }

    /// The run no longer waits for `request_id` (decided, or timed out).
    pub fn done_with(&self, request_id: &str) {
        if let Some(p) = self.desk.lock().runs.get_mut(&self.run_id) {
            p.pending.retain(|r| r != request_id);
        }
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let mut desk = self.desk.lock();
        // Only this seat's place: a newer one of the same id stays.
        if desk
            .runs
            .get(&self.run_id)
            .is_some_and(|p| p.number == self.number)
        {
            desk.runs.remove(&self.run_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allow(id: &str) -> HumanAnswer {
        HumanAnswer {
            request_id: id.to_owned(),
            allow: true,
            message: None,
        }
    }

    #[derive(Debug, Default)]
    struct Heard(Mutex<Vec<(String, String)>>);

    impl AskListener for Heard {
        fn asked(&self, run_id: &str, request_id: &str) {
            self.0
                .lock()
                .unwrap()
                .push((run_id.to_owned(), request_id.to_owned()));
        }
    }

    #[test]
    fn the_ask_listener_hears_each_request_a_run_starts_waiting_on() {
        let desk = ApprovalDesk::new();
        let heard = Arc::new(Heard::default());
        desk.set_ask_listener(heard.clone());
        let seat = desk.open("r_a");
        seat.waiting_for("r_a-ap1");
        seat.done_with("r_a-ap1");
        seat.waiting_for("r_a-ap2");
        assert_eq!(
            *heard.0.lock().unwrap(),
            [
                ("r_a".to_owned(), "r_a-ap1".to_owned()),
                ("r_a".to_owned(), "r_a-ap2".to_owned())
            ]
        );
        assert_eq!(desk.pending("r_a"), ["r_a-ap2"]);
    }

    #[test]
    fn the_desk_knows_the_process_group_of_each_seated_cli() {
        let desk = ApprovalDesk::new();
        let group = ProcessGroupCell::default();
        let a = desk.open_for("r_a", group.clone());
        let _b = desk.open("r_b");
        assert!(desk.process_groups().is_empty(), "not spawned yet");
        group.set(4242).unwrap();
        assert_eq!(desk.process_groups(), [("r_a".to_owned(), 4242)]);
        drop(a);
        assert!(desk.process_groups().is_empty(), "gone with its seat");
    }

    #[test]
    fn an_answer_reaches_the_run_only_for_a_pending_request() {
        let desk = ApprovalDesk::new();
        let mut seat = desk.open("r1");
        assert_eq!(
            desk.answer("r1", allow("r1-ap1")),
            Err(DeskError::NotPending {
                run_id: "r1".into(),
                request_id: "r1-ap1".into()
            })
        );
        seat.waiting_for("r1-ap1");
        assert_eq!(desk.pending("r1"), ["r1-ap1"]);
        assert_eq!(desk.answer("r1", allow("r1-ap1")), Ok(()));
        assert_eq!(seat.answers.try_recv().ok(), Some(allow("r1-ap1")));
        assert!(desk.pending("r1").is_empty(), "answered once");
        assert!(desk.answer("r1", allow("r1-ap1")).is_err(), "not twice");
    }

    #[test]
    fn a_run_that_left_takes_no_answers() {
        let desk = ApprovalDesk::new();
        let seat = desk.open("r2");
        seat.waiting_for("r2-ap1");
        drop(seat);
        assert_eq!(
            desk.answer("r2", allow("r2-ap1")),
            Err(DeskError::NoSuchRun("r2".into()))
        );
        assert_eq!(
            desk.answer("nope", allow("x")),
            Err(DeskError::NoSuchRun("nope".into()))
        );
    }
}
