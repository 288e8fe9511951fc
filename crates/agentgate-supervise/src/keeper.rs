//! The keeper: the group leader that runs the CLI as its child so that no
//! agent outlives agentgate, even when agentgate is killed with SIGKILL.
//!
//! `agentgate __keeper <parent-pid> -- <program> <args...>` is spawned by
//! [`supervise`](super::supervise) as the leader of the run's process group.
//! Started as `__keeper <parent-pid> --warm` (see `warm.rs`), it does all of
//! its set-up first and then reads the program, arguments, environment and
//! folder from its stdin.
//! It runs the program in the same group with stdin, stdout and stderr
//! passed straight through, waits for it, and exits with its exit code, or
//! re-raises its terminating signal on itself, so the supervisor sees the
//! CLI's own status.
//!
//! It forwards no signal: the supervisor signals the whole group, which
//! reaches the CLI directly. It only makes sure that signal does not kill
//! the keeper first: SIGINT, SIGTERM, SIGHUP and SIGQUIT get handlers that
//! do nothing (handlers, not SIG_IGN: exec resets handlers to the default,
//! so the CLI receives those signals normally). Before that it resets what
//! it inherited: ignored signals back to the default, an empty mask.
//!
//! On Linux it is a child subreaper: a descendant orphaned by a double fork
//! (a daemon that left the group with `setsid`) is re-parented to it, not to
//! init. When the CLI has exited, it SIGKILLs and reaps every descendant
//! left (`sweep.rs`) and names on stderr any it could not end, which the
//! supervisor reads back into `ExitReport::survivors`. For the termination
//! table's last step the supervisor sends it `SWEEP_SIGNAL` (SIGUSR1) instead of a
//! SIGKILL to the group (which would kill the keeper first): it SIGKILLs
//! every descendant, CLI included, then sweeps and exits as the CLI died.
//!
//! When its parent (the agentgate process whose pid it was given) dies, it
//! sends SIGTERM to the whole group and every descendant, waits
//! [`ORPHAN_GRACE`], SIGKILLs every descendant and then the group, itself
//! included. It notices the death:
//!
//! - on Linux, at once: `PR_SET_PDEATHSIG` delivers SIGUSR2 when the parent
//!   dies, which wakes the watcher thread; the parent pid is then checked
//!   again (the signal also fires when only the spawning *thread* exits, and
//!   the check tells the two apart);
//! - everywhere (macOS included, which has no parent-death signal), by
//!   comparing `getppid()` with the given pid every [`POLL_INTERVAL`]: a dead
//!   parent's children are re-parented, so the pid changes.
//!
//! A parent that died before the keeper could arm either check is caught by
//! the first comparison, made before the CLI starts.

use std::ffi::OsString;
use std::io::Read as _;
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt as _;
use std::path::PathBuf;
use std::process::{Command, ExitStatus};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::{Pid, getpgrp, getpid, setpgid};

use super::report::Survivor;
use super::sweep;
use super::warm_request::{Request, WARM_FLAG};

/// The hidden subcommand of the `agentgate` binary that runs the keeper.
pub const KEEPER_SUBCOMMAND: &str = "__keeper";

/// How often the keeper compares its parent pid with the expected one.
pub const POLL_INTERVAL: Duration = Duration::from_millis(100);

/// After its parent died, how long the keeper waits between SIGTERM and
/// SIGKILL to the group.
pub const ORPHAN_GRACE: Duration = Duration::from_secs(2);

/// The signal the supervisor sends the keeper (never the group) for the
/// termination table's last step: SIGKILL every descendant of the keeper,
/// in the group or not, then exit as the CLI did.
pub(crate) const SWEEP_SIGNAL: Signal = Signal::SIGUSR1;

/// How the keeper names a process it could not end, on its stderr.
const SURVIVOR_PREFIX: &str = "agentgate keeper: process ";
const SURVIVOR_SEPARATOR: &str = " survived SIGKILL: ";

/// Exit code when the keeper itself fails (bad arguments, no way to wait).
const EXIT_KEEPER_FAILED: i32 = 125;
/// Exit code when the program exists but cannot be executed.
const EXIT_CANNOT_EXECUTE: i32 = 126;
/// Exit code when the program does not exist.
const EXIT_NOT_FOUND: i32 = 127;

/// Runs the keeper. `args` are the arguments after the `__keeper`
/// subcommand: `<parent-pid> [--] <program> [args...]`.
///
/// Never returns: exits with the program's exit code, or dies of the signal
/// that killed the program. Exits with 125 on bad arguments, 126 when the
/// program cannot be executed and 127 when it does not exist (as `env` and
/// `timeout` do).
pub fn keeper_main(args: Vec<OsString>) -> ! {
    let (parent, mode) = match parse(args) {
        Ok(parsed) => parsed,
        Err(msg) => fail(EXIT_KEEPER_FAILED, &msg),
    };
    // Whatever agentgate inherited (nohup's ignored SIGHUP, a background
    // job's ignored SIGINT, a blocked mask) must not reach the CLI.
    if let Err(e) = super::signals::reset_own_state() {
        fail(
            EXIT_KEEPER_FAILED,
            &format!("failed to reset the signal state: {e}"),
        );
    }
    become_group_leader();
    let group = getpgrp();
    if let Err(e) = sweep::become_subreaper() {
        fail(
            EXIT_KEEPER_FAILED,
            &format!("failed to become the subreaper of the program's processes: {e}"),
        );
    }
    let sweep_now = Arc::new(AtomicBool::new(false));
    let wake = match arm(&sweep_now) {
        Ok(wake) => wake,
        Err(msg) => fail(EXIT_KEEPER_FAILED, &msg),
    };
    // A warm keeper waits here for its request (see `warm.rs`).
    let (program, mut command) = match mode {
        Mode::Cold { program, args } => {
            let mut command = Command::new(&program);
            command.args(args);
            (program, command)
        }
        Mode::Warm => warm_command(),
    };
    if std::os::unix::process::parent_id() != parent {
        // agentgate died before the keeper could watch it.
        let _ = killpg(group, Signal::SIGKILL);
        fail(
            EXIT_KEEPER_FAILED,
            "the parent process is gone; not starting the program",
        );
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            let code = if e.kind() == std::io::ErrorKind::NotFound {
                EXIT_NOT_FOUND
            } else {
                EXIT_CANNOT_EXECUTE
            };
            fail(
                code,
                &format!("failed to start `{}`: {e}", program.display()),
            );
        }
    };
    // After the spawn, off the CLI's start-up path: a parent death or a
    // sweep request in between is not lost, its signal already wrote to
    // `wake`, which the watcher reads first.
    let orphaned = Arc::new(AtomicBool::new(false));
    start_watcher(parent, group, wake, orphaned.clone(), sweep_now);
    let status = match child.wait() {
        Ok(status) => status,
        Err(e) => {
            // Without a status nothing can be mirrored; end the group rather
            // than leave the program unwatched.
            eprintln!(
                "agentgate keeper: failed to wait for `{}`: {e}",
                program.display()
            );
            let _ = killpg(group, Signal::SIGKILL);
            std::process::exit(EXIT_KEEPER_FAILED);
        }
    };
    // The CLI is gone; what it started is not, perhaps outside the group.
    for survivor in sweep::sweep() {
        eprintln!("{}", survivor_line(&survivor));
    }
    if orphaned.load(Ordering::SeqCst) || std::os::unix::process::parent_id() != parent {
        // Nobody will sweep the group after us: end it (this never returns,
        // the final SIGKILL includes the keeper).
        end_orphaned_group(group);
    }
    mirror(status)
}

/// What the keeper runs: a program named on its command line, or one it
/// is sent once started (warm).
#[derive(Debug, PartialEq)]
enum Mode {
    Cold {
        program: PathBuf,
        args: Vec<OsString>,
    },
    Warm,
}

fn parse(args: Vec<OsString>) -> Result<(u32, Mode), String> {
    const USAGE: &str = "usage: agentgate __keeper <parent-pid> {-- <program> [args...] | --warm}";
    let mut args = args.into_iter();
    let parent = args
        .next()
        .and_then(|p| p.to_str().and_then(|p| p.parse::<u32>().ok()))
        .filter(|p| *p > 1)
        .ok_or_else(|| format!("failed to read the parent pid; {USAGE}"))?;
    let mut program = args
        .next()
        .ok_or_else(|| format!("no program given; {USAGE}"))?;
    if program == WARM_FLAG {
        return match args.next() {
            None => Ok((parent, Mode::Warm)),
            Some(_) => Err(format!("--warm takes no program; {USAGE}")),
        };
    }
    if program == "--" {
        program = args
            .next()
            .ok_or_else(|| format!("no program given; {USAGE}"))?;
    }
    let program = PathBuf::from(program);
    Ok((
        parent,
        Mode::Cold {
            program,
            args: args.collect(),
        },
    ))
}

/// A warm keeper's CLI, from the request on its stdin: the environment is
/// exactly the request's, the folder is entered first, and stdin is the
/// rest of the socket or `/dev/null`. A socket closed before any request
/// means agentgate did not need this keeper: exit 0 at once.
fn warm_command() -> (PathBuf, Command) {
    use std::os::fd::AsFd as _;

    // Unbuffered, on a duplicate of fd 0: not a byte past the request may
    // be read, it belongs to the CLI.
    let mut control = match std::io::stdin().as_fd().try_clone_to_owned() {
        Ok(fd) => std::fs::File::from(fd),
        Err(e) => fail(
            EXIT_KEEPER_FAILED,
            &format!("failed to read the request: {e}"),
        ),
    };
    let request = match Request::read(&mut control) {
        Ok(Some(request)) => request,
        Ok(None) => std::process::exit(0),
        Err(msg) => fail(EXIT_KEEPER_FAILED, &msg),
    };
    drop(control);
    if let Some(cwd) = &request.cwd
        && let Err(e) = std::env::set_current_dir(cwd)
    {
        fail(
            EXIT_CANNOT_EXECUTE,
            &format!(
                "failed to enter the working directory {}: {e}",
                cwd.display()
            ),
        );
    }
    let mut command = Command::new(&request.program);
    command.args(&request.args).env_clear().envs(request.env);
    if !request.stdin {
        command.stdin(std::process::Stdio::null());
    }
    (request.program, command)
}

/// The group the supervisor signals must be led by the keeper; it is when
/// spawned by [`supervise`](super::supervise), and made so otherwise, so
/// that ending "our group" can never reach the caller's group.
fn become_group_leader() {
    if getpgrp() != getpid()
        && let Err(e) = setpgid(Pid::from_raw(0), Pid::from_raw(0))
    {
        fail(
            EXIT_KEEPER_FAILED,
            &format!("failed to start a process group: {e}"),
        );
    }
}

/// Installs the signal handlers and, on Linux, the parent-death signal;
/// returns the socket the death signal and [`SWEEP_SIGNAL`] wake.
fn arm(sweep_now: &Arc<AtomicBool>) -> Result<UnixStream, String> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2};

    // The flag is never read: the handler exists only so that the signal
    // does not kill the keeper.
    let delivered = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
        signal_hook::flag::register(signal, delivered.clone())
            .map_err(|e| format!("failed to install a signal handler: {e}"))?;
    }
    let (wake_rx, wake_tx) =
        UnixStream::pair().map_err(|e| format!("failed to create a socket pair: {e}"))?;
    signal_hook::flag::register(SIGUSR1, sweep_now.clone())
        .map_err(|e| format!("failed to install a signal handler: {e}"))?;
    let sweep_wake = wake_tx
        .try_clone()
        .map_err(|e| format!("failed to create a socket pair: {e}"))?;
    signal_hook::low_level::pipe::register(SIGUSR1, sweep_wake)
        .map_err(|e| format!("failed to install a signal handler: {e}"))?;
    signal_hook::low_level::pipe::register(SIGUSR2, wake_tx)
        .map_err(|e| format!("failed to install a signal handler: {e}"))?;
    wake_rx
        .set_read_timeout(Some(POLL_INTERVAL))
        .map_err(|e| format!("failed to set a socket timeout: {e}"))?;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    nix::sys::prctl::set_pdeathsig(Signal::SIGUSR2)
        .map_err(|e| format!("failed to set the parent-death signal: {e}"))?;
    Ok(wake_rx)
}

fn start_watcher(
    parent: u32,
    group: Pid,
    mut wake: UnixStream,
    orphaned: Arc<AtomicBool>,
    sweep_now: Arc<AtomicBool>,
) {
    let spawned = std::thread::Builder::new()
        .name("keeper-watch".into())
        .spawn(move || {
            let mut buf = [0u8; 64];
            loop {
                // Returns on a wake-up or after POLL_INTERVAL; 0 bytes would
                // mean the socket closed, which must not turn into a spin.
                if let Ok(0) = wake.read(&mut buf) {
                    std::thread::sleep(POLL_INTERVAL);
                }
                if sweep_now.swap(false, Ordering::SeqCst) {
                    // The CLI dies with the rest; the main thread, waiting
                    // for it, then reaps and sweeps what is left.
                    sweep::kill_descendants();
                }
                if std::os::unix::process::parent_id() != parent {
                    orphaned.store(true, Ordering::SeqCst);
                    end_orphaned_group(group);
                }
            }
        });
    if let Err(e) = spawned {
        let _ = killpg(group, Signal::SIGKILL);
        fail(
            EXIT_KEEPER_FAILED,
            &format!("failed to start the watcher thread: {e}"),
        );
    }
}

/// SIGTERM to the group and every descendant, a grace, SIGKILL to every
/// descendant and to the group (the keeper too).
fn end_orphaned_group(group: Pid) -> ! {
    let _ = killpg(group, Signal::SIGTERM);
    sweep::signal_descendants(Signal::SIGTERM);
    std::thread::sleep(ORPHAN_GRACE);
    sweep::kill_descendants();
    let _ = killpg(group, Signal::SIGKILL);
    // Unreachable unless SIGKILL could not be sent.
    std::process::exit(EXIT_KEEPER_FAILED);
}

/// The stderr line naming a process the keeper could not end; the
/// supervisor reads it back into [`ExitReport::survivors`](super::ExitReport::survivors).
fn survivor_line(survivor: &Survivor) -> String {
    format!(
        "{SURVIVOR_PREFIX}{}{SURVIVOR_SEPARATOR}{}",
        survivor.pid, survivor.command
    )
}

/// Reads a line written by [`survivor_line`].
pub(crate) fn parse_survivor_line(line: &[u8]) -> Option<Survivor> {
    let line = std::str::from_utf8(line).ok()?;
    let rest = line.strip_prefix(SURVIVOR_PREFIX)?;
    let (pid, command) = rest.split_once(SURVIVOR_SEPARATOR)?;
    Some(Survivor {
        pid: pid.parse().ok()?,
        command: command.to_owned(),
    })
}

/// Exits the way the program did.
fn mirror(status: ExitStatus) -> ! {
    if let Some(code) = status.code() {
        std::process::exit(code);
    }
    if let Some(signal) = status.signal() {
        // Resets the handler to the default action, unblocks and raises; for
        // a signal whose default is to ignore, it returns.
        let _ = signal_hook::low_level::emulate_default_handler(signal);
        std::process::exit(128 + signal);
    }
    std::process::exit(EXIT_KEEPER_FAILED);
}

fn fail(code: i32, msg: &str) -> ! {
    eprintln!("agentgate keeper: {msg}");
    std::process::exit(code);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_with_and_without_the_separator() {
        let cold = |program: &str, args: &[&str]| Mode::Cold {
            program: PathBuf::from(program),
            args: os(args),
        };
        assert_eq!(
            parse(os(&["42", "--", "prog", "-x", "--", "y"])).unwrap(),
            (42, cold("prog", &["-x", "--", "y"]))
        );
        assert_eq!(
            parse(os(&["42", "prog", "-x"])).unwrap(),
            (42, cold("prog", &["-x"]))
        );
        // After the separator `--warm` is a program's name like any other.
        assert_eq!(
            parse(os(&["42", "--", "--warm"])).unwrap(),
            (42, cold("--warm", &[]))
        );
        assert_eq!(parse(os(&["42", "--warm"])).unwrap(), (42, Mode::Warm));
    }

    #[test]
    fn a_survivor_line_reads_back() {
        let survivor = Survivor {
            pid: 4242,
            command: "sleep 1000: x".to_owned(),
        };
        let line = survivor_line(&survivor);
        assert_eq!(parse_survivor_line(line.as_bytes()), Some(survivor));
        assert_eq!(parse_survivor_line(b"agentgate keeper: other"), None);
    }

    #[test]
    fn rejects_a_bad_parent_pid_or_no_program() {
        assert!(parse(os(&["x", "--", "prog"])).is_err());
        assert!(parse(os(&["1", "--", "prog"])).is_err());
        assert!(parse(os(&["42", "--"])).is_err());
        assert!(parse(os(&[])).is_err());
        assert!(parse(os(&["42", "--warm", "prog"])).is_err());
    }
}
