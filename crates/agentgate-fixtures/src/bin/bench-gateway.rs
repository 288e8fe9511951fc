//! The model gateway's cost, measured (`scripts/bench-gateway.sh`).
//!
//! `bench-gateway [--calls N] [--streams N]` runs two parts:
//!
//! - **Latency**: the time to first byte and the total time of N streamed
//!   Anthropic Messages calls straight to an in-process model server
//!   (agentgate-fakellm's router, its sockets without Nagle's delay, as a
//!   production server's are) and through an `agentgate-gateway` in front
//!   of it, side by side and interleaved in one process (alternating which
//!   goes first, so that machine noise hits both alike): p50 and p90 of
//!   each, and the gateway's added time.
//! - **Memory**: the resident size of a process serving only the gateway
//!   (this program re-run as `bench-gateway __serve-gateway URL`), idle and
//!   with N slow streams open at once, the difference divided by N.
//!
//! Every call must answer 2xx and every stream must open; anything else
//! ends the benchmark with exit 1. Timings never fail it.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use agentgate_fakellm::server::{Shared, router};
use agentgate_fakellm::{Script, ServerConfig};
use agentgate_fixtures::bench::{load_average, machine, rss_kib};
use agentgate_gateway::{Gateway, GatewayConfig, KeyMode};
use axum::serve::ListenerExt;
use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

const USAGE: &str = "\
usage: bench-gateway [--calls N] [--streams N]

  --calls N      streamed calls each way, direct and through the gateway (default 500)
  --streams N    concurrent slow streams for the memory figure (default 200)";

/// The model server's script: a long streamed answer, and a slow one (one
/// character every 200 ms) for the streams held open.
const SCRIPT: &str = r#"
turns:
  - match: {contains: "SLOW"}
    repeat: true
    chunk_delay_ms: 200
    text: "abcdefghijklmnopqrst"
    chunk_chars: 1
  - repeat: true
    text: "The gateway stands between the CLI and its model: it forwards each call, reads the usage and the rate limits off the wire, and holds the real key. This answer is long enough to stream in many small events."
    chunk_chars: 12
    usage: {input: 1200, output: 40, cache_read: 800}
"#;

/// The hidden first argument that makes this program a gateway server.
const SERVE_GATEWAY: &str = "__serve-gateway";

/// Warm-up calls each way before the timed ones.
const WARMUP: usize = 20;

type HttpClient = Client<HttpConnector, Full<Bytes>>;

/// How many calls and streams.
struct Config {
    calls: usize,
    streams: usize,
}

impl Config {
    /// The flags, or `None` for `--help`.
    fn parse(args: &[String]) -> Result<Option<Config>, String> {
        let mut config = Config {
            calls: 500,
            streams: 200,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut count = |name: &str| -> Result<usize, String> {
                args.next()
                    .and_then(|v| v.parse().ok())
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("{name} takes a positive number"))
            };
            match arg.as_str() {
                "--calls" => config.calls = count("--calls")?,
                "--streams" => config.streams = count("--streams")?,
                "-h" | "--help" => return Ok(None),
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        Ok(Some(config))
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("bench-gateway: tokio: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.first().map(String::as_str) == Some(SERVE_GATEWAY) {
        let upstream = args.get(1).cloned().unwrap_or_default();
        return match runtime.block_on(serve_gateway(upstream)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(msg) => {
                eprintln!("bench-gateway {SERVE_GATEWAY}: {msg}");
                ExitCode::FAILURE
            }
        };
    }
    let config = match Config::parse(&args) {
        Ok(Some(c)) => c,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("bench-gateway: {msg}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(bench(&config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("bench-gateway: FAILED: {msg}");
            ExitCode::FAILURE
        }
    }
}

async fn bench(config: &Config) -> Result<(), String> {
    println!("machine: {}", machine());
    let load_before = load_average();
    let upstream = start_upstream().await?;
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    let client: HttpClient = Client::builder(TokioExecutor::new()).build(connector);

    latency(config, &client, &upstream).await?;
    println!(
        "load average (1, 5, 15 min): {load_before} before, {} after",
        load_average()
    );
    println!();
    memory(config, &client, &upstream).await
}

/// The latency part: direct and through the gateway, interleaved.
async fn latency(config: &Config, client: &HttpClient, upstream: &str) -> Result<(), String> {
    let (gateway, mut notices) = Gateway::start(GatewayConfig::new(upstream, KeyMode::Passthrough))
        .await
        .map_err(|e| format!("gateway: {e}"))?;
    tokio::spawn(async move { while notices.recv().await.is_some() {} });
    let direct_url = format!("{upstream}/v1/messages");
    let gateway_url = format!("{}/v1/messages", gateway.base_url());
    for _ in 0..WARMUP {
        timed_call(client, &direct_url, "warm up").await?;
        timed_call(client, &gateway_url, "warm up").await?;
    }
    let (mut direct, mut through) = (Vec::new(), Vec::new());
    for i in 0..config.calls {
        if i % 2 == 0 {
            direct.push(timed_call(client, &direct_url, "hello").await?);
            through.push(timed_call(client, &gateway_url, "hello").await?);
        } else {
            through.push(timed_call(client, &gateway_url, "hello").await?);
            direct.push(timed_call(client, &direct_url, "hello").await?);
        }
    }
    let summary = gateway.shutdown().await;
    let want = config.calls + WARMUP;
    if summary.model_calls as usize != want {
        return Err(format!(
            "the gateway counted {} calls, not {want}",
            summary.model_calls
        ));
    }
    let first = |v: &[Timing]| stats(v.iter().map(|c| c.first_byte).collect());
    let whole = |v: &[Timing]| stats(v.iter().map(|c| c.total).collect());
    println!(
        "{} streamed Anthropic Messages calls each way, interleaved, over loopback HTTP (ms)",
        config.calls
    );
    println!("             direct p50    p90   gateway p50    p90   added p50    p90");
    row("first byte", first(&direct), first(&through));
    row("whole call", whole(&direct), whole(&through));
    Ok(())
}

fn row(name: &str, (d50, d90): (f64, f64), (g50, g90): (f64, f64)) {
    println!(
        "{name:<12} {d50:>10.3} {d90:>6.3}  {g50:>11.3} {g90:>6.3}  {:>9.3} {:>6.3}",
        g50 - d50,
        g90 - d90
    );
}

/// The memory part: a process that serves only the gateway, idle and with
/// `config.streams` slow streams open.
async fn memory(config: &Config, client: &HttpClient, upstream: &str) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe)
        .args([SERVE_GATEWAY, upstream])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{SERVE_GATEWAY}: {e}"))?;
    let result = measure_memory(config, client, &mut child).await;
    // Closing its stdin ends the gateway process.
    drop(child.stdin.take());
    let _ = child.wait();
    result
}

async fn measure_memory(
    config: &Config,
    client: &HttpClient,
    child: &mut Child,
) -> Result<(), String> {
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let base = line.trim().to_owned();
    if !base.starts_with("http://") {
        return Err(format!("{SERVE_GATEWAY} printed no URL: {line:?}"));
    }
    let url = format!("{base}/v1/messages");
    for _ in 0..5 {
        timed_call(client, &url, "warm up").await?;
    }
    let idle = rss_kib(child.id())?;
    let mut pending = Vec::new();
    for _ in 0..config.streams {
        let request = post(&url, "SLOW")?;
        pending.push(tokio::spawn(client.request(request)));
    }
    let mut open = Vec::new();
    for handle in pending {
        let response = handle
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("slow stream: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("slow stream: {}", response.status()));
        }
        let mut body = response.into_body();
        // Its first event has come through: the stream is open end to end.
        match body.frame().await {
            Some(Ok(_)) => open.push(body),
            other => return Err(format!("slow stream ended at once: {other:?}")),
        }
    }
    let busy = rss_kib(child.id())?;
    let per_stream = busy.saturating_sub(idle) as f64 / config.streams as f64;
    println!(
        "gateway process RSS: idle {idle} KiB, with {} open streams {busy} KiB: {per_stream:.1} KiB per concurrent stream",
        config.streams
    );
    for mut body in open {
        while let Some(frame) = body.frame().await {
            frame.map_err(|e| format!("slow stream: {e}"))?;
        }
    }
    Ok(())
}

/// One call's times.
struct Timing {
    first_byte: Duration,
    total: Duration,
}

fn post(url: &str, prompt: &str) -> Result<Request<Full<Bytes>>, String> {
    let body = format!(
        r#"{{"model":"claude-sonnet-4-5","max_tokens":256,"stream":true,"messages":[{{"role":"user","content":"{prompt}"}}]}}"#
    );
    Request::post(url)
        .header("content-type", "application/json")
        .header("x-api-key", "bench")
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())
}

/// One streamed call, read to its end: the time to the first body byte and
/// the total time.
async fn timed_call(client: &HttpClient, url: &str, prompt: &str) -> Result<Timing, String> {
    let request = post(url, prompt)?;
    let start = Instant::now();
    let response = client
        .request(request)
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    if !response.status().is_success() {
        return Err(format!("{url}: {}", response.status()));
    }
    let mut body = response.into_body();
    let mut first_byte = None;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| format!("{url}: {e}"))?;
        if first_byte.is_none() && frame.data_ref().is_some_and(|d| !d.is_empty()) {
            first_byte = Some(start.elapsed());
        }
    }
    let total = start.elapsed();
    Ok(Timing {
        first_byte: first_byte.ok_or_else(|| format!("{url}: an empty body"))?,
        total,
    })
}

/// (p50, p90) in milliseconds.
fn stats(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    let at = |p: f64| {
        let i = ((v.len().saturating_sub(1)) as f64 * p).round() as usize;
        v.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    (at(0.5), at(0.9))
}

/// `__serve-gateway URL`: a gateway to URL; prints its base URL and runs
/// until stdin closes.
async fn serve_gateway(upstream: String) -> Result<(), String> {
    let (gateway, mut notices) = Gateway::start(GatewayConfig::new(upstream, KeyMode::Passthrough))
        .await
        .map_err(|e| e.to_string())?;
    println!("{}", gateway.base_url());
    tokio::spawn(async move { while notices.recv().await.is_some() {} });
    tokio::task::spawn_blocking(|| {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
    })
    .await
    .map_err(|e| e.to_string())?;
    gateway.shutdown().await;
    Ok(())
}

/// agentgate-fakellm's server playing [`SCRIPT`] on 127.0.0.1:0, its
/// sockets without Nagle's delay like any production server (`FakeLlm::start`
/// leaves it on: its first body frame after the head would then wait for
/// the reader's delayed ACK, ~40 ms, whoever reads it); its base URL.
async fn start_upstream() -> Result<String, String> {
    let script = Script::parse(SCRIPT).map_err(|e| e.to_string())?;
    let shared = Shared::new(ServerConfig {
        script,
        log_path: None,
    })
    .map_err(|e| e.to_string())?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move { axum::serve(listener, router(shared)).await });
    Ok(format!("http://{addr}"))
}
