//! Exit codes of `agentgate run`.

use crate::error::ErrorKind;

/// The run succeeded.
pub const EXIT_SUCCESS: i32 = 0;
/// The run failed for any reason not covered by another code.
pub const EXIT_FAILURE: i32 = 1;
/// Invalid input or command-line usage.
pub const EXIT_USAGE: i32 = 2;
/// Every provider tried failed with a recoverable error: try again later
/// (`EX_TEMPFAIL` of sysexits.h).
pub const EXIT_ALL_RECOVERABLE: i32 = 75;
/// Writing the output failed for another reason than a closed pipe (a
/// full disk): one line on stderr (`EX_IOERR` of sysexits.h). A run is
/// recorded in the store as it ended all the same. Also a run that
/// succeeded but whose record the store refused (a full disk, a read-only
/// store): its envelope is printed, and the reason on stderr.
pub const EXIT_OUTPUT_FAILED: i32 = 74;
/// The run timed out (wall clock or idle), as timeout(1) reports it.
pub const EXIT_TIMEOUT: i32 = 124;
/// The run was cancelled (SIGINT: 128 + 2).
pub const EXIT_CANCELLED: i32 = 130;

/// stdout was closed before everything was printed (the reader of a pipe
/// exited, as `head -1` does): nothing on stderr, and 128 + SIGPIPE, what a
/// shell reports for a program that SIGPIPE ended. A run is recorded in the
/// store as it ended all the same.
pub const EXIT_OUTPUT_CLOSED: i32 = 141;

/// The exit status of `agentgate run` for a finished run.
///
/// `final_error` is the error the run ended with (`None` on success);
/// `every_attempt_recoverable` whether every attempt of the chain failed with
/// a recoverable error. The first rule that matches wins:
///
/// | final error | code |
/// |---|---|
/// | none | 0 |
/// | `invalid_input`, `policy` | 2 |
/// | `cancelled` | 130 |
/// | `timeout`, `idle_timeout` | 124 |
/// | any, every attempt recoverable | 75 |
/// | any other | 1 |
pub const fn exit_code_for(final_error: Option<ErrorKind>, every_attempt_recoverable: bool) -> i32 {
    match final_error {
        None => EXIT_SUCCESS,
        Some(ErrorKind::InvalidInput | ErrorKind::Policy) => EXIT_USAGE,
        Some(ErrorKind::Cancelled) => EXIT_CANCELLED,
        Some(ErrorKind::Timeout | ErrorKind::IdleTimeout) => EXIT_TIMEOUT,
        Some(_) if every_attempt_recoverable => EXIT_ALL_RECOVERABLE,
        Some(_) => EXIT_FAILURE,
    }
}
