//! [`ChunkFollower`]: a [`Coalescer`] over a run's events. Events go in
//! in order and come out in order, each followed by the `answer_chunk`
//! events it completed; the chunks of the end come before the `result`.

use std::time::Instant;

use agentgate_protocol::{AnswerChunkEvent, Event, EventBody};
use jiff::Timestamp;

use super::{Chunk, CoalesceOptions, Coalescer};

/// Adds `answer_chunk` events to a run's stream (see the module's notes).
///
/// The answer's text is the `text_delta` events; a `message` adds its text
/// only when no delta streamed it (a CLI that gives whole messages), and
/// ends a message either way, as a `tool_use` and an attempt's `start` do.
/// A chunk event carries the header (`run_id`, `seq`, `provider`,
/// `attempt`) of the last event before it and the time it was cut.
#[derive(Debug, Clone)]
pub struct ChunkFollower {
    coalescer: Coalescer,
    /// A delta streamed since the last message end.
    deltas: bool,
    /// The header chunks take: the last event seen.
    last: Option<Event>,
}

impl ChunkFollower {
    /// A follower cutting by `options`.
    pub fn new(options: CoalesceOptions) -> ChunkFollower {
        ChunkFollower {
            coalescer: Coalescer::new(options),
            deltas: false,
            last: None,
        }
    }

    /// `event` arrived at `now`: it, then the chunks it completed (for the
    /// `result`, the rest of the text first, then it).
    pub fn observe(&mut self, event: Event, now: Instant) -> Vec<Event> {
        let chunks = match &event.body {
            EventBody::TextDelta(t) => {
                self.deltas = true;
                self.coalescer.push(&t.text, now)
            }
            EventBody::Message(m) => {
                let mut chunks = Vec::new();
                if !self.deltas {
                    chunks = self.coalescer.push(&m.text, now);
                }
                self.deltas = false;
                chunks.extend(self.coalescer.end_segment(now));
                chunks
            }
            EventBody::ToolUse(_) | EventBody::Start(_) => {
                self.deltas = false;
                self.coalescer.end_segment(now)
            }
            EventBody::Result(_) => {
                let chunks = self.coalescer.finish(now);
                let mut out = self.events(chunks, Some(&event));
                out.push(event);
                return out;
            }
            _ => Vec::new(),
        };
        let after = self.events(chunks, Some(&event));
        self.last = Some(event.clone());
        let mut out = vec![event];
        out.extend(after);
        out
    }

    /// The chunks due at `now` without a new event (interval or idle).
    pub fn poll(&mut self, now: Instant) -> Vec<Event> {
        let chunks = self.coalescer.poll(now);
        self.events(chunks, None)
    }

    /// When [`ChunkFollower::poll`] may have a chunk (see
    /// [`Coalescer::next_wake`]).
    pub fn next_wake(&self) -> Option<Instant> {
        self.coalescer.next_wake()
    }

    /// The stream ended without a `result` (a follower that stops early):
    /// the rest of the text.
    pub fn finish(&mut self, now: Instant) -> Vec<Event> {
        let chunks = self.coalescer.finish(now);
        self.events(chunks, None)
    }

    fn events(&self, chunks: Vec<Chunk>, current: Option<&Event>) -> Vec<Event> {
        let Some(header) = current.or(self.last.as_ref()) else {
            return Vec::new();
        };
        let ts = Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string();
        chunks
            .into_iter()
            .map(|c| Event {
                ts: ts.clone(),
                cut: None,
                body: EventBody::AnswerChunk(AnswerChunkEvent {
                    text: c.text,
                    index: c.index,
                    offset: c.offset,
                    boundary: c.boundary.to_owned(),
                }),
                ..header.clone()
            })
            .collect()
    }
}
