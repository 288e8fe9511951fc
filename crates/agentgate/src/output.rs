//! Everything the commands print goes through here: stdout through
//! [`Stdout`], messages on stderr through [`note!`] (warnings, notes, the
//! audit line: not printed with `--quiet`) and [`error_note!`] (the error
//! a command fails with: always printed).
//!
//! Rust starts every program with SIGPIPE ignored, so writing to a pipe
//! whose reader is gone (`agentgate runs --json | head -1`) returns EPIPE
//! instead of killing the process, and `println!` would panic on it. Here a
//! write error is an [`OutputError`] that the command returns like any
//! other error; `main` turns it into the exit code:
//!
//! - a closed pipe ends the command quietly (nothing on stderr) with exit
//!   141, what a shell reports for a program that SIGPIPE ended;
//! - any other write error (a full disk: `> /dev/full`) is one line on
//!   stderr and exit 74 (`EX_IOERR`).
//!
//! Messages on stderr never fail a command: when stderr cannot be written
//! they are dropped.

use std::fmt;
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use agentgate_protocol::{EXIT_OUTPUT_CLOSED, EXIT_OUTPUT_FAILED};
use serde::Serialize;

/// Print a message line on stderr unless `--quiet` was given; a write
/// error is ignored (a message about a failure must not become a panic of
/// its own).
macro_rules! note {
    ($($arg:tt)*) => {
        if !$crate::output::quiet() {
            $crate::output::note_line(format_args!($($arg)*))
        }
    };
}
pub(crate) use note;

/// Print the error a command fails with on stderr, `--quiet` or not.
macro_rules! error_note {
    ($($arg:tt)*) => {
        $crate::output::note_line(format_args!($($arg)*))
    };
}
pub(crate) use error_note;

/// `--quiet`: set once by `main`, before any command runs.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Make [`note!`] print nothing (`--quiet`: errors only).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether `--quiet` was given: stderr carries errors only (no warnings,
/// notes, progress line or audit line).
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Writes `line` and a newline to stderr, ignoring write errors.
pub fn note_line(line: fmt::Arguments<'_>) {
    // One write per line: stderr is unbuffered, so `writeln!` would issue a
    // write per formatted piece and a reader of the log (a supervisor, a
    // test waiting for an address) could see half a line.
    let mut text = line.to_string();
    text.push('\n');
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// Stdout could not be written.
#[derive(Debug)]
pub enum OutputError {
    /// The reader of the pipe is gone (EPIPE).
    Closed,
    /// Any other write error.
    Failed(io::Error),
}

impl OutputError {
    fn from_io(e: io::Error) -> OutputError {
        if e.kind() == io::ErrorKind::BrokenPipe {
            OutputError::Closed
        } else {
            OutputError::Failed(e)
        }
    }

    /// Report the error (a closed pipe quietly) and give the exit code.
    pub fn exit(&self) -> ExitCode {
        match self {
            OutputError::Closed => exit_code(EXIT_OUTPUT_CLOSED),
            OutputError::Failed(_) => {
                error_note!("agentgate: {self}");
                exit_code(EXIT_OUTPUT_FAILED)
            }
        }
    }
}

pub fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputError::Closed => f.write_str("stdout was closed before the output was written"),
            OutputError::Failed(e) => write!(f, "failed to write the output to stdout: {e}"),
        }
    }
}

impl std::error::Error for OutputError {}

/// The process's stdout, written whole lines at a time and flushed after
/// each write so that an error shows at the write that caused it. After a
/// failed write, later writes do nothing and return the same error.
#[derive(Debug, Default)]
pub struct Stdout {
    failed: Option<FailedWith>,
}

/// What the first failed write met (kept to repeat it).
#[derive(Debug, Clone, Copy)]
enum FailedWith {
    Closed,
    Other(io::ErrorKind, Option<i32>),
}

impl Stdout {
    pub fn new() -> Stdout {
        Stdout::default()
    }

    /// Whether stdout is a terminal.
    pub fn is_terminal(&self) -> bool {
        io::stdout().is_terminal()
    }

    /// `text` as is (it should end with a newline).
    pub fn text(&mut self, text: &str) -> Result<(), OutputError> {
        if let Some(f) = self.failed {
            return Err(f.again());
        }
        let mut out = io::stdout().lock();
        let written = out.write_all(text.as_bytes()).and_then(|()| out.flush());
        written.map_err(|e| {
            self.failed = Some(FailedWith::of(&e));
            OutputError::from_io(e)
        })
    }

    /// `line` and a newline.
    pub fn line(&mut self, line: impl fmt::Display) -> Result<(), OutputError> {
        self.text(&format!("{line}\n"))
    }

    /// `value` as JSON on one line.
    pub fn json_line<T: Serialize>(&mut self, value: &T) -> anyhow::Result<()> {
        let text = serde_json::to_string(value)?;
        Ok(self.line(text)?)
    }

    /// `value` as JSON: indented when `pretty` (default: when stdout is a
    /// terminal), else on one line (so pipelines get JSONL).
    pub fn json<T: Serialize>(&mut self, value: &T, pretty: Option<bool>) -> anyhow::Result<()> {
        if pretty.unwrap_or_else(|| self.is_terminal()) {
            let text = serde_json::to_string_pretty(value)?;
            Ok(self.line(text)?)
        } else {
            self.json_line(value)
        }
    }

    /// The error of the first failed write, if any.
    pub fn failure(&self) -> Option<OutputError> {
        self.failed.map(FailedWith::again)
    }
}

impl FailedWith {
    fn of(e: &io::Error) -> FailedWith {
        if e.kind() == io::ErrorKind::BrokenPipe {
            FailedWith::Closed
        } else {
            FailedWith::Other(e.kind(), e.raw_os_error())
        }
    }

    fn again(self) -> OutputError {
        match self {
            FailedWith::Closed => OutputError::Closed,
            FailedWith::Other(_, Some(code)) => {
                OutputError::Failed(io::Error::from_raw_os_error(code))
            }
            FailedWith::Other(kind, None) => OutputError::Failed(io::Error::from(kind)),
        }
    }
}

/// The exit code of a command that ended with `error`: an [`OutputError`]
/// gives its own (see the module's notes), anything else is reported on
/// stderr and gives 2 (invalid input or usage).
pub fn exit_for_error(error: &anyhow::Error) -> ExitCode {
    match error.downcast_ref::<OutputError>() {
        Some(output) => output.exit(),
        None => {
            error_note!("agentgate: {error:#}");
            exit_code(agentgate_protocol::EXIT_USAGE)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_pipe_is_a_closed_output_and_other_errors_fail() {
        let closed = OutputError::from_io(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(matches!(closed, OutputError::Closed));
        let full = OutputError::from_io(io::Error::from_raw_os_error(28));
        assert!(matches!(full, OutputError::Failed(_)));
        assert!(full.to_string().contains("stdout"), "{full}");
    }

    #[test]
    fn a_repeated_failure_keeps_its_os_error() {
        let e = io::Error::from_raw_os_error(28);
        let again = FailedWith::of(&e).again();
        match again {
            OutputError::Failed(e) => assert_eq!(e.raw_os_error(), Some(28)),
            OutputError::Closed => panic!("ENOSPC is not a closed pipe"),
        }
    }

    #[test]
    fn an_output_error_keeps_its_exit_code_through_anyhow() {
        let e = anyhow::Error::from(OutputError::Closed);
        assert!(matches!(
            e.downcast_ref::<OutputError>(),
            Some(OutputError::Closed)
        ));
    }
}
