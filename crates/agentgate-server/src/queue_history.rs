//! The queue's depth over the last hour (`GET /v1/queue`'s `history`, the
//! dashboard's queue chart): a task of the server reads the store's job
//! counts every [`SAMPLE_EVERY`] and keeps the last hour's samples in
//! memory, oldest first. The counts are the store's, so every server on a
//! shared PostgreSQL store samples the same queue; the history starts
//! empty when a server starts (nothing is written to the store for it).
//!
//! [`SAMPLE_ENV`] sets the interval in milliseconds (the tests' hook, as
//! `AGENTGATE_TEST_EVENT_POLL_MS` is the event streams'); the hour is
//! kept as many samples as fit in it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agentgate_executor::Clock;
use agentgate_store::{JobState, StoreBackend};
use jiff::Timestamp;
use serde::Serialize;
use utoipa::ToSchema;

/// How often the counts are read.
pub const SAMPLE_EVERY: Duration = Duration::from_secs(30);

/// The window kept.
pub const KEPT: Duration = Duration::from_secs(3600);

/// Milliseconds between samples instead of [`SAMPLE_EVERY`].
pub const SAMPLE_ENV: &str = "AGENTGATE_TEST_QUEUE_SAMPLE_MS";

/// The queue at one time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct QueueSample {
    /// When the counts were read (the server's clock).
    pub at: Timestamp,
    /// Runs waiting to be claimed.
    pub queued: u64,
    /// Runs being run.
    pub running: u64,
}

/// The last hour's samples.
#[derive(Debug)]
pub struct QueueHistory {
    every: Duration,
    samples: Mutex<VecDeque<QueueSample>>,
}

impl QueueHistory {
    /// A history sampled every `every` (at least 10 ms).
    pub fn every(every: Duration) -> QueueHistory {
        QueueHistory {
            every: every.max(Duration::from_millis(10)),
            samples: Mutex::new(VecDeque::new()),
        }
    }

    /// A history sampled every [`SAMPLE_ENV`] milliseconds when it is set
    /// (a number), else every [`SAMPLE_EVERY`].
    pub fn from_env() -> QueueHistory {
        let ms = std::env::var(SAMPLE_ENV)
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok());
        QueueHistory::every(ms.map_or(SAMPLE_EVERY, Duration::from_millis))
    }

    /// How many samples an hour holds.
    fn capacity(&self) -> usize {
        let n = KEPT.as_millis() / self.every.as_millis().max(1);
        usize::try_from(n).unwrap_or(usize::MAX).max(1)
    }

    /// Adds `sample`, dropping the oldest past the hour.
    pub fn record(&self, sample: QueueSample) {
        let mut samples = self.samples.lock().unwrap_or_else(PoisonError::into_inner);
        samples.push_back(sample);
        while samples.len() > self.capacity() {
            samples.pop_front();
        }
    }

    /// The samples, oldest first.
    pub fn samples(&self) -> Vec<QueueSample> {
        let samples = self.samples.lock().unwrap_or_else(PoisonError::into_inner);
        samples.iter().copied().collect()
    }
}

/// The running sampler; dropping it stops it.
#[derive(Debug)]
pub struct Sampler {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Start sampling `store`'s counts into `history`, stamped by `clock`.
pub fn start(
    history: Arc<QueueHistory>,
    store: Arc<dyn StoreBackend>,
    clock: Arc<dyn Clock>,
) -> Sampler {
    let task = tokio::spawn(async move {
        let mut tick = tokio::time::interval(history.every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let store = Arc::clone(&store);
            match tokio::task::spawn_blocking(move || store.count_jobs()).await {
                Ok(Ok(counts)) => {
                    let n = |wanted: JobState| {
                        counts
                            .by_state
                            .iter()
                            .filter(|(s, _)| *s == wanted)
                            .map(|(_, n)| *n)
                            .sum::<u64>()
                    };
                    history.record(QueueSample {
                        at: clock.now(),
                        queued: n(JobState::Queued),
                        running: n(JobState::Running),
                    });
                }
                Ok(Err(e)) => tracing::warn!("the queue's counts could not be read: {e}"),
                Err(e) => tracing::warn!("the queue's sampler failed: {e}"),
            }
        }
    });
    Sampler { task }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_hour_of_samples_is_kept_oldest_first() {
        let history = QueueHistory::every(Duration::from_secs(600));
        for i in 0..8u64 {
            history.record(QueueSample {
                at: Timestamp::from_second(i64::try_from(i).unwrap() * 600).unwrap(),
                queued: i,
                running: 1,
            });
        }
        let kept: Vec<u64> = history.samples().iter().map(|s| s.queued).collect();
        assert_eq!(kept, [2, 3, 4, 5, 6, 7], "six samples of 10 minutes");
    }
}
