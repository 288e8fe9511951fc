//! `agentgate parse`: re-process a saved capture of a CLI's output.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agentgate_core::Config;
use agentgate_core::{EventSink, parse_capture_streams};
use agentgate_protocol::Event;
use anyhow::Context;

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which CLI printed the capture (any provider `agentgate providers` lists).
    #[arg(long, short = 'p')]
    provider: String,
    /// The CLI's stdout as saved; `-` or none reads stdin. It is decoded a
    /// line at a time (any size, each line at most 32 MiB, the line limit).
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
    let provider = Config::load(config)?.resolve_provider(&args.provider)?;
    let stderr = match &args.stderr {
        Some(p) => {
            Some(BufReader::new(File::open(p).with_context(|| {
                format!("failed to read {}", p.display())
            })?))
        }
        None => None,
    };
    let mut out = Stdout::new();
    let mut sink = EventPrinter {
        print: args.events,
        out: &mut out,
        failed: None,
    };
    let decoded = match args.file.as_deref() {
        Some(p) if p.as_os_str() != "-" => {
            let file = File::open(p).with_context(|| format!("failed to read {}", p.display()))?;
            parse_capture_streams(
                provider.as_ref(),
                BufReader::new(file),
                stderr,
                args.exit_code,
                &mut sink,
            )
            .with_context(|| format!("failed to read {}", p.display()))
        }
        _ => parse_capture_streams(
            provider.as_ref(),
            std::io::stdin().lock(),
            stderr,
            args.exit_code,
            &mut sink,
        )
        .context("failed to read stdin"),
    };
    if let Some(failed) = sink.failed {
        return Err(failed);
    }
    let (envelope, _exit) = decoded?;
    if !args.events {
        out.json(&envelope, None)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints each event as a JSON line as it is decoded (with `--events`);
/// after a failed write, prints nothing more and keeps the error.
struct EventPrinter<'a> {
    print: bool,
    out: &'a mut Stdout,
    failed: Option<anyhow::Error>,
}

impl EventSink for EventPrinter<'_> {
    fn emit(&mut self, event: &Event) {
        if self.print
            && self.failed.is_none()
            && let Err(e) = self.out.json_line(event)
        {
            self.failed = Some(e);
        }
    }
}
