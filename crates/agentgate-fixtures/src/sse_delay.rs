//! The delay from a CLI's line to an SSE client: what a chat bot that
//! streams an agent's answer through `agentgate serve` waits for each piece.
//!
//! The job runs `instant-cli` with [`job_env`]: after its init line it waits
//! for a release file, then prints `tick <ns>` answers, each stamped with
//! the wall clock as it prints them. [`measure`] follows the run
//! (`GET /v1/runs/{id}/events`), releases the CLI once the stream is open,
//! and for each `tick` event takes the time it arrived minus its stamp;
//! the CLI, the server and the client share one host and one clock.
//!
//! For the bench (`bench-queue`, `bench-sse`):
//!
//! ```text
//! let release = dir.join("release-1");
//! let body = json!({ ..., "providers": ["claude"], "env": sse_delay::job_env(50, 20, &release) });
//! // POST /v1/runs with body (the server's claude is instant-cli) -> run_id
//! let delays = sse_delay::measure(&url, token, &run_id, &release)?;
//! println!("{:.1} ms median, {:.1} ms p90", delays.median_ms(), delays.p90_ms());
//! ```
//!
//! [`measure`] works the same against any `serve`: one with its own
//! executor, or a `serve --no-executor` following a worker's run on
//! PostgreSQL.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;

use serde_json::{Value, json};

use crate::bench::{LIMIT, median_ms, now_ns, percentile_ms};

/// The delays of one run's `tick` events, in ns, in the order received.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseDelays {
    /// Arrival at the client minus the CLI's stamp, per `tick` event.
    pub delays_ns: Vec<u128>,
}

impl SseDelays {
    /// The median delay, in ms.
    pub fn median_ms(&self) -> f64 {
        median_ms(&self.delays_ns)
    }

    /// The 90th percentile, in ms.
    pub fn p90_ms(&self) -> f64 {
        percentile_ms(&self.delays_ns, 0.9)
    }

    /// The longest delay, in ms.
    pub fn max_ms(&self) -> f64 {
        percentile_ms(&self.delays_ns, 1.0)
    }

    /// These delays and `other`'s, for a summary over several runs.
    pub fn extend(&mut self, other: &SseDelays) {
        self.delays_ns.extend_from_slice(&other.delays_ns);
    }
}

/// The `env` of a job whose `instant-cli` prints `ticks` stamped answers,
/// one every `every_ms`, once `release` exists.
pub fn job_env(ticks: u32, every_ms: u64, release: &Path) -> Value {
    json!({
        "INSTANT_CLI_TICKS": ticks.to_string(),
        "INSTANT_CLI_TICK_MS": every_ms.to_string(),
        "INSTANT_CLI_HOLD_FILE": release.display().to_string(),
    })
}

/// Follows run `run_id` through the server at `url` (with bearer `token`)
/// to its `result`, creating `release` once the stream is open; the delay
/// of every `tick` event. An error if the stream fails or ends first, or
/// if no tick came.
pub fn measure(url: &str, token: &str, run_id: &str, release: &Path) -> Result<SseDelays, String> {
    let addr = url.trim_start_matches("http://");
    let mut socket = TcpStream::connect(addr).map_err(|e| format!("{url}: {e}"))?;
    socket
        .set_read_timeout(Some(LIMIT))
        .map_err(|e| e.to_string())?;
    socket.set_nodelay(true).map_err(|e| e.to_string())?;
    write!(
        socket,
        "GET /v1/runs/{run_id}/events HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\
         Authorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(socket);
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|e| e.to_string())?;
    if line.split(' ').nth(1) != Some("200") {
        return Err(format!("GET /v1/runs/{run_id}/events: {}", line.trim_end()));
    }
    // The rest of the head; the stream is open once it is read.
    loop {
        line.clear();
        let n = reader.read_line(&mut line).map_err(|e| e.to_string())?;
        if n == 0 || line.trim_end().is_empty() {
            break;
        }
    }
    std::fs::write(release, b"").map_err(|e| format!("{}: {e}", release.display()))?;
    let mut delays = SseDelays::default();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).map_err(|e| e.to_string())?;
        let arrived = now_ns();
        if n == 0 {
            return Err(format!(
                "the event stream of {run_id} ended before its result ({} ticks)",
                delays.delays_ns.len()
            ));
        }
        // Chunk sizes and other fields are skipped: each event is one chunk.
        let Some(data) = line.trim_end().strip_prefix("data:") else {
            continue;
        };
        let event: Value = serde_json::from_str(data.trim()).map_err(|e| e.to_string())?;
        if let Some(stamp) = event["text"]
            .as_str()
            .and_then(|t| t.trim().strip_prefix("tick "))
            .and_then(|t| t.parse::<u128>().ok())
        {
            delays.delays_ns.push(arrived.saturating_sub(stamp));
        }
        if event["type"] == "result" {
            break;
        }
    }
    if delays.delays_ns.is_empty() {
        return Err(format!("run {run_id} printed no tick"));
    }
    Ok(delays)
}
