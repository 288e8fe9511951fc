//! A project with a tool registry in a temporary folder, and `agentgate
//! tool` run in it against a store of its own.

use std::io::{BufRead as _, BufReader};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agentgate_protocol::{Event, EventBody, ToolEnvelope, ToolMessageBody};
use serde_json::Value;

use crate::suite::support::{Run, run_bounded};

pub const LIMIT: Duration = Duration::from_secs(90);

/// A folder with `tools/registry/` and a store (`home/`).
pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("tools/registry")).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        Project { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// A tool: `tools/registry/<name>/tool.yaml` (the manifest's other lines
    /// after `name`, `version`, `entry`), and `tools/<name>/cli` (the script).
    pub fn tool(&self, name: &str, manifest_rest: &str, script: &str) {
        let registry = self.root().join("tools/registry").join(name);
        std::fs::create_dir_all(&registry).unwrap();
        std::fs::write(
            registry.join("tool.yaml"),
            format!(
                "name: {name}\nversion: 0.1.0\nentry: cli\nprotocol_version: 1\n{manifest_rest}"
            ),
        )
        .unwrap();
        let dir = self.root().join("tools").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let entry = dir.join("cli");
        std::fs::write(&entry, script).unwrap();
        std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    pub fn error_codes(&self, yaml: &str) {
        std::fs::write(self.root().join("tools/registry/error_codes.yaml"), yaml).unwrap();
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
        cmd.args(args)
            .current_dir(self.root())
            .env("AGENTGATE_HOME", self.home())
            .env_remove("AGENTGATE_CONFIG")
            .env_remove("AGENTGATE_STORE");
        cmd
    }

    /// `agentgate tool ARGS...`: the run and the envelope it printed.
    pub fn run_tool(&self, args: &[&str]) -> (Run, ToolEnvelope) {
        let mut full = vec!["tool"];
        full.extend_from_slice(args);
        let run = run_bounded(self.command(&full), LIMIT);
        assert!(
            !run.timed_out,
            "agentgate tool did not end: {}",
            run.all_output()
        );
        let envelope: ToolEnvelope = serde_json::from_str(run.stdout.trim())
            .unwrap_or_else(|e| panic!("no envelope ({e}): {}", run.all_output()));
        (run, envelope)
    }

    /// The stored events of a run.
    pub fn events(&self, run_id: &str) -> Vec<Event> {
        let path = self.home().join("runs").join(run_id).join("events.jsonl");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        text.lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    /// The run's folder in the store.
    pub fn run_dir(&self, run_id: &str) -> PathBuf {
        self.home().join("runs").join(run_id)
    }
}

/// The tool's messages among a run's events, in order.
pub fn tool_messages(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolMessage(m) => Some(serde_json::to_value(&m.message).unwrap()),
            _ => None,
        })
        .collect()
}

/// The `type` of each of the tool's messages.
pub fn message_types(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolMessage(m) => Some(m.message.body.type_name().to_owned()),
            _ => None,
        })
        .collect()
}

/// Whether any of the tool's messages is a `log` kept from a non-JSON line.
pub fn non_json_logs(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolMessage(m) => match &m.message.body {
                ToolMessageBody::Log(log) if log.extra.contains_key("non_json") => {
                    Some(log.msg.clone())
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Whether a process is alive (a zombie counts as gone).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z')
        }
    }
}

/// The live processes of a tool run, found from outside by the `RUN_ID`
/// in their environment (every process of the run has it: the sandbox,
/// pid 1 of the run's PID namespace, the tool and what it started). A tool
/// runs in a PID namespace of its own, so the pids it sees are not the
/// host's: tests look its processes up this way instead.
pub fn run_processes(run_id: &str) -> Vec<u32> {
    let needle = format!("RUN_ID={run_id}\0");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let has = environ
            .split_inclusive(|b| *b == 0)
            .any(|var| var == needle.as_bytes());
        if has && alive(pid) {
            found.push(pid);
        }
    }
    found
}

/// The host's pid of the process of run `run_id` that is `inner` in the
/// run's PID namespace (as the tool printed `$$`), while it lives.
pub fn host_pid(run_id: &str, inner: u32) -> Option<u32> {
    run_processes(run_id).into_iter().find(|pid| {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("NSpid:"))
            .and_then(|ids| ids.split_whitespace().last())
            .and_then(|id| id.parse::<u32>().ok())
            == Some(inner)
    })
}

/// The pids a tool wrote, one per line, into `file`.
pub fn pids_in(file: &Path) -> Vec<u32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// `agentgate tool --stream ARGS...` started, its stdout read line by line.
pub struct Streaming {
    pub child: Child,
    pub lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Project {
    pub fn stream_tool(&self, args: &[&str]) -> Streaming {
        let mut full = vec!["tool", "--stream"];
        full.extend_from_slice(args);
        let mut child = self
            .command(&full)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        Streaming {
            child,
            lines: BufReader::new(stdout).lines(),
        }
    }
}

impl Streaming {
    /// Reads events until one satisfies `until`; all read so far.
    pub fn read_until(&mut self, until: impl Fn(&Event) -> bool) -> Vec<Event> {
        let start = Instant::now();
        let mut seen = Vec::new();
        while start.elapsed() < LIMIT {
            let Some(Ok(line)) = self.lines.next() else {
                break;
            };
            let event: Event = serde_json::from_str(&line).unwrap();
            let done = until(&event);
            seen.push(event);
            if done {
                return seen;
            }
        }
        panic!("the awaited event never came: {seen:?}");
    }

    /// Signals agentgate with `signal` (`-INT`).
    pub fn signal(&self, signal: &str) {
        Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .unwrap();
    }

    /// The remaining events and the exit code, bounded in time.
    pub fn finish(mut self) -> (Vec<Event>, Option<i32>) {
        let mut rest = Vec::new();
        for line in self.lines.by_ref() {
            rest.push(serde_json::from_str(&line.unwrap()).unwrap());
        }
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (rest, status.code());
            }
            assert!(start.elapsed() < LIMIT, "agentgate tool did not exit");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Project {
    /// `agentgate tool --stream ARGS...`, interrupted (SIGINT) `interrupts`
    /// times once an event satisfies `when`: every event it printed, the
    /// tool envelope of the last, and the exit code.
    pub fn interrupt_tool(
        &self,
        args: &[&str],
        when: impl Fn(&Event) -> bool,
        interrupts: usize,
    ) -> (Vec<Event>, ToolEnvelope, Option<i32>) {
        let mut streaming = self.stream_tool(args);
        let seen = streaming.read_until(when);
        for _ in 0..interrupts {
            streaming.signal("-INT");
            std::thread::sleep(Duration::from_millis(100));
        }
        let (rest, code) = streaming.finish();
        let events: Vec<Event> = seen.into_iter().chain(rest).collect();
        let envelope = envelope_of(&events);
        (events, envelope, code)
    }
}

/// Whether an event is one of the tool's messages.
pub fn is_tool_message(event: &Event) -> bool {
    event.body.type_name() == "tool_message"
}

/// The envelope carried by the last (`result`) event.
pub fn envelope_of(events: &[Event]) -> ToolEnvelope {
    match &events.last().unwrap().body {
        EventBody::Result(r) => *r.envelope.tool.clone().expect("a tool envelope"),
        other => panic!("the last event is not the result: {other:?}"),
    }
}
