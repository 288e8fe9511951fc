//! What a warm session saves, measured on whole `agentgate run` processes
//! with the REAL agent CLIs against a scripted model server.
//!
//! `bench-warm [--cli NAME]... [--turns N] [--requests N] [--agentgate
//! PATH] [--clis DIR]` starts, per CLI (Claude Code, Codex, Gemini CLI,
//! Qwen Code, opencode), an in-process fake-llm (`agentgate_fakellm::FakeLlm`) that
//! answers every turn with the same scripted text, an isolated home for the
//! CLI pointed at it (`agentgate_fakellm::clients::prepare`) and a fresh
//! `AGENTGATE_HOME`. Every run is `agentgate run --session NAME --provider
//! CLI --binary PROGRAM --yolo ...` with a cleared environment plus the
//! CLI's, in its work folder, timed on the wall clock from spawn to reaped
//! exit with its output read. It measures:
//!
//! - **model server**: one scripted request, sent by this program over TCP
//!   to 127.0.0.1 in the CLI's own wire protocol (streamed, new connection,
//!   read to the end): the floor of any turn. Sampled before and between
//!   iterations, median of all.
//! - **cold**: turn 1 of a new session, then turn 2 of the same session: a
//!   new CLI process that resumes the native session.
//! - **warm**: the same two turns with `--warm`: turn 1 starts the CLI's
//!   long-lived process in the session host (already running: an untimed
//!   warm-up session keeps it up), turn 2 must be answered by that same
//!   process (`warm.process` = `reused`).
//! - **memory**: after warm turn 2, the RSS of the warm process group (every
//!   process whose pgid is the envelope's `warm.pgid`).
//!
//! For reading the figures it also times `agentgate --version` (the floor
//! of any agentgate process) and splits warm turn 2 at the arrival of its
//! model request (the server's log stamp): before it, agentgate, the host
//! and the CLI sending the turn; after it, the CLI finishing and the answer
//! coming back. Gemini CLI destroys a session that a long-lived process
//! loads in its creation minute; a cold turn 2 (a new `gemini --resume`)
//! is checked for that: the report counts the cold turns 2 that ran in
//! that minute, each having to continue the same native session.
//!
//! Every iteration uses fresh session names. Warm turn 2 runs with a short
//! `--warm-idle`, and the next iteration waits until that process has
//! ended, so no held process is evicted or ends during a timed run. Before
//! timing, one untimed cold turn (disk caches) and one warm turn (starts the
//! host) run. Turn 2 of either kind must send the model the earlier turn
//! (the resumed session carries its history).
//!
//! The goal checked: a warm turn 2 within 1.10 x the server's time + 50 ms.
//! Every envelope must parse, exit 0 and answer the scripted text, else the
//! benchmark ends with exit 1 and the run's stderr; timings never fail it.
//! At the end each session host gets SIGTERM (ending the CLIs it holds) and
//! the temporary folders are deleted.

mod probe;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use agentgate_fakellm::clients::{self, Cli, ClientOptions, ClientSetup};
use agentgate_fakellm::{FakeLlm, Script, ServerConfig};
use agentgate_fixtures::bench::{load_average, machine, now_ns};
use serde_json::Value;

use probe::{
    alive, group_rss_kib, minute, print_report, run_bounded, same_session, server_request,
    wait_until,
};

const USAGE: &str = "\
usage: bench-warm [--cli NAME]... [--turns N] [--requests N] [--agentgate PATH] [--clis DIR]

  --cli NAME        claude, codex, gemini, qwen or opencode; repeat or comma-separate
                    (default: all four)
  --turns N         timed iterations per CLI, each a cold and a warm session
                    of two turns (default 10)
  --requests N      server-only requests sampled per iteration (default 20)
  --agentgate PATH  the agentgate binary (default: next to bench-warm)
  --clis DIR        where the CLIs' executables are (default: the workspace's
                    clis/node_modules/.bin; $AGENTGATE_<CLI>_BIN and PATH
                    are looked at too)

Exits 1 on a functional failure (a run failed or answered wrongly), 2 on bad
usage, 0 otherwise whatever the timings.";

/// The text every scripted turn answers.
const ANSWER: &str = "warm-bench-answer";

/// The script: every model request gets [`ANSWER`].
const SCRIPT: &str = "turns:\n  - text: \"warm-bench-answer\"\n    repeat: true\n    usage: {input: 20, output: 5}\n";

/// The bound on one `agentgate run` (its own `--timeout` is 120 s).
const RUN_LIMIT: Duration = Duration::from_secs(180);

/// The idle time of warm turn 2's process: it ends soon after, untimed.
const SHORT_IDLE: &str = "2s";

fn main() -> ExitCode {
    let config = match Config::parse(std::env::args().skip(1).collect()) {
        Ok(Some(c)) => c,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("bench-warm: {msg}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match bench(&config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("bench-warm: FAILED: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// What to run and how often.
#[derive(Debug)]
struct Config {
    agentgate: PathBuf,
    clis_dir: PathBuf,
    clis: Vec<Cli>,
    turns: usize,
    requests: usize,
}

impl Config {
    /// `Ok(None)` for `--help`.
    fn parse(args: Vec<String>) -> Result<Option<Config>, String> {
        let exe = std::env::current_exe().map_err(|e| format!("failed to locate itself: {e}"))?;
        let mut agentgate = exe.with_file_name("agentgate");
        let mut clis_dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../clis/node_modules/.bin");
        let mut clis = Vec::new();
        let mut turns = 10;
        let mut requests = 20;
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
            match arg.as_str() {
                "-h" | "--help" => return Ok(None),
                "--turns" => turns = number(&value("--turns")?, "--turns")?,
                "--requests" => requests = number(&value("--requests")?, "--requests")?,
                "--agentgate" => agentgate = PathBuf::from(value("--agentgate")?),
                "--clis" => clis_dir = PathBuf::from(value("--clis")?),
                "--cli" => {
                    for name in value("--cli")?.split(',').filter(|n| !n.is_empty()) {
                        let cli = match name {
                            "claude" => Cli::Claude,
                            "codex" => Cli::Codex,
                            "gemini" => Cli::Gemini,
                            "qwen" => Cli::Qwen,
                            "opencode" => Cli::Opencode,
                            other => return Err(format!("no warm mode for CLI `{other}`")),
                        };
                        if !clis.contains(&cli) {
                            clis.push(cli);
                        }
                    }
                }
                other => return Err(format!("unexpected argument `{other}`")),
            }
        }
        if turns == 0 || requests == 0 {
            return Err("--turns and --requests must be at least 1".into());
        }
        if clis.is_empty() {
            clis = vec![
                Cli::Claude,
                Cli::Codex,
                Cli::Gemini,
                Cli::Qwen,
                Cli::Opencode,
            ];
        }
        if !agentgate.is_file() {
            return Err(format!(
                "agentgate not found at {}; build it or pass --agentgate",
                agentgate.display()
            ));
        }
        Ok(Some(Config {
            agentgate,
            clis_dir,
            clis,
            turns,
            requests,
        }))
    }
}

fn number(value: &str, name: &str) -> Result<usize, String> {
    value
        .parse()
        .map_err(|_| format!("{name} takes a number, not `{value}`"))
}

/// The wall times (ns) and memory of one CLI.
#[derive(Debug, Default)]
struct Figures {
    server: Vec<u128>,
    cold1: Vec<u128>,
    cold2: Vec<u128>,
    warm1: Vec<u128>,
    warm2: Vec<u128>,
    /// RSS of the warm process group after turn 2, KiB.
    rss: Vec<u64>,
    /// Processes in that group.
    procs: Vec<usize>,
    /// Model-server requests made by warm turn 2 (side requests included).
    warm2_requests: Vec<usize>,
    /// Warm turn 2: from the run's spawn to its model request's arrival.
    warm2_to_request: Vec<u128>,
    /// `agentgate --version`: the floor of any agentgate process.
    version: Vec<u128>,
    /// Cold turns 2 that ran in the wall-clock minute turn 1 created the
    /// session in (Gemini CLI's hazard, see `print_report`).
    same_minute: usize,
}

fn bench(config: &Config) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| format!("failed to start the async runtime: {e}"))?;
    eprintln!(
        "bench-warm: agentgate {}; {} timed iterations per CLI",
        config.agentgate.display(),
        config.turns
    );
    println!("warm sessions: `agentgate run --warm` against cold runs, real CLIs, fake-llm");
    println!("machine: {}", machine());
    println!("load average (1, 5, 15 min) before: {}", load_average());
    for &cli in &config.clis {
        let subject = Subject::new(config, cli, &runtime)?;
        let figures = subject.measure(config);
        let stopped = subject.stop(&runtime);
        let figures = figures?;
        stopped?;
        print_report(cli, config, &figures);
    }
    println!();
    println!("load average (1, 5, 15 min) after: {}", load_average());
    Ok(())
}

/// One CLI under test: its model server, home and `AGENTGATE_HOME`.
struct Subject<'a> {
    config: &'a Config,
    cli: Cli,
    program: PathBuf,
    setup: ClientSetup,
    server: Option<FakeLlm>,
    /// `AGENTGATE_HOME` (short: the host's socket lives in it).
    home: tempfile::TempDir,
    _client_dir: tempfile::TempDir,
}

impl<'a> Subject<'a> {
    fn new(
        config: &'a Config,
        cli: Cli,
        runtime: &tokio::runtime::Runtime,
    ) -> Result<Self, String> {
        let program =
            clients::locate(cli, std::slice::from_ref(&config.clis_dir)).ok_or_else(|| {
                format!(
                    "the `{cli}` CLI is not in {} (run scripts/install-clis.sh or set {})",
                    config.clis_dir.display(),
                    cli.bin_env()
                )
            })?;
        let script = Script::parse(SCRIPT).map_err(|e| format!("the script: {e}"))?;
        let addr = "127.0.0.1:0".parse().map_err(|e| format!("{e}"))?;
        let server = runtime
            .block_on(FakeLlm::start(
                addr,
                ServerConfig {
                    script,
                    log_path: None,
                },
            ))
            .map_err(|e| format!("fake-llm: {e}"))?;
        let temp = |prefix: &str| {
            tempfile::Builder::new()
                .prefix(prefix)
                .tempdir()
                .map_err(|e| format!("failed to create a temporary folder: {e}"))
        };
        let client_dir = temp("agentgate-bench-warm-")?;
        let home = temp("agw")?;
        let opts = ClientOptions {
            max_retries: 0,
            model: None,
            shared_cache: None,
            bin_dir: program.parent().map(Path::to_path_buf),
        };
        let setup = clients::prepare(cli, &server.url(), client_dir.path(), &opts)
            .map_err(|e| format!("{cli}: failed to prepare its home: {e}"))?;
        Ok(Subject {
            config,
            cli,
            program,
            setup,
            server: Some(server),
            home,
            _client_dir: client_dir,
        })
    }

    fn server(&self) -> Result<&FakeLlm, String> {
        self.server.as_ref().ok_or_else(|| "no server".to_owned())
    }

    /// The warm-up, then the timed iterations.
    fn measure(&self, config: &Config) -> Result<Figures, String> {
        let cli = self.cli;
        let mut f = Figures::default();
        self.sample_server(config.requests, &mut f.server)?;
        eprintln!("bench-warm: {cli}: warm-up (an untimed cold turn and warm turn)");
        self.turn(&Turn::cold("c0", "one"))?;
        self.turn(&Turn::warm("w0", "one", "10m", "started"))?;
        for i in 1..=config.turns {
            eprintln!("bench-warm: {cli}: iteration {i}/{}", config.turns);
            let (w, c) = (format!("w{i}"), format!("c{i}"));
            let (ns, first) = self.turn(&Turn::warm(&w, "one", "10m", "started"))?;
            f.warm1.push(ns);
            let before = self.server()?.requests().len();
            let spawned = now_ns();
            let (ns, second) = self.turn(&Turn::warm(&w, "two", SHORT_IDLE, "reused"))?;
            f.warm2.push(ns);
            let requests = self.server()?.requests();
            let new = requests.get(before..).unwrap_or_default();
            f.warm2_requests.push(new.len());
            // When the model request arrived, from the run's spawn.
            let arrived = new
                .iter()
                .find(|r| r.api.is_some() && r.side.is_none())
                .and_then(|r| r.ts.parse::<jiff::Timestamp>().ok())
                .and_then(|t| u128::try_from(t.as_nanosecond()).ok());
            if let Some(at) = arrived {
                f.warm2_to_request.push(at.saturating_sub(spawned));
            }
            let pgid = first["warm"]["pgid"].as_u64().unwrap_or(0);
            if second["warm"]["pgid"].as_u64() != Some(pgid) || pgid == 0 {
                return Err(format!(
                    "{cli}: warm turn 2 ran in group {}, turn 1 in {pgid}",
                    second["warm"]["pgid"]
                ));
            }
            let (kib, procs) = group_rss_kib(pgid);
            f.rss.push(kib);
            f.procs.push(procs);
            self.sample_server(config.requests, &mut f.server)?;
            let created = minute(now_ns());
            let (ns, one) = self.turn(&Turn::cold(&c, "one"))?;
            f.cold1.push(ns);
            let (ns, two) = self.turn(&Turn::cold(&c, "two"))?;
            f.cold2.push(ns);
            if minute(now_ns()) == created {
                f.same_minute += 1;
            }
            same_session(cli, &c, &one, &two)?;
            same_session(cli, &w, &first, &second)?;
            f.version.push(self.version()?);
            // Warm turn 2's process ends after its short idle time: wait
            // for that, so that nothing ends during the next timed run.
            if !wait_until(Duration::from_secs(30), || group_rss_kib(pgid).1 == 0) {
                return Err(format!(
                    "{cli}: warm process group {pgid} outlived --warm-idle {SHORT_IDLE} by 30 s"
                ));
            }
        }
        Ok(f)
    }

    /// `agentgate --version`, timed like a turn.
    fn version(&self) -> Result<u128, String> {
        let mut cmd = Command::new(&self.config.agentgate);
        cmd.arg("--version").env_clear();
        let (ns, code, stdout, stderr) = run_bounded(cmd)?;
        if code != Some(0) || !stdout.starts_with("agentgate ") {
            return Err(format!(
                "agentgate --version: exit {code:?}: {stdout} {stderr}"
            ));
        }
        Ok(ns)
    }

    /// `n` scripted requests straight to the server, their wall times.
    fn sample_server(&self, n: usize, into: &mut Vec<u128>) -> Result<(), String> {
        let addr = self.server()?.addr();
        let model = self.wire_model();
        for _ in 0..n {
            into.push(server_request(&addr.to_string(), self.cli.api(), &model)?);
        }
        Ok(())
    }

    /// The model a run names (opencode's is `provider/model`).
    fn model(&self) -> String {
        match self.cli {
            Cli::Opencode => format!("fake/{}", self.setup.model),
            _ => self.wire_model(),
        }
    }

    /// The model a request to the server names.
    fn wire_model(&self) -> String {
        match self.cli {
            Cli::Codex => "agentgate-fake-model".to_owned(),
            _ => self.setup.model.clone(),
        }
    }

    /// One `agentgate run`: its wall time (ns) and its checked envelope.
    fn turn(&self, t: &Turn) -> Result<(u128, Value), String> {
        let cli = self.cli;
        let prompt = format!("bench turn {} of session {}", t.which, t.session);
        let mut cmd = Command::new(&self.config.agentgate);
        cmd.arg("run");
        if let Some(idle) = &t.idle {
            cmd.args(["--warm", "--warm-idle", idle]);
        }
        cmd.args(["--session", &t.session])
            .args(["--provider", cli.binary(), "--model", &self.model()])
            .args(["--timeout", "120s", "--yolo", "--binary"])
            .arg(&self.program)
            .arg(&prompt)
            .env_clear()
            .envs(self.setup.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("AGENTGATE_HOME", self.home.path())
            .current_dir(&self.setup.workdir);
        let what = format!(
            "{cli} {} turn {} of session {}",
            if t.idle.is_some() { "warm" } else { "cold" },
            t.which,
            t.session
        );
        let (ns, code, stdout, stderr) = run_bounded(cmd)?;
        let failed = |why: String| format!("{what}: {why}\nstdout: {stdout}\nstderr: {stderr}");
        if code != Some(0) {
            return Err(failed(format!("exit {code:?}")));
        }
        let env: Value = serde_json::from_str(stdout.trim())
            .map_err(|e| failed(format!("the envelope does not parse: {e}")))?;
        if env["response"] != ANSWER {
            return Err(failed(format!(
                "response {}, not {ANSWER:?}",
                env["response"]
            )));
        }
        if !env["error"].is_null() {
            return Err(failed(format!("error {}", env["error"])));
        }
        if let Some(expected) = t.process
            && env["warm"]["process"] != expected
        {
            return Err(failed(format!(
                "warm.process is {}, not {expected:?}",
                env["warm"]["process"]
            )));
        }
        if t.which == "two" {
            // The resumed session must carry turn 1 to the model.
            let earlier = format!("bench turn one of session {}", t.session);
            let carried = self
                .server()?
                .requests()
                .iter()
                .rev()
                .find(|r| r.api.is_some() && r.side.is_none())
                .and_then(|r| serde_json::to_string(&r.messages).ok())
                .is_some_and(|m| m.contains(&earlier) && m.contains(&prompt));
            if !carried {
                return Err(failed("the model's last request lacks turn 1".into()));
            }
        }
        Ok((ns, env))
    }

    /// SIGTERM the session host (it ends the CLIs it holds), wait for it,
    /// stop the server; the temporary folders go when `self` drops.
    fn stop(mut self, runtime: &tokio::runtime::Runtime) -> Result<(), String> {
        let warm = self.home.path().join("warm");
        let pids: Vec<u32> = std::fs::read_dir(&warm)
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        name.starts_with("host-") && name.ends_with(".pid")
                    })
                    .filter_map(|e| std::fs::read_to_string(e.path()).ok()?.trim().parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        let mut result = Ok(());
        for pid in pids {
            let _ = Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
            let ended = wait_until(Duration::from_secs(15), || !alive(pid));
            if !ended && result.is_ok() {
                result = Err(format!("the session host {pid} outlived SIGTERM by 15 s"));
            }
        }
        if let Some(server) = self.server.take() {
            let _ = runtime.block_on(async {
                tokio::time::timeout(Duration::from_secs(5), server.shutdown()).await
            });
        }
        result
    }
}

/// One `agentgate run` to make.
#[derive(Debug)]
struct Turn {
    session: String,
    /// `one` or `two`.
    which: &'static str,
    /// `--warm-idle` (and `--warm`) for a warm turn.
    idle: Option<String>,
    /// The `warm.process` it must report.
    process: Option<&'static str>,
}

impl Turn {
    fn cold(session: &str, which: &'static str) -> Turn {
        Turn {
            session: session.to_owned(),
            which,
            idle: None,
            process: None,
        }
    }

    fn warm(session: &str, which: &'static str, idle: &str, process: &'static str) -> Turn {
        Turn {
            session: session.to_owned(),
            which,
            idle: Some(idle.to_owned()),
            process: Some(process),
        }
    }
}
