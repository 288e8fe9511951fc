//! The run's event stream: numbered, redacted, written to the store and
//! handed to the observer, in that order.

use agentgate_core::Redactor;
use agentgate_protocol::{Event, EventBody};
use agentgate_store::RunFiles;
use jiff::Timestamp;

use super::request::ToolObserver;

pub(super) struct Emitter<'a> {
    run_id: String,
    seq: u64,
    files: RunFiles,
    redactor: Redactor,
    observer: &'a mut dyn ToolObserver,
    write_failed: bool,
}

impl<'a> Emitter<'a> {
    pub(super) fn new(
        run_id: &str,
        files: RunFiles,
        redactor: Redactor,
        observer: &'a mut dyn ToolObserver,
    ) -> Self {
        Self {
            run_id: run_id.to_owned(),
            seq: 0,
            files,
            redactor,
            observer,
            write_failed: false,
        }
    }

    /// Numbers `body`, redacts secrets, writes it to the run's log and hands
    /// it to the observer.
    pub(super) fn emit(&mut self, body: EventBody) {
        let ts = Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string();
        let event = Event::new(self.run_id.clone(), self.seq, ts, body);
        self.seq += 1;
        let event = match self.redactor.redacted(&event) {
            Ok(Some(redacted)) => redacted,
            Ok(None) | Err(_) => event,
        };
        // Within the one line limit, for the log and the observer alike.
        let event = agentgate_protocol::fit(event);
        if let Err(e) = self.files.write_event(&event)
            && !self.write_failed
        {
            self.write_failed = true;
            tracing::warn!("tool run {}: cannot write its events: {e}", self.run_id);
        }
        self.observer.event(&event);
    }

    /// Appends one line of the tool's stderr to `stderr.log`, redacted.
    pub(super) fn stderr_line(&mut self, line: &[u8]) {
        let redacted = self.redactor.redact_bytes(line);
        let mut bytes = redacted.into_owned();
        bytes.push(b'\n');
        if let Err(e) = self.files.write_stderr(&bytes)
            && !self.write_failed
        {
            self.write_failed = true;
            tracing::warn!("tool run {}: cannot write its stderr: {e}", self.run_id);
        }
    }

    /// Redacts a text for the envelope.
    pub(super) fn redact(&self, text: &str) -> String {
        self.redactor.redact_str(text).into_owned()
    }

    /// Makes the events written so far readable by others and durable.
    pub(super) fn finish(mut self) {
        if let Err(e) = self.files.flush_events().and_then(|()| self.files.sync()) {
            tracing::warn!("tool run {}: cannot sync its events: {e}", self.run_id);
        }
    }
}
