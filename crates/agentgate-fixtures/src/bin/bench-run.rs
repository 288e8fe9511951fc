//! What `agentgate run` adds over calling an agent CLI directly, measured on
//! whole processes.
//!
//! `bench-run [--iterations N] [--warmup N] [--agentgate PATH]
//! [--instant-cli PATH]` runs, alternately and in the same process (so that
//! machine noise hits every arm alike), four arms:
//!
//! - `direct`: `instant-cli` with the prompt on stdin, as a caller without
//!   agentgate would run `claude -p --output-format stream-json --verbose`;
//! - `version`: `agentgate --version`, the agentgate binary starting and
//!   exiting with no work: the floor under any run's added time;
//! - `no-store`: `agentgate run --provider claude --binary <instant-cli>
//!   --no-store --compact hello`;
//! - `store`: the same without `--no-store`, recording into a fresh
//!   temporary `AGENTGATE_HOME`.
//!
//! Each run is timed on the wall clock from spawn to reaped exit with its
//! output read. Peak memory is measured on separate, untimed runs of each
//! arm through `bench-run __rss`, a shim whose only child is the measured
//! process: its `getrusage(RUSAGE_CHILDREN)` peak is that process's tree
//! (agentgate, its keeper and the CLI), i.e. the largest of them.
//!
//! Every agentgate run's envelope must parse and answer what `instant-cli`
//! answered directly; anything else ends the benchmark with exit 1. Timings
//! never fail it.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use agentgate_fixtures::bench::{load_average, machine};
use agentgate_protocol::Envelope;
use nix::sys::resource::{UsageWho, getrusage};

const USAGE: &str = "\
usage: bench-run [--iterations N] [--warmup N] [--agentgate PATH] [--instant-cli PATH] [AGENTGATE]

  --iterations N      timed runs of each arm (default 50)
  --warmup N          untimed runs of each arm first (default 3)
  --agentgate PATH    the agentgate binary (also: first positional argument,
                      $AGENTGATE_BIN; default: `agentgate` next to bench-run)
  --instant-cli PATH  the fake CLI (default: `instant-cli` next to bench-run)

Exits 1 on a functional failure (a run failed or answered wrongly), 2 on bad
usage, 0 otherwise whatever the timings.";

/// The subcommand that runs the memory shim: `bench-run __rss <out-file> --
/// <program> [args...]`.
const RSS_SHIM: &str = "__rss";

/// The prompt every arm sends.
const PROMPT: &str = "hello";

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|a| a == RSS_SHIM) {
        return rss_shim(&args[1..]);
    }
    let config = match Config::parse(args) {
        Ok(Some(c)) => c,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("bench-run: {msg}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match bench(&config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("bench-run: FAILED: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// What to run and how often.
#[derive(Debug)]
struct Config {
    agentgate: PathBuf,
    instant_cli: PathBuf,
    iterations: usize,
    warmup: usize,
}

impl Config {
    /// `Ok(None)` for `--help`.
    fn parse(args: Vec<OsString>) -> Result<Option<Config>, String> {
        let mut agentgate = std::env::var_os("AGENTGATE_BIN").map(PathBuf::from);
        let mut instant_cli = None;
        let mut iterations = 50;
        let mut warmup = 3;
        let mut positional_seen = false;
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let text = arg.to_string_lossy().into_owned();
            let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
            match text.as_str() {
                "-h" | "--help" => return Ok(None),
                "--iterations" => iterations = count(&value("--iterations")?, "--iterations")?,
                "--warmup" => warmup = count(&value("--warmup")?, "--warmup")?,
                "--agentgate" => agentgate = Some(PathBuf::from(value("--agentgate")?)),
                "--instant-cli" => instant_cli = Some(PathBuf::from(value("--instant-cli")?)),
                flag if flag.starts_with('-') => return Err(format!("unknown option `{flag}`")),
                _ if !positional_seen => {
                    positional_seen = true;
                    agentgate = Some(PathBuf::from(arg));
                }
                _ => return Err(format!("unexpected argument `{text}`")),
            }
        }
        if iterations == 0 {
            return Err("--iterations must be at least 1".into());
        }
        let here = std::env::current_exe()
            .map_err(|e| format!("failed to locate bench-run itself: {e}"))?;
        let dir = here.parent().unwrap_or(Path::new("."));
        let agentgate = agentgate.unwrap_or_else(|| dir.join("agentgate"));
        let instant_cli = instant_cli.unwrap_or_else(|| dir.join("instant-cli"));
        for (what, path) in [("agentgate", &agentgate), ("instant-cli", &instant_cli)] {
            if !path.is_file() {
                return Err(format!(
                    "{what} not found at {}; build it (`cargo build --release -p agentgate -p agentgate-fixtures --bins`) or pass its path",
                    path.display()
                ));
            }
        }
        Ok(Some(Config {
            agentgate,
            instant_cli,
            iterations,
            warmup,
        }))
    }
}

fn count(value: &OsString, name: &str) -> Result<usize, String> {
    value
        .to_str()
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("{name} takes a number, not `{}`", value.to_string_lossy()))
}

/// One way of getting the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arm {
    Direct,
    NoStore,
    Store,
    Version,
}

/// How many arms there are.
const ARMS: usize = 4;

impl Arm {
    const ALL: [Arm; ARMS] = [Arm::Direct, Arm::Version, Arm::NoStore, Arm::Store];

    fn label(self) -> &'static str {
        match self {
            Arm::Direct => "direct instant-cli",
            Arm::Version => "agentgate --version",
            Arm::NoStore => "agentgate --no-store",
            Arm::Store => "agentgate (store)",
        }
    }

    fn index(self) -> usize {
        match self {
            Arm::Direct => 0,
            Arm::NoStore => 1,
            Arm::Store => 2,
            Arm::Version => 3,
        }
    }
}

/// A process to run: program, arguments, extra environment, stdin bytes.
#[derive(Debug)]
struct Job {
    program: PathBuf,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    stdin: Option<Vec<u8>>,
}

/// What one run left: its wall time and its stdout.
#[derive(Debug)]
struct Finished {
    wall: Duration,
    stdout: Vec<u8>,
}

/// The answer `instant-cli` gives, as the direct arm saw it.
#[derive(Debug, Clone, PartialEq)]
struct Answer {
    text: String,
    session_id: String,
    cost_usd: f64,
}

/// The runs of every arm and the temporary `AGENTGATE_HOME` they record in.
#[derive(Debug)]
struct Bench<'a> {
    config: &'a Config,
    home: tempfile::TempDir,
    expected: Option<Answer>,
}

impl Bench<'_> {
    fn job(&self, arm: Arm) -> Job {
        match arm {
            Arm::Direct => Job {
                program: self.config.instant_cli.clone(),
                args: ["-p", "--output-format", "stream-json", "--verbose"]
                    .map(OsString::from)
                    .to_vec(),
                env: Vec::new(),
                stdin: Some(PROMPT.as_bytes().to_vec()),
            },
            Arm::Version => Job {
                program: self.config.agentgate.clone(),
                args: vec!["--version".into()],
                env: Vec::new(),
                stdin: None,
            },
            Arm::NoStore | Arm::Store => {
                let mut args: Vec<OsString> = ["run", "--provider", "claude", "--binary"]
                    .map(OsString::from)
                    .to_vec();
                args.push(self.config.instant_cli.clone().into_os_string());
                if arm == Arm::NoStore {
                    args.push("--no-store".into());
                }
                args.push("--compact".into());
                args.push(PROMPT.into());
                Job {
                    program: self.config.agentgate.clone(),
                    args,
                    env: vec![("AGENTGATE_HOME".into(), self.home.path().into())],
                    stdin: None,
                }
            }
        }
    }

    /// Runs `arm` once, timed, and checks its output.
    fn timed(&mut self, arm: Arm) -> Result<Duration, String> {
        let done = run(&self.job(arm))?;
        self.check(arm, &done.stdout)?;
        Ok(done.wall)
    }

    /// Runs `arm` once through the memory shim; returns its peak RSS in KiB.
    fn peak_rss(&mut self, arm: Arm) -> Result<u64, String> {
        let out = self.home.path().join("rss.txt");
        let target = self.job(arm);
        let shim = std::env::current_exe()
            .map_err(|e| format!("failed to locate bench-run itself: {e}"))?;
        let mut args: Vec<OsString> = vec![RSS_SHIM.into(), out.clone().into(), "--".into()];
        args.push(target.program.into_os_string());
        args.extend(target.args);
        let done = run(&Job {
            program: shim,
            args,
            env: target.env,
            stdin: target.stdin,
        })?;
        self.check(arm, &done.stdout)?;
        let text = std::fs::read_to_string(&out)
            .map_err(|e| format!("failed to read the memory shim's {}: {e}", out.display()))?;
        text.trim()
            .parse()
            .map_err(|_| format!("the memory shim wrote `{}`, not a number", text.trim()))
    }

    fn check(&mut self, arm: Arm, stdout: &[u8]) -> Result<(), String> {
        match arm {
            Arm::Direct => {
                let answer = direct_answer(stdout)?;
                match &self.expected {
                    Some(e) if *e != answer => Err(format!(
                        "instant-cli changed its answer between runs: {e:?}, then {answer:?}"
                    )),
                    _ => {
                        self.expected = Some(answer);
                        Ok(())
                    }
                }
            }
            Arm::Version if stdout.starts_with(b"agentgate ") => Ok(()),
            Arm::Version => Err(format!(
                "agentgate --version printed {:?}",
                String::from_utf8_lossy(stdout)
            )),
            Arm::NoStore | Arm::Store => {
                let Some(expected) = &self.expected else {
                    return Err("no direct run before an agentgate run".into());
                };
                check_envelope(arm, stdout, expected)
            }
        }
    }
}

fn bench(config: &Config) -> Result<(), String> {
    let home = tempfile::Builder::new()
        .prefix("agentgate-bench-")
        .tempdir()
        .map_err(|e| format!("failed to create a temporary AGENTGATE_HOME: {e}"))?;
    let mut bench = Bench {
        config,
        home,
        expected: None,
    };
    eprintln!(
        "bench-run: agentgate {}, instant-cli {}",
        config.agentgate.display(),
        config.instant_cli.display()
    );
    eprintln!(
        "bench-run: {} warm-up + {} timed iterations of each arm",
        config.warmup, config.iterations
    );
    let load_before = load_average();
    for _ in 0..config.warmup {
        for arm in Arm::ALL {
            bench.timed(arm)?;
            bench.peak_rss(arm)?;
        }
    }
    let mut walls: [Vec<f64>; ARMS] = Default::default();
    let mut rss: [Vec<u64>; ARMS] = Default::default();
    for i in 0..config.iterations {
        // Rotate the order so that no arm always follows the same one; the
        // first iteration starts with the direct arm, which learns the
        // answer the others are checked against.
        for k in 0..Arm::ALL.len() {
            let arm = Arm::ALL[(i + k) % Arm::ALL.len()];
            let wall = bench.timed(arm)?;
            walls[arm.index()].push(wall.as_secs_f64() * 1000.0);
        }
        for arm in Arm::ALL {
            rss[arm.index()].push(bench.peak_rss(arm)?);
        }
    }
    print_report(config, &walls, &rss, &load_before);
    Ok(())
}

/// Runs a job to completion: stdin written and closed, stdout and stderr
/// read to the end, the process reaped. Fails unless it exits 0.
fn run(job: &Job) -> Result<Finished, String> {
    let mut cmd = Command::new(&job.program);
    cmd.args(&job.args)
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .stdin(if job.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("failed to start {}: {e}", job.program.display()))?;
    if let (Some(bytes), Some(mut pipe)) = (&job.stdin, child.stdin.take()) {
        // Small enough for the pipe buffer: no deadlock with unread stdout.
        pipe.write_all(bytes)
            .map_err(|e| format!("failed to write {}'s stdin: {e}", job.program.display()))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|e| format!("failed to wait for {}: {e}", job.program.display()))?;
    let wall = started.elapsed();
    if !output.status.success() {
        return Err(format!(
            "`{} {}` ended with {}; stderr: {}; stdout: {}",
            job.program.display(),
            job.args
                .iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim(),
            String::from_utf8_lossy(&output.stdout).trim(),
        ));
    }
    Ok(Finished {
        wall,
        stdout: output.stdout,
    })
}

/// The answer in a Claude stream-json transcript: its `result` line.
fn direct_answer(stdout: &[u8]) -> Result<Answer, String> {
    let text = String::from_utf8_lossy(stdout);
    let result = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["type"] == "result")
        .ok_or_else(|| format!("instant-cli printed no `result` line: {text}"))?;
    let field = |name: &str| {
        result[name]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("instant-cli's result line has no string `{name}`: {result}"))
    };
    Ok(Answer {
        text: field("result")?,
        session_id: field("session_id")?,
        cost_usd: result["total_cost_usd"].as_f64().ok_or_else(|| {
            format!("instant-cli's result line has no `total_cost_usd`: {result}")
        })?,
    })
}

/// An agentgate run must print one envelope that succeeded with the CLI's
/// answer, session id and cost.
fn check_envelope(arm: Arm, stdout: &[u8], expected: &Answer) -> Result<(), String> {
    let text = String::from_utf8_lossy(stdout);
    let envelope: Envelope = serde_json::from_str(text.trim())
        .map_err(|e| format!("{}: the envelope does not parse ({e}): {text}", arm.label()))?;
    let wrong = if let Some(error) = &envelope.error {
        Some(format!("it reports an error: {error}"))
    } else if envelope.response != expected.text {
        Some(format!(
            "response is {:?}, instant-cli answered {:?}",
            envelope.response, expected.text
        ))
    } else if envelope.session_id.as_deref() != Some(expected.session_id.as_str()) {
        Some(format!(
            "session_id is {:?}, instant-cli said {:?}",
            envelope.session_id, expected.session_id
        ))
    } else if envelope.tokens_used.cost_usd != Some(expected.cost_usd) {
        Some(format!(
            "tokens_used.cost_usd is {:?}, instant-cli said {}",
            envelope.tokens_used.cost_usd, expected.cost_usd
        ))
    } else {
        None
    };
    match wrong {
        Some(why) => Err(format!("{}: wrong envelope: {why}: {text}", arm.label())),
        None => Ok(()),
    }
}

/// `__rss <out-file> -- <program> [args...]`: runs the program with this
/// process's stdio, writes the peak RSS (KiB) of its process tree to
/// `out-file`, and exits as it did.
fn rss_shim(args: &[OsString]) -> ExitCode {
    let [out, sep, program, rest @ ..] = args else {
        eprintln!("usage: bench-run {RSS_SHIM} <out-file> -- <program> [args...]");
        return ExitCode::from(2);
    };
    if sep != "--" {
        eprintln!("usage: bench-run {RSS_SHIM} <out-file> -- <program> [args...]");
        return ExitCode::from(2);
    }
    let status = match Command::new(program).args(rest).status() {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "bench-run {RSS_SHIM}: failed to run {}: {e}",
                program.to_string_lossy()
            );
            return ExitCode::from(127);
        }
    };
    // The only child this process ever had is the one just reaped, so the
    // children's peak is its tree's.
    let peak = match getrusage(UsageWho::RUSAGE_CHILDREN) {
        Ok(usage) => usage.max_rss(),
        Err(e) => {
            eprintln!("bench-run {RSS_SHIM}: failed to read the children's usage: {e}");
            return ExitCode::from(125);
        }
    };
    if let Err(e) = std::fs::write(out, format!("{peak}\n")) {
        eprintln!(
            "bench-run {RSS_SHIM}: failed to write {}: {e}",
            Path::new(out).display()
        );
        return ExitCode::from(125);
    }
    match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::from(128),
    }
}

/// The value at quantile `q` (0..=1) of sorted `xs`: nearest rank, except
/// the median, which averages the two middle values of an even count.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    if q == 0.5 && n.is_multiple_of(2) {
        return (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }
    // Nearest rank: the smallest value with at least q of the data at or
    // below it.
    let rank = (q * n as f64).ceil().max(1.0) as usize;
    sorted[rank.min(n) - 1]
}

fn sorted(xs: &[f64]) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

fn print_report(
    config: &Config,
    walls: &[Vec<f64>; ARMS],
    rss: &[Vec<u64>; ARMS],
    load_before: &str,
) {
    let direct = &walls[Arm::Direct.index()];
    let direct_median = quantile(&sorted(direct), 0.5);
    println!();
    println!(
        "agentgate run overhead: {} iterations after {} warm-up, instant-cli as the agent",
        config.iterations, config.warmup
    );
    println!("machine: {}", machine());
    // Other work on the machine inflates every figure (the ratio least).
    println!(
        "load average (1, 5, 15 min): {load_before} before, {} after",
        load_average()
    );
    println!();
    println!(
        "{:<22} {:>10} {:>10} {:>10} {:>16}",
        "wall time", "median ms", "p90 ms", "vs direct", "added ms (med.)"
    );
    let mut added = [0.0f64; ARMS];
    for arm in Arm::ALL {
        let xs = &walls[arm.index()];
        let s = sorted(xs);
        let median = quantile(&s, 0.5);
        let (ratio, extra) = if arm == Arm::Direct {
            ("1.00x".to_owned(), "-".to_owned())
        } else {
            // The median of the per-iteration differences: each pair ran
            // back to back, so shared noise cancels.
            let diffs: Vec<f64> = xs.iter().zip(direct).map(|(a, d)| a - d).collect();
            added[arm.index()] = quantile(&sorted(&diffs), 0.5);
            (
                format!("{:.2}x", median / direct_median),
                format!("{:.2}", added[arm.index()]),
            )
        };
        println!(
            "{:<22} {:>10.2} {:>10.2} {:>10} {:>16}",
            arm.label(),
            median,
            quantile(&s, 0.9),
            ratio,
            extra
        );
    }
    println!();
    println!("{:<22} {:>10} {:>10}", "peak RSS (MiB)", "median", "max");
    let mut peak = [0.0f64; ARMS];
    for arm in Arm::ALL {
        let mib: Vec<f64> = rss[arm.index()]
            .iter()
            .map(|kib| *kib as f64 / 1024.0)
            .collect();
        let s = sorted(&mib);
        peak[arm.index()] = s.last().copied().unwrap_or(f64::NAN);
        println!(
            "{:<22} {:>10.2} {:>10.2}",
            arm.label(),
            quantile(&s, 0.5),
            peak[arm.index()]
        );
    }
    println!("(peak RSS: the largest process of the run's tree, i.e. agentgate itself)");
    println!();
    for arm in [Arm::NoStore, Arm::Store] {
        let a = added[arm.index()];
        let p = peak[arm.index()];
        println!(
            "target {:<20} added <= 2 ms: {} ({a:.2} ms); peak RSS < 10 MiB: {} ({p:.2} MiB)",
            arm.label(),
            verdict(a <= ADDED_TARGET_MS),
            verdict(p < 10.0),
        );
    }
}

/// What a run may add to the CLI's own time, median (issue 11).
const ADDED_TARGET_MS: f64 = 2.0;

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "MISSED" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_use_nearest_rank_and_a_true_median() {
        let xs = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&xs, 0.5), 2.5);
        assert_eq!(quantile(&xs, 0.9), 4.0);
        let ys: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(quantile(&ys, 0.9), 9.0);
        assert_eq!(quantile(&[7.0], 0.5), 7.0);
    }

    #[test]
    fn reads_the_answer_of_a_stream_json_transcript() {
        let out = br#"{"type":"system","subtype":"init","session_id":"s"}
{"type":"result","result":"done","session_id":"s","total_cost_usd":0.5}
"#;
        let a = direct_answer(out).unwrap();
        assert_eq!(
            a,
            Answer {
                text: "done".into(),
                session_id: "s".into(),
                cost_usd: 0.5
            }
        );
        assert!(direct_answer(b"{\"type\":\"system\"}\n").is_err());
    }

    #[test]
    fn rejects_an_envelope_with_another_answer() {
        let expected = Answer {
            text: "done".into(),
            session_id: "s".into(),
            cost_usd: 0.5,
        };
        let good = br#"{"response":"done","session_id":"s","tokens_used":{"cost_usd":0.5}}"#;
        check_envelope(Arm::NoStore, good, &expected).unwrap();
        let bad = br#"{"response":"","session_id":"s","tokens_used":{"cost_usd":0.5}}"#;
        assert!(check_envelope(Arm::NoStore, bad, &expected).is_err());
        assert!(check_envelope(Arm::NoStore, b"not json", &expected).is_err());
    }
}
