//! `agentgate fake-llm`.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use agentgate_fakellm::{FakeLlm, Script, ServerConfig};
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
    /// Append one JSON line per request to this file.
    #[arg(long, short = 'l')]
    log: Option<PathBuf>,
    /// Exit by itself after this many seconds.
    #[arg(long)]
    max_seconds: Option<u64>,
    /// Check the script and exit (prints the number of turns).
    #[arg(long)]
    check: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let script = match &args.script {
        Some(p) => Script::from_path(p)?,
        None => Script::default(),
    };
    if args.check {
        Stdout::new().line(format_args!("script ok: {} turn(s)", script.turns.len()))?;
        return Ok(ExitCode::SUCCESS);
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    rt.block_on(serve(args, script))
}

async fn serve(args: Args, script: Script) -> anyhow::Result<ExitCode> {
    let addr = SocketAddr::new(args.host, args.port);
    let server = FakeLlm::start(
        addr,
        ServerConfig {
            script,
            log_path: args.log.clone(),
        },
    )
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
