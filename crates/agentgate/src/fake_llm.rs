//! `agentgate fake-llm`.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use agentgate_fakellm::{Answers, FakeLlm, Recording, Script, ServerOptions, Tls};
use anyhow::Context;

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Port to listen on (0 picks a free one). The bound URL is printed as
    /// the first line of stdout.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Address to listen on. Keep it on loopback.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
    /// The script to play (YAML; see SCRIPT FORMAT below). Without it every
    /// request gets a friendly default answer.
    #[arg(long, short = 's', env = "AGENTGATE_FAKE_LLM_SCRIPT")]
    script: Option<PathBuf>,
    /// Serve a gateway recording (`model-calls.jsonl` of a run made with
    /// `agentgate run --gateway --record-model-calls`) instead of a script:
    /// the n-th request of an API gets the n-th recorded response of that
    /// API (status, headers, body; an event stream event by event); a
    /// request past the recording gets HTTP 400 in the API's error shape.
    #[arg(long, value_name = "FILE", conflicts_with = "script")]
    replay: Option<PathBuf>,
    /// Serve HTTPS with this PEM certificate chain (the server's certificate
    /// first); needs --tls-key. The printed URL is then https://...
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Answer a model request that does not carry this API key (in
    /// `x-api-key`, `authorization: Bearer`, `x-goog-api-key` or `?key=`)
    /// with HTTP 401 in its API's shape, as a real API does (e.g. to check
    /// that a gateway puts the real key on the calls of a CLI that holds
    /// only a stub). Also AGENTGATE_FAKE_LLM_KEY.
    #[arg(
        long,
        value_name = "KEY",
        env = "AGENTGATE_FAKE_LLM_KEY",
        hide_env_values = true
    )]
    require_key: Option<String>,
    /// Append one JSON line per request to this file.
    #[arg(long, short = 'l')]
    log: Option<PathBuf>,
    /// Exit by itself after this many seconds.
    #[arg(long)]
    max_seconds: Option<u64>,
    /// Check the script (or the recording, and the TLS files) and exit
    /// (prints the number of turns or calls).
    #[arg(long)]
    check: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (answers, summary) = match (&args.replay, &args.script) {
        (Some(p), _) => {
            let recording = Recording::from_path(p)?;
            let summary = format!("recording ok: {} call(s)", recording.len());
            (Answers::Replay(recording), summary)
        }
        (None, Some(p)) => {
            let script = Script::from_path(p)?;
            let summary = format!("script ok: {} turn(s)", script.turns.len());
            (Answers::Script(script), summary)
        }
        (None, None) => (
            Answers::Script(Script::default()),
            "script ok: 0 turn(s)".into(),
        ),
    };
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(Tls::from_pem_files(cert, key)?),
        _ => None,
    };
    if args.check {
        Stdout::new().line(summary)?;
        return Ok(ExitCode::SUCCESS);
    }
    let options = ServerOptions {
        answers,
        log_path: args.log.clone(),
        tls,
        require_key: args.require_key.clone(),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    rt.block_on(serve(args, options))
}

async fn serve(args: Args, options: ServerOptions) -> anyhow::Result<ExitCode> {
    let addr = SocketAddr::new(args.host, args.port);
    let server = FakeLlm::start(addr, options)
        .await
        .with_context(|| format!("failed to listen on {addr}"))?;
    Stdout::new().line(server.url())?;
    let limit = async {
        match args.max_seconds {
            Some(s) => tokio::time::sleep(Duration::from_secs(s)).await,
            None => std::future::pending().await,
        }
    };
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("failed to watch SIGTERM")?;
    tokio::select! {
        () = limit => {}
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    // Hanging requests are released at once; give open connections a moment.
    let _ = tokio::time::timeout(Duration::from_secs(2), server.shutdown()).await;
    Ok(ExitCode::SUCCESS)
}
