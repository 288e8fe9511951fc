//! The gateway's cost, measured: the time to first byte and the total time
//! of N streamed model calls straight to an in-process model server
//! (agentgate-fakellm) and through the gateway, side by side and
//! interleaved in one run (the model server's sockets without Nagle's
//! delay, as a production server's are) (p50/p90 and the difference), then the gateway's
//! memory per concurrent stream: the resident size of a process serving
//! only the gateway (this program re-run with `--serve-gateway URL`), idle
//! and with 200 slow streams open, divided by 200. Prints figures; asserts
//! nothing.
//!
//! `cargo run --release -p agentgate-gateway --example bench_gateway [-- CALLS]`
#![expect(
    clippy::unwrap_used,
    reason = "a bench program: a failure ends it with its message"
)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentgate_fakellm::server::{Shared, router};
use agentgate_fakellm::{Script, ServerConfig};
use agentgate_gateway::{Gateway, GatewayConfig, KeyMode};
use axum::serve::ListenerExt;
use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

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

const CONCURRENT: usize = 200;

type HttpClient = Client<HttpConnector, Full<Bytes>>;

fn body(prompt: &str) -> String {
    format!(
        r#"{{"model":"claude-sonnet-4-5","max_tokens":256,"stream":true,"messages":[{{"role":"user","content":"{prompt}"}}]}}"#
    )
}

/// One streamed call: (time to the first body byte, total time).
async fn timed_call(client: &HttpClient, url: &str, prompt: &str) -> (Duration, Duration) {
    let request = Request::post(url)
        .header("content-type", "application/json")
        .header("x-api-key", "bench")
        .body(Full::new(Bytes::from(body(prompt))))
        .unwrap();
    let start = Instant::now();
    let response = client.request(request).await.unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    let mut body = response.into_body();
    let mut first = None;
    while let Some(frame) = body.frame().await {
        let frame = frame.unwrap();
        if first.is_none() && frame.data_ref().is_some_and(|d| !d.is_empty()) {
            first = Some(start.elapsed());
        }
    }
    (first.unwrap_or_default(), start.elapsed())
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at].as_secs_f64() * 1000.0
}

fn stats(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    (percentile(&v, 0.5), percentile(&v, 0.9))
}

/// VmRSS of a process, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// `--serve-gateway URL`: serve a gateway to URL, print its base URL, run
/// until stdin closes.
async fn serve_gateway(upstream: String) {
    let (gateway, mut notices) = Gateway::start(GatewayConfig::new(upstream, KeyMode::Passthrough))
        .await
        .unwrap();
    println!("{}", gateway.base_url());
    tokio::spawn(async move { while notices.recv().await.is_some() {} });
    tokio::task::spawn_blocking(|| {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
    })
    .await
    .unwrap();
    gateway.shutdown().await;
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve-gateway") {
        serve_gateway(args[2].clone()).await;
        return;
    }
    let calls: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(500);

    let upstream = start_upstream().await;
    let (gateway, mut notices) =
        Gateway::start(GatewayConfig::new(upstream.clone(), KeyMode::Passthrough))
            .await
            .unwrap();
    tokio::spawn(async move { while notices.recv().await.is_some() {} });

    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    let client: HttpClient = Client::builder(TokioExecutor::new()).build(connector);
    let direct_url = format!("{}/v1/messages", upstream);
    let gateway_url = format!("{}/v1/messages", gateway.base_url());
    for _ in 0..20 {
        timed_call(&client, &direct_url, "warm up").await;
        timed_call(&client, &gateway_url, "warm up").await;
    }
    let (mut direct, mut through) = (Vec::new(), Vec::new());
    for i in 0..calls {
        // Interleaved, alternating which goes first.
        if i % 2 == 0 {
            direct.push(timed_call(&client, &direct_url, "hello").await);
            through.push(timed_call(&client, &gateway_url, "hello").await);
        } else {
            through.push(timed_call(&client, &gateway_url, "hello").await);
            direct.push(timed_call(&client, &direct_url, "hello").await);
        }
    }
    let split = |v: &[(Duration, Duration)]| -> ((f64, f64), (f64, f64)) {
        (
            stats(v.iter().map(|c| c.0).collect()),
            stats(v.iter().map(|c| c.1).collect()),
        )
    };
    let ((d_ttfb50, d_ttfb90), (d_tot50, d_tot90)) = split(&direct);
    let ((g_ttfb50, g_ttfb90), (g_tot50, g_tot90)) = split(&through);
    println!("{calls} streamed Anthropic calls each way, interleaved (ms)");
    println!("                 direct p50  p90   gateway p50  p90   added p50  p90");
    println!(
        "first byte       {d_ttfb50:>10.3} {d_ttfb90:>5.3}  {g_ttfb50:>11.3} {g_ttfb90:>5.3}  {:>9.3} {:>5.3}",
        g_ttfb50 - d_ttfb50,
        g_ttfb90 - d_ttfb90
    );
    println!(
        "whole call       {d_tot50:>10.3} {d_tot90:>5.3}  {g_tot50:>11.3} {g_tot90:>5.3}  {:>9.3} {:>5.3}",
        g_tot50 - d_tot50,
        g_tot90 - d_tot90
    );
    gateway.shutdown().await;

    // Memory: a process that serves only the gateway.
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args(["--serve-gateway", &upstream])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line.trim().to_owned();
    let slow_url = format!("{base}/v1/messages");
    for _ in 0..5 {
        timed_call(&client, &slow_url, "warm up").await;
    }
    let idle = rss_kib(child.id());
    let mut bodies = Vec::new();
    for _ in 0..CONCURRENT {
        let request = Request::post(slow_url.as_str())
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body("SLOW"))))
            .unwrap();
        bodies.push(client.request(request));
    }
    let mut open = Vec::new();
    for response in futures_join(bodies).await {
        let mut body = response.unwrap().into_body();
        // Each stream has sent its first event: all 200 are open.
        body.frame().await.unwrap().unwrap();
        open.push(body);
    }
    let busy = rss_kib(child.id());
    let per_stream = busy.saturating_sub(idle) as f64 / CONCURRENT as f64;
    println!(
        "gateway process RSS: idle {idle} KiB, with {CONCURRENT} open streams {busy} KiB: {per_stream:.1} KiB per concurrent stream"
    );
    for mut body in open {
        while body.frame().await.is_some() {}
    }
    drop(child.stdin.take());
    let _ = child.wait();
}

/// agentgate-fakellm's server playing [`SCRIPT`] on 127.0.0.1:0, its
/// sockets without Nagle's delay like any production server (FakeLlm::start
/// leaves it on: its first body frame after the head then waits for the
/// reader's delayed ACK, ~40 ms, whoever reads it); its base URL.
async fn start_upstream() -> String {
    let shared = Shared::new(ServerConfig {
        script: Script::parse(SCRIPT).unwrap(),
        log_path: None,
    })
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move { axum::serve(listener, router(shared)).await });
    format!("http://{addr}")
}

/// Await every response future at once (the 200 streams open together).
async fn futures_join<F>(futures: Vec<F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.into_iter().map(tokio::spawn).collect();
    let mut out = Vec::with_capacity(handles.len());
    for handle in handles {
        out.push(handle.await.unwrap());
    }
    out
}
