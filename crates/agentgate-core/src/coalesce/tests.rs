use std::time::{Duration, Instant};

use super::*;

fn opts(mode: CoalesceMode) -> CoalesceOptions {
    CoalesceOptions {
        mode,
        min_interval: Duration::ZERO,
        max_chars: 2000,
        idle: None,
    }
}

fn texts(chunks: &[Chunk]) -> Vec<&str> {
    chunks.iter().map(|c| c.text.as_str()).collect()
}

/// Push `parts` one after the other at `t0`, then finish.
fn run(options: CoalesceOptions, parts: &[&str]) -> Vec<Chunk> {
    let t0 = Instant::now();
    let mut c = Coalescer::new(options);
    let mut out = Vec::new();
    for p in parts {
        out.extend(c.push(p, t0));
    }
    out.extend(c.finish(t0));
    out
}

#[test]
fn paragraphs_go_out_when_their_blank_line_arrives() {
    let t0 = Instant::now();
    let mut c = Coalescer::new(opts(CoalesceMode::Paragraph));
    assert!(c.push("First para", t0).is_empty());
    assert!(c.push("graph. Still", t0).is_empty());
    assert!(c.push(" the first.\n", t0).is_empty());
    let out = c.push("\nSecond", t0);
    assert_eq!(texts(&out), ["First paragraph. Still the first.\n\n"]);
    assert_eq!(out[0].boundary, "paragraph");
    let end = c.finish(t0);
    assert_eq!(texts(&end), ["Second"]);
    assert_eq!((end[0].offset, end[0].index), (35, 1));
    assert_eq!(end[0].boundary, "end");
}

#[test]
fn sentences_and_lines_are_cuts_in_sentence_mode() {
    let out = run(
        opts(CoalesceMode::Sentence),
        &["One. Two", "! Three", "\n- a\n- b"],
    );
    assert_eq!(texts(&out), ["One. ", "Two! ", "Three\n- a\n", "- b"]);
    // "e.g.3" has no blank after the dot: not a sentence end.
    let out = run(opts(CoalesceMode::Sentence), &["pi is 3.14 or so"]);
    assert_eq!(texts(&out), ["pi is 3.14 or so"]);
}

#[test]
fn a_long_text_is_cut_at_the_best_cut_within_max_chars_never_in_a_word() {
    let mut o = opts(CoalesceMode::Paragraph);
    o.max_chars = 20;
    let out = run(o, &["alpha beta gamma. delta epsilon zeta eta theta"]);
    for c in &out {
        assert!(c.text.chars().count() <= 20, "{out:?}");
        assert!(
            c.text.ends_with(' ') || c == out.last().unwrap(),
            "cut inside a word: {out:?}"
        );
    }
    assert_eq!(out[0].text, "alpha beta gamma. ");
    assert_eq!(out[0].boundary, "size");
    // One word longer than the size goes whole, once it has ended.
    let t0 = Instant::now();
    let mut c = Coalescer::new(o);
    assert!(c.push("abcdefghijklmnopqrstuvwxyz", t0).is_empty());
    let out = c.push("ab cd", t0);
    assert_eq!(texts(&out), ["abcdefghijklmnopqrstuvwxyzab "]);
}

#[test]
fn a_code_fence_goes_out_whole() {
    let mut o = opts(CoalesceMode::Paragraph);
    o.max_chars = 30;
    let code = "```rust\nfn main() {\n\n    let x = 1;\n\n    x\n}\n```\n";
    let out = run(o, &["Look:\n\n", code, "Done."]);
    assert_eq!(texts(&out), ["Look:\n\n", code, "Done."]);
    // While the fence is open, the blank lines inside it are no cut.
    let t0 = Instant::now();
    let mut c = Coalescer::new(opts(CoalesceMode::Paragraph));
    assert_eq!(texts(&c.push("Look:\n\n```\na\n\nb\n", t0)), ["Look:\n\n"]);
    assert!(c.push("\nc\n", t0).is_empty());
    assert_eq!(texts(&c.push("```\n", t0)), ["```\na\n\nb\n\nc\n```\n"]);
}

#[test]
fn a_fence_past_its_cap_is_cut_at_a_line_end() {
    let mut o = opts(CoalesceMode::Paragraph);
    o.max_chars = 10;
    let body: String = (0..10).map(|i| format!("line {i}\n")).collect();
    let text = format!("```\n{body}```\nafter");
    let out = run(o, &[&text]);
    assert_eq!(
        out.iter().map(|c| c.text.as_str()).collect::<String>(),
        text
    );
    assert!(out.len() > 2, "{out:?}");
    for c in &out[..out.len() - 1] {
        assert!(c.text.ends_with('\n'), "not at a line end: {out:?}");
    }
    // The cap is twice max_chars: no piece of the fence is much over it.
    assert!(out.iter().all(|c| c.text.chars().count() <= 24), "{out:?}");
}

#[test]
fn one_chunk_per_interval_at_most() {
    let t0 = Instant::now();
    let mut o = opts(CoalesceMode::Paragraph);
    o.min_interval = Duration::from_secs(1);
    let mut c = Coalescer::new(o);
    assert_eq!(c.push("a\n\n", t0).len(), 1);
    let t1 = t0 + Duration::from_millis(200);
    assert!(c.push("b\n\n", t1).is_empty());
    assert!(c.push("c\n\nd", t1).is_empty());
    assert_eq!(c.next_wake(), Some(t0 + Duration::from_secs(1)));
    assert!(c.poll(t0 + Duration::from_millis(999)).is_empty());
    // Both paragraphs that waited go as one chunk.
    let out = c.poll(t0 + Duration::from_secs(1));
    assert_eq!(texts(&out), ["b\n\nc\n\n"]);
    assert_eq!(texts(&c.finish(t1)), ["d"]);
}

#[test]
fn an_idle_stream_sends_what_came_up_to_a_word_end() {
    let t0 = Instant::now();
    let mut o = opts(CoalesceMode::Paragraph);
    o.idle = Some(Duration::from_secs(2));
    let mut c = Coalescer::new(o);
    assert!(c.push("thinking about it and the ans", t0).is_empty());
    assert_eq!(c.next_wake(), Some(t0 + Duration::from_secs(2)));
    assert!(c.poll(t0 + Duration::from_millis(1999)).is_empty());
    let out = c.poll(t0 + Duration::from_secs(2));
    assert_eq!(texts(&out), ["thinking about it and the "]);
    assert_eq!(out[0].boundary, "idle");
    // A lone unfinished word has no cut: nothing to wake for.
    assert_eq!(c.next_wake(), None);
    assert_eq!(texts(&c.finish(t0)), ["ans"]);
}

#[test]
fn a_message_end_is_a_cut() {
    let t0 = Instant::now();
    let mut c = Coalescer::new(opts(CoalesceMode::Paragraph));
    assert!(c.push("I'll run the tests.", t0).is_empty());
    let out = c.end_segment(t0);
    assert_eq!(texts(&out), ["I'll run the tests."]);
    assert_eq!(out[0].boundary, "message");
}

#[test]
fn options_parse_and_refuse_nonsense() {
    assert_eq!(
        "sentence".parse::<CoalesceMode>(),
        Ok(CoalesceMode::Sentence)
    );
    assert!("words".parse::<CoalesceMode>().is_err());
    assert!(CoalesceOptions::new(CoalesceMode::Size, None, Some(0), None).is_err());
    let o = CoalesceOptions::new(
        CoalesceMode::Size,
        Some(Duration::ZERO),
        Some(5),
        Some(Duration::ZERO),
    )
    .unwrap();
    assert_eq!((o.max_chars, o.idle), (5, None));
}

/// A small seeded generator (xorshift64*), so a failure repeats.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap()
    }
}

const WORDS: &[&str] = &[
    "alpha",
    "beta.",
    "gamma!",
    "délta",
    "ε",
    "zeta?",
    "🙂",
    "the",
    "a",
    "code",
    "\n",
    "\n\n",
    "```\n",
    "```rust\n",
    "  ",
    "x",
    "supercalifragilistic",
    "(see)",
    "\"quoted.\"",
];

fn random_text(rng: &mut Rng) -> String {
    let n = rng.below(200);
    let mut s = String::new();
    for _ in 0..n {
        s.push_str(WORDS[rng.below(WORDS.len())]);
        if rng.below(3) > 0 {
            s.push(' ');
        }
    }
    s
}

fn random_splits(rng: &mut Rng, text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    for ch in text.chars() {
        cur.push(ch);
        if rng.below(4) == 0 {
            parts.push(std::mem::take(&mut cur));
        }
    }
    parts.push(cur);
    parts
}

/// Whether byte `at` of `text` is inside a word (a letter on each side).
fn inside_word(text: &str, at: usize) -> bool {
    let before = text[..at].chars().next_back();
    let after = text[at..].chars().next();
    matches!((before, after), (Some(b), Some(a)) if b.is_alphanumeric() && a.is_alphanumeric())
}

/// Whether byte `at` of `text` is inside a fence whose whole content (to
/// its closing line, or the end of the text) is within `cap` characters.
fn inside_small_fence(text: &str, at: usize, cap: usize) -> bool {
    let mut open: Option<usize> = None;
    let mut pos = 0;
    let mut fences = Vec::new();
    for line in text.split_inclusive('\n') {
        let end = pos + line.len();
        if line.ends_with('\n') && line.trim_start().starts_with("```") {
            match open {
                Some(start) if line.trim() == "```" => {
                    fences.push((start, pos));
                    open = None;
                }
                Some(_) => {}
                None => open = Some(end),
            }
        }
        pos = end;
    }
    if let Some(start) = open {
        fences.push((start, text.len()));
    }
    fences
        .iter()
        .any(|&(start, end)| start <= at && at < end && text[start..end].chars().count() <= cap)
}

#[test]
fn random_texts_in_random_pieces_concatenate_exactly_and_cut_well() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for case in 0..400 {
        let text = random_text(&mut rng);
        let parts = random_splits(&mut rng, &text);
        let mode = [
            CoalesceMode::Paragraph,
            CoalesceMode::Sentence,
            CoalesceMode::Size,
        ][case % 3];
        let options = CoalesceOptions {
            mode,
            min_interval: Duration::from_millis(u64::try_from(rng.below(3)).unwrap() * 100),
            max_chars: 5 + rng.below(60),
            idle: Some(Duration::from_millis(300)),
        };
        let t0 = Instant::now();
        let mut c = Coalescer::new(options);
        let mut timed = Vec::new();
        let mut now = t0;
        for p in &parts {
            now += Duration::from_millis(u64::try_from(rng.below(250)).unwrap());
            timed.extend(c.poll(now).into_iter().map(|c| (now, c)));
            timed.extend(c.push(p, now).into_iter().map(|c| (now, c)));
            // A message ends at a line end (the next starts a line).
            if p.ends_with('\n') && rng.below(5) == 0 {
                timed.extend(c.end_segment(now).into_iter().map(|c| (now, c)));
            }
        }
        // At most one chunk per interval before the end.
        for pair in timed.windows(2) {
            assert!(
                pair[1].0 - pair[0].0 >= options.min_interval,
                "case {case}: two chunks within {:?}",
                options.min_interval
            );
        }
        let mut chunks: Vec<Chunk> = timed.into_iter().map(|(_, c)| c).collect();
        chunks.extend(c.finish(now));
        let joined: String = chunks.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(joined, text, "case {case}: {parts:?}");
        let mut offset = 0;
        for (i, ch) in chunks.iter().enumerate() {
            assert_eq!(ch.index, i as u64, "case {case}");
            assert_eq!(ch.offset, offset, "case {case}");
            assert!(!ch.text.is_empty(), "case {case}");
            offset += ch.text.len() as u64;
            let at = usize::try_from(offset).unwrap();
            if ch.boundary != "message" && ch.boundary != "end" {
                assert!(!inside_word(&text, at), "case {case}: {chunks:?}");
                assert!(
                    !inside_small_fence(&text, at, options.max_chars * 2),
                    "case {case}: cut in a fence at {at}: {chunks:#?}"
                );
            }
        }
    }
}

#[test]
fn the_follower_chunks_deltas_and_whole_messages_once() {
    use agentgate_protocol::{Event, EventBody, MessageEvent, ResultEvent, TextDeltaEvent};
    let t0 = Instant::now();
    let ev = |seq, body| Event::new("r", seq, "2026-01-01T00:00:00.000Z", body);
    let mut f = ChunkFollower::new(opts(CoalesceMode::Paragraph));
    let mut out = Vec::new();
    for (seq, body) in [
        EventBody::TextDelta(TextDeltaEvent {
            text: "One.\n".into(),
        }),
        EventBody::TextDelta(TextDeltaEvent {
            text: "\nTwo.".into(),
        }),
        // The whole message repeats the deltas: not added again.
        EventBody::Message(MessageEvent {
            text: "One.\n\nTwo.".into(),
        }),
        EventBody::Message(MessageEvent {
            text: "Three.".into(),
        }),
        EventBody::Result(ResultEvent {
            envelope: Box::default(),
        }),
    ]
    .into_iter()
    .enumerate()
    {
        out.extend(f.observe(ev(seq as u64, body), t0));
    }
    let kinds: Vec<&str> = out.iter().map(|e| e.body.type_name()).collect();
    assert_eq!(
        kinds,
        [
            "text_delta",
            "text_delta",
            "answer_chunk",
            "message",
            "answer_chunk",
            "message",
            "answer_chunk",
            "result"
        ]
    );
    let chunks: Vec<&str> = out
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::AnswerChunk(c) => Some(c.text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(chunks, ["One.\n\n", "Two.", "Three."]);
    assert_eq!(out[2].seq, 1, "a chunk carries the header of its event");
}
