//! The fault drill: the shared queue on PostgreSQL (or on a SQLite file
//! that processes of one host share) under faults, checked from the
//! processes' side. Issue 13's "Done when" names what it does and
//! asserts; docs/operating/fault-drill.md says how to run it.
//!
//! `fault-drill --postgres URL | --sqlite [--seed N] [--jobs N] [--duration
//! SECS] [--kills N] [--workers N] [--concurrency N] [--burst N] [--wait
//! SECS] [--agentgate PATH] [--cli PATH]` creates a fresh database on the
//! server of URL (or, with `--sqlite`, a SQLite file in its scratch folder
//! that every process of this host shares), writes a config
//! with three described stand-in providers (`drill-a` at most 2 at once,
//! `drill-b` with usage windows, `drill-c`), starts one `agentgate serve
//! --no-executor` (its clock a file the drill moves a minute every 2 s, so
//! the every-minute schedule fires) and the workers, then acts
//! (`actions.rs`) while sampling `/proc` (`evidence.rs`), waits for every
//! job to end, stops everything and checks (`checks.rs`). It prints the
//! seed first (the same seed replays the same choices; timings differ),
//! the counts as a table at the end, and exits 1 with the list of failed
//! assertions, 2 on bad usage.
//!
//! `--burst N` (`burst.rs`) queues N near-instant jobs at once beside
//! the actions, over several connections, spread over the limits
//! (`drill-a`, `drill-b`, sessions, folders written in); the kills then
//! come while that backlog drains, and every assertion covers its jobs,
//! with the burst's own (a session's turns in order, one at a time; one
//! writer per folder; the kills during the drain).
//!
//! `--partition` (PostgreSQL, root) runs the workers as hosts in network
//! namespaces (`netns.rs`) on a cluster of the drill's own on their
//! bridge, and cuts one off for longer than its lease while the actions
//! run (`partition.rs`, which also checks what the cut must leave).
//!
//! Why `serve --no-executor`: every job then runs on a worker, so every
//! `kill -9` hits the processes that hold leases, and the serve's file
//! clock (which only its schedules and stamps of submission read) never
//! decides a claim, a lease or a quota reset; those are the workers'
//! real clocks.

mod actions;
mod burst;
mod checks;
mod cluster;
mod evidence;
mod http;
mod netns;
mod partition;
mod table;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use std::sync::Arc;

use agentgate_store::{JobState, PgOptions, PgStore, SqliteStore, StoreBackend};

use crate::actions::{Stage, drive, first_clock, set_clock};
use crate::checks::{Evidence, check};
use crate::cluster::{Database, Process, Setup, start_serve, start_worker, write_config};
use crate::evidence::{Sampler, live_clis, read_stamps};

const USAGE: &str = "\
usage: fault-drill (--postgres URL | --sqlite) [--seed N] [--jobs N] [--duration SECS]
                   [--kills N] [--workers N] [--concurrency N] [--burst N] [--wait SECS]
                   [--agentgate PATH] [--cli PATH] [--partition [--pg-cluster PATH]]

  --postgres URL     a PostgreSQL server (the URL of a database there); the drill
                     creates a database of its own on it and drops it at the end
  --sqlite           a SQLite file in the drill's scratch folder instead, shared by
                     every process (one host)
  --seed N           the random choices (default: from the clock; printed)
  --jobs N           submissions, duplicates of idempotency keys included (default 200)
  --duration SECS    how long the drill acts: submits, cancels, kills, fires (default 40)
  --kills N          kill -9 of a worker holding leases (default 3)
  --workers N        workers at once (default 3)
  --concurrency N    each worker's --concurrency (default 4)
  --burst N          also queue N near-instant jobs at once, early, over 8 connections
                     (drill-a, drill-b, sessions, writers in folders, duplicate keys,
                     cancels); the kills then come while they drain (default 0: none)
  --wait SECS        the longest wait for every job to end afterwards (default 300)
  --agentgate PATH   the agentgate binary (default: next to fault-drill)
  --cli PATH         the stand-in CLI, drill-cli (default: next to fault-drill)
  --partition        the workers as hosts in network namespaces (root, iproute2),
                     on a PostgreSQL cluster of the drill's own on their bridge;
                     one is cut off for longer than its lease, then healed
                     (partition.rs); --postgres is then not needed, --kills must be 0
  --pg-cluster PATH  scripts/pg-cluster.sh, which starts that cluster
                     (default: scripts/pg-cluster.sh of the working folder)

Exits 0 when every assertion holds, 1 with the list of those that failed, 2 on bad usage.";

/// The drill's options.
#[derive(Debug, Clone)]
pub struct Options {
    /// The PostgreSQL server's URL; empty with `sqlite`.
    pub postgres: String,
    /// A SQLite store in the scratch folder instead.
    pub sqlite: bool,
    pub seed: u64,
    pub jobs: usize,
    pub duration: u64,
    pub kills: usize,
    pub workers: usize,
    pub concurrency: usize,
    /// Jobs of the burst (`burst.rs`); 0: none.
    pub burst: usize,
    pub wait: u64,
    pub agentgate: PathBuf,
    pub cli: PathBuf,
    /// The partition drill (`partition.rs`).
    pub partition: bool,
    pub pg_cluster: PathBuf,
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("fault-drill: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    println!(
        "fault-drill: seed {} (replay with --seed {})",
        options.seed, options.seed
    );
    match run(&options) {
        Ok(fails) if fails.is_empty() => {
            println!("fault-drill: every assertion held");
            ExitCode::SUCCESS
        }
        Ok(fails) => {
            println!(
                "fault-drill: {} assertions failed (seed {}):",
                fails.len(),
                options.seed
            );
            for f in fails {
                println!("  - {f}");
            }
            ExitCode::FAILURE
        }
        Err(e) => {
            println!(
                "fault-drill: the drill could not run to its end (seed {}): {e}",
                options.seed
            );
            ExitCode::FAILURE
        }
    }
}

fn parse_options() -> Result<Options, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut o = Options {
        postgres: String::new(),
        sqlite: false,
        seed: (now_ns() as u64) % 1_000_000_000,
        jobs: 200,
        duration: 40,
        kills: 3,
        workers: 3,
        concurrency: 4,
        burst: 0,
        wait: 300,
        agentgate: exe.with_file_name("agentgate"),
        cli: exe.with_file_name("drill-cli"),
        partition: false,
        pg_cluster: PathBuf::from("scripts/pg-cluster.sh"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| {
            v.parse::<u64>()
                .map_err(|_| format!("{flag}: `{v}` is not a number"))
        };
        match flag.as_str() {
            "--postgres" => o.postgres = value()?,
            "--sqlite" => o.sqlite = true,
            "--seed" => o.seed = number(value()?)?,
            "--jobs" => o.jobs = number(value()?)? as usize,
            "--duration" => o.duration = number(value()?)?,
            "--kills" => o.kills = number(value()?)? as usize,
            "--workers" => o.workers = number(value()?)? as usize,
            "--concurrency" => o.concurrency = number(value()?)? as usize,
            "--burst" => o.burst = number(value()?)? as usize,
            "--wait" => o.wait = number(value()?)?,
            "--agentgate" => o.agentgate = PathBuf::from(value()?),
            "--cli" => o.cli = PathBuf::from(value()?),
            "--partition" => o.partition = true,
            "--pg-cluster" => o.pg_cluster = PathBuf::from(value()?),
            "--help" | "-h" => return Err("help".into()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if o.partition {
        if o.sqlite || o.kills > 0 || o.workers < 2 || o.burst > 0 {
            return Err(
                "--partition runs on PostgreSQL, with --kills 0, no --burst and 2 workers or more"
                    .into(),
            );
        }
    } else if o.postgres.is_empty() != o.sqlite {
        return Err("give one store: --postgres URL or --sqlite".into());
    }
    if o.workers == 0 || o.concurrency == 0 || o.jobs == 0 {
        return Err("--jobs, --workers and --concurrency must be 1 or more".into());
    }
    for path in [&o.agentgate, &o.cli] {
        if !path.is_file() {
            return Err(format!(
                "{} is missing (cargo build -p agentgate -p agentgate-fixtures --bins)",
                path.display()
            ));
        }
    }
    Ok(o)
}

/// The whole drill in a scratch folder, kept when anything failed; the
/// failed assertions.
fn run(o: &Options) -> Result<Vec<String>, String> {
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    let outcome = drill(o, &home);
    if !matches!(&outcome, Ok(fails) if fails.is_empty()) {
        let kept = home.keep();
        println!(
            "fault-drill: the stamps, config and logs are kept in {}",
            kept.display()
        );
    }
    outcome
}

fn drill(o: &Options, home: &tempfile::TempDir) -> Result<Vec<String>, String> {
    let began = Instant::now();
    // The stand-ins' folder: their stamps, b's windows; its path is in
    // their argv, which is how /proc tells this drill's stand-ins.
    let cli_dir = home.path().join("cli");
    std::fs::create_dir_all(&cli_dir).map_err(|e| e.to_string())?;
    let stamps = cli_dir.join("stamps");
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    // The partition drill's hosts and cluster (dropped last: after the
    // processes and the database).
    let (net, own_cluster) = if o.partition {
        let net = Arc::new(netns::Network::create(o.workers)?);
        let cluster =
            partition::OwnCluster::start(&o.pg_cluster, &home.path().join("pg"), &net.bridge_ip)?;
        (Some(net), Some(cluster))
    } else {
        (None, None)
    };
    let admin = own_cluster
        .as_ref()
        .map_or(o.postgres.clone(), |c| c.local_url.clone());
    let (database, store_location) = if o.sqlite {
        let path = home.path().join("store").join("agentgate.db");
        (None, path.display().to_string())
    } else {
        let database = Database::create(&admin, "agentgate_fault_drill")?;
        let url = database.url.clone();
        (Some(database), url)
    };
    let worker_store = match (&own_cluster, &database) {
        (Some(c), Some(d)) => format!("{}/{}", c.bridge_base, d.name()),
        _ => store_location.clone(),
    };
    let config = write_config(home.path(), &o.cli, &cli_dir, &work)?;
    let clock = home.path().join("clock");
    let start_clock = first_clock()?;
    set_clock(&clock, start_clock)?;
    let setup = Setup {
        agentgate: o.agentgate.clone(),
        home: home.path().to_path_buf(),
        config,
        store: store_location.clone(),
        seed: o.seed,
        net: net.clone(),
        worker_store,
    };
    let (mut serve, url) = start_serve(&setup, &clock)?;
    let mut workers = Vec::new();
    let mut cut = None;
    if o.partition {
        partition::install_audit(&store_location)?;
        // Worker 0 alone first, so that it holds the long job.
        workers.push(start_worker(&setup, 0, o.concurrency)?);
        let long_id = partition::submit(&url, &work, "drill-c", partition::LONG_TAG, "long")?;
        let victim = workers[0].pid();
        partition::wait_for_stamps(&stamps, "the long job's stand-in under worker 0", |s| {
            s.runs
                .iter()
                .any(|r| r.tag == partition::LONG_TAG && r.worker == victim)
        })?;
        cut = Some(partition::Cut {
            victim,
            victim_ip: net
                .as_ref()
                .map(|n| n.hosts[0].ip.clone())
                .unwrap_or_default(),
            long_id,
            ..partition::Cut::default()
        });
    }
    for n in workers.len()..o.workers {
        workers.push(start_worker(&setup, n, o.concurrency)?);
    }
    let store: Arc<dyn StoreBackend> = match &database {
        Some(database) => Arc::new(
            PgStore::connect(
                &database.url,
                home.path().join("pg-runs"),
                &PgOptions::default(),
            )
            .map_err(|e| format!("connecting to the drill's database: {e}"))?,
        ),
        None => Arc::new(
            SqliteStore::open(&store_location)
                .map_err(|e| format!("opening the drill's store: {e}"))?,
        ),
    };
    let sampler = Sampler::start(o.cli.clone(), cli_dir.clone());
    let mut rng = Rng(o.seed);

    let mut stage = Stage {
        options: o,
        setup: &setup,
        url: &url,
        clock,
        stamps: stamps.clone(),
        cli_dir: cli_dir.clone(),
        work: work.clone(),
        workers: &mut workers,
        store: store.as_ref(),
    };
    // The partition runs beside the actions.
    let cutting = match (cut, &net) {
        (Some(cut), Some(net)) => {
            let (net, url, work, stamps) = (net.clone(), url.clone(), work.clone(), stamps.clone());
            let (cli, cli_dir) = (o.cli.clone(), cli_dir.clone());
            Some(std::thread::spawn(move || {
                let paths = (
                    work.as_path(),
                    stamps.as_path(),
                    cli.as_path(),
                    cli_dir.as_path(),
                );
                partition::cut_and_heal(&net, &url, paths, cut)
            }))
        }
        _ => None,
    };
    let acted = drive(&mut stage, &mut rng, start_clock);
    let cut = cutting.map(|t| {
        t.join()
            .unwrap_or_else(|_| Err("the partition's thread panicked".into()))
    });
    let (mut ledger, cut) = match (acted, cut.transpose()) {
        (Ok(l), Ok(cut)) => (l, cut),
        (Err(e), _) | (_, Err(e)) => {
            let _ = sampler.finish();
            return Err(e);
        }
    };
    if let Some(cut) = &cut {
        for (id, tag) in [
            (&cut.long_id, partition::LONG_TAG),
            (&cut.probe_id, partition::PROBE_TAG),
        ] {
            ledger.jobs.push(actions::Submitted {
                id: id.clone(),
                tag: tag.to_owned(),
            });
        }
    }
    if let Some(last) = ledger.fires.last() {
        actions::wait_for_fire(&url, *last)?;
    }
    let ended = wait_all_ended(store.as_ref(), Duration::from_secs(o.wait));

    for w in &workers {
        let _ = w.signal("TERM");
    }
    for w in &mut workers {
        if !w.wait_exit(Duration::from_secs(60)) {
            let _ = w.signal("KILL");
        }
    }
    let sampled = sampler.finish();
    let survivors = live_clis(&o.cli, &cli_dir).len();
    let stamps = read_stamps(&stamps)?;
    let worker_pids: Vec<u32> = workers
        .iter()
        .map(Process::pid)
        .chain(ledger.kills.iter().map(|k| k.worker))
        .collect();
    let (mut counts, mut fails) = check(&Evidence {
        ledger: &ledger,
        stamps: &stamps,
        sampled: &sampled,
        survivors,
        workers: &worker_pids,
        store: store.as_ref(),
        url: &url,
        cut: cut.as_ref(),
    })?;
    if let Some(cut) = &cut {
        let (failed, margins) = partition::check(
            cut,
            &stamps,
            &sampled,
            &store_location,
            Duration::from_secs(cluster::LEASE_SECS),
        )?;
        fails.extend(failed);
        counts.partition_margins = margins;
        counts.partition = Some((
            cut.heal_ns.saturating_sub(cut.cut_ns) / 1_000_000,
            cut.victim_ip.clone(),
        ));
    }
    if let Err(e) = ended {
        fails.insert(0, e);
    }
    let _ = serve.signal("TERM");
    let _ = serve.wait_exit(Duration::from_secs(30));
    drop(store);
    drop(database);
    drop(own_cluster);
    drop(net);
    table::print_counts(&counts, began.elapsed());
    Ok(fails)
}

/// Wait (at most `limit`) until no job is queued or running.
fn wait_all_ended(store: &dyn StoreBackend, limit: Duration) -> Result<(), String> {
    let start = Instant::now();
    loop {
        let counts = store
            .count_jobs()
            .map_err(|e| format!("counting the jobs: {e}"))?;
        let open: u64 = counts
            .by_state
            .iter()
            .filter(|(state, _)| matches!(state, JobState::Queued | JobState::Running))
            .map(|(_, n)| *n)
            .sum();
        if open == 0 {
            return Ok(());
        }
        if start.elapsed() > limit {
            return Err(format!(
                "{open} jobs were still queued or running after {limit:?}"
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Wall clock, ns since the epoch.
pub fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// A small seeded random stream (splitmix64): the drill's choices.
#[derive(Debug)]
pub struct Rng(pub u64);

impl Rng {
    pub fn draw(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1330_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.draw() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Uniform in [0, n); n > 0.
    pub fn below(&mut self, n: usize) -> usize {
        (self.draw() % n.max(1) as u64) as usize
    }
}
