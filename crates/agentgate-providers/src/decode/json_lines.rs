//! The loop of every JSON-lines decoder: skip empty lines, parse, let the
//! decoder read the record, and keep as `raw` whatever it did not
//! understand, so that no line is ever lost.

use agentgate_protocol::RawStream;
use serde_json::{Map, Value};

use super::decoder::{Decoder, raw};
use crate::decoded::Decoded;

/// A decoder's answer to "did I understand this line?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Understood {
    /// Yes: what it says is in the items emitted for it. A line that
    /// emitted none is kept as `raw` all the same.
    Yes,
    /// Yes, and it has nothing to report now: a prompt echoed back, a
    /// delta held until its block ends. Nothing is kept.
    Quietly,
    /// No, or not all of it: the line is kept as `raw` too.
    No,
}

impl Understood {
    /// `No` when `unknown`, else `Yes`.
    pub fn unless(unknown: bool) -> Understood {
        if unknown {
            Understood::No
        } else {
            Understood::Yes
        }
    }

    /// Both lines' answers, as one: not understood when either is not.
    #[must_use]
    pub fn and(self, other: Understood) -> Understood {
        match (self, other) {
            (Understood::No, _) | (_, Understood::No) => Understood::No,
            (Understood::Yes, _) | (_, Understood::Yes) => Understood::Yes,
            (Understood::Quietly, Understood::Quietly) => Understood::Quietly,
        }
    }
}

/// A decoder of a JSON-lines stream that says only what one record means:
/// the loop, empty lines and `raw` events are [`json_line`]'s. Every such
/// decoder is a [`Decoder`].
pub trait JsonLinesDecoder: Send {
    /// One record (a stdout line holding a JSON object).
    fn object(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood;

    /// One stderr line (see [`Decoder::stderr_line`]).
    fn stderr_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        let _ = (line, out);
    }

    /// The streams ended (see [`Decoder::finish`]).
    fn finish(&mut self, out: &mut Vec<Decoded>) {
        let _ = out;
    }
}

impl<T: JsonLinesDecoder> Decoder for T {
    fn stdout_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        json_line(line, out, |obj, out| self.object(obj, out));
    }

    fn stderr_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        JsonLinesDecoder::stderr_line(self, line, out);
    }

    fn finish(&mut self, out: &mut Vec<Decoded>) {
        JsonLinesDecoder::finish(self, out);
    }
}

/// One stdout line holding a JSON object: `object` reads it. An empty line
/// is skipped; anything else that is not an object is kept as `raw`.
pub fn json_line(
    line: &[u8],
    out: &mut Vec<Decoded>,
    object: impl FnOnce(&Map<String, Value>, &mut Vec<Decoded>) -> Understood,
) {
    json_value_line(line, out, |value, out| match value {
        Value::Object(obj) => object(obj, out),
        _ => Understood::No,
    });
}

/// One stdout line holding any JSON value (a CLI whose json mode prints
/// every record in one array): `value` reads it. An empty line is skipped;
/// a line that does not parse is kept as `raw`.
pub fn json_value_line(
    line: &[u8],
    out: &mut Vec<Decoded>,
    value: impl FnOnce(&Value, &mut Vec<Decoded>) -> Understood,
) {
    if line.is_empty() {
        return;
    }
    let start = out.len();
    let understood = match serde_json::from_slice::<Value>(line) {
        Ok(v) => value(&v, out),
        Err(_) => Understood::No,
    };
    let keep = match understood {
        Understood::No => true,
        Understood::Yes => out.len() == start,
        Understood::Quietly => false,
    };
    if keep {
        out.push(raw(RawStream::Stdout, line));
    }
}

#[cfg(test)]
mod tests {
    use agentgate_protocol::{EventBody, MessageEvent};

    use super::*;
    use crate::decode::event;

    fn message() -> Decoded {
        event(EventBody::Message(MessageEvent { text: "hi".into() }))
    }

    fn kept_raw(out: &[Decoded]) -> usize {
        out.iter()
            .filter(|d| matches!(d, Decoded::Event(EventBody::Raw(_))))
            .count()
    }

    #[test]
    fn what_is_not_understood_is_kept_raw_and_nothing_is_lost() {
        let mut out = Vec::new();
        json_line(b"", &mut out, |_, _| Understood::No);
        assert!(out.is_empty(), "an empty line carries nothing");
        json_line(b"not json", &mut out, |_, _| Understood::Yes);
        json_line(b"[1]", &mut out, |_, _| Understood::Yes);
        assert_eq!(kept_raw(&out), 2);
        out.clear();
        // Understood, with an event: no raw.
        json_line(b"{}", &mut out, |_, out| {
            out.push(message());
            Understood::Yes
        });
        assert_eq!((out.len(), kept_raw(&out)), (1, 0));
        // Understood, but nothing came of it: kept.
        json_line(b"{}", &mut out, |_, _| Understood::Yes);
        assert_eq!(kept_raw(&out), 1);
        // Only partly understood: both.
        json_line(b"{}", &mut out, |_, out| {
            out.push(message());
            Understood::No
        });
        assert_eq!(kept_raw(&out), 2);
        // Understood, nothing to report on purpose.
        let before = out.len();
        json_line(b"{}", &mut out, |_, _| Understood::Quietly);
        assert_eq!(out.len(), before);
        // Arrays reach a value reader.
        json_value_line(b"[{}]", &mut out, |v, _| {
            Understood::unless(!v.is_array()).and(Understood::Quietly)
        });
        assert_eq!(
            out.len(),
            before + 1,
            "Yes with nothing emitted keeps the line"
        );
    }
}
