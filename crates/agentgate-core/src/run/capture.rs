//! Decoding a saved capture without running anything.

use agentgate_protocol::{
    Envelope, Event, EventBody, RawEvent, RawStream, ResultEvent, exit_code_for,
};
use jiff::Timestamp;

use super::emitter::Emitter;
use super::tail::{STDERR_TAIL_BYTES, Tail};
use crate::accumulate::{Accumulator, Finish};
use crate::classify::{self, ClassifyInput, StdoutSeen};
use crate::decode::Decoded;
use crate::providers::Provider;
use crate::supervise::Stream;

/// Decode a saved capture of a CLI's output without running anything: the
/// same decoder, accumulator and classifier as a live run.
pub fn parse_capture(
    provider: &dyn Provider,
    stdout: &[u8],
    stderr: &[u8],
    exit_code: Option<i32>,
) -> (Vec<Event>, Envelope, i32) {
    let run_id = "parse".to_owned();
    let mut events = Vec::new();
    let mut em = Emitter::new(
        run_id.clone(),
        None,
        &mut events,
        crate::redact::Redactor::default(),
    );
    em.provider = Some(provider.name().to_owned());
    em.attempt = Some(1);
    let adapter = provider;
    let mut decoder = adapter.decoder();
    let mut acc = Accumulator::new(provider.name());
    let mut out = Vec::new();
    let mut stdout_tail = Tail::new(STDERR_TAIL_BYTES);
    let mut stderr_tail = Tail::new(STDERR_TAIL_BYTES);
    let mut stdout_seen = StdoutSeen::default();
    for line in split_lines(stdout) {
        stdout_tail.push(line);
        stdout_seen.line(line);
        decoder.stdout_line(line, &mut out);
    }
    for line in split_lines(stderr) {
        stderr_tail.push(line);
        decoder.stderr_line(line, &mut out);
    }
    decoder.finish(&mut out);
    for d in out {
        acc.observe(&d);
        if let Decoded::Event(body) = d {
            em.emit(body);
        }
    }
    let stdout_text = stdout_tail.text();
    let stderr_text = stderr_tail.text();
    let error = classify::classify(&ClassifyInput {
        provider: provider.name(),
        table: provider.errors(),
        errors: acc.errors(),
        final_: acc.final_record(),
        final_expected: provider.final_record(),
        stdout_seen,
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
        run_id,
        duration_ms: 0,
        requested_model: None,
        error: error.clone(),
        exit_code: exit,
        previous_thread_totals: None,
        stderr_tail: (!stderr_text.is_empty()).then_some(stderr_text),
        exposes_reasoning: adapter.exposes_reasoning(),
    });
    if let Some(e) = error {
        em.emit(EventBody::Error(e));
    }
    em.emit(EventBody::Result(ResultEvent {
        envelope: Box::new(envelope.clone()),
    }));
    (events, envelope, exit)
}

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
