//! One look at a job's state, shared by every follower of the job.
//!
//! A follower of a queued job reads nothing but the job's state, once per
//! fallback (and at each of the job's bells). With many followers of one
//! job (a chat room's clients, a dashboard in many tabs) that was one
//! store read per follower per second; now the followers of a job share
//! one look ([`JobLooks::look`]):
//! - the looks of one job take turns on the job's lock, so a look asked
//!   while another runs waits for it and can take its answer (one read,
//!   not one per follower);
//! - an answer is taken only if it is fresh enough for the asker: for a
//!   follower woken by its poll, read within that poll's period; for one
//!   woken by the job's bell, read after that ring (each answer records
//!   the bell's count when its read began: a read begun after ring `n`
//!   sees the change that rang it); for anything else (a next run's bell,
//!   the first look), read anew.
//!
//! So while a job is queued its followers cost one read per fallback
//! period in all, and a change is still seen by each at once. The entry of
//! a job goes away with its last follower.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

/// How fresh an answer a follower needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fresh {
    /// Read anew.
    Now,
    /// Read after the job's bell rang its `n`th time.
    AfterRing(u64),
    /// Read within this long (a poll's period): no bell said it changed.
    Within(Duration),
}

/// What a look found, with when and at which ring its read began.
#[derive(Clone)]
struct Answer<T> {
    value: T,
    at: Instant,
    rings: u64,
}

/// The looks of one job: its last answer, behind the lock the looks take
/// turns on.
pub(super) struct JobLook<T> {
    last: tokio::sync::Mutex<Option<Answer<T>>>,
}

/// Every followed job's shared look (one per server).
pub(super) struct JobLooks<T> {
    jobs: Mutex<HashMap<String, Weak<JobLook<T>>>>,
}

impl<T> Default for JobLooks<T> {
    fn default() -> Self {
        JobLooks {
            jobs: Mutex::new(HashMap::new()),
        }
    }
}

impl<T: Clone> JobLooks<T> {
    /// The shared look of `job_id`, kept while a follower holds it.
    pub(super) fn of(&self, job_id: &str) -> Arc<JobLook<T>> {
        let mut jobs = self.jobs.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(look) = jobs.get(job_id).and_then(Weak::upgrade) {
            return look;
        }
        // Forget the jobs no one follows any more while here.
        jobs.retain(|_, look| look.strong_count() > 0);
        let look = Arc::new(JobLook {
            last: tokio::sync::Mutex::new(None),
        });
        jobs.insert(job_id.to_owned(), Arc::downgrade(&look));
        look
    }
}

impl<T: Clone> JobLook<T> {
    /// The job's state, fresh as `fresh` asks: the last answer if it is,
    /// else `read()` (begun at the bell's count `rings`), kept for the
    /// next asker.
    pub(super) async fn look<F, Fut>(&self, fresh: Fresh, rings: u64, read: F) -> T
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
    {
        let mut last = self.last.lock().await;
        if let Some(answer) = last.as_ref() {
            let fresh_enough = match fresh {
                Fresh::Now => false,
                Fresh::AfterRing(n) => answer.rings >= n,
                Fresh::Within(period) => answer.at.elapsed() < period,
            };
            if fresh_enough {
                return answer.value.clone();
            }
        }
        let at = Instant::now();
        let value = read().await;
        *last = Some(Answer {
            value: value.clone(),
            at,
            rings,
        });
        value
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Counts the reads; each answers its own number.
    async fn counted(reads: &AtomicUsize) -> usize {
        tokio::task::yield_now().await;
        reads.fetch_add(1, Ordering::SeqCst) + 1
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_thousand_followers_polling_share_one_read() {
        let looks: Arc<JobLooks<usize>> = Arc::default();
        let reads = Arc::new(AtomicUsize::new(0));
        // A thousand followers of one job, all there at once.
        let followers: Vec<_> = (0..1000).map(|_| looks.of("job1")).collect();
        let tasks: Vec<_> = followers
            .iter()
            .map(|look| {
                let (look, reads) = (Arc::clone(look), Arc::clone(&reads));
                tokio::spawn(async move {
                    look.look(Fresh::Within(Duration::from_secs(60)), 0, || {
                        counted(&reads)
                    })
                    .await
                })
            })
            .collect();
        for task in tasks {
            assert_eq!(task.await.unwrap(), 1);
        }
        assert_eq!(reads.load(Ordering::SeqCst), 1);
        drop(followers);
    }

    #[tokio::test]
    async fn a_ring_after_the_last_read_or_a_fresh_ask_reads_again() {
        let looks: JobLooks<usize> = JobLooks::default();
        let reads = AtomicUsize::new(0);
        let look = looks.of("job1");
        let long = Fresh::Within(Duration::from_secs(60));
        assert_eq!(look.look(long, 3, || counted(&reads)).await, 1);
        // Read at ring 3: a follower woken by ring 3 takes it, by 4 not.
        assert_eq!(
            look.look(Fresh::AfterRing(3), 3, || counted(&reads)).await,
            1
        );
        assert_eq!(
            look.look(Fresh::AfterRing(4), 4, || counted(&reads)).await,
            2
        );
        assert_eq!(look.look(Fresh::Now, 4, || counted(&reads)).await, 3);
        // A poll's period that ran out reads again.
        assert_eq!(
            look.look(Fresh::Within(Duration::ZERO), 4, || counted(&reads))
                .await,
            4
        );
        assert_eq!(look.look(long, 4, || counted(&reads)).await, 4);
        // Other jobs have their own.
        let other = looks.of("job2");
        assert_eq!(other.look(long, 0, || counted(&reads)).await, 5);
    }

    #[test]
    fn a_jobs_entry_goes_with_its_last_follower() {
        let looks: JobLooks<usize> = JobLooks::default();
        let first = looks.of("job1");
        assert!(Arc::ptr_eq(&first, &looks.of("job1")));
        drop(first);
        let _other = looks.of("job2");
        let jobs = looks.jobs.lock().unwrap();
        assert!(!jobs.contains_key("job1"));
        assert!(jobs.contains_key("job2"));
    }
}
