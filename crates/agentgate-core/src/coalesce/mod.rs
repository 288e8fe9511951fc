//! The answer in readable chunks, for chat front ends that edit or post a
//! message per chunk under a rate limit (`--coalesce`, `?coalesce=`).
//!
//! [`Coalescer`] is pure: text goes in as it arrives ([`Coalescer::push`]),
//! readable chunks come out, and time is the caller's (`now` is a
//! parameter of every call, so tests drive it without sleeping; a driver
//! wakes at [`Coalescer::next_wake`] and calls [`Coalescer::poll`]). The
//! rules, in order:
//!
//! - a cut is never inside a word, and never inside an open Markdown code
//!   fence: a fence goes out whole, unless its content passes the fence
//!   cap (twice `max_chars`), then at a line end inside it;
//! - at most one chunk per `min_interval` (the first at once); the end of
//!   the text ([`Coalescer::finish`]) is not held back;
//! - a chunk is everything up to the last cut of the mode's level
//!   (`paragraph`: a blank line or a closed fence; `sentence`: also a line
//!   end or a sentence end; `size`: none, only the rules below);
//! - past `max_chars` characters, a chunk ends at the best cut within
//!   them (paragraph, line, sentence, word), or at the first cut after
//!   them (a longer word, a closed fence);
//! - after `idle` without new text, what has arrived goes out up to its
//!   last cut (a word's end at least);
//! - the end of a message ([`Coalescer::end_segment`]: the CLI finished a
//!   whole message, or called a tool) is a cut;
//! - [`Coalescer::finish`] sends the rest, so the chunks concatenate
//!   exactly to the text pushed.
//!
//! [`ChunkFollower`] applies it to a run's events: the text is the
//! `text_delta` events, or the `message` events of a CLI that gives whole
//! messages, and each chunk becomes an `answer_chunk` event.

mod follow;
mod scan;
#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

pub use follow::ChunkFollower;
use scan::{Level, Scan, Start};

/// Which cut a chunk waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CoalesceMode {
    /// A blank line, or the end of a code fence.
    #[default]
    Paragraph,
    /// A sentence end or a line end, or a paragraph's.
    Sentence,
    /// No cut of its own: only `max_chars`, `idle` and the ends.
    Size,
}

impl std::str::FromStr for CoalesceMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "paragraph" => Ok(CoalesceMode::Paragraph),
            "sentence" => Ok(CoalesceMode::Sentence),
            "size" => Ok(CoalesceMode::Size),
            other => Err(format!(
                "unknown coalesce mode `{other}` (expected paragraph, sentence or size)"
            )),
        }
    }
}

/// How a [`Coalescer`] cuts. The defaults suit a chat front end: paragraphs,
/// one chunk a second at most, 2,000 characters (a code block up to 4,000
/// goes whole, under Telegram's 4,096), 2 s of silence sends what came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoalesceOptions {
    /// Which cut a chunk waits for.
    pub mode: CoalesceMode,
    /// At most one chunk per this much time (zero: no limit).
    pub min_interval: Duration,
    /// A chunk's size in characters, past which it is cut at the best cut
    /// within it; a code fence is cut only past twice this.
    pub max_chars: usize,
    /// After this much time without new text, what came goes out (`None`:
    /// never).
    pub idle: Option<Duration>,
}

impl Default for CoalesceOptions {
    fn default() -> Self {
        CoalesceOptions {
            mode: CoalesceMode::Paragraph,
            min_interval: Duration::from_secs(1),
            max_chars: 2000,
            idle: Some(Duration::from_secs(2)),
        }
    }
}

impl CoalesceOptions {
    /// The options for `mode` with the other values given where `Some`
    /// (an idle of zero is none). A `max_chars` of 0 is refused.
    pub fn new(
        mode: CoalesceMode,
        min_interval: Option<Duration>,
        max_chars: Option<usize>,
        idle: Option<Duration>,
    ) -> Result<CoalesceOptions, String> {
        let d = CoalesceOptions::default();
        if max_chars == Some(0) {
            return Err("the coalesce size (max chars) must be at least 1".to_owned());
        }
        Ok(CoalesceOptions {
            mode,
            min_interval: min_interval.unwrap_or(d.min_interval),
            max_chars: max_chars.unwrap_or(d.max_chars),
            idle: match idle {
                Some(t) if t.is_zero() => None,
                Some(t) => Some(t),
                None => d.idle,
            },
        })
    }

    fn fence_cap(&self) -> usize {
        self.max_chars.saturating_mul(2)
    }
}

/// One readable piece of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The text.
    pub text: String,
    /// Its number, from 0.
    pub index: u64,
    /// Where it starts in the text pushed, in bytes.
    pub offset: u64,
    /// Why it ends where it does: `paragraph`, `sentence`, `line`, `word`,
    /// `size`, `idle`, `message` or `end`.
    pub boundary: &'static str,
}

/// Cuts streamed text into readable chunks (see the module's notes).
#[derive(Debug, Clone)]
pub struct Coalescer {
    options: CoalesceOptions,
    /// Text pushed and not yet sent.
    pending: String,
    /// How `pending` starts: in a fence (after a cut at the cap), in the
    /// middle of a line (after a cut at a word).
    start: Start,
    /// Bytes sent so far.
    offset: u64,
    index: u64,
    last_chunk: Option<Instant>,
    last_text: Option<Instant>,
    /// `pending` up to its end closes a message: a cut.
    segment_ended: bool,
}

impl Coalescer {
    /// An empty coalescer.
    pub fn new(options: CoalesceOptions) -> Coalescer {
        Coalescer {
            options,
            pending: String::new(),
            start: Start::default(),
            offset: 0,
            index: 0,
            last_chunk: None,
            last_text: None,
            segment_ended: false,
        }
    }

    /// The options it cuts by.
    pub fn options(&self) -> &CoalesceOptions {
        &self.options
    }

    /// More text arrived at `now`; the chunks it completes.
    pub fn push(&mut self, text: &str, now: Instant) -> Vec<Chunk> {
        if !text.is_empty() {
            self.pending.push_str(text);
            self.last_text = Some(now);
            self.segment_ended = false;
        }
        self.poll(now)
    }

    /// A message ended (a whole message arrived, or the agent called a
    /// tool): the text so far ends at a cut.
    pub fn end_segment(&mut self, now: Instant) -> Vec<Chunk> {
        if !self.pending.is_empty() {
            self.segment_ended = true;
        }
        self.poll(now)
    }

    /// The chunks due at `now` (the interval passed, or the text went
    /// idle).
    pub fn poll(&mut self, now: Instant) -> Vec<Chunk> {
        let mut out = Vec::new();
        while let Some((at, boundary)) = self.cut(now) {
            out.push(self.take(at, boundary, now));
        }
        out
    }

    /// The text ended: the rest, in chunks of at most `max_chars` where it
    /// has cuts, sent without waiting for the interval.
    pub fn finish(&mut self, now: Instant) -> Vec<Chunk> {
        let mut out = Vec::new();
        while !self.pending.is_empty() {
            let over = self.pending.chars().count() > self.options.max_chars;
            let at = match over.then(|| self.size_cut(&Scan::of(&self.pending, self.start))) {
                Some(Some(at)) if at < self.pending.len() => at,
                _ => self.pending.len(),
            };
            let boundary = if at == self.pending.len() {
                "end"
            } else {
                "size"
            };
            out.push(self.take(at, boundary, now));
        }
        out
    }

    /// When [`Coalescer::poll`] may have a chunk without new text: the
    /// interval's end when a chunk is ready, else the idle time's (never
    /// before the interval's end); `None` when only more text can make one.
    pub fn next_wake(&self) -> Option<Instant> {
        if self.pending.is_empty() {
            return None;
        }
        let interval_end = self.last_chunk.map(|t| t + self.options.min_interval);
        if self.ready_cut().is_some() {
            return interval_end.or(self.last_text);
        }
        if Scan::of(&self.pending, self.start).outside.is_empty() {
            return None;
        }
        let idle_end = self.options.idle.zip(self.last_text).map(|(i, t)| t + i)?;
        Some(interval_end.map_or(idle_end, |e| e.max(idle_end)))
    }

    /// Where to cut at `now`, and why.
    fn cut(&self, now: Instant) -> Option<(usize, &'static str)> {
        if self.pending.is_empty() {
            return None;
        }
        if let Some(last) = self.last_chunk
            && now < last + self.options.min_interval
        {
            return None;
        }
        if let Some(cut) = self.ready_cut() {
            return Some(cut);
        }
        let idle = match (self.options.idle, self.last_text) {
            (Some(idle), Some(t)) => now >= t + idle,
            _ => false,
        };
        if idle {
            let scan = Scan::of(&self.pending, self.start);
            if let Some(&(at, _)) = scan.outside.last() {
                return Some((at, "idle"));
            }
        }
        None
    }

    /// A cut due whatever the time: past the size, the mode's level, or
    /// the end of a message.
    fn ready_cut(&self) -> Option<(usize, &'static str)> {
        let scan = Scan::of(&self.pending, self.start);
        let chars = self.pending.chars().count();
        if chars > self.options.max_chars {
            return self.size_cut(&scan).map(|at| (at, "size"));
        }
        if self.segment_ended {
            return Some((self.pending.len(), "message"));
        }
        let wanted = match self.options.mode {
            CoalesceMode::Paragraph => Level::Paragraph,
            CoalesceMode::Sentence => Level::Sentence,
            CoalesceMode::Size => return None,
        };
        scan.outside
            .iter()
            .rev()
            .find(|(_, l)| *l >= wanted)
            .map(|&(at, l)| (at, l.name()))
    }

    /// The cut of a text longer than `max_chars`: the best within it, else
    /// the first after it (the end of a long word, of a code fence), else,
    /// for a fence whose content passes the cap, its last line end within
    /// the cap (or its first).
    fn size_cut(&self, scan: &Scan) -> Option<usize> {
        let limit = byte_at_char(&self.pending, self.options.max_chars);
        let within = scan.outside.iter().take_while(|(at, _)| *at <= limit);
        if let Some(best) = within.clone().map(|(_, l)| *l).max() {
            return within.filter(|(_, l)| *l == best).last().map(|(at, _)| *at);
        }
        let first_after = scan.outside.first().map(|(at, _)| *at);
        let Some(&(_, content)) = scan.in_fence.first() else {
            return first_after;
        };
        if first_after.is_some_and(|after| after <= content) {
            return first_after;
        }
        // The fence ends at the first cut outside it, or is still open.
        let fence_end = first_after.unwrap_or(self.pending.len());
        let cap = self.options.fence_cap();
        if self.pending[content..fence_end].chars().count() <= cap {
            return first_after;
        }
        let fence_limit = content + byte_at_char(&self.pending[content..], cap);
        let lines = scan
            .in_fence
            .iter()
            .filter(|(_, c)| *c == content)
            .map(|(at, _)| *at);
        lines
            .clone()
            .rev()
            .find(|at| *at <= fence_limit)
            .or_else(|| lines.clone().next())
    }

    fn take(&mut self, at: usize, boundary: &'static str, now: Instant) -> Chunk {
        // The next message starts a line of its own.
        let start = Start {
            fence: Scan::fence_at(&self.pending, self.start, at),
            mid_line: boundary != "message"
                && !self.pending[..at].ends_with('\n')
                && (at > 0 || self.start.mid_line),
        };
        let rest = self.pending.split_off(at);
        let text = std::mem::replace(&mut self.pending, rest);
        let chunk = Chunk {
            index: self.index,
            offset: self.offset,
            boundary,
            text,
        };
        self.start = start;
        self.offset += chunk.text.len() as u64;
        self.index += 1;
        self.last_chunk = Some(now);
        if self.pending.is_empty() {
            self.segment_ended = false;
        }
        chunk
    }
}

/// The byte offset of the `n`th character of `s` (its length if shorter).
fn byte_at_char(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}
