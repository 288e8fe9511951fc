//! The last bytes of a CLI's stream, for the envelope's `stderr_tail` and
//! the classifier's text evidence.

/// How many bytes of the CLI's stderr the envelope keeps.
pub const STDERR_TAIL_BYTES: usize = 2048;

/// The last bytes of a stream, cut at a line start (a single line longer
/// than the whole tail keeps its end).
#[derive(Debug)]
pub struct Tail {
    max: usize,
    buf: Vec<u8>,
}

impl Tail {
    /// A tail that keeps at most `max` bytes.
    pub fn new(max: usize) -> Self {
        Tail {
            max,
            buf: Vec::new(),
        }
    }

    /// Adds one line (without its terminator).
    pub fn push(&mut self, line: &[u8]) {
        let line = &line[line.len().saturating_sub(self.max)..];
        self.buf.extend_from_slice(line);
        self.buf.push(b'\n');
        if self.buf.len() > self.max {
            let mut cut = self.buf.len() - self.max;
            // Drop the partial first line, unless it is the only one.
            if let Some(nl) = self.buf[cut..self.buf.len() - 1]
                .iter()
                .position(|b| *b == b'\n')
                && cut > 0
            {
                cut += nl + 1;
            }
            self.buf.drain(..cut);
        }
    }

    /// The kept lines, lossily decoded, without the last line end.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.buf).trim_end().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_keep_the_last_bytes() {
        let mut t = Tail::new(10);
        t.push(b"first line");
        t.push(b"abc");
        assert_eq!(t.text(), "abc");
        t.push(b"de");
        assert_eq!(t.text(), "abc\nde");
        t.push(&[b'x'; 30]);
        assert_eq!(t.text(), "xxxxxxxxx");
    }
}
