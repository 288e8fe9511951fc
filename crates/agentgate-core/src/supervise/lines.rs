/// The longest line delivered in one piece: 256 MiB. A longer line arrives
/// in pieces of this size, each but the last marked
/// [`partial`](OutputLine::partial); nothing is dropped.
pub const MAX_LINE_BYTES: usize = 256 * 1024 * 1024;

/// Which output stream a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stream {
    /// The child's stdout.
    Stdout,
    /// The child's stderr.
    Stderr,
}

/// One line of a supervised process's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputLine {
    /// The stream.
    pub stream: Stream,
    /// The line's bytes, untouched (any encoding, invalid UTF-8 included),
    /// without the `\n` and without a `\r` just before it.
    pub bytes: Vec<u8>,
    /// These bytes are not the whole line: either more pieces of the same
    /// line follow (the line is longer than [`MAX_LINE_BYTES`]), or reading
    /// stopped before its end (the output leaked past the drain timeout). A
    /// last line without `\n` at end of stream is whole, not partial.
    pub partial: bool,
}

/// Splits a byte stream into [`OutputLine`]s.
#[derive(Debug)]
pub(crate) struct LineSplitter {
    stream: Stream,
    pending: Vec<u8>,
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
            cap: cap.max(1),
        }
    }

    /// Feeds bytes read from the stream; complete lines are appended to `out`.
    pub(crate) fn push(&mut self, mut chunk: &[u8], out: &mut Vec<OutputLine>) {
        while let Some(i) = chunk.iter().position(|&b| b == b'\n') {
            self.append(&chunk[..i], out);
            chunk = &chunk[i + 1..];
            if self.pending.last() == Some(&b'\r') {
                self.pending.pop();
            }
            self.emit(false, out);
        }
        self.append(chunk, out);
    }

    /// Buffers bytes of the current line; past the cap, delivers all but the
    /// last `cap` bytes in partial pieces (the line is known to go on).
    fn append(&mut self, bytes: &[u8], out: &mut Vec<OutputLine>) {
        self.pending.extend_from_slice(bytes);
        while self.pending.len() > self.cap {
            let rest = self.pending.split_off(self.cap);
            let piece = std::mem::replace(&mut self.pending, rest);
            out.push(self.line(piece, true));
        }
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
        out.push(self.line(bytes, partial));
    }

    fn line(&self, bytes: Vec<u8>, partial: bool) -> OutputLine {
        OutputLine {
            stream: self.stream,
            bytes,
            partial,
        }
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
        out.into_iter().map(|l| (l.bytes, l.partial)).collect()
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
    fn cuts_a_line_longer_than_the_cap_into_partial_pieces() {
        let got = split(4, &[b"abcdefghij\nxy\n"], true);
        assert_eq!(
            got,
            vec![
                (b"abcd".to_vec(), true),
                (b"efgh".to_vec(), true),
                whole(b"ij"),
                whole(b"xy"),
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
