//! The partition drill (`--partition`): the workers as hosts of their own
//! (`netns.rs`), one cut off from the database while it runs a long job,
//! for longer than its lease, then healed; and what must hold of it,
//! checked from the stamps and from the database's own record of every
//! write (an audit trigger, [`install_audit`]).
//!
//! The sequence: worker 0 starts alone (it also serves `drill-q`, a
//! provider no other worker serves) and claims the `long` job (its
//! stand-in runs 15 s); the other workers start; the drill cuts worker 0
//! off, queues the probe (a `drill-q` job only worker 0 can run), waits
//! until the long job's stand-in under worker 0 has ended and another
//! worker has started it again, and two leases have passed, heals, and waits until worker 0 runs the
//! probe. Every wait is bounded ([`LIMIT`]).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentgate_fixtures::database::query;
use serde_json::json;

use crate::evidence::{Sampled, live_clis, read_stamps};
use crate::http::request;
use crate::now_ns;

/// The longest each step of the partition waits for what it waits for.
pub const LIMIT: Duration = Duration::from_secs(90);

/// The long job's tag (its prompt also says `long`).
pub const LONG_TAG: &str = "tag-long";

/// The probe's tag.
pub const PROBE_TAG: &str = "tag-probe";

/// The provider only the cut-off worker serves.
pub const PROBE_PROVIDER: &str = "drill-q";

/// What the partition did.
#[derive(Debug, Clone, Default)]
pub struct Cut {
    /// The cut-off worker's pid and address.
    pub victim: u32,
    pub victim_ip: String,
    pub long_id: String,
    pub probe_id: String,
    pub cut_ns: u128,
    pub heal_ns: u128,
}

/// A PostgreSQL cluster of the drill's own, listening on the bridge;
/// stopped on drop.
#[derive(Debug)]
pub struct OwnCluster {
    script: PathBuf,
    dir: PathBuf,
    /// Its URL over the Unix socket (the serve, the checks).
    pub local_url: String,
    /// Its URL on the bridge, without the database's name.
    pub bridge_base: String,
}

impl OwnCluster {
    pub fn start(script: &Path, dir: &Path, address: &str) -> Result<OwnCluster, String> {
        let port = 20000 + std::process::id() % 20000;
        let out = Command::new(script)
            .args(["start"])
            .arg(dir)
            .env("PG_CLUSTER_LISTEN", address)
            .env("PG_CLUSTER_PORT", port.to_string())
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{}: {e}", script.display()))?;
        let cluster = OwnCluster {
            script: script.to_path_buf(),
            dir: dir.to_path_buf(),
            local_url: format!(
                "postgres://agentgate@localhost:{port}/postgres?host={}",
                dir.display()
            ),
            bridge_base: format!("postgres://agentgate@{address}:{port}"),
        };
        if !out.status.success() {
            return Err(format!(
                "starting the drill's PostgreSQL on {address}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(cluster)
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        let _ = Command::new(&self.script)
            .arg("stop")
            .arg(&self.dir)
            .stdin(Stdio::null())
            .output();
    }
}

/// Record every write to the jobs, runs, attempts and events, with the
/// database's clock and the writer's address, in `drill_audit`.
pub fn install_audit(url: &str) -> Result<(), String> {
    let mut sql = String::from(
        "CREATE TABLE drill_audit (at timestamptz NOT NULL, tbl text NOT NULL, id text, \
         client inet, old_token text, new_token text, expires timestamptz, state text); \
         CREATE FUNCTION drill_audit_job() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
         INSERT INTO drill_audit VALUES (clock_timestamp(), 'jobs', NEW.job_id, \
         inet_client_addr(), CASE WHEN TG_OP = 'UPDATE' THEN OLD.lease_token END, \
         NEW.lease_token, NEW.lease_expires_at, NEW.state); RETURN NEW; END $$; \
         CREATE FUNCTION drill_audit_run() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
         INSERT INTO drill_audit (at, tbl, id, client) VALUES (clock_timestamp(), \
         TG_TABLE_NAME, NEW.run_id, inet_client_addr()); RETURN NEW; END $$; \
         CREATE TRIGGER drill_audit AFTER INSERT OR UPDATE ON jobs \
         FOR EACH ROW EXECUTE FUNCTION drill_audit_job();",
    );
    for table in ["runs", "attempts", "run_events"] {
        sql.push_str(&format!(
            " CREATE TRIGGER drill_audit AFTER INSERT OR UPDATE ON {table} \
             FOR EACH ROW EXECUTE FUNCTION drill_audit_run();"
        ));
    }
    query(url, &sql).map(drop)
}

/// Submit a job with `prompt` on `provider`; its id.
pub fn submit(
    url: &str,
    work: &Path,
    provider: &str,
    tag: &str,
    words: &str,
) -> Result<String, String> {
    let body = json!({"prompt": format!("drill job {tag} {words}"), "providers": [provider],
                      "permission_mode": "plan", "cwd": work.display().to_string(),
                      "idempotency_key": format!("drill-key-{tag}")});
    let (status, answer) = request(url, "POST", "/v1/runs", Some(&body))?;
    if status != 201 {
        return Err(format!("POST /v1/runs answered {status}: {answer}"));
    }
    answer["run_id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("no run_id in {answer}"))
}

/// Wait (at most [`LIMIT`]) until `done` holds of the stamps.
pub fn wait_for_stamps(
    stamps: &Path,
    what: &str,
    done: impl Fn(&crate::evidence::Stamps) -> bool,
) -> Result<(), String> {
    let start = Instant::now();
    while start.elapsed() < LIMIT {
        if done(&read_stamps(stamps)?) {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!(
        "the partition drill waited {LIMIT:?} in vain for {what}"
    ))
}

/// Cut `victim` (worker 0) off, queue the probe, wait for the takeover,
/// heal, wait for the probe to run on it (see the module notes).
pub fn cut_and_heal(
    network: &crate::netns::Network,
    url: &str,
    (work, stamps, cli, cli_dir): (&Path, &Path, &Path, &Path),
    mut cut: Cut,
) -> Result<Cut, String> {
    let victim = cut.victim;
    cut.cut_ns = now_ns();
    network.cut(0)?;
    let waited = (|| {
        cut.probe_id = submit(url, work, PROBE_PROVIDER, PROBE_TAG, "")?;
        wait_for_stamps(
            stamps,
            "the long job's stand-in to end and another worker to start it again",
            |s| {
                let long: Vec<_> = s.runs.iter().filter(|r| r.tag == LONG_TAG).collect();
                let live = live_clis(cli, cli_dir);
                long.iter()
                    .any(|r| r.worker == victim && !live.iter().any(|c| c.pid == r.pid))
                    && long.iter().any(|r| r.worker != victim)
            },
        )
    })();
    // Cut off for two leases at least.
    let held = (crate::cluster::LEASE_SECS * 2 * 1_000_000_000) as u128;
    while waited.is_ok() && now_ns() < cut.cut_ns + held {
        std::thread::sleep(Duration::from_millis(50));
    }
    cut.heal_ns = now_ns();
    network.heal(0)?;
    waited?;
    wait_for_stamps(stamps, "the healed worker to run the probe", |s| {
        s.runs
            .iter()
            .any(|r| r.tag == PROBE_TAG && r.worker == victim && r.start > cut.heal_ns)
    })?;
    Ok(cut)
}

/// How the cut-off worker's lease ended (ms): its stand-in gone before
/// the lease's end in the database; the lease taken back after it.
#[derive(Debug, Clone, Copy)]
pub struct Margins {
    pub gone_before_ms: u128,
    pub taken_after_ms: u128,
}

/// What the partition must leave (see docs/operating/fault-drill.md):
/// the cut-off worker's stand-in ended before its lease could end in the
/// database; nothing it wrote for the long job landed after the lease was
/// taken back; it ran the probe after the heal. The failures, and how
/// long (ms) before the lease's end its stand-in was gone and how long
/// after it the lease was taken back.
pub fn check(
    cut: &Cut,
    stamps: &crate::evidence::Stamps,
    sampled: &Sampled,
    db_url: &str,
    lease: Duration,
) -> Result<(Vec<String>, Option<Margins>), String> {
    let mut fails = Vec::new();
    let mut margins = None;
    let long = |id: &str| format!("(id = '{id}' OR id LIKE '{id}.%')");
    // The victim's lease on the long job: its last expiry that landed.
    let rows = query(
        db_url,
        &format!(
            "SELECT new_token, (extract(epoch FROM expires) * 1e6)::bigint FROM drill_audit \
             WHERE tbl = 'jobs' AND id = '{}' AND client = '{}' AND new_token IS NOT NULL \
             ORDER BY at",
            cut.long_id, cut.victim_ip
        ),
    )?;
    let landed: Vec<(String, u128)> = rows
        .lines()
        .filter_map(|l| {
            let (token, us) = l.split_once('|')?;
            Some((token.to_owned(), us.parse::<u128>().ok()? * 1000))
        })
        .collect();
    let Some((token, expires_ns)) = landed.last().cloned() else {
        return Ok((
            vec![format!(
                "the cut-off worker ({}) never held the long job {} in the database",
                cut.victim_ip, cut.long_id
            )],
            None,
        ));
    };
    // The take-back: the first write that ended the victim's lease.
    let taken = query(
        db_url,
        &format!(
            "SELECT (extract(epoch FROM at) * 1e6)::bigint, coalesce(host(client), 'local') \
             FROM drill_audit WHERE tbl = 'jobs' AND id = '{}' AND old_token = '{token}' \
             AND new_token IS DISTINCT FROM '{token}' ORDER BY at LIMIT 1",
            cut.long_id
        ),
    )?;
    let Some((taken_ns, taker)) = taken.lines().next().and_then(|l| {
        let (us, who) = l.split_once('|')?;
        Some((us.parse::<u128>().ok()? * 1000, who.to_owned()))
    }) else {
        return Ok((
            vec![format!(
                "the cut-off worker's lease on {} was never taken back",
                cut.long_id
            )],
            None,
        ));
    };
    if taker == cut.victim_ip {
        fails.push(format!(
            "the lease on {} was ended by the cut-off worker itself",
            cut.long_id
        ));
    }
    if taken_ns < expires_ns {
        fails.push(format!(
            "the lease on {} was taken back {} ms before it expired",
            cut.long_id,
            (expires_ns - taken_ns) / 1_000_000
        ));
    }
    // Its stand-in ended before the lease could end.
    let mine: Vec<_> = stamps
        .runs
        .iter()
        .filter(|r| r.tag == LONG_TAG && r.worker == cut.victim)
        .collect();
    // Killed at once (SIGKILL: no stamp of its own), so the end is when
    // the /proc sampler first saw it gone; or its stamp of a signal.
    for r in &mine {
        let ended = match &r.end {
            Some((t, how)) if how.starts_with("sig-") => Some(*t),
            Some(_) => None,
            None => sampled.gone.get(&r.pid).copied(),
        };
        match ended {
            Some(t) if t < expires_ns => {
                margins = Some(Margins {
                    gone_before_ms: (expires_ns - t) / 1_000_000,
                    taken_after_ms: taken_ns.saturating_sub(expires_ns) / 1_000_000,
                });
            }
            _ => fails.push(format!(
                "the cut-off worker's stand-in {} ended {:?} (seen gone at {:?}), not by its \
                 termination before its lease's end at {expires_ns}",
                r.pid,
                r.end,
                sampled.gone.get(&r.pid)
            )),
        }
    }
    if mine.is_empty() {
        fails.push("the cut-off worker ran no stand-in of the long job".into());
    }
    // Nothing it wrote for the long job landed after the take-back.
    let late = query(
        db_url,
        &format!(
            "SELECT tbl || ' ' || id FROM drill_audit WHERE {} AND client = '{}' \
             AND (extract(epoch FROM at) * 1e6)::bigint > {}",
            long(&cut.long_id),
            cut.victim_ip,
            taken_ns / 1000
        ),
    )?;
    for row in late.lines().filter(|l| !l.is_empty()) {
        fails.push(format!(
            "a write of the cut-off worker landed after its lease was taken back: {row}"
        ));
    }
    // The cut lasted longer than the lease, and the worker came back.
    if cut.heal_ns.saturating_sub(cut.cut_ns) <= lease.as_nanos() {
        fails.push(format!(
            "the cut lasted {} ms, not longer than the lease",
            (cut.heal_ns - cut.cut_ns) / 1_000_000
        ));
    }
    if !stamps
        .runs
        .iter()
        .any(|r| r.tag == PROBE_TAG && r.worker == cut.victim && r.start > cut.heal_ns)
    {
        fails.push("the healed worker did not run the probe".into());
    }
    Ok((fails, margins))
}
