//! A program that misbehaves on purpose, for agentgate's process tests.
//!
//! Settings (anywhere on the command line):
//!   --pid-file F        write our pid, then our children's, one per line, to
//!                       F (atomically, before any action runs)
//!   --grandchildren N   start N children in our process group that sleep
//!                       "forever"; the first ignores SIGTERM and SIGINT
//!   --grandchildren-keep-stdout
//!                       the grandchildren inherit our stdout (by default
//!                       they get /dev/null)
//!   --leak-stdout       start a child that leaves the group (setsid) and
//!                       holds our stdout open for 30 s (listed last in the
//!                       pid file)
//!   --setsid-grandchild MARKER
//!                       double fork a daemon: a child starts a grandchild
//!                       that leaves the session and group (setsid),
//!                       ignores SIGTERM and SIGINT and sleeps "forever",
//!                       then the child exits, orphaning it. MARKER is in
//!                       the daemon's command line (`pgrep -f MARKER`); its
//!                       pid is listed in the pid file after the children
//!   --ignore-term       ignore SIGTERM (with a handler)
//!   --ignore-int        ignore SIGINT (with a handler)
//!   --int-exit-code N   on SIGINT, print "got SIGINT" and exit with N
//!
//! Actions, run in order:
//!   --print TEXT        a line on stdout
//!   --eprint TEXT       a line on stderr
//!   --print-bytes HEX   raw bytes on stdout, no newline added ("ff0a")
//!   --huge-line-mib N   one line of N MiB on stdout: bytes a..z repeating
//!   --echo-stdin        read stdin to its end, print "stdin:" + its hex
//!   --tick MS COUNT     print "tick I" COUNT times, every MS milliseconds
//!   --sleep-ms N        sleep
//!   --result-then-hang  print {"type":"result","result":"done"}, then hang
//!   --hang              never exit
//!   --exit N            exit now with code N
//! After the last action: exit 0.
//!
//! "Forever" is capped at 300 s so that a failed test leaves no process for
//! long.

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const FOREVER: Duration = Duration::from_secs(300);
const LEAK_HOLD: Duration = Duration::from_secs(30);

enum Action {
    Print(String),
    Eprint(String),
    PrintBytes(Vec<u8>),
    HugeLine(usize),
    EchoStdin,
    Tick(u64, u32),
    Sleep(u64),
    ResultThenHang,
    Hang,
    Exit(u8),
}

#[derive(Default)]
struct Settings {
    pid_file: Option<PathBuf>,
    grandchildren: u32,
    grandchildren_keep_stdout: bool,
    leak_stdout: bool,
    setsid_marker: Option<String>,
    ignore_term: bool,
    ignore_int: bool,
    int_exit_code: Option<i32>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("--grandchild") => grandchild(args.iter().any(|a| a == "--ignore-term")),
        Some("--leaker") => leaker(),
        Some("--daemonize") => daemonize(args.get(1)),
        Some("--escapee") => escapee(),
        _ => misbehave(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("misbehave: {e}");
            ExitCode::from(99)
        }
    }
}

fn misbehave(args: &[String]) -> Result<ExitCode, String> {
    let (settings, actions) = parse(args)?;
    if settings.ignore_term {
        ignore(signal_hook::consts::SIGTERM)?;
    }
    if settings.ignore_int {
        ignore(signal_hook::consts::SIGINT)?;
    }
    if let Some(code) = settings.int_exit_code {
        exit_on_sigint(code)?;
    }
    let mut pids = vec![std::process::id()];
    let exe = std::env::current_exe().map_err(|e| format!("failed to find myself: {e}"))?;
    for i in 0..settings.grandchildren {
        let mut cmd = Command::new(&exe);
        cmd.arg("--grandchild");
        if i == 0 {
            cmd.arg("--ignore-term");
        }
        if !settings.grandchildren_keep_stdout {
            cmd.stdout(Stdio::null());
        }
        let child = cmd
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("failed to start a grandchild: {e}"))?;
        pids.push(child.id());
    }
    if settings.leak_stdout {
        let child = Command::new(&exe)
            .arg("--leaker")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("failed to start the leaker: {e}"))?;
        wait_until_out_of_group(child.id())?;
        pids.push(child.id());
    }
    if let Some(marker) = &settings.setsid_marker {
        pids.push(double_fork(&exe, marker)?);
    }
    if let Some(path) = &settings.pid_file {
        write_pid_file(path, &pids)?;
    }
    // Not locked for the whole run: the SIGINT thread prints too.
    let mut out = std::io::stdout();
    for action in actions {
        match action {
            Action::Print(text) => writeln!(out, "{text}").map_err(write_err)?,
            Action::Eprint(text) => eprintln!("{text}"),
            Action::PrintBytes(bytes) => out.write_all(&bytes).map_err(write_err)?,
            Action::HugeLine(mib) => {
                let mut line: Vec<u8> = (0..mib * 1024 * 1024)
                    .map(|i| b'a' + (i % 26) as u8)
                    .collect();
                line.push(b'\n');
                out.write_all(&line).map_err(write_err)?;
            }
            Action::EchoStdin => {
                let mut input = Vec::new();
                std::io::stdin()
                    .read_to_end(&mut input)
                    .map_err(|e| format!("failed to read stdin: {e}"))?;
                writeln!(out, "stdin:{}", hex(&input)).map_err(write_err)?;
            }
            Action::Tick(ms, count) => {
                for i in 0..count {
                    writeln!(out, "tick {i}").map_err(write_err)?;
                    out.flush().map_err(write_err)?;
                    std::thread::sleep(Duration::from_millis(ms));
                }
            }
            Action::Sleep(ms) => std::thread::sleep(Duration::from_millis(ms)),
            Action::ResultThenHang => {
                writeln!(out, r#"{{"type":"result","result":"done"}}"#).map_err(write_err)?;
                out.flush().map_err(write_err)?;
                std::thread::sleep(FOREVER);
            }
            Action::Hang => {
                out.flush().map_err(write_err)?;
                std::thread::sleep(FOREVER);
            }
            Action::Exit(code) => {
                out.flush().map_err(write_err)?;
                return Ok(ExitCode::from(code));
            }
        }
        out.flush().map_err(write_err)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn parse(args: &[String]) -> Result<(Settings, Vec<Action>), String> {
    let mut settings = Settings::default();
    let mut actions = Vec::new();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = |what: &str| it.next().cloned().ok_or(format!("{flag} needs {what}"));
        match flag.as_str() {
            "--pid-file" => settings.pid_file = Some(value("a path")?.into()),
            "--grandchildren" => settings.grandchildren = number(&value("a count")?)?,
            "--grandchildren-keep-stdout" => settings.grandchildren_keep_stdout = true,
            "--leak-stdout" => settings.leak_stdout = true,
            "--setsid-grandchild" => settings.setsid_marker = Some(value("a marker")?),
            "--ignore-term" => settings.ignore_term = true,
            "--ignore-int" => settings.ignore_int = true,
            "--int-exit-code" => settings.int_exit_code = Some(number(&value("a code")?)?),
            "--print" => actions.push(Action::Print(value("a text")?)),
            "--eprint" => actions.push(Action::Eprint(value("a text")?)),
            "--print-bytes" => actions.push(Action::PrintBytes(unhex(&value("hex bytes")?)?)),
            "--huge-line-mib" => actions.push(Action::HugeLine(number(&value("a size")?)?)),
            "--echo-stdin" => actions.push(Action::EchoStdin),
            "--tick" => {
                let ms = number(&value("milliseconds")?)?;
                let count = number(&value("a count")?)?;
                actions.push(Action::Tick(ms, count));
            }
            "--sleep-ms" => actions.push(Action::Sleep(number(&value("milliseconds")?)?)),
            "--result-then-hang" => actions.push(Action::ResultThenHang),
            "--hang" => actions.push(Action::Hang),
            "--exit" => actions.push(Action::Exit(number(&value("a code")?)?)),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok((settings, actions))
}

fn number<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.parse().map_err(|_| format!("not a number: {text}"))
}

fn unhex(text: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    digits
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|p| u8::from_str_radix(p, 16).ok())
                .filter(|_| pair.len() == 2)
                .ok_or(format!("not hex: {text}"))
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn write_err(e: std::io::Error) -> String {
    format!("failed to write stdout: {e}")
}

fn write_pid_file(path: &std::path::Path, pids: &[u32]) -> Result<(), String> {
    let text: String = pids.iter().map(|p| format!("{p}\n")).collect();
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(|e| format!("failed to write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("failed to rename to {}: {e}", path.display()))
}

/// A handler, not SIG_IGN: the signal is ignored by us only, children we
/// exec get the default action back.
fn ignore(signal: i32) -> Result<(), String> {
    signal_hook::flag::register(signal, Arc::new(AtomicBool::new(false)))
        .map(|_| ())
        .map_err(|e| format!("failed to install a signal handler: {e}"))
}

/// The leaker must have left our group before we exit, or the supervisor's
/// sweep of the group would catch it.
fn wait_until_out_of_group(pid: u32) -> Result<(), String> {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(pid).map_err(|e| e.to_string())?);
    let ours = nix::unistd::getpgrp();
    for _ in 0..1000 {
        match nix::unistd::getpgid(Some(pid)) {
            Ok(group) if group != ours => return Ok(()),
            Ok(_) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("failed to read the leaker's group: {e}")),
        }
    }
    Err("the leaker did not leave the process group within 5 s".to_owned())
}

fn exit_on_sigint(code: i32) -> Result<(), String> {
    let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT])
        .map_err(|e| format!("failed to install a signal handler: {e}"))?;
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            let mut out = std::io::stdout();
            let _ = writeln!(out, "got SIGINT");
            let _ = out.flush();
            std::process::exit(code);
        }
    });
    Ok(())
}

fn grandchild(ignore_term: bool) -> Result<ExitCode, String> {
    if ignore_term {
        ignore(signal_hook::consts::SIGTERM)?;
        ignore(signal_hook::consts::SIGINT)?;
    }
    std::thread::sleep(FOREVER);
    Ok(ExitCode::SUCCESS)
}

fn leaker() -> Result<ExitCode, String> {
    nix::unistd::setsid().map_err(|e| format!("failed to leave the process group: {e}"))?;
    std::thread::sleep(LEAK_HOLD);
    Ok(ExitCode::SUCCESS)
}

/// Starts the daemonizer and returns the daemon's pid once the daemonizer
/// has exited (the daemon is then an orphan outside our group and session).
fn double_fork(exe: &std::path::Path, marker: &str) -> Result<u32, String> {
    let out = Command::new(exe)
        .args(["--daemonize", marker])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("failed to start the daemonizer: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .parse()
        .map_err(|_| format!("the daemonizer failed ({}): {text:?}", out.status))
}

/// The middle of the double fork: starts the daemon, waits until it left our
/// group, prints its pid and exits.
fn daemonize(marker: Option<&String>) -> Result<ExitCode, String> {
    let marker = marker.ok_or("--daemonize needs a marker")?;
    let exe = std::env::current_exe().map_err(|e| format!("failed to find myself: {e}"))?;
    let child = Command::new(&exe)
        .args(["--escapee", marker])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("failed to start the daemon: {e}"))?;
    wait_until_out_of_group(child.id())?;
    println!("{}", child.id());
    Ok(ExitCode::SUCCESS)
}

/// The daemon: its own session, deaf to SIGTERM and SIGINT, asleep.
fn escapee() -> Result<ExitCode, String> {
    // Deaf first: once out of the group, the daemonizer reports us ready.
    ignore(signal_hook::consts::SIGTERM)?;
    ignore(signal_hook::consts::SIGINT)?;
    nix::unistd::setsid().map_err(|e| format!("failed to start a session: {e}"))?;
    std::thread::sleep(FOREVER);
    Ok(ExitCode::SUCCESS)
}
