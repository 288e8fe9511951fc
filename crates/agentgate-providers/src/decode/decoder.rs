//! The [`Decoder`] trait, and the two ways a decoder wraps what it found.

use agentgate_protocol::{EventBody, RawEvent, RawStream};

use crate::decoded::Decoded;

/// Decodes one provider CLI's output.
pub trait Decoder: Send {
    /// One complete line of the CLI's stdout, without its terminator (`\n`
    /// or `\r\n`). The bytes may be anything, including invalid UTF-8 and
    /// lines of many MiB.
    fn stdout_line(&mut self, line: &[u8], out: &mut Vec<Decoded>);

    /// One line of the CLI's stderr. Decoders pick out what matters (retry
    /// notices, error texts); the default keeps nothing, since stderr is
    /// stored apart in `stderr.log`.
    fn stderr_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        let _ = (line, out);
    }

    /// The streams ended (the CLI exited or was stopped). A decoder that
    /// buffered anything flushes it here.
    fn finish(&mut self, out: &mut Vec<Decoded>) {
        let _ = out;
    }
}

/// Wrap an event body as a decoded item.
pub fn event(body: EventBody) -> Decoded {
    Decoded::Event(body)
}

/// A line kept verbatim, as a `raw` event.
pub fn raw(stream: RawStream, line: &[u8]) -> Decoded {
    event(EventBody::Raw(RawEvent::from_bytes(stream, line)))
}
