//! Where a drain's CPU goes, read from `/proc` (no profiler needed): the
//! CPU time of the workers (with the keepers and stand-in CLIs they started
//! and reaped), of `serve`, and of the PostgreSQL server (its postmaster,
//! every backend, and the backends that exited and were reaped), and how
//! busy the whole machine was, each over the drain and per job.
//!
//! The workers are new processes: their whole CPU time (own and reaped
//! children's) is read just before they are stopped. `serve` and the
//! database server lived before the drain: their figure is the difference
//! of two readings. The machine's busy time (`/proc/stat`) is everything,
//! this bench's own polling and other programs included: the gap between
//! it and the parts is what nothing here accounts for.

use std::path::PathBuf;

use agentgate_fixtures::bench::{TICKS_PER_S, cpu_ticks as ticks};

/// The parent of `pid`, if it still runs.
fn parent(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The PostgreSQL server of a URL: its postmaster's pid, from
/// `postmaster.pid` in the data directory the server reports.
pub fn postmaster(url: &str) -> Result<u32, String> {
    let dir = agentgate_fixtures::database::query(url, "SHOW data_directory")?;
    let file = PathBuf::from(dir.trim()).join("postmaster.pid");
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    text.lines()
        .next()
        .and_then(|l| l.trim().parse().ok())
        .ok_or_else(|| format!("{}: no pid", file.display()))
}

/// Every tick the server of `postmaster` spent: the postmaster's own and
/// reaped children's, and each live child's own.
fn database_ticks(postmaster: u32) -> Result<u64, String> {
    let (own, reaped) = ticks(postmaster)?;
    let mut sum = own + reaped;
    let entries = std::fs::read_dir("/proc").map_err(|e| format!("/proc: {e}"))?;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if parent(pid) == Some(postmaster) {
            // A backend that exits between the two reads counts as reaped
            // at the next reading of the postmaster.
            sum += ticks(pid).map_or(0, |(own, _)| own);
        }
    }
    Ok(sum)
}

/// The machine's busy ticks, summed over its CPUs.
fn machine_ticks() -> Result<u64, String> {
    let stat = std::fs::read_to_string("/proc/stat").map_err(|e| format!("/proc/stat: {e}"))?;
    let cpu: Vec<u64> = stat
        .lines()
        .next()
        .filter(|l| l.starts_with("cpu "))
        .ok_or("/proc/stat: no cpu line")?
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let total: u64 = cpu.iter().sum();
    // idle and iowait.
    let idle = cpu.get(3).copied().unwrap_or(0) + cpu.get(4).copied().unwrap_or(0);
    Ok(total.saturating_sub(idle))
}

/// The readings taken before a drain.
pub struct Before {
    serve: u64,
    database: Option<(u32, u64)>,
    machine: u64,
}

/// Where a drain's CPU went, in CPU seconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuUse {
    /// The workers, their keepers and CLIs.
    pub workers: f64,
    pub serve: f64,
    /// The PostgreSQL server (0 on SQLite).
    pub database: f64,
    /// The machine's busy time, everything included.
    pub machine: f64,
}

impl CpuUse {
    /// Milliseconds of CPU per job of `jobs`.
    pub fn per_job(&self, jobs: u64) -> CpuUse {
        let ms = |s: f64| s * 1000.0 / jobs.max(1) as f64;
        CpuUse {
            workers: ms(self.workers),
            serve: ms(self.serve),
            database: ms(self.database),
            machine: ms(self.machine),
        }
    }
}

/// Read `serve` (and the database server of `postmaster`) before a drain.
pub fn before(serve: u32, postmaster: Option<u32>) -> Result<Before, String> {
    let database = match postmaster {
        Some(pid) => Some((pid, database_ticks(pid)?)),
        None => None,
    };
    let (own, reaped) = ticks(serve)?;
    Ok(Before {
        serve: own + reaped,
        database,
        machine: machine_ticks()?,
    })
}

/// Read everything again at the drain's end, `workers` still running.
pub fn after(before: &Before, serve: u32, workers: &[u32]) -> Result<CpuUse, String> {
    let s = |t: u64| t as f64 / TICKS_PER_S;
    let mut worker_ticks = 0;
    for &pid in workers {
        let (own, reaped) = ticks(pid)?;
        worker_ticks += own + reaped;
    }
    let (own, reaped) = ticks(serve)?;
    let database = match before.database {
        Some((pid, then)) => database_ticks(pid)?.saturating_sub(then),
        None => 0,
    };
    let busy = machine_ticks()?;
    Ok(CpuUse {
        workers: s(worker_ticks),
        serve: s((own + reaped).saturating_sub(before.serve)),
        database: s(database),
        machine: s(busy.saturating_sub(before.machine)),
    })
}
