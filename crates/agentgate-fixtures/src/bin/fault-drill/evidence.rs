//! What the drill sees from the processes' side: the stand-ins' stamps
//! (`drill-cli` writes them) and samples of `/proc` (which stand-ins are
//! alive, whose descendants they are).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One stand-in process, from its stamps.
#[derive(Debug, Clone)]
pub struct CliRun {
    pub pid: u32,
    pub provider: String,
    pub tag: String,
    /// The agentgate process that ran it (its keeper's parent).
    pub worker: u32,
    pub start: u128,
    /// When it was due to answer (unless a signal stopped it first).
    pub due: Option<u128>,
    /// When it ended and how (`ok`, `fail`, `quota`, `sig-INT`, `sig-TERM`).
    pub end: Option<(u128, String)>,
}

/// Everything in the stamps file.
#[derive(Debug, Default)]
pub struct Stamps {
    pub runs: Vec<CliRun>,
    /// Provider b's usage windows: (open, reset), ns.
    pub windows: Vec<(u128, u128)>,
}

/// Read the stamps file (absent: none yet).
pub fn read_stamps(path: &Path) -> Result<Stamps, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let mut stamps = Stamps::default();
    let mut by_pid: HashMap<u32, usize> = HashMap::new();
    let bad = |line: &str| format!("bad stamp line {line:?}");
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let num = |s: &str| s.parse::<u128>().map_err(|_| bad(line));
        match f.as_slice() {
            ["start", pid, ns, provider, tag, worker] => {
                let pid = pid.parse().map_err(|_| bad(line))?;
                by_pid.insert(pid, stamps.runs.len());
                stamps.runs.push(CliRun {
                    pid,
                    provider: (*provider).to_owned(),
                    tag: (*tag).to_owned(),
                    worker: worker.parse().map_err(|_| bad(line))?,
                    start: num(ns)?,
                    due: None,
                    end: None,
                });
            }
            ["end", pid, ns, how] => {
                let pid: u32 = pid.parse().map_err(|_| bad(line))?;
                let i = *by_pid.get(&pid).ok_or_else(|| bad(line))?;
                stamps.runs[i].end = Some((num(ns)?, (*how).to_owned()));
            }
            ["due", pid, ns] => {
                let pid: u32 = pid.parse().map_err(|_| bad(line))?;
                let i = *by_pid.get(&pid).ok_or_else(|| bad(line))?;
                stamps.runs[i].due = Some(num(ns)?);
            }
            ["window", open, reset] => stamps.windows.push((num(open)?, num(reset)?)),
            _ => return Err(bad(line)),
        }
    }
    Ok(stamps)
}

/// A live stand-in of this drill, seen in `/proc`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveCli {
    pub pid: u32,
    pub provider: String,
}

/// The stand-ins of this drill alive now: processes whose argv is
/// `CLI PROVIDER DIR ...` with this drill's folder (zombies, whose argv is
/// gone, are not alive).
pub fn live_clis(cli: &Path, dir: &Path) -> Vec<LiveCli> {
    let (cli, dir) = (
        cli.as_os_str().as_encoded_bytes(),
        dir.as_os_str().as_encoded_bytes(),
    );
    pids()
        .into_iter()
        .filter_map(|pid| {
            let argv = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let mut parts = argv.split(|b| *b == 0);
            if parts.next()? != cli {
                return None;
            }
            let provider = String::from_utf8_lossy(parts.next()?).into_owned();
            (parts.next()? == dir).then_some(LiveCli { pid, provider })
        })
        .collect()
}

fn pids() -> Vec<u32> {
    std::fs::read_dir("/proc").map_or_else(
        |_| Vec::new(),
        |dir| {
            dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        },
    )
}

/// The parent pid of `pid`, from `/proc/PID/stat`.
pub fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Whether `pid` is a descendant of `ancestor` now.
pub fn descends_from(pid: u32, ancestor: u32) -> bool {
    let mut p = pid;
    for _ in 0..64 {
        match parent_of(p) {
            Some(parent) if parent == ancestor => return true,
            Some(parent) if parent > 1 => p = parent,
            _ => return false,
        }
    }
    false
}

/// What the `/proc` sampler saw.
#[derive(Debug, Default, Clone)]
pub struct Sampled {
    /// The most stand-ins of provider a alive in one sample.
    pub max_a: usize,
    pub samples: u64,
    /// When each stand-in was first seen gone (ns), after it was seen
    /// alive: an upper bound on its end, for one killed without a stamp.
    pub gone: HashMap<u32, u128>,
}

/// A thread sampling `/proc` until stopped: the most provider-a stand-ins
/// alive at once.
#[derive(Debug)]
pub struct Sampler {
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Sampled>>,
    thread: Option<JoinHandle<()>>,
}

impl Sampler {
    pub fn start(cli: PathBuf, dir: PathBuf) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Sampled::default()));
        let thread = {
            let (stop, seen) = (stop.clone(), seen.clone());
            std::thread::spawn(move || {
                let mut alive: Vec<u32> = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    let live = live_clis(&cli, &dir);
                    let at = crate::now_ns();
                    let a = live.iter().filter(|c| c.provider == "a").count();
                    let now: Vec<u32> = live.iter().map(|c| c.pid).collect();
                    if let Ok(mut s) = seen.lock() {
                        s.max_a = s.max_a.max(a);
                        s.samples += 1;
                        for pid in alive.iter().filter(|p| !now.contains(p)) {
                            s.gone.entry(*pid).or_insert(at);
                        }
                    }
                    alive = now;
                    std::thread::sleep(Duration::from_millis(15));
                }
            })
        };
        Sampler {
            stop,
            seen,
            thread: Some(thread),
        }
    }

    /// Stop; what it saw.
    pub fn finish(mut self) -> Sampled {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}
