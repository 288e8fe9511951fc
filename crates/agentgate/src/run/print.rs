//! What `agentgate run` prints while it runs: the events as JSON lines
//! with `--stream`, and the progress line on a terminal.

use std::io::Write;

use agentgate_core::run::EventSink;
use agentgate_protocol::Event;

use super::progress::Progress;

/// Prints events as JSON lines, and feeds the progress line.
pub struct CliSink {
    stream: bool,
    progress: Option<Progress>,
}

impl CliSink {
    pub fn new(stream: bool, progress: Option<Progress>) -> Self {
        CliSink { stream, progress }
    }

    /// The run ended: clear the progress line.
    pub fn finish(&mut self) {
        if let Some(p) = self.progress.take() {
            p.finish();
        }
    }
}

impl EventSink for CliSink {
    fn emit(&mut self, event: &Event) {
        if let Some(p) = &mut self.progress {
            p.observe(event);
        }
        if self.stream {
            let mut out = std::io::stdout().lock();
            match serde_json::to_string(event) {
                Ok(line) => {
                    let _ = writeln!(out, "{line}");
                    let _ = out.flush();
                }
                Err(e) => tracing::error!("failed to encode event {}: {e}", event.seq),
            }
        }
    }
}
