//! `queue:`: how `agentgate serve` runs the jobs of its queue: how many at
//! once (in all and per provider), how often a failed job is tried, and
//! what becomes of a job whose executor stopped renewing its lease.
//!
//! ```yaml
//! queue:
//!   max_running: 4
//!   providers: {claude: 2, codex: 1}
//!   max_attempts: 3
//!   backoff: 10s
//!   backoff_max: 10m
//!   lease: 30s
//!   on_lease_expiry: requeue
//!   key_file: /etc/agentgate/queue.key
//! ```

use std::time::Duration;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::yaml::{Entries, Fault, Secs};

/// What becomes of a running job whose lease expired (its server died or
/// hung).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LeaseExpiry {
    /// Back to the queue, to run again (the default).
    #[default]
    Requeue,
    /// Ended as `abandoned`.
    Abandon,
}

/// The queue's limits and policies (all optional in the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueSpec {
    /// Jobs running at once, in all.
    pub max_running: usize,
    /// Jobs running at once on one provider (canonical provider name),
    /// in file order; a provider not listed is bound by `max_running` only.
    pub providers: Vec<(String, usize)>,
    /// Tries of a job that ends with a recoverable error (1 = no retry).
    pub max_attempts: u32,
    /// The wait before the first retry; each later one doubles it.
    pub backoff: Duration,
    /// The longest wait between two tries.
    pub backoff_max: Duration,
    /// How long a claimed job's lease lasts unless renewed; the executor
    /// renews it every third of it.
    pub lease: Duration,
    /// What becomes of a job whose lease expired.
    pub on_lease_expiry: LeaseExpiry,
    /// The file of the keys that seal the secrets of queued requests
    /// (absolute); `None`: `$AGENTGATE_QUEUE_KEY_FILE`, else `queue.key`
    /// in the data folder (see [`crate::sealed`]).
    pub key_file: Option<std::path::PathBuf>,
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            max_running: DEFAULT_MAX_RUNNING,
            providers: Vec::new(),
            max_attempts: 1,
            backoff: Duration::from_secs(10),
            backoff_max: Duration::from_secs(600),
            lease: Duration::from_secs(30),
            on_lease_expiry: LeaseExpiry::Requeue,
            key_file: None,
        }
    }
}

/// `max_running` when the file gives none.
pub const DEFAULT_MAX_RUNNING: usize = 4;

impl QueueSpec {
    /// The limit of `provider`, if the file gives one.
    pub fn provider_limit(&self, provider: &str) -> Option<usize> {
        self.providers
            .iter()
            .find(|(p, _)| p == provider)
            .map(|(_, n)| *n)
    }
}

/// `queue:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawQueue {
    max_running: Option<Spanned<u64>>,
    #[serde(default)]
    providers: Entries<Spanned<u64>>,
    max_attempts: Option<Spanned<u64>>,
    backoff: Option<Spanned<Secs>>,
    backoff_max: Option<Spanned<Secs>>,
    lease: Option<Spanned<Secs>>,
    on_lease_expiry: Option<LeaseExpiry>,
    key_file: Option<Spanned<String>>,
}

/// The shortest lease accepted: a shorter one would be renewed more often
/// than a store write takes under load.
const MIN_LEASE: Duration = Duration::from_secs(1);

/// Check `queue:`; `provider_named` gives a provider's canonical name, or
/// why it is unknown.
pub(super) fn convert(
    raw: &RawQueue,
    provider_named: &dyn Fn(&str) -> Result<String, String>,
) -> Result<QueueSpec, Fault> {
    let mut q = QueueSpec::default();
    if let Some(n) = &raw.max_running {
        q.max_running = positive(n, "queue.max_running")?;
    }
    for (name, n) in &raw.providers.0 {
        let provider = provider_named(&name.value)
            .map_err(|m| Fault::at(name, format!("queue.providers: {m}")))?;
        if q.providers.iter().any(|(p, _)| *p == provider) {
            return Err(Fault::at(
                name,
                format!("queue.providers: `{provider}` is given twice"),
            ));
        }
        let limit = positive(n, &format!("queue.providers.{}", name.value))?;
        q.providers.push((provider, limit));
    }
    if let Some(n) = &raw.max_attempts {
        let attempts = positive(n, "queue.max_attempts")?;
        q.max_attempts =
            u32::try_from(attempts).map_err(|_| Fault::at(n, "queue.max_attempts: too large"))?;
    }
    if let Some(b) = &raw.backoff {
        q.backoff = b.value.0;
    }
    if let Some(b) = &raw.backoff_max {
        q.backoff_max = b.value.0;
    }
    if q.backoff_max < q.backoff {
        let at = raw.backoff_max.as_ref().or(raw.backoff.as_ref());
        return Err(Fault::new(
            at.map(super::yaml::At::of),
            format!(
                "queue.backoff_max ({:?}) is shorter than queue.backoff ({:?})",
                q.backoff_max, q.backoff
            ),
        ));
    }
    if let Some(l) = &raw.lease {
        if l.value.0 < MIN_LEASE {
            return Err(Fault::at(
                l,
                format!(
                    "queue.lease: {:?} is shorter than the minimum of 1s",
                    l.value.0
                ),
            ));
        }
        q.lease = l.value.0;
    }
    if let Some(p) = raw.on_lease_expiry {
        q.on_lease_expiry = p;
    }
    if let Some(path) = &raw.key_file {
        let file = std::path::PathBuf::from(&path.value);
        if !file.is_absolute() {
            return Err(Fault::at(
                path,
                format!(
                    "queue.key_file: `{}` is not an absolute path (every host that shares the queue reads it)",
                    path.value
                ),
            ));
        }
        q.key_file = Some(file);
    }
    Ok(q)
}

fn positive(n: &Spanned<u64>, key: &str) -> Result<usize, Fault> {
    match usize::try_from(n.value) {
        Ok(0) => Err(Fault::at(
            n,
            format!("{key}: 0 would run nothing; give 1 or more"),
        )),
        Ok(v) => Ok(v),
        Err(_) => Err(Fault::at(n, format!("{key}: too large"))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{invalid, parse};
    use super::*;

    #[test]
    fn the_queue_section_is_read_with_canonical_provider_names() {
        let cfg = parse(
            "version: 1\nqueue:\n  max_running: 3\n  providers: {Claude: 2, codex: 1}\n  \
             max_attempts: 4\n  backoff: 2s\n  backoff_max: 1m\n  lease: 5s\n  \
             on_lease_expiry: abandon\n  key_file: /etc/agentgate/queue.key\n",
        )
        .unwrap();
        let q = &cfg.queue;
        assert_eq!(q.max_running, 3);
        assert_eq!(q.provider_limit("claude"), Some(2));
        assert_eq!(q.provider_limit("codex"), Some(1));
        assert_eq!(q.provider_limit("gemini"), None);
        assert_eq!(q.max_attempts, 4);
        assert_eq!(q.backoff, Duration::from_secs(2));
        assert_eq!(q.backoff_max, Duration::from_secs(60));
        assert_eq!(q.lease, Duration::from_secs(5));
        assert_eq!(q.on_lease_expiry, LeaseExpiry::Abandon);
        assert_eq!(
            q.key_file.as_deref(),
            Some(std::path::Path::new("/etc/agentgate/queue.key"))
        );
    }

    #[test]
    fn without_the_section_the_defaults_apply() {
        let cfg = parse("version: 1\n").unwrap();
        assert_eq!(cfg.queue, QueueSpec::default());
        assert_eq!(cfg.queue.max_attempts, 1);
        assert_eq!(cfg.queue.on_lease_expiry, LeaseExpiry::Requeue);
    }

    #[test]
    fn bad_values_are_refused_with_their_line() {
        for (text, line, says) in [
            (
                "version: 1\nqueue:\n  max_running: 0\n",
                3,
                "queue.max_running: 0",
            ),
            (
                "version: 1\nqueue:\n  providers: {nope: 1}\n",
                3,
                "unknown provider `nope`",
            ),
            (
                "version: 1\nqueue:\n  providers: {claude: 0}\n",
                3,
                "queue.providers.claude",
            ),
            (
                "version: 1\nqueue:\n  max_attempts: 0\n",
                3,
                "queue.max_attempts",
            ),
            ("version: 1\nqueue:\n  lease: 500ms\n", 3, "queue.lease"),
            (
                "version: 1\nqueue:\n  backoff: 1m\n  backoff_max: 2s\n",
                4,
                "backoff_max",
            ),
            ("version: 1\nqueue:\n  on_lease_expiry: retry\n", 3, "retry"),
            ("version: 1\nqueue:\n  max_runing: 2\n", 3, "max_runing"),
            (
                "version: 1\nqueue:\n  key_file: keys/queue.key\n",
                3,
                "queue.key_file: `keys/queue.key` is not an absolute path",
            ),
        ] {
            let (at, message) = invalid(text);
            assert_eq!(at, Some(line), "{text}: {message}");
            assert!(message.contains(says), "{text}: {message}");
        }
    }
}
