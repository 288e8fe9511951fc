//! `agentgate parse`: re-process a saved capture of a CLI's output.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agentgate_core::config::Config;
use agentgate_core::run::parse_capture;
use anyhow::Context;

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which CLI printed the capture (any provider `agentgate providers` lists).
    #[arg(long, short = 'p')]
    provider: String,
    /// The CLI's stdout as saved; `-` or none reads stdin.
    file: Option<PathBuf>,
    /// The CLI's stderr as saved, if you have it.
    #[arg(long)]
    stderr: Option<PathBuf>,
    /// The CLI's exit code, if known.
    #[arg(long, allow_hyphen_values = true)]
    exit_code: Option<i32>,
    /// Print the event stream (JSON lines, ending with `result`) instead of
    /// the envelope.
    #[arg(long)]
    events: bool,
}

pub fn run(args: Args, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let stdout = match args.file.as_deref() {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::read(p).with_context(|| format!("failed to read {}", p.display()))?
        }
        _ => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .context("failed to read stdin")?;
            buf
        }
    };
    let stderr = match &args.stderr {
        Some(p) => std::fs::read(p).with_context(|| format!("failed to read {}", p.display()))?,
        None => Vec::new(),
    };
    let (events, envelope, _exit) = parse_capture(
        Config::load(config)?
            .resolve_provider(&args.provider)?
            .as_ref(),
        &stdout,
        &stderr,
        args.exit_code,
    );
    let mut out = Stdout::new();
    if args.events {
        for e in &events {
            out.json_line(e)?;
        }
    } else {
        out.json(&envelope, None)?;
    }
    Ok(ExitCode::SUCCESS)
}
