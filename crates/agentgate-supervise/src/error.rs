use std::path::PathBuf;

/// Why [`supervise`](super::supervise) could not run or follow a process.
///
/// Everything that happens to a process once it runs (a timeout, a crash, a
/// signal) is an [`ExitReport`](super::ExitReport), not an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SuperviseError {
    /// The program is not a path and is on no directory of `PATH`.
    #[error(
        "failed to find `{}` on PATH; install it or give the full path to the executable",
        program.display()
    )]
    ProgramNotFound {
        /// The program as given.
        program: PathBuf,
    },
    /// The working directory cannot be entered.
    #[error("failed to open the working directory {}: {source}; create it or choose another", path.display())]
    WorkingDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The operating system refused to start the process.
    #[error("failed to start `{}`: {source}", program.display())]
    Spawn {
        /// The executable that was started (the keeper, when one is used).
        program: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The started process has no pid, so it cannot be followed.
    #[error("failed to read the pid of `{}`: it exited before it could be followed", program.display())]
    NoPid {
        /// The program.
        program: PathBuf,
    },
    /// Waiting for the process's exit status failed.
    #[error("failed to wait for `{}` (pid {pid}): {source}", program.display())]
    Wait {
        /// The program.
        program: PathBuf,
        /// Its pid.
        pid: u32,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
