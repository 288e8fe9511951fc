//! What every decoder shares. A decoder turns one provider CLI's raw output
//! lines into the protocol's events plus the facts the accumulator and the
//! classifier need ([`Decoded`]); each provider's own decoder is in its
//! folder (`providers/claude/decode.rs`).
//!
//! A decoder never fails and never drops input: a line it cannot decode (not
//! JSON, an unknown event type, invalid UTF-8, a truncated object) becomes
//! an [`EventBody::Raw`] event carrying the line verbatim. For JSON-lines
//! output the loop that guarantees this is written once ([`json_line`]),
//! and a decoder answers "did I understand this line?" with
//! [`Understood`]. Claude Code, Qwen Code and cursor-agent print records of
//! one shape; what reads them is in [`claude_shape`].

pub mod claude_shape;
pub mod fields;
mod json_lines;
pub mod tools;

use agentgate_protocol::{EventBody, RawEvent, RawStream};

pub use crate::decoded::{Decoded, ProviderError, ProviderFinal};
pub use fields::str_of;
pub use json_lines::{Understood, json_line, json_value_line};

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
