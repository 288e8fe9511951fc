//! `--coalesce` and its settings (on `run --stream`, `submit --stream`
//! and `tail`), and the pump that prints a run's events with the
//! `answer_chunk` events of `agentgate_core::ChunkFollower` among them,
//! waking for the interval and the idle time on a thread of its own (the
//! engine hands events over synchronously).

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use agentgate_core::{ChunkFollower, CoalesceMode, CoalesceOptions, parse_duration};
use agentgate_protocol::Event;

use crate::output::{OutputError, Stdout};

/// The answer in readable chunks, for chat front ends.
#[derive(Debug, Clone, clap::Args)]
pub struct CoalesceArgs {
    /// With the events (`run`/`submit` --stream, `tail`): also emit the
    /// answer as `answer_chunk` events cut at readable places: `paragraph`
    /// (a blank line or a closed code fence), `sentence` (also a sentence
    /// or line end) or `size` (only --coalesce-max-chars and
    /// --coalesce-idle). Never inside a word or an open code fence; the
    /// chunks concatenate exactly to the answer text as it streamed.
    #[arg(long, value_name = "MODE", value_parser = parse_mode)]
    pub coalesce: Option<CoalesceMode>,
    /// At most one chunk per this much time (default 1s; 0 for no limit),
    /// for chat front ends with edit rate limits. The end is not held back.
    #[arg(long, value_name = "DUR", value_parser = parse_duration, requires = "coalesce")]
    pub coalesce_min_interval: Option<Duration>,
    /// A chunk's size in characters (default 2000); a code fence is cut
    /// only past twice this, at a line end.
    #[arg(long, value_name = "N", requires = "coalesce")]
    pub coalesce_max_chars: Option<usize>,
    /// Send what came after this much time without new text (default 2s;
    /// 0 for never).
    #[arg(long, value_name = "DUR", value_parser = parse_duration, requires = "coalesce")]
    pub coalesce_idle: Option<Duration>,
}

fn parse_mode(s: &str) -> Result<CoalesceMode, String> {
    s.parse()
}

impl CoalesceArgs {
    /// The coalescer's options, when `--coalesce` is given.
    pub fn options(&self) -> anyhow::Result<Option<CoalesceOptions>> {
        let Some(mode) = self.coalesce else {
            return Ok(None);
        };
        CoalesceOptions::new(
            mode,
            self.coalesce_min_interval,
            self.coalesce_max_chars,
            self.coalesce_idle,
        )
        .map(Some)
        .map_err(anyhow::Error::msg)
    }
}

struct State {
    follower: ChunkFollower,
    out: Stdout,
    done: bool,
}

impl State {
    fn print(&mut self, events: Vec<Event>) {
        for event in events {
            if self.out.failure().is_some() {
                return;
            }
            match serde_json::to_string(&event) {
                // A failure is kept in `out` and reported at the end.
                Ok(line) => drop(self.out.line(line)),
                Err(e) => tracing::error!("failed to encode event {}: {e}", event.seq),
            }
        }
    }
}

/// Prints events and their chunks; a thread wakes for the chunks that
/// time makes due.
pub struct ChunkPump {
    shared: Arc<(Mutex<State>, Condvar)>,
    waker: Option<JoinHandle<()>>,
}

impl ChunkPump {
    pub fn start(options: CoalesceOptions) -> ChunkPump {
        let shared = Arc::new((
            Mutex::new(State {
                follower: ChunkFollower::new(options),
                out: Stdout::new(),
                done: false,
            }),
            Condvar::new(),
        ));
        let for_thread = shared.clone();
        let waker = std::thread::spawn(move || wake_loop(&for_thread));
        ChunkPump {
            shared,
            waker: Some(waker),
        }
    }

    /// One event of the run: printed, with the chunks it completed.
    pub fn event(&self, event: &Event) {
        let (lock, wake) = &*self.shared;
        let mut state = lock.lock().unwrap_or_else(PoisonError::into_inner);
        let events = state.follower.observe(event.clone(), Instant::now());
        state.print(events);
        drop(state);
        wake.notify_one();
    }

    /// The run ended: the waker stops; the first failed write, if any.
    pub fn finish(&mut self) -> Option<OutputError> {
        let (lock, wake) = &*self.shared;
        lock.lock().unwrap_or_else(PoisonError::into_inner).done = true;
        wake.notify_one();
        if let Some(w) = self.waker.take() {
            let _ = w.join();
        }
        let state = lock.lock().unwrap_or_else(PoisonError::into_inner);
        state.out.failure()
    }
}

fn wake_loop(shared: &(Mutex<State>, Condvar)) {
    let (lock, wake) = shared;
    let mut state = lock.lock().unwrap_or_else(PoisonError::into_inner);
    while !state.done {
        let now = Instant::now();
        match state.follower.next_wake() {
            Some(at) if at <= now => {
                let events = state.follower.poll(now);
                state.print(events);
                // Nothing due after all (a cut waits for more text): sleep
                // until the next event rather than spin.
                if state.follower.next_wake().is_some_and(|next| next <= now) {
                    state = wake.wait(state).unwrap_or_else(PoisonError::into_inner);
                }
            }
            Some(at) => {
                state = wake
                    .wait_timeout(state, at - now)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            None => state = wake.wait(state).unwrap_or_else(PoisonError::into_inner),
        }
    }
}
