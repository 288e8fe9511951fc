//! Reading a Server-Sent Events stream: bytes in, messages out.
//!
//! The parser keeps at most one message and one partial line; a line longer
//! than [`SSE_LINE_MAX`] is an error rather than unbounded memory. Fields
//! other than `id`, `event` and `data` (`retry`, unknown ones) are ignored,
//! as are comments (`: keep-alive`), as the SSE specification says.

/// The longest line accepted: the one line limit for the event's JSON,
/// and its `data: ` field name (the server sends no longer line).
pub const SSE_LINE_MAX: usize = agentgate_protocol::MAX_LINE_BYTES + "data: ".len();

/// One SSE message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseMessage {
    /// Its `id:` field, if it had one.
    pub id: Option<String>,
    /// Its `event:` field (`message` when absent).
    pub event: Option<String>,
    /// Its `data:` lines, joined with newlines.
    pub data: String,
}

/// A stream that broke the SSE format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// A line over [`SSE_LINE_MAX`].
    #[error("an event stream line is over {SSE_LINE_MAX} bytes")]
    LineTooLong,
    /// A line that is not UTF-8.
    #[error("an event stream line is not UTF-8")]
    NotUtf8,
}

/// Turns chunks of an SSE body into messages.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    message: SseMessage,
    has_data: bool,
    /// The last byte was a CR: a LF right after it ends nothing more.
    after_cr: bool,
}

impl SseParser {
    /// Feed one chunk; the messages it completes are pushed to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseMessage>) -> Result<(), SseError> {
        for &b in chunk {
            let after_cr = std::mem::replace(&mut self.after_cr, b == b'\r');
            match b {
                b'\n' if after_cr => {}
                b'\n' | b'\r' => self.end_line(out)?,
                _ => {
                    if self.line.len() >= SSE_LINE_MAX {
                        return Err(SseError::LineTooLong);
                    }
                    self.line.push(b);
                }
            }
        }
        Ok(())
    }

    fn end_line(&mut self, out: &mut Vec<SseMessage>) -> Result<(), SseError> {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            // A blank line dispatches the message, if it has data.
            let message = std::mem::take(&mut self.message);
            if std::mem::take(&mut self.has_data) {
                out.push(message);
            } else if message.id.is_some() {
                // An id alone still moves the stream's last event id.
                out.push(message);
            }
            return Ok(());
        }
        let line = String::from_utf8(line).map_err(|_| SseError::NotUtf8)?;
        if line.starts_with(':') {
            return Ok(());
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_str(), ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.message.data.push('\n');
                }
                self.message.data.push_str(value);
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.message.id = Some(value.to_owned()),
            "event" => self.message.event = Some(value.to_owned()),
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(chunks: &[&[u8]]) -> Vec<SseMessage> {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        for c in chunks {
            p.feed(c, &mut out).unwrap();
        }
        out
    }

    #[test]
    fn messages_split_anywhere_come_out_whole() {
        let body =
            b"id: 1\ndata: {\"a\":1}\n\n: keep-alive\n\nid: 2\nevent: x\ndata: l1\ndata: l2\n\n";
        let whole = parse(&[body]);
        assert_eq!(whole.len(), 2);
        assert_eq!(whole[0].id.as_deref(), Some("1"));
        assert_eq!(whole[0].data, "{\"a\":1}");
        assert_eq!(whole[1].event.as_deref(), Some("x"));
        assert_eq!(whole[1].data, "l1\nl2");
        for cut in 1..body.len() {
            assert_eq!(parse(&[&body[..cut], &body[cut..]]), whole, "cut at {cut}");
        }
    }

    #[test]
    fn crlf_and_cr_end_lines_too() {
        let out = parse(&[b"id: 7\r\ndata: x\r", b"\n\r\n", b"data: y\r\r"]);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].id.as_deref(), Some("7"));
        assert_eq!((out[0].data.as_str(), out[1].data.as_str()), ("x", "y"));
    }

    #[test]
    fn a_comment_alone_dispatches_nothing_and_a_partial_message_waits() {
        assert!(parse(&[b": ping\n\n: ping\n\n"]).is_empty());
        assert!(parse(&[b"id: 3\ndata: half"]).is_empty());
    }

    #[test]
    fn bad_lines_are_errors() {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        assert_eq!(
            p.feed(b"data: \xff\xfe\n", &mut out),
            Err(SseError::NotUtf8)
        );
    }
}
