//! The client's side of the session host: connect, or start the host and
//! wait for it; then a line out, lines in.

use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

use super::{ClientLine, HostAddress, HostError, HostLine, SHELL_BOOKKEEPING, private_dir};

/// The hidden subcommand of the agentgate binary that runs a host.
pub const HOST_SUBCOMMAND: &str = "__session-host";

/// How often a client tries the socket of a host it started.
const CONNECT_EVERY: Duration = Duration::from_millis(20);

/// A connection to a session host.
#[derive(Debug)]
pub struct HostConnection {
    stream: UnixStream,
}

/// Where a host's lines are read.
#[derive(Debug)]
pub struct HostReader {
    lines: Lines<BufReader<OwnedReadHalf>>,
}

/// Where lines to a host are written.
#[derive(Debug)]
pub struct HostWriter {
    half: OwnedWriteHalf,
}

/// Connect to the host at `address`, starting it (`exe
/// __session-host`) if none listens; wait at most `wait` for a started
/// one to listen.
pub async fn connect_or_start(
    address: &HostAddress,
    exe: &Path,
    wait: Duration,
) -> Result<HostConnection, HostError> {
    let socket = address.checked_socket()?;
    if let Ok(stream) = UnixStream::connect(&socket).await {
        return Ok(HostConnection { stream });
    }
    start(address, exe)?;
    let deadline = Instant::now() + wait;
    loop {
        tokio::time::sleep(CONNECT_EVERY).await;
        match UnixStream::connect(&socket).await {
            Ok(stream) => return Ok(HostConnection { stream }),
            Err(_) if Instant::now() < deadline => {}
            Err(_) => {
                return Err(HostError::NotListening {
                    socket,
                    waited: wait,
                    log: address.log(),
                });
            }
        }
    }
}

/// Start a host for `address`, detached: its own process group (a
/// terminal's Ctrl-C is not for it), the data folder as its working
/// directory, its output appended to its log. Two clients may both start
/// one: the second steps aside (see the server's lock).
fn start(address: &HostAddress, exe: &Path) -> Result<(), HostError> {
    private_dir(&address.dir)?;
    let log_path = address.log();
    let io = |what, source| HostError::Io {
        what,
        path: log_path.clone(),
        source,
    };
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&log_path)
        .map_err(|e| io("log", e))?;
    let err = log.try_clone().map_err(|e| io("log", e))?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg(HOST_SUBCOMMAND)
        .arg("--dir")
        .arg(&address.dir)
        .arg("--key")
        .arg(&address.key)
        .current_dir(&address.dir)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err)
        .process_group(0);
    for name in SHELL_BOOKKEEPING {
        cmd.env_remove(name);
    }
    // Not waited for: the host outlives this client (it is reaped by
    // whoever adopts it).
    cmd.spawn().map(drop).map_err(|source| HostError::Io {
        what: "start",
        path: exe.to_path_buf(),
        source,
    })
}

impl HostConnection {
    /// The reading and the writing half, to use at once.
    pub fn split(self) -> (HostReader, HostWriter) {
        let (read, write) = self.stream.into_split();
        (
            HostReader {
                lines: BufReader::new(read).lines(),
            },
            HostWriter { half: write },
        )
    }
}

impl HostReader {
    /// The host's next line; `None` when it closed the connection. Safe to
    /// cancel (in a `select!`): no line is lost.
    pub async fn next(&mut self) -> Result<Option<HostLine>, HostError> {
        match self.lines.next_line().await {
            Ok(Some(text)) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| HostError::Wire(format!("an unreadable line from the host: {e}"))),
            Ok(None) => Ok(None),
            Err(e) => Err(HostError::Wire(e.to_string())),
        }
    }
}

impl HostWriter {
    /// Send one line.
    pub async fn send(&mut self, line: &ClientLine) -> Result<(), HostError> {
        let mut text = serde_json::to_string(line).map_err(|e| HostError::Wire(e.to_string()))?;
        text.push('\n');
        self.half
            .write_all(text.as_bytes())
            .await
            .map_err(|e| HostError::Wire(e.to_string()))
    }
}
