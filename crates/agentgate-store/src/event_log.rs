//! Reading a run's `events.jsonl`.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use agentgate_protocol::Event;

use crate::error::StoreError;

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
    /// version does not know are kept as `EventBody::Unknown`.
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
            buf.clear();
            if reader.read_until(b'\n', &mut buf).map_err(io_err)? == 0 {
                return Ok(log);
            }
            line += 1;
            let complete = buf.last() == Some(&b'\n');
            let text = buf.trim_ascii();
            if text.is_empty() {
                continue;
            }
            match serde_json::from_slice::<Event>(text) {
                Ok(event) => log.events.push(event),
                Err(error) if !complete => {
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
