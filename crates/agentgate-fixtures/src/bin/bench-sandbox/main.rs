//! The start-up time a sandbox adds to an agent run, measured
//! (`scripts/bench-sandbox.sh`).
//!
//! `bench-sandbox [--runs N] [--warmup N] [--levels off,workspace,strict]
//! [--agentgate PATH] [--instant-cli PATH] [--run-arg ARG]...` has two
//! parts, each interleaved in this one process (off, workspace, strict,
//! off, ...: machine noise hits every arm alike):
//!
//! - **Runs**: `agentgate run --no-store --provider claude --binary
//!   <instant-cli> --compact --sandbox LEVEL hello` (instant-cli answers
//!   at once), N times per level: median and p90 wall time (spawn to
//!   exit, output read), and the time added over `off` in the same
//!   process, with the ratio. Each envelope must answer `done`; its
//!   `sandbox.state` is printed beside the figure (a level that is not
//!   enforced is not measuring what it says). A level whose run fails is
//!   printed as failed with the reason, not timed, and the others go on.
//! - **Chain**: `agentgate __sandbox SPEC` around `/bin/true` (`chain.rs`)
//!   against `/bin/true` started directly.
//!
//! Exits 1 when a level or a chain arm failed, 2 on bad usage, 0 otherwise
//! whatever the timings (the target, <= 10 ms added for `workspace` and
//! `strict`, is read, never asserted).

mod chain;
mod process;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agentgate_fixtures::bench::{load_average, machine, median_ms, percentile_ms};
use agentgate_protocol::{Envelope, SandboxLevel};

use chain::{ChainArm, ChainSpecs};
use process::{Job, run};

const USAGE: &str = "\
usage: bench-sandbox [--runs N] [--warmup N] [--levels L,L,...] [--agentgate PATH]
                     [--instant-cli PATH] [--run-arg ARG]...

  --runs N            timed runs of each level and of each chain arm (default 50)
  --warmup N          untimed runs of each first (default 3)
  --levels L,...      the levels, `off` first (default off,workspace,strict)
  --agentgate PATH    the agentgate binary (default: `agentgate` next to bench-sandbox)
  --instant-cli PATH  the stand-in CLI (default: `instant-cli` next to bench-sandbox)
  --run-arg ARG       one more argument for every `agentgate run` (repeatable)

Exits 1 when a level or the chain failed, 2 on bad usage, 0 otherwise whatever
the timings.";

/// The prompt every run sends.
const PROMPT: &str = "hello";

/// What to run and how often.
#[derive(Debug)]
struct Config {
    agentgate: PathBuf,
    instant_cli: PathBuf,
    runs: usize,
    warmup: usize,
    levels: Vec<SandboxLevel>,
    run_args: Vec<OsString>,
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let config = match parse(args) {
        Ok(Some(c)) => c,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("bench-sandbox: {msg}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match bench(&config) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(msg) => {
            eprintln!("bench-sandbox: FAILED: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// `Ok(None)` for `--help`.
fn parse(args: Vec<OsString>) -> Result<Option<Config>, String> {
    let here = std::env::current_exe()
        .map_err(|e| format!("failed to locate bench-sandbox itself: {e}"))?;
    let dir = here.parent().unwrap_or(Path::new("."));
    let mut config = Config {
        agentgate: dir.join("agentgate"),
        instant_cli: dir.join("instant-cli"),
        runs: 50,
        warmup: 3,
        levels: vec![
            SandboxLevel::Off,
            SandboxLevel::Workspace,
            SandboxLevel::Strict,
        ],
        run_args: Vec::new(),
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy().into_owned();
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match text.as_str() {
            "-h" | "--help" => return Ok(None),
            "--runs" => config.runs = count(&value("--runs")?, "--runs")?,
            "--warmup" => config.warmup = count(&value("--warmup")?, "--warmup")?,
            "--agentgate" => config.agentgate = PathBuf::from(value("--agentgate")?),
            "--instant-cli" => config.instant_cli = PathBuf::from(value("--instant-cli")?),
            "--run-arg" => config.run_args.push(value("--run-arg")?),
            "--levels" => {
                config.levels = value("--levels")?
                    .to_string_lossy()
                    .split(',')
                    .map(|l| l.trim().parse::<SandboxLevel>().map_err(|e| e.to_string()))
                    .collect::<Result<_, _>>()?;
            }
            other => return Err(format!("unexpected argument `{other}`")),
        }
    }
    if config.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    if config.levels.first() != Some(&SandboxLevel::Off) {
        return Err("--levels must start with `off`: the others are measured against it".into());
    }
    for (what, path) in [
        ("agentgate", &config.agentgate),
        ("instant-cli", &config.instant_cli),
    ] {
        if !path.is_file() {
            return Err(format!(
                "{what} not found at {}; build it (`cargo build --release -p agentgate -p agentgate-fixtures --bins`) or pass its path",
                path.display()
            ));
        }
    }
    Ok(Some(config))
}

fn count(value: &OsString, name: &str) -> Result<usize, String> {
    value
        .to_str()
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("{name} takes a number, not `{}`", value.to_string_lossy()))
}

/// One arm's timings, or why it stopped.
#[derive(Debug, Default)]
struct Arm {
    walls_ns: Vec<u128>,
    failed: Option<String>,
    /// What the envelopes' `sandbox.state` said (the last run's).
    enforcement: Option<String>,
}

impl Arm {
    /// Times `once` unless the arm failed before; a failure stops it.
    fn time(&mut self, timed: bool, once: impl FnOnce() -> Result<process::Finished, String>) {
        if self.failed.is_some() {
            return;
        }
        match once() {
            Ok(done) if timed => self.walls_ns.push(done.wall.as_nanos()),
            Ok(_) => {}
            Err(e) => self.failed = Some(e),
        }
    }
}

fn bench(config: &Config) -> Result<bool, String> {
    let scratch = tempfile::Builder::new()
        .prefix("agentgate-bench-sandbox-")
        .tempdir()
        .map_err(|e| format!("failed to create a temporary folder: {e}"))?;
    let work = scratch.path().join("workspace");
    std::fs::create_dir_all(&work)
        .map_err(|e| format!("failed to create {}: {e}", work.display()))?;
    println!("machine: {}", machine());
    println!("agentgate: {}", config.agentgate.display());
    println!(
        "{} warm-up + {} timed runs of each, interleaved; load before: {}",
        config.warmup,
        config.runs,
        load_average()
    );

    let mut levels: Vec<Arm> = config.levels.iter().map(|_| Arm::default()).collect();
    for i in 0..config.warmup + config.runs {
        let timed = i >= config.warmup;
        for (level, arm) in config.levels.iter().zip(levels.iter_mut()) {
            let job = run_job(config, *level, &work, scratch.path());
            let mut said = None;
            arm.time(timed, || {
                let done = run(&job)?;
                said = Some(check_envelope(*level, &done.stdout)?);
                Ok(done)
            });
            if let Some(said) = said {
                arm.enforcement = said;
            }
        }
    }

    let specs = ChainSpecs::write(&scratch.path().join("chain"), &config.agentgate)?;
    let mut chain: Vec<Arm> = ChainArm::ALL.iter().map(|_| Arm::default()).collect();
    for i in 0..config.warmup + config.runs {
        let timed = i >= config.warmup;
        for (which, arm) in ChainArm::ALL.iter().zip(chain.iter_mut()) {
            specs.reset(*which);
            arm.time(timed, || {
                let done = run(&specs.job(*which))?;
                specs.check(*which)?;
                Ok(done)
            });
        }
    }

    println!();
    println!("agentgate run --no-store --sandbox LEVEL (instant-cli answers at once):");
    let labels: Vec<String> = config.levels.iter().map(|l| l.to_string()).collect();
    print_table(&labels, &levels);
    println!();
    println!("the sandbox chain around {}:", chain::TRUE);
    let labels: Vec<String> = ChainArm::ALL.iter().map(|a| a.label().to_owned()).collect();
    print_table(&labels, &chain);
    println!();
    println!("load after: {}", load_average());
    Ok(levels.iter().chain(&chain).all(|a| a.failed.is_none()))
}

/// `agentgate run` at `level`, in `work`, with its home in `scratch`.
fn run_job(config: &Config, level: SandboxLevel, work: &Path, scratch: &Path) -> Job {
    let mut args: Vec<OsString> = ["run", "--provider", "claude", "--binary"]
        .map(OsString::from)
        .to_vec();
    args.push(config.instant_cli.clone().into_os_string());
    args.extend(
        [
            "--no-store",
            "--compact",
            "--sandbox",
            level.as_str(),
            "--cwd",
        ]
        .map(OsString::from),
    );
    args.push(work.as_os_str().to_owned());
    args.extend(config.run_args.iter().cloned());
    args.push(PROMPT.into());
    Job {
        program: config.agentgate.clone(),
        args,
        // A key for the model gateway `strict` starts (the stand-in
        // answers without calling a model); every level gets it, so the
        // runs differ only in their sandbox.
        env: vec![
            ("AGENTGATE_HOME".into(), scratch.join("home").into()),
            ("ANTHROPIC_API_KEY".into(), "sk-bench-sandbox-unused".into()),
        ],
    }
}

/// The envelope must answer `done`; returns its `sandbox.state` (`None`
/// when it has no `sandbox` object).
fn check_envelope(level: SandboxLevel, stdout: &[u8]) -> Result<Option<String>, String> {
    let text = String::from_utf8_lossy(stdout);
    let envelope: Envelope = serde_json::from_str(text.trim())
        .map_err(|e| format!("--sandbox {level}: the envelope does not parse ({e}): {text}"))?;
    if envelope.response != "done" {
        return Err(format!(
            "--sandbox {level}: answered {:?}, not \"done\"",
            envelope.response
        ));
    }
    Ok(envelope.sandbox.map(|s| {
        serde_json::to_value(s.state)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    }))
}

/// Median and p90 of each arm, and what each adds over the first.
fn print_table(labels: &[String], arms: &[Arm]) {
    let width = labels.iter().map(String::len).max().unwrap_or(0).max(5);
    println!(
        "  {:<width$}  {:>5}  {:>9}  {:>9}  {:>12}  {:>12}  {:>6}  sandbox",
        "", "runs", "median ms", "p90 ms", "added median", "added p90", "ratio"
    );
    let base = arms
        .first()
        .filter(|a| a.failed.is_none() && !a.walls_ns.is_empty())
        .map(|a| (median_ms(&a.walls_ns), percentile_ms(&a.walls_ns, 0.9)));
    for (i, (label, arm)) in labels.iter().zip(arms).enumerate() {
        if let Some(why) = &arm.failed {
            println!("  {label:<width$}  FAILED: {why}");
            continue;
        }
        let (median, p90) = (median_ms(&arm.walls_ns), percentile_ms(&arm.walls_ns, 0.9));
        let (added_median, added_p90, ratio) = match base {
            Some((b50, b90)) if i > 0 => (
                format!("{:+.2}", median - b50),
                format!("{:+.2}", p90 - b90),
                format!("{:.2}", median / b50),
            ),
            _ => ("-".to_owned(), "-".to_owned(), "1.00".to_owned()),
        };
        let sandbox = arm.enforcement.as_deref().unwrap_or("-");
        println!(
            "  {label:<width$}  {:>5}  {median:>9.2}  {p90:>9.2}  {added_median:>12}  {added_p90:>12}  {ratio:>6}  {sandbox}",
            arm.walls_ns.len()
        );
    }
}
