//! JSON-lines files written by another program, read defensively: each
//! line a JSON object, or skipped with a note saying why (too long, not
//! UTF-8, not JSON, not an object). A long line is passed over without
//! being held in memory; reading stops after [`MAX_FILE_BYTES`].

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use serde_json::{Map, Value};

/// The longest line read (longer ones are skipped).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// How much of a file is read at most.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024 * 1024;

/// The objects of a JSON-lines file, and the lines skipped (`line N: why`).
#[derive(Debug, Default)]
pub struct Objects {
    /// One per good line, in order.
    pub objects: Vec<Map<String, Value>>,
    /// Why each bad line was skipped.
    pub skipped: Vec<String>,
}

/// Reads `path` as JSON lines; see the module note.
pub fn read_objects(path: &Path) -> io::Result<Objects> {
    read_objects_from(File::open(path)?, MAX_LINE_BYTES)
}

/// Reads `source` as JSON lines, lines longer than `max_line` skipped.
pub fn read_objects_from(source: impl Read, max_line: usize) -> io::Result<Objects> {
    let mut reader = BufReader::new(source.take(MAX_FILE_BYTES));
    let mut out = Objects::default();
    let mut line = Vec::new();
    let mut number = 0usize;
    loop {
        line.clear();
        number += 1;
        let limit = u64::try_from(max_line)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        let n = (&mut reader).take(limit).read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        if line.len() > max_line && line.last() != Some(&b'\n') {
            let passed = skip_rest_of_line(&mut reader)?;
            let total = line.len().saturating_add(passed);
            out.skipped.push(format!(
                "line {number}: {total} bytes, over the {max_line}-byte limit"
            ));
            continue;
        }
        let text = match std::str::from_utf8(&line) {
            Ok(t) => t.trim(),
            Err(_) => {
                out.skipped.push(format!("line {number}: not UTF-8"));
                continue;
            }
        };
        if text.is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(obj)) => out.objects.push(obj),
            Ok(_) => out
                .skipped
                .push(format!("line {number}: JSON but not an object")),
            Err(e) => out.skipped.push(format!("line {number}: not JSON ({e})")),
        }
    }
    Ok(out)
}

/// Reads up to and including the next newline without keeping it; the
/// bytes passed over.
fn skip_rest_of_line(reader: &mut impl BufRead) -> io::Result<usize> {
    let mut passed = 0usize;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(passed);
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(passed.saturating_add(i));
            }
            None => {
                let len = buf.len();
                reader.consume(len);
                passed = passed.saturating_add(len);
            }
        }
    }
}
