//! The session host: the per-user process that holds warm sessions across
//! separate `agentgate run --warm` invocations.
//!
//! How it fits together:
//! - **One host per data folder and environment.** Its files are in
//!   `<data folder>/warm/` (the default store's folder, mode 0700):
//!   `host-<key>.sock` (0600), `.lock`, `.pid` and `.log`. The key is a
//!   hash of the client's environment (the shell's own bookkeeping
//!   variables left out) and of the agentgate binary, so the host plans
//!   and starts CLIs in exactly the environment the client has: another
//!   environment (another `PATH`, API key or `AGENTGATE_*`) is another
//!   host with its own processes. [`HostAddress`] names the files.
//! - **The client** ([`client`]): connects, or starts the host detached
//!   (`agentgate __session-host`, its own process group, the log as its
//!   output) and waits for its socket; sends one [`ClientLine::Run`] line
//!   (the run's request with absolute paths, the config file the client
//!   found, the store it chose) and reads [`HostLine`]s to the end.
//!   Signals become [`ClientLine::Cancel`] lines; a client that goes away
//!   cancels its turn.
//! - **The server** ([`server`]): one flock makes a second host for the
//!   same address step aside; a current-thread runtime holds the warm
//!   processes' tasks for the host's whole life; each connection is a
//!   local task running [`turn`]. The host exits when it has held no warm
//!   process and served no client for [`HOST_LINGER`], or on SIGTERM
//!   (closing every process first).
//! - **A turn** ([`turn`]): the client's config, read again here, its
//!   account variables from the (same) environment, the plan, then the
//!   run engine with the host's holder and keeper; events go back as they
//!   come, then the envelope, the exit code and the audit line (appended
//!   to the store's `audit.log` here).
//! - Every warm process runs under a keeper that watches the host:
//!   `kill -9` of the host ends every CLI it held.

pub mod client;
pub mod server;
pub mod turn;

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentgate_protocol::{Envelope, Event};
use serde::{Deserialize, Serialize};

use crate::config::ConfigSource;
use crate::request::RunRequest;

/// How long a host that holds no warm process and serves no client
/// stays, before it exits.
pub const HOST_LINGER: Duration = Duration::from_secs(10);

/// The longest path a Unix socket address takes (`sun_path` less its NUL).
const SOCKET_PATH_MAX: usize = 107;

/// Variables a shell changes between two commands of one session; they
/// are not part of the host's key (and not passed to the CLIs of a host
/// started by a client that had them).
pub const SHELL_BOOKKEEPING: [&str; 4] = ["_", "OLDPWD", "PWD", "SHLVL"];

/// The files of one session host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostAddress {
    /// `<data folder>/warm`.
    pub dir: PathBuf,
    /// The key: a hash of the environment and the binary.
    pub key: String,
}

impl HostAddress {
    /// The host for this process's environment, in the data folder of the
    /// default store (`AGENTGATE_HOME`, else `$XDG_DATA_HOME/agentgate`,
    /// else `~/.local/share/agentgate`).
    pub fn for_this_process() -> Result<HostAddress, HostError> {
        let db =
            agentgate_store::default_db_path().map_err(|e| HostError::Address(e.to_string()))?;
        let data = db
            .parent()
            .ok_or_else(|| HostError::Address("the data folder has no parent".to_owned()))?;
        let exe = std::env::current_exe()
            .map_err(|e| HostError::Address(format!("cannot find the agentgate binary: {e}")))?;
        Ok(HostAddress::new(data, &exe, std::env::vars_os()))
    }

    /// The host in `data` for a client with `env`, started from `exe`.
    pub fn new(
        data: &Path,
        exe: &Path,
        env: impl IntoIterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
    ) -> HostAddress {
        let mut vars: Vec<_> = env
            .into_iter()
            .filter(|(k, _)| !SHELL_BOOKKEEPING.iter().any(|s| k == s))
            .collect();
        vars.sort();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        vars.hash(&mut h);
        exe.hash(&mut h);
        env!("CARGO_PKG_VERSION").hash(&mut h);
        HostAddress {
            dir: data.join("warm"),
            key: format!("{:016x}", h.finish()),
        }
    }

    fn file(&self, ext: &str) -> PathBuf {
        self.dir.join(format!("host-{}.{ext}", self.key))
    }

    /// The socket clients connect to.
    pub fn socket(&self) -> PathBuf {
        self.file("sock")
    }

    /// The lock the running host holds.
    pub fn lock(&self) -> PathBuf {
        self.file("lock")
    }

    /// The host's process id, written when it listens.
    pub fn pid(&self) -> PathBuf {
        self.file("pid")
    }

    /// The host's own output (its log).
    pub fn log(&self) -> PathBuf {
        self.file("log")
    }

    /// The socket's path, if a Unix socket can take it.
    fn checked_socket(&self) -> Result<PathBuf, HostError> {
        let socket = self.socket();
        let len = socket.as_os_str().len();
        if len > SOCKET_PATH_MAX {
            return Err(HostError::Address(format!(
                "the session host's socket {} is {len} bytes long, more than a Unix socket takes \
                 ({SOCKET_PATH_MAX}): set AGENTGATE_HOME to a shorter folder",
                socket.display()
            )));
        }
        Ok(socket)
    }
}

/// What a client sends: one `run` line, then `cancel` lines.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientLine {
    /// The run: a turn of a warm session.
    Run(Box<HostRequest>),
    /// Cancel the run (`immediate`: kill rather than interrupt first).
    Cancel {
        /// Kill at once.
        immediate: bool,
    },
}

/// A run sent to the host: what `agentgate run` would plan, with every
/// choice the client made from its own folder already made.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HostRequest {
    /// The run (paths absolute, the working directory the client's unless
    /// `--cwd` says).
    pub request: RunRequest,
    /// The config file the client found (read again by the host).
    pub config: ConfigSource,
    /// The store the client chose, as `--store` takes it.
    pub store: String,
    /// When a step asks for registry tools, the folder the client looks
    /// for the registry from (its working directory): the host then
    /// offers the tools of `config`'s registry found from there, and runs
    /// them itself (see [`server::HostSetup::tools`]), since a warm CLI's
    /// MCP server outlives the client.
    #[serde(default)]
    pub tools_from: Option<PathBuf>,
    /// `--sandbox`: the level the host's warm process runs under (over
    /// what the request and the config say).
    #[serde(default)]
    pub sandbox: Option<agentgate_protocol::SandboxLevel>,
}

/// What the host sends back: events, then one `end` or `refused`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostLine {
    /// One event of the run.
    Event {
        /// The event.
        event: Box<Event>,
    },
    /// A warning of the plan, for the client to print.
    Warning {
        /// The warning.
        message: String,
    },
    /// The run ended (it is recorded).
    End {
        /// Its envelope.
        envelope: Box<Envelope>,
        /// The exit code for `agentgate run`.
        exit_code: i32,
        /// The audit line (already appended to the store's `audit.log`).
        audit: String,
    },
    /// The run was refused before it started (a bad config or request).
    Refused {
        /// Why.
        message: String,
        /// The exit code (2: invalid input).
        exit_code: i32,
    },
}

/// A session host that cannot be reached or started.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// Its files cannot be named.
    #[error("{0}")]
    Address(String),
    /// Its folder, lock or socket cannot be made.
    #[error("the session host's {what} {}: {source}", path.display())]
    Io {
        /// What failed.
        what: &'static str,
        /// Where.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It was started but did not listen in time.
    #[error(
        "the session host did not listen on {} within {}s (its log: {})",
        socket.display(),
        waited.as_secs(),
        log.display()
    )]
    NotListening {
        /// The socket.
        socket: PathBuf,
        /// How long the client waited.
        waited: Duration,
        /// The host's log.
        log: PathBuf,
    },
    /// The connection failed or the host sent something unreadable.
    #[error("the session host's connection: {0}")]
    Wire(String),
}

/// The data folder `dir` with mode 0700 (created if missing).
fn private_dir(dir: &Path) -> Result<(), HostError> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let io = |source| HostError::Io {
        what: "folder",
        path: dir.to_path_buf(),
        source,
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn env(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    }

    #[test]
    fn the_host_key_follows_the_environment_but_not_the_shells_bookkeeping() {
        let data = Path::new("/d");
        let exe = Path::new("/bin/agentgate");
        let a = HostAddress::new(data, exe, env(&[("PATH", "/a"), ("KEY", "1"), ("_", "x")]));
        let same = HostAddress::new(
            data,
            exe,
            env(&[("KEY", "1"), ("PATH", "/a"), ("_", "y"), ("SHLVL", "3")]),
        );
        let other_key = HostAddress::new(data, exe, env(&[("PATH", "/a"), ("KEY", "2")]));
        let other_exe =
            HostAddress::new(data, Path::new("/x"), env(&[("PATH", "/a"), ("KEY", "1")]));
        assert_eq!(a, same, "order and the shell's variables do not count");
        assert_ne!(a.key, other_key.key, "a value counts");
        assert_ne!(a.key, other_exe.key, "the binary counts");
        assert_eq!(
            a.socket(),
            PathBuf::from(format!("/d/warm/host-{}.sock", a.key))
        );
        assert_eq!(a.key.len(), 16);
    }

    #[test]
    fn a_socket_path_too_long_for_a_unix_socket_is_refused_with_the_fix() {
        let long = PathBuf::from(format!("/{}", "d".repeat(120)));
        let a = HostAddress::new(&long, Path::new("/x"), env(&[]));
        let e = a.checked_socket().unwrap_err().to_string();
        assert!(e.contains("AGENTGATE_HOME"), "{e}");
        let short = HostAddress::new(Path::new("/d"), Path::new("/x"), env(&[]));
        assert!(short.checked_socket().is_ok());
    }

    #[test]
    fn the_wire_lines_round_trip_with_their_type_tags() {
        let cancel = serde_json::to_string(&ClientLine::Cancel { immediate: true }).unwrap();
        assert_eq!(cancel, r#"{"type":"cancel","immediate":true}"#);
        let run = ClientLine::Run(Box::new(HostRequest {
            request: RunRequest {
                prompt: Some("p".into()),
                session: Some("s".into()),
                warm: true,
                warm_idle: Some("1500ms".into()),
                ..RunRequest::default()
            },
            config: ConfigSource::Flag("/c.yaml".into()),
            store: "/s.db".into(),
            tools_from: None,
            sandbox: Some(agentgate_protocol::SandboxLevel::Workspace),
        }));
        let text = serde_json::to_string(&run).unwrap();
        assert!(text.starts_with(r#"{"type":"run","#), "{text}");
        let ClientLine::Run(back) = serde_json::from_str(&text).unwrap() else {
            panic!("not a run: {text}")
        };
        assert_eq!(back.request.session.as_deref(), Some("s"));
        assert_eq!(
            back.request.warm_idle().unwrap(),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(back.config, ConfigSource::Flag("/c.yaml".into()));
        let refused = HostLine::Refused {
            message: "m".into(),
            exit_code: 2,
        };
        let text = serde_json::to_string(&refused).unwrap();
        assert!(matches!(
            serde_json::from_str::<HostLine>(&text).unwrap(),
            HostLine::Refused { exit_code: 2, .. }
        ));
    }
}
