//! [`StartError`]: why the executor, or the `agentgate worker` process
//! around it, could not start or stopped. Its messages are the ones
//! `serve` gives for the same causes (`agentgate_server::ServeError` wraps
//! it whole).

/// Why the executor or the worker could not start, or failed while running.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The data folder is unknown (no AGENTGATE_HOME, XDG_DATA_HOME or
    /// HOME), or the store in it cannot be opened.
    #[error(transparent)]
    DataDir(#[from] agentgate_store::StoreError),
    /// The config file could not be loaded.
    #[error(transparent)]
    Config(#[from] agentgate_core::ConfigError),
    /// The signal handlers could not be installed.
    #[error("failed to watch {signal}: {source}")]
    Signal {
        /// SIGTERM or SIGINT.
        signal: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// The test clock file is unusable.
    #[error(transparent)]
    Clock(#[from] crate::clock::ClockFileError),
    /// The job executor could not start.
    #[error("failed to start the job executor: {0}")]
    Executor(std::io::Error),
    /// `--providers` names a provider no one knows.
    #[error(transparent)]
    UnknownProvider(#[from] agentgate_core::UnknownProvider),
    /// The worker could not register its presence.
    #[error(transparent)]
    Presence(#[from] crate::presence::PresenceError),
    /// The queue key file is unusable (see `agentgate_core::sealed`).
    #[error(transparent)]
    QueueKey(#[from] agentgate_core::sealed::KeyFileError),
    /// The worker's metrics listener could not be bound or served (its
    /// error is the HTTP side's, see [`crate::worker::MetricsExport`]).
    #[error(transparent)]
    Metrics(Box<dyn std::error::Error + Send + Sync>),
}
