//! Server-sent events, read incrementally with bounded memory: bytes are
//! split into lines (LF, CRLF or CR), keeping only the partial last line;
//! `event:` and `data:` fields gather into events, dispatched on a blank
//! line. A line (or an event's data) past [`MAX_LINE`] makes the stream
//! invalid and parsing stops; the bytes after it are still accepted.

/// The longest line, and the most data one event may gather.
pub(crate) const MAX_LINE: usize = 16 << 20;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, when one was given.
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

/// Splits a byte stream into events.
#[derive(Debug, Default)]
pub(crate) struct SseReader {
    /// The bytes of the line not yet ended.
    partial: Vec<u8>,
    /// The last byte seen was a CR (a following LF belongs to it).
    after_cr: bool,
    /// The event being gathered.
    event: Option<String>,
    data: String,
    has_data: bool,
    /// Parsing stopped (a line too long).
    stopped: bool,
    /// The first thing that was not SSE.
    invalid: Option<String>,
}

impl SseReader {
    /// Feed `chunk`; each complete event is passed to `on_event`.
    pub fn push(&mut self, chunk: &[u8], on_event: &mut dyn FnMut(SseEvent)) {
        let mut rest = chunk;
        while !self.stopped && !rest.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if rest[0] == b'\n' {
                    rest = &rest[1..];
                    continue;
                }
            }
            match rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
                Some(end) => {
                    if !self.grow(&rest[..end]) {
                        return;
                    }
                    self.after_cr = rest[end] == b'\r';
                    rest = &rest[end + 1..];
                    let line = std::mem::take(&mut self.partial);
                    self.line(&line, on_event);
                }
                None => {
                    self.grow(rest);
                    return;
                }
            }
        }
    }

    /// The stream ended: an event whose lines all ended is dispatched (a
    /// last line cut short is dropped, as the stream was).
    pub fn finish(&mut self, on_event: &mut dyn FnMut(SseEvent)) {
        if self.stopped {
            return;
        }
        self.partial.clear();
        self.dispatch(on_event);
    }

    /// What was not SSE, first.
    pub fn invalid(&self) -> Option<&str> {
        self.invalid.as_deref()
    }

    /// Mark the stream invalid (the first reason is kept).
    pub fn set_invalid(&mut self, why: String) {
        self.invalid.get_or_insert(why);
    }

    /// Add to the partial line; false (and parsing stops) past the bound.
    fn grow(&mut self, bytes: &[u8]) -> bool {
        if self.partial.len().saturating_add(bytes.len()) > MAX_LINE {
            self.stop(format!("an SSE line is longer than {} MiB", MAX_LINE >> 20));
            return false;
        }
        self.partial.extend_from_slice(bytes);
        true
    }

    fn stop(&mut self, why: String) {
        self.set_invalid(why);
        self.stopped = true;
        self.partial = Vec::new();
        self.data = String::new();
        self.event = None;
        self.has_data = false;
    }

    fn line(&mut self, line: &[u8], on_event: &mut dyn FnMut(SseEvent)) {
        if line.is_empty() {
            self.dispatch(on_event);
            return;
        }
        if line[0] == b':' {
            return; // a comment (keep-alive)
        }
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (text.as_ref(), ""),
        };
        match field {
            "data" => {
                if self.data.len().saturating_add(value.len()) > MAX_LINE {
                    self.stop(format!(
                        "an SSE event's data is longer than {} MiB",
                        MAX_LINE >> 20
                    ));
                    return;
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            "id" | "retry" => {}
            _ => self.set_invalid(format!("an SSE line is not a field: {}", clip(&text))),
        }
    }

    fn dispatch(&mut self, on_event: &mut dyn FnMut(SseEvent)) {
        let event = self.event.take();
        if !self.has_data {
            return;
        }
        self.has_data = false;
        on_event(SseEvent {
            event,
            data: std::mem::take(&mut self.data),
        });
    }
}

/// The start of `text`, for a message.
pub(crate) fn clip(text: &str) -> String {
    const MAX: usize = 80;
    if text.len() <= MAX {
        return text.to_owned();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events_of(chunks: &[&[u8]]) -> (Vec<SseEvent>, SseReader) {
        let mut reader = SseReader::default();
        let mut out = Vec::new();
        for c in chunks {
            reader.push(c, &mut |e| out.push(e));
        }
        reader.finish(&mut |e| out.push(e));
        (out, reader)
    }

    fn ev(event: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: event.map(str::to_owned),
            data: data.to_owned(),
        }
    }

    #[test]
    fn events_gather_across_chunks_and_line_endings() {
        let text = b"event: a\r\ndata: {\"x\":1}\r\n\r\n: keep-alive\n\ndata:one\ndata: two\n\nevent: b\rdata: 3\r\rdata: [DONE]\n\n";
        let whole = events_of(&[text]).0;
        assert_eq!(
            whole,
            vec![
                ev(Some("a"), "{\"x\":1}"),
                ev(None, "one\ntwo"),
                ev(Some("b"), "3"),
                ev(None, "[DONE]"),
            ]
        );
        for size in 1..=9 {
            let chunks: Vec<&[u8]> = text.chunks(size).collect();
            let (got, reader) = events_of(&chunks);
            assert_eq!(got, whole, "chunks of {size}");
            assert_eq!(reader.invalid(), None);
        }
    }

    #[test]
    fn a_last_event_without_its_blank_line_is_kept_and_a_cut_line_dropped() {
        assert_eq!(events_of(&[b"data: 1\n"]).0, vec![ev(None, "1")]);
        assert_eq!(
            events_of(&[b"data: 1\n\ndata: {\"cut"]).0,
            vec![ev(None, "1")]
        );
    }

    #[test]
    fn a_line_that_is_no_field_is_invalid_but_parsing_goes_on() {
        let (got, reader) = events_of(&[b"{\"raw\": true}\ndata: 2\n\n"]);
        assert_eq!(got, vec![ev(None, "2")]);
        assert!(reader.invalid().is_some_and(|w| w.contains("not a field")));
    }

    #[test]
    fn a_line_over_the_bound_stops_parsing_and_keeps_no_memory() {
        let mut reader = SseReader::default();
        let mut out = Vec::new();
        reader.push(b"data: 1\n\ndata: ", &mut |e| out.push(e));
        let block = vec![b'x'; 1 << 20];
        for _ in 0..17 {
            reader.push(&block, &mut |e| out.push(e));
        }
        reader.push(b"\n\ndata: 2\n\n", &mut |e| out.push(e));
        reader.finish(&mut |e| out.push(e));
        assert_eq!(out, vec![ev(None, "1")]);
        assert!(reader.invalid().is_some_and(|w| w.contains("16 MiB")));
        assert!(reader.partial.capacity() == 0 && reader.data.capacity() == 0);
    }

    #[test]
    fn clip_keeps_char_boundaries() {
        let s = "é".repeat(100);
        let c = clip(&s);
        assert!(c.ends_with('…') && c.len() <= 84);
    }
}
