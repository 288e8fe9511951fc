//! Reading a run's `events.jsonl`, a line at a time, each line within the
//! line limit ([`agentgate_protocol::MAX_LINE_BYTES`]).
//!
//! agentgate never writes a longer line (its writers cut events to fit),
//! but a log written by an older version or by hand may hold one: it is
//! read past without being held (its first [`PREFIX_BYTES`] are kept, the
//! rest counted) and stands in the log as a `log` warning with its `seq`
//! and `cut` ([`oversize_note`]), so readers and streams see that an
//! event was there and how big it was.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use agentgate_protocol::{Cut, Event, EventBody, LogEvent, LogLevel, MAX_LINE_BYTES};

use crate::error::StoreError;

/// How much of an over-long line is kept to name its event.
pub const PREFIX_BYTES: usize = 4096;

/// The events read back from a run's `events.jsonl`.
#[derive(Debug, Clone, PartialEq)]
pub struct EventLog {
    /// The events, in file order (which is `seq` order for files agentgate
    /// wrote).
    pub events: Vec<Event>,
    /// The last line, if it is cut short: the writer died in the middle of
    /// it. Its bytes are not in `events`.
    pub truncated_tail: Option<TruncatedTail>,
}

/// A last line of an events file that is incomplete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruncatedTail {
    /// Its line number, from 1.
    pub line: usize,
    /// How many bytes of it were written.
    pub bytes: usize,
    /// Why it does not parse.
    pub error: String,
}

impl EventLog {
    /// Reads an events file: one JSON event per line, blank lines ignored.
    ///
    /// A last line with no newline that does not parse is a write cut short
    /// and goes to [`EventLog::truncated_tail`]; any other line that does not
    /// parse is an error ([`StoreError::BadEventLine`]). Events of types this
    /// version does not know are kept as `EventBody::Unknown`. A line over
    /// the line limit is read past and stands as its [`oversize_note`].
    pub fn read_file(path: &Path) -> Result<Self, StoreError> {
        let io_err = |source| StoreError::Io {
            op: "read the events file",
            path: path.to_path_buf(),
            source,
        };
        let mut reader = BufReader::new(File::open(path).map_err(io_err)?);
        let mut log = EventLog {
            events: Vec::new(),
            truncated_tail: None,
        };
        let mut buf = Vec::new();
        let mut line = 0;
        loop {
            let Some(read) = read_line(&mut reader, &mut buf).map_err(io_err)? else {
                return Ok(log);
            };
            line += 1;
            if let Some(total) = read.cut_from {
                if let Some(note) = oversize_note(&buf, total) {
                    log.events.push(note);
                }
                continue;
            }
            let text = buf.trim_ascii();
            if text.is_empty() {
                continue;
            }
            match serde_json::from_slice::<Event>(text) {
                Ok(event) => log.events.push(event),
                Err(error) if !read.complete => {
                    log.truncated_tail = Some(TruncatedTail {
                        line,
                        bytes: buf.len(),
                        error: error.to_string(),
                    });
                    return Ok(log);
                }
                Err(source) => {
                    return Err(StoreError::BadEventLine {
                        path: path.to_path_buf(),
                        line,
                        source,
                    });
                }
            }
        }
    }
}

/// What [`read_line`] read.
struct LineRead {
    /// It ended with `\n` (not the end of the file).
    complete: bool,
    /// It was longer than the line limit: `buf` holds its first
    /// [`PREFIX_BYTES`], and this is its whole length.
    cut_from: Option<u64>,
}

/// Reads the next line into `buf` (without its `\n`), at most
/// [`MAX_LINE_BYTES`] of it; a longer one keeps only its prefix. `None` at
/// the end of the file.
fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<Option<LineRead>> {
    buf.clear();
    let mut total: u64 = 0;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            if total == 0 {
                return Ok(None);
            }
            return Ok(Some(finish(buf, total, false)));
        }
        let (piece, ends) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (&chunk[..i], true),
            None => (chunk, false),
        };
        total += piece.len() as u64;
        let keep = if total > MAX_LINE_BYTES as u64 {
            PREFIX_BYTES
        } else {
            MAX_LINE_BYTES
        };
        let room = keep.saturating_sub(buf.len());
        buf.extend_from_slice(&piece[..piece.len().min(room)]);
        let used = piece.len() + usize::from(ends);
        reader.consume(used);
        if ends {
            return Ok(Some(finish(buf, total, true)));
        }
    }
}

fn finish(buf: &mut Vec<u8>, total: u64, complete: bool) -> LineRead {
    let cut_from = (total > MAX_LINE_BYTES as u64).then_some(total);
    if cut_from.is_some() {
        buf.truncate(PREFIX_BYTES);
    }
    LineRead { complete, cut_from }
}

/// The event that stands for an event line of `total` bytes, over the line
/// limit, of which `prefix` is the start: a `log` warning with the line's
/// `seq`, `run_id` and `ts` (agentgate writes them first) and its size in
/// `cut`. `None` when the prefix does not name them (not an event line).
pub fn oversize_note(prefix: &[u8], total: u64) -> Option<Event> {
    let text = String::from_utf8_lossy(prefix);
    let seq = number_field(&text, "seq")?;
    let run_id = string_field(&text, "run_id")?;
    let ts = string_field(&text, "ts")?;
    let mut note = Event::new(
        run_id,
        seq,
        ts,
        EventBody::Log(LogEvent {
            level: LogLevel::Warn,
            message: format!(
                "event {seq} of this run's log is {total} bytes, over the line limit of \
                 {MAX_LINE_BYTES} bytes: it is left out (it was written before the limit held)"
            ),
        }),
    );
    note.cut = Some(Cut {
        original_bytes: total,
    });
    Some(note)
}

/// The value of `"name":"..."` in the first bytes of an event line (the
/// header's values hold no escapes).
fn string_field(text: &str, name: &str) -> Option<String> {
    let at = text.find(&format!("\"{name}\":\""))? + name.len() + 4;
    let rest = text.get(at..)?;
    let end = rest.find('"')?;
    Some(rest[..end].to_owned())
}

fn number_field(text: &str, name: &str) -> Option<u64> {
    let at = text.find(&format!("\"{name}\":"))? + name.len() + 3;
    let rest = text.get(at..)?;
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_whole_and_an_over_long_one_by_its_prefix() {
        let long = format!(
            "{{\"v\":1,\"ts\":\"2026-05-01T12:00:00.000Z\",\"run_id\":\"r-1\",\"seq\":4,\
             \"type\":\"message\",\"text\":\"{}\"}}",
            "x".repeat(MAX_LINE_BYTES)
        );
        let input = format!("first\n{long}\nlast");
        let mut reader = std::io::BufReader::with_capacity(1000, input.as_bytes());
        let mut buf = Vec::new();
        let read = read_line(&mut reader, &mut buf).unwrap().unwrap();
        assert_eq!(
            (buf.as_slice(), read.complete, read.cut_from),
            (&b"first"[..], true, None)
        );
        let read = read_line(&mut reader, &mut buf).unwrap().unwrap();
        assert_eq!(read.cut_from, Some(long.len() as u64));
        assert_eq!(buf.len(), PREFIX_BYTES);
        let note = oversize_note(&buf, long.len() as u64).unwrap();
        assert_eq!((note.seq, note.run_id.as_str()), (4, "r-1"));
        assert_eq!(note.ts, "2026-05-01T12:00:00.000Z");
        assert_eq!(note.cut.map(|c| c.original_bytes), Some(long.len() as u64));
        let read = read_line(&mut reader, &mut buf).unwrap().unwrap();
        assert_eq!((buf.as_slice(), read.complete), (&b"last"[..], false));
        assert!(read_line(&mut reader, &mut buf).unwrap().is_none());
        assert!(oversize_note(b"not an event", 9).is_none());
    }
}
