//! What `agentgate run` prints while it runs: the events as JSON lines
//! with `--stream`, and the progress line on a terminal; and at the end,
//! the envelope or (`--output text`) the answer alone.

use agentgate_core::EventSink;
use agentgate_protocol::{Envelope, EnvelopeFormat, Event, wrapper_envelope};

use super::args::{Args, OutputFormat};
use super::coalesce::ChunkPump;
use super::progress::Progress;
use crate::output::{OutputError, Stdout};

/// Prints events as JSON lines, and feeds the progress line. A failed
/// write stops the printing, not the run: the run goes on to its end and is
/// recorded, and [`CliSink::finish`] gives the error.
pub struct CliSink {
    stream: bool,
    progress: Option<Progress>,
    out: Stdout,
    /// With `--coalesce`: prints the events and their chunks instead.
    chunks: Option<ChunkPump>,
}

impl CliSink {
    pub fn new(stream: bool, progress: Option<Progress>, chunks: Option<ChunkPump>) -> Self {
        CliSink {
            stream,
            progress,
            out: Stdout::new(),
            chunks,
        }
    }

    /// The run ended: clear the progress line; the error of the first
    /// event that could not be printed, if any.
    pub fn finish(&mut self) -> Option<OutputError> {
        if let Some(p) = self.progress.take() {
            p.finish();
        }
        match &mut self.chunks {
            Some(pump) => pump.finish(),
            None => self.out.failure(),
        }
    }
}

impl EventSink for CliSink {
    fn emit(&mut self, event: &Event) {
        if let Some(p) = &mut self.progress {
            p.observe(event);
        }
        if let Some(pump) = &self.chunks {
            pump.event(event);
        } else if self.stream && self.out.failure().is_none() {
            match serde_json::to_string(event) {
                // A failure is kept in `out` and reported at the end.
                Ok(line) => drop(self.out.line(line)),
                Err(e) => tracing::error!("failed to encode event {}: {e}", event.seq),
            }
        }
    }
}

/// The run's result on stdout: the envelope in `format` (`--envelope`, the
/// config's `envelope:`), or with `--output text` the answer and a newline
/// (a failed run's error goes to stderr instead, as one line; the exit
/// code says the rest).
pub fn print_result(
    envelope: &Envelope,
    args: &Args,
    format: EnvelopeFormat,
) -> anyhow::Result<()> {
    match args.output {
        OutputFormat::Json => print_envelope(envelope, format, args.pretty()),
        OutputFormat::Text => match &envelope.error {
            None => {
                let answer = envelope.response.trim_end_matches('\n');
                Ok(Stdout::new().line(answer)?)
            }
            Some(error) => {
                let kind = envelope
                    .error_type
                    .map_or_else(|| "error".to_owned(), |k| k.to_string());
                eprintln!("agentgate: {kind}: {error}");
                Ok(())
            }
        },
    }
}

/// Print the run's envelope in `format`.
pub fn print_envelope(
    envelope: &Envelope,
    format: EnvelopeFormat,
    pretty: Option<bool>,
) -> anyhow::Result<()> {
    match format {
        EnvelopeFormat::Agentgate => Stdout::new().json(envelope, pretty),
        EnvelopeFormat::Wrapper => Stdout::new().json(&wrapper_envelope(envelope), pretty),
    }
}
