//! Decoding a saved capture without running anything.

use agentgate_protocol::{
    Envelope, Event, EventBody, RawEvent, RawStream, ResultEvent, exit_code_for,
};
use std::io::BufRead;

use jiff::Timestamp;

use super::emitter::{Emitter, EventSink};
use super::tail::{STDERR_TAIL_BYTES, Tail};
use crate::read_limit::{BoundedLines, CAPTURE_LINE_MAX_BYTES, ReadLimitError};
use agentgate_providers::Provider;
use agentgate_providers::decode::{Decoded, Decoder};
use agentgate_providers::{Accumulator, Finish};
use agentgate_providers::{ClassifyInput, StdoutSeen, classify};
use agentgate_supervise::Stream;

/// Decode a saved capture of a CLI's output without running anything: the
/// same decoder, accumulator and classifier as a live run.
pub fn parse_capture(
    provider: &dyn Provider,
    stdout: &[u8],
    stderr: &[u8],
    exit_code: Option<i32>,
) -> (Vec<Event>, Envelope, i32) {
    let mut events = Vec::new();
    let mut capture = CaptureDecoder::new(provider, &mut events);
    for line in split_lines(stdout) {
        capture.stdout_line(line);
    }
    for line in split_lines(stderr) {
        capture.stderr_line(line);
    }
    let (envelope, exit) = capture.finish(exit_code);
    (events, envelope, exit)
}

/// Decode a capture read from `stdout` and `stderr` (any readers) a line at
/// a time, each line at most
/// [`CAPTURE_LINE_MAX_BYTES`](crate::read_limit::CAPTURE_LINE_MAX_BYTES):
/// the events go to `sink` as they are decoded, and only one line of input
/// is held at a time. Gives the envelope and its exit code, or why a
/// reader failed (an over-long line included).
pub fn parse_capture_streams(
    provider: &dyn Provider,
    stdout: impl BufRead,
    stderr: Option<impl BufRead>,
    exit_code: Option<i32>,
    sink: &mut dyn EventSink,
) -> Result<(Envelope, i32), ReadLimitError> {
    let mut capture = CaptureDecoder::new(provider, sink);
    let mut lines = BoundedLines::new(stdout, CAPTURE_LINE_MAX_BYTES, "a capture");
    while let Some(line) = lines.next_line()? {
        capture.stdout_line(line);
    }
    if let Some(stderr) = stderr {
        let mut lines = BoundedLines::new(stderr, CAPTURE_LINE_MAX_BYTES, "a capture");
        while let Some(line) = lines.next_line()? {
            capture.stderr_line(line);
        }
    }
    Ok(capture.finish(exit_code))
}

/// A capture being decoded: lines in, events out to the sink as they come.
struct CaptureDecoder<'a> {
    provider: &'a dyn Provider,
    em: Emitter<'a>,
    decoder: Box<dyn Decoder>,
    acc: Accumulator,
    out: Vec<Decoded>,
    stdout_tail: Tail,
    stderr_tail: Tail,
    stdout_seen: StdoutSeen,
}

impl<'a> CaptureDecoder<'a> {
    fn new(provider: &'a dyn Provider, sink: &'a mut dyn EventSink) -> CaptureDecoder<'a> {
        let mut em = Emitter::new(
            CAPTURE_RUN_ID.to_owned(),
            None,
            sink,
            crate::redact::Redactor::default(),
        );
        em.provider = Some(provider.name().to_owned());
        em.attempt = Some(1);
        CaptureDecoder {
            provider,
            em,
            decoder: provider.decoder(),
            acc: Accumulator::new(provider.name()),
            out: Vec::new(),
            stdout_tail: Tail::new(STDERR_TAIL_BYTES),
            stdout_seen: StdoutSeen::default(),
            stderr_tail: Tail::new(STDERR_TAIL_BYTES),
        }
    }

    fn stdout_line(&mut self, line: &[u8]) {
        self.stdout_tail.push(line);
        self.stdout_seen.line(line);
        self.decoder.stdout_line(line, &mut self.out);
        self.pass_on();
    }

    fn stderr_line(&mut self, line: &[u8]) {
        self.stderr_tail.push(line);
        self.decoder.stderr_line(line, &mut self.out);
        self.pass_on();
    }

    /// What the decoder gave so far goes to the accumulator and the sink.
    fn pass_on(&mut self) {
        for d in self.out.drain(..) {
            self.acc.observe(&d);
            if let Decoded::Event(body) = d {
                self.em.emit(body);
            }
        }
    }

    fn finish(mut self, exit_code: Option<i32>) -> (Envelope, i32) {
        self.decoder.finish(&mut self.out);
        self.pass_on();
        let (provider, acc) = (self.provider, self.acc);
        let stdout_text = self.stdout_tail.text();
        let stderr_text = self.stderr_tail.text();
        let error = classify(&ClassifyInput {
            provider: provider.name(),
            table: provider.errors(),
            errors: acc.errors(),
            final_: acc.final_record(),
            final_expected: provider.final_record(),
            stdout_seen: self.stdout_seen,
            exit_code,
            signal: None,
            stdout_tail: &stdout_text,
            stderr_tail: &stderr_text,
            now: Timestamp::now(),
            tz: None,
        });
        let exit = exit_code_for(
            error.as_ref().map(|e| e.kind),
            error.as_ref().is_some_and(|e| e.recoverable),
        );
        let envelope = acc.finish(Finish {
            run_id: CAPTURE_RUN_ID.to_owned(),
            duration_ms: 0,
            requested_model: None,
            error: error.clone(),
            exit_code: exit,
            previous_thread_totals: None,
            stderr_tail: (!stderr_text.is_empty()).then_some(stderr_text),
            exposes_reasoning: provider.exposes_reasoning(),
        });
        let mut em = self.em;
        if let Some(e) = error {
            em.emit(EventBody::Error(e));
        }
        em.emit(EventBody::Result(ResultEvent {
            envelope: Box::new(envelope.clone()),
        }));
        (envelope, exit)
    }
}

/// The run id of a decoded capture (nothing ran).
const CAPTURE_RUN_ID: &str = "parse";

/// Split a capture into lines the way the supervisor does: on `\n`, with a
/// trailing `\r` removed; a last line without `\n` counts.
fn split_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let trimmed = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let empty = bytes.is_empty();
    trimmed
        .split(|b| *b == b'\n')
        .filter(move |_| !empty)
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
}

/// Raw event for a line the run could not attribute (kept for symmetry with
/// decoders; used when a CLI fails before its decoder saw anything).
pub fn raw_line(stream: Stream, bytes: &[u8]) -> EventBody {
    EventBody::Raw(RawEvent::from_bytes(
        match stream {
            Stream::Stdout => RawStream::Stdout,
            Stream::Stderr => RawStream::Stderr,
        },
        bytes,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_lines_split_like_the_supervisor() {
        let lines: Vec<&[u8]> = split_lines(b"a\r\nb\n\nc").collect();
        assert_eq!(lines, [&b"a"[..], b"b", b"", b"c"]);
        assert_eq!(split_lines(b"").count(), 0);
        assert_eq!(split_lines(b"x\n").count(), 1);
    }
}
