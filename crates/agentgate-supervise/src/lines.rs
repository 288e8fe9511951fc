/// The longest line delivered: the one line limit,
/// [`agentgate_protocol::MAX_LINE_BYTES`] (32 MiB). A longer line arrives
/// cut to its first `MAX_LINE_BYTES`, with its whole length in
/// [`cut_from`](OutputLine::cut_from): the rest is counted as it is read,
/// never held, so a line of any length costs at most this much memory.
pub const MAX_LINE_BYTES: usize = agentgate_protocol::MAX_LINE_BYTES;

/// Which output stream a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stream {
    /// The child's stdout.
    Stdout,
    /// The child's stderr.
    Stderr,
}

impl Stream {
    /// The stream's name in a `raw` event.
    pub fn raw(self) -> agentgate_protocol::RawStream {
        match self {
            Stream::Stdout => agentgate_protocol::RawStream::Stdout,
            Stream::Stderr => agentgate_protocol::RawStream::Stderr,
        }
    }
}

/// One line of a supervised process's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputLine {
    /// The stream.
    pub stream: Stream,
    /// The line's bytes, untouched (any encoding, invalid UTF-8 included),
    /// without the `\n` and without a `\r` just before it.
    pub bytes: Vec<u8>,
    /// Reading stopped before the line's end (the output leaked past the
    /// drain timeout). A last line without `\n` at end of stream is whole,
    /// not partial.
    pub partial: bool,
    /// The line was longer than [`MAX_LINE_BYTES`]: `bytes` are its first
    /// `MAX_LINE_BYTES`, and this is its whole length in bytes.
    pub cut_from: Option<u64>,
}

impl OutputLine {
    /// The line's length as the child printed it (its bytes, or the whole
    /// length of a line that was cut).
    pub fn printed_len(&self) -> u64 {
        self.cut_from.unwrap_or(self.bytes.len() as u64)
    }
}

/// Splits a byte stream into [`OutputLine`]s.
#[derive(Debug)]
pub(crate) struct LineSplitter {
    stream: Stream,
    pending: Vec<u8>,
    /// Bytes of the current line past the cap, counted and dropped.
    over: u64,
    cap: usize,
}

impl LineSplitter {
    pub(crate) fn new(stream: Stream) -> Self {
        Self::with_cap(stream, MAX_LINE_BYTES)
    }

    pub(crate) fn with_cap(stream: Stream, cap: usize) -> Self {
        LineSplitter {
            stream,
            pending: Vec::new(),
            over: 0,
            cap: cap.max(1),
        }
    }

    /// Feeds bytes read from the stream; complete lines are appended to `out`.
    pub(crate) fn push(&mut self, mut chunk: &[u8], out: &mut Vec<OutputLine>) {
        while let Some(i) = chunk.iter().position(|&b| b == b'\n') {
            self.append(&chunk[..i]);
            chunk = &chunk[i + 1..];
            if self.over == 0 && self.pending.last() == Some(&b'\r') {
                self.pending.pop();
            }
            self.emit(false, out);
        }
        self.append(chunk);
    }

    /// Keeps bytes of the current line up to the cap; counts the rest.
    fn append(&mut self, bytes: &[u8]) {
        let room = self.cap - self.pending.len();
        let (kept, dropped) = bytes.split_at(bytes.len().min(room));
        self.pending.extend_from_slice(kept);
        self.over = self.over.saturating_add(dropped.len() as u64);
    }

    /// The stream ended: a last line without `\n` is delivered whole.
    pub(crate) fn finish(&mut self, out: &mut Vec<OutputLine>) {
        if !self.pending.is_empty() {
            self.emit(false, out);
        }
    }

    /// Reading stopped before the stream ended: buffered bytes are delivered,
    /// marked partial.
    pub(crate) fn cut(&mut self, out: &mut Vec<OutputLine>) {
        if !self.pending.is_empty() {
            self.emit(true, out);
        }
    }

    fn emit(&mut self, partial: bool, out: &mut Vec<OutputLine>) {
        let bytes = std::mem::take(&mut self.pending);
        let over = std::mem::take(&mut self.over);
        // A line cut at the cap that ended in `\r\n`: the `\r` was counted.
        let cut_from = (over > 0).then(|| bytes.len() as u64 + over);
        out.push(OutputLine {
            stream: self.stream,
            bytes,
            partial,
            cut_from,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(cap: usize, chunks: &[&[u8]], finish: bool) -> Vec<(Vec<u8>, bool)> {
        let mut s = LineSplitter::with_cap(Stream::Stdout, cap);
        let mut out = Vec::new();
        for c in chunks {
            s.push(c, &mut out);
        }
        if finish {
            s.finish(&mut out);
        }
        out.into_iter()
            .map(|l| {
                assert!(l.cut_from.is_none(), "{l:?}");
                (l.bytes, l.partial)
            })
            .collect()
    }

    fn whole(s: &[u8]) -> (Vec<u8>, bool) {
        (s.to_vec(), false)
    }

    #[test]
    fn splits_on_newline_and_strips_cr() {
        let got = split(1024, &[b"a\r\nb\n\nc\r\r\n"], true);
        assert_eq!(
            got,
            vec![whole(b"a"), whole(b"b"), whole(b""), whole(b"c\r")]
        );
    }

    #[test]
    fn joins_a_line_across_chunks() {
        let got = split(1024, &[b"he", b"llo\nwor", b"ld\n"], true);
        assert_eq!(got, vec![whole(b"hello"), whole(b"world")]);
    }

    #[test]
    fn delivers_a_last_line_without_newline_at_end_of_stream() {
        assert_eq!(split(1024, &[b"x\ntail"], false), vec![whole(b"x")]);
        assert_eq!(
            split(1024, &[b"x\ntail"], true),
            vec![whole(b"x"), whole(b"tail")]
        );
    }

    #[test]
    fn passes_invalid_utf8_through() {
        let got = split(1024, &[b"\xff\xfe\x00A\n"], true);
        assert_eq!(got, vec![whole(b"\xff\xfe\x00A")]);
    }

    #[test]
    fn a_line_longer_than_the_cap_is_cut_and_its_length_kept() {
        let mut s = LineSplitter::with_cap(Stream::Stdout, 4);
        let mut out = Vec::new();
        for chunk in [&b"abcdef"[..], b"ghij\r\nxy\nlong", b"er"] {
            s.push(chunk, &mut out);
        }
        s.finish(&mut out);
        let got: Vec<_> = out
            .iter()
            .map(|l| (l.bytes.as_slice(), l.cut_from, l.printed_len()))
            .collect();
        assert_eq!(
            got,
            [
                (&b"abcd"[..], Some(11), 11),
                (b"xy", None, 2),
                (b"long", Some(6), 6),
            ]
        );
    }

    #[test]
    fn a_line_of_exactly_the_cap_is_whole() {
        assert_eq!(split(4, &[b"ab", b"cd\n"], true), vec![whole(b"abcd")]);
        assert_eq!(split(4, &[b"abcd"], true), vec![whole(b"abcd")]);
    }

    #[test]
    fn cut_marks_buffered_bytes_partial() {
        let mut s = LineSplitter::with_cap(Stream::Stderr, 1024);
        let mut out = Vec::new();
        s.push(b"done\nhalf", &mut out);
        s.cut(&mut out);
        let got: Vec<_> = out
            .into_iter()
            .map(|l| (l.stream, l.bytes, l.partial))
            .collect();
        assert_eq!(
            got,
            vec![
                (Stream::Stderr, b"done".to_vec(), false),
                (Stream::Stderr, b"half".to_vec(), true)
            ]
        );
    }

    #[test]
    fn empty_stream_gives_no_line() {
        assert!(split(1024, &[], true).is_empty());
    }
}
