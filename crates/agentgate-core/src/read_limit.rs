//! Reading inputs with a size limit: a prompt on stdin, `--system-file`,
//! `--output-schema`, the config file, and the captures `agentgate parse`
//! decodes. Nothing is read past `limit + 1` bytes (the one byte more tells
//! that the input goes on), so `/dev/zero` or a runaway pipe is an error
//! after a bounded read, never a multi-GiB buffer. Captures are read a line
//! at a time, each line bounded. A leaf: imports nothing of the crate.

use std::fmt;
use std::io::{self, BufRead, Read};
use std::path::Path;

/// One mebibyte.
pub const MIB: u64 = 1024 * 1024;
/// The largest prompt (text or JSON task input) read from stdin: 10 MiB.
/// The assembled prompt is bounded again by `--prompt-max-bytes` (1 MiB by
/// default); a larger `--prompt-max-bytes` raises this limit with it.
pub const STDIN_PROMPT_MAX_BYTES: u64 = 10 * MIB;
/// The largest `--system-file`: 10 MiB.
pub const SYSTEM_FILE_MAX_BYTES: u64 = 10 * MIB;
/// The largest `--output-schema` file (and a config's `output_schema`): 10 MiB.
pub const OUTPUT_SCHEMA_MAX_BYTES: u64 = 10 * MIB;
/// The largest config file: 1 MiB (some 25 000 lines; the YAML parser
/// refuses a file of more than 250 000 nodes in any case).
pub const CONFIG_MAX_BYTES: u64 = MIB;
/// The longest line of a capture `agentgate parse` reads: the one line
/// limit, 32 MiB, as a live run's (the whole capture has no limit: it is
/// decoded a line at a time).
pub const CAPTURE_LINE_MAX_BYTES: u64 = agentgate_protocol::MAX_LINE_BYTES as u64;

/// An input that could not be read within its limit.
#[derive(Debug, thiserror::Error)]
pub enum ReadLimitError {
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The input is larger than its limit.
    #[error("it is larger than {}, the limit for {what}", Size(*limit))]
    TooLarge {
        /// What the input is: `a config file`, `--system-file`.
        what: &'static str,
        /// The limit in bytes.
        limit: u64,
    },
    /// One line of the input is longer than its limit.
    #[error("line {line} is longer than {}, the limit for a line of {what}", Size(*limit))]
    LineTooLong {
        /// What the input is: `a capture`.
        what: &'static str,
        /// The line (1-based).
        line: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// The input is not UTF-8.
    #[error("it is not UTF-8 (invalid byte at offset {offset}); convert it to UTF-8 first")]
    NotUtf8 {
        /// The offset of the first invalid byte.
        offset: usize,
    },
}

/// A byte count for messages: `10 MiB`, `512 KiB`, `100 bytes`.
struct Size(u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        if n >= MIB && n.is_multiple_of(MIB) {
            write!(f, "{} MiB", n / MIB)
        } else if n >= 1024 && n.is_multiple_of(1024) {
            write!(f, "{} KiB", n / 1024)
        } else {
            write!(f, "{n} bytes")
        }
    }
}

/// All of `reader` as UTF-8 text, if it holds at most `limit` bytes.
pub fn read_text(
    reader: impl Read,
    limit: u64,
    what: &'static str,
) -> Result<String, ReadLimitError> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > limit {
        return Err(ReadLimitError::TooLarge { what, limit });
    }
    String::from_utf8(bytes).map_err(|e| ReadLimitError::NotUtf8 {
        offset: e.utf8_error().valid_up_to(),
    })
}

/// The file at `path` as UTF-8 text, if it holds at most `limit` bytes.
pub fn read_text_file(
    path: &Path,
    limit: u64,
    what: &'static str,
) -> Result<String, ReadLimitError> {
    let file = std::fs::File::open(path)?;
    // A regular file's size is known: no need to read what is refused.
    if file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() > limit)
    {
        return Err(ReadLimitError::TooLarge { what, limit });
    }
    read_text(file, limit, what)
}

/// Reads lines (split on `\n`, a `\r` before it removed, a last line
/// without `\n` included) of at most `limit` bytes each, keeping one line
/// in memory at a time. Bytes are passed on as they are (any encoding).
#[derive(Debug)]
pub struct BoundedLines<R> {
    reader: R,
    limit: u64,
    what: &'static str,
    line: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> BoundedLines<R> {
    /// Lines of `reader`, each at most `limit` bytes; `what` names the
    /// input in errors.
    pub fn new(reader: R, limit: u64, what: &'static str) -> BoundedLines<R> {
        BoundedLines {
            reader,
            limit,
            what,
            line: 0,
            buf: Vec::new(),
        }
    }

    /// The next line, `None` at the end of the input.
    pub fn next_line(&mut self) -> Result<Option<&[u8]>, ReadLimitError> {
        self.buf.clear();
        // `limit` bytes and the `\n`: one byte more than a line may hold.
        let read = (&mut self.reader)
            .take(self.limit.saturating_add(1))
            .read_until(b'\n', &mut self.buf)?;
        if read == 0 {
            return Ok(None);
        }
        self.line += 1;
        let whole = match self.buf.strip_suffix(b"\n") {
            Some(line) => line.strip_suffix(b"\r").unwrap_or(line),
            None if u64::try_from(self.buf.len()).unwrap_or(u64::MAX) > self.limit => {
                return Err(ReadLimitError::LineTooLong {
                    what: self.what,
                    line: self.line,
                    limit: self.limit,
                });
            }
            None => &self.buf,
        };
        Ok(Some(whole))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capture_line_has_the_one_line_limit() {
        assert_eq!(
            CAPTURE_LINE_MAX_BYTES,
            agentgate_protocol::MAX_LINE_BYTES as u64
        );
    }

    #[test]
    fn text_within_the_limit_is_read_and_one_byte_more_is_refused() {
        assert_eq!(read_text(&b"abcd"[..], 4, "x").unwrap(), "abcd");
        let e = read_text(&b"abcde"[..], 4, "a test input").unwrap_err();
        assert!(matches!(e, ReadLimitError::TooLarge { limit: 4, .. }));
        assert_eq!(
            e.to_string(),
            "it is larger than 4 bytes, the limit for a test input"
        );
    }

    #[test]
    fn an_endless_input_is_refused_after_a_bounded_read() {
        let e = read_text(io::repeat(b'a'), 3 * MIB, "stdin").unwrap_err();
        assert_eq!(
            e.to_string(),
            "it is larger than 3 MiB, the limit for stdin"
        );
    }

    #[test]
    fn invalid_utf8_names_its_offset() {
        let e = read_text(&b"ok\xffno"[..], 100, "x").unwrap_err();
        assert!(matches!(e, ReadLimitError::NotUtf8 { offset: 2 }), "{e:?}");
        assert!(e.to_string().contains("not UTF-8"), "{e}");
    }

    #[test]
    fn a_file_larger_than_the_limit_is_refused_by_its_size() {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), vec![b'#'; 2048]).unwrap();
        let e = read_text_file(f.path(), 1024, "a config file").unwrap_err();
        assert_eq!(
            e.to_string(),
            "it is larger than 1 KiB, the limit for a config file"
        );
        assert_eq!(read_text_file(f.path(), 2048, "x").unwrap().len(), 2048);
    }

    fn lines(input: &[u8], limit: u64) -> Vec<Result<Vec<u8>, String>> {
        let mut r = BoundedLines::new(input, limit, "a capture");
        let mut out = Vec::new();
        loop {
            match r.next_line() {
                Ok(Some(l)) => out.push(Ok(l.to_vec())),
                Ok(None) => break,
                Err(e) => {
                    out.push(Err(e.to_string()));
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn lines_split_like_the_supervisor() {
        let got = lines(b"a\r\nb\n\n\xffc", 10);
        let want: Vec<Result<Vec<u8>, String>> = vec![
            Ok(b"a".to_vec()),
            Ok(b"b".to_vec()),
            Ok(Vec::new()),
            Ok(b"\xffc".to_vec()),
        ];
        assert_eq!(got, want);
        assert!(lines(b"", 10).is_empty());
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_whole_and_one_more_byte_is_refused() {
        assert_eq!(lines(b"abcd\nxy", 4).len(), 2);
        assert_eq!(lines(b"abcd", 4), vec![Ok(b"abcd".to_vec())]);
        let got = lines(b"ok\nabcde\n", 4);
        assert_eq!(got[0], Ok(b"ok".to_vec()));
        assert_eq!(
            got[1],
            Err("line 2 is longer than 4 bytes, the limit for a line of a capture".to_owned())
        );
    }
}
