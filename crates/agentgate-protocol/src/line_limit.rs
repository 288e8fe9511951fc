//! The one line limit: the longest line agentgate reads from a CLI, writes
//! to a run's event log, streams, and reads back, [`MAX_LINE_BYTES`].
//!
//! Two things keep every line within it, both visible in the stream:
//!
//! - a CLI's output line longer than the limit is cut by the supervisor
//!   as it is read (only its first [`MAX_LINE_BYTES`] are kept; the rest is
//!   counted, not held) and becomes a `raw` event with `truncated: true`
//!   and the line's `original_bytes`;
//! - an event whose JSON line would be longer (a huge answer, a nested
//!   event) is cut by [`fit`] before it is written or sent: its longest
//!   strings are shortened (at a character boundary) until the line fits,
//!   and its [`Event::cut`] says so with the size it had. An event that
//!   cannot be made to fit that way (a huge structure of small strings)
//!   becomes a `log` warning that says what was left out, with `cut` too.
//!
//! Nothing is dropped without a mark, and a reader never meets a longer
//! line from agentgate.

use serde_json::Value;

use crate::events::{Cut, Event, EventBody, LogEvent, LogLevel};

/// The longest line, in bytes (without its newline): 32 MiB.
pub const MAX_LINE_BYTES: usize = 32 * 1024 * 1024;

/// Room kept under [`MAX_LINE_BYTES`] when an event is cut: the `cut`
/// field itself, and the few bytes a character boundary can cost.
const ROOM: usize = 4096;

/// How many strings [`fit`] cuts before it gives up on keeping the event's
/// shape.
const CUTS_MAX: usize = 256;

/// The size of `event`'s JSON line, counting only up to `stop` bytes (an
/// event larger than that reads as `stop + 1`).
pub fn line_len(event: &Event, stop: usize) -> usize {
    let mut counter = Counter { n: 0, stop };
    match serde_json::to_writer(&mut counter, event) {
        Ok(()) => counter.n,
        Err(_) => stop.saturating_add(1),
    }
}

/// `event`, or, if its JSON line is longer than [`MAX_LINE_BYTES`], the
/// same event cut to fit (see the module notes). Cheap for an event that
/// fits: its line is counted, not kept.
pub fn fit(event: Event) -> Event {
    fit_within(event, MAX_LINE_BYTES)
}

/// [`fit`] for a line of at most `max` bytes.
pub fn fit_within(event: Event, max: usize) -> Event {
    if line_len(&event, max) <= max {
        return event;
    }
    let room = ROOM.min(max / 4);
    let Ok(value) = serde_json::to_value(&event) else {
        return left_out(&event, line_len(&event, usize::MAX - 1) as u64, max);
    };
    let size = value_len(&value);
    match shorten(value, size, max - room) {
        Some(mut shortened) => {
            shortened.cut = Some(Cut {
                original_bytes: size as u64,
            });
            shortened
        }
        None => left_out(&event, size as u64, max),
    }
}

/// The event `value` (whose JSON is `size` bytes) with its longest body
/// strings cut until its line is at most `target` bytes; `None` if
/// cutting [`CUTS_MAX`] strings is not enough, or the result is not an
/// event any more. The size is kept by counting what each cut takes off
/// (as JSON), not by writing the event again.
fn shorten(mut value: Value, mut size: usize, target: usize) -> Option<Event> {
    let mut cuts = 0;
    while size > target {
        let mut excess = size - target;
        let mut strings = body_strings(&mut value);
        strings.sort_by_key(|s| std::cmp::Reverse(s.len()));
        let mut cut_any = false;
        for s in strings {
            if excess == 0 || cuts == CUTS_MAX || s.is_empty() {
                break;
            }
            let removed = cut_end(s, excess);
            size -= removed;
            excess = excess.saturating_sub(removed);
            cuts += 1;
            cut_any = true;
        }
        if !cut_any {
            return None;
        }
    }
    serde_json::from_value(value).ok()
}

/// Cuts characters off the end of `s` until its JSON form is `excess`
/// bytes shorter (or `s` is empty); the bytes its JSON form lost, counted
/// as `serde_json` writes them (`\"`, `\\`, `\n`-style escapes: 2 bytes;
/// other control characters, `\u00XX`: 6; anything else, its UTF-8).
fn cut_end(s: &mut String, excess: usize) -> usize {
    let mut removed = 0;
    let mut keep = s.len();
    for (at, c) in s.char_indices().rev() {
        if removed >= excess {
            break;
        }
        removed += match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if c < ' ' => 6,
            c => c.len_utf8(),
        };
        keep = at;
    }
    s.truncate(keep);
    removed
}

/// The size of `value` as JSON.
fn value_len(value: &Value) -> usize {
    let mut counter = Counter {
        n: 0,
        stop: usize::MAX - 1,
    };
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.n,
        Err(_) => usize::MAX,
    }
}

/// Every string of an event's body (header fields are left alone: they
/// are small, and readers need them whole).
fn body_strings(event: &mut Value) -> Vec<&mut String> {
    const HEADER: [&str; 8] = [
        "v", "ts", "run_id", "seq", "provider", "attempt", "type", "cut",
    ];
    let mut out = Vec::new();
    if let Value::Object(fields) = event {
        for (key, value) in fields.iter_mut() {
            if !HEADER.contains(&key.as_str()) {
                strings_in(value, &mut out);
            }
        }
    }
    out
}

fn strings_in<'a>(value: &'a mut Value, out: &mut Vec<&'a mut String>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter_mut().for_each(|v| strings_in(v, out)),
        Value::Object(fields) => fields.values_mut().for_each(|v| strings_in(v, out)),
        _ => {}
    }
}

/// The `log` warning that stands for an event of `original` bytes that
/// could not be cut to fit.
fn left_out(event: &Event, original: u64, max: usize) -> Event {
    let cut = Cut {
        original_bytes: original,
    };
    let mut note = Event::new(
        event.run_id.clone(),
        event.seq,
        event.ts.clone(),
        EventBody::Log(LogEvent {
            level: LogLevel::Warn,
            message: format!(
                "a `{}` event of {} bytes was over the line limit of {max} bytes and could \
                 not be cut to fit: it is left out",
                event.body.type_name(),
                cut.original_bytes
            ),
        }),
    );
    note.provider = event.provider.clone();
    note.attempt = event.attempt;
    note.cut = Some(cut);
    note
}

/// Counts the bytes written; fails past `stop` so that a huge event is
/// not serialized whole just to learn it is too long.
struct Counter {
    n: usize,
    stop: usize,
}

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.n = self.n.saturating_add(buf.len());
        if self.n > self.stop {
            return Err(std::io::Error::other("over the limit"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_counts_what_the_json_form_loses_exactly() {
        let text = "plain \" \\ \n \r \t \u{8} \u{c} \u{1} \u{1f} \u{7f} é 😀 end";
        let json_len = |s: &str| serde_json::to_string(s).map_or(0, |j| j.len());
        for excess in [1, 3, 7, 20, 40, usize::MAX] {
            let mut s = text.to_owned();
            let removed = cut_end(&mut s, excess);
            assert_eq!(
                json_len(text) - json_len(&s),
                removed,
                "excess {excess}: {s:?}"
            );
            assert!(removed >= excess.min(json_len(text) - 2), "excess {excess}");
        }
    }
}
