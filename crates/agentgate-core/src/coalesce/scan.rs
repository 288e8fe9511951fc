//! Where a piece of streamed text may be cut: one pass over the text not
//! yet sent gives every position outside a Markdown code fence that ends a
//! paragraph, a sentence, a line or a word, and the line ends inside an
//! open fence (usable only past the fence cap).
//!
//! A fence line is a line whose first non-blank characters are three or
//! more backticks or tildes; the fence closes at a line of the same
//! character at least as long with nothing after it. Only whole lines are
//! judged: the line still arriving may become a fence line, so no position
//! inside it after its start counts while it could be one.

/// How readable a cut position is, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Level {
    /// After a space or tab.
    Word,
    /// After `.`, `!` or `?` (and closing quotes or brackets) and a space.
    Sentence,
    /// After a line end.
    Line,
    /// After a blank line, or after the line that closes a code fence.
    Paragraph,
}

impl Level {
    pub(super) fn name(self) -> &'static str {
        match self {
            Level::Word => "word",
            Level::Line => "line",
            Level::Sentence => "sentence",
            Level::Paragraph => "paragraph",
        }
    }
}

/// An open code fence: its character and the length of its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Fence {
    marker: char,
    len: usize,
}

/// How a text to scan starts: inside a fence, or in the middle of a line
/// (the text before it went out in an earlier chunk).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Start {
    pub fence: Option<Fence>,
    pub mid_line: bool,
}

/// The cut positions of one text.
#[derive(Debug, Default)]
pub(super) struct Scan {
    /// Positions (byte offsets, exclusive ends) outside any fence, each
    /// with its level, ascending.
    pub outside: Vec<(usize, Level)>,
    /// Line ends inside an open fence, ascending, with the byte offset the
    /// fence's content started at (0 when the text starts inside it).
    pub in_fence: Vec<(usize, usize)>,
    /// The fence open at the end of the text, with the offset its content
    /// starts at.
    pub open_at_end: Option<(Fence, usize)>,
}

impl Scan {
    /// The fence open at `pos` of `text` (which starts as [`Scan::of`]'s).
    pub fn fence_at(text: &str, start: Start, pos: usize) -> Option<Fence> {
        let mut fence = start.fence;
        for (i, line) in text[..pos].split_inclusive('\n').enumerate() {
            if line.ends_with('\n') && (i > 0 || !start.mid_line) {
                fence = next_fence(fence, line);
            }
        }
        fence
    }

    /// Scan `text`, which starts as `start` says.
    pub fn of(text: &str, start: Start) -> Scan {
        let mid_line = start.mid_line;
        let start = start.fence;
        let mut scan = Scan::default();
        let mut fence = start;
        let mut fence_content = 0;
        let mut line_start = 0;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            let end = line_start + line.len();
            let whole = line.ends_with('\n');
            // The rest of a line whose start went out already is no fence
            // line.
            let judged = i > 0 || !mid_line;
            let marker = fence_marker(line).filter(|_| judged);
            if fence.is_none() && marker.is_none() && !(judged && could_become_marker(line, whole))
            {
                words_and_sentences(line, line_start, &mut scan.outside);
            }
            if whole {
                let was_open = fence;
                if judged {
                    fence = next_fence(fence, line);
                }
                match (was_open, fence) {
                    (None, None) => {
                        let level = if line.trim().is_empty() {
                            Level::Paragraph
                        } else {
                            Level::Line
                        };
                        push(&mut scan.outside, end, level);
                    }
                    (None, Some(_)) => fence_content = end,
                    (Some(_), Some(_)) => scan.in_fence.push((end, fence_content)),
                    // The fence closed: a code block is a block.
                    (Some(_), None) => push(&mut scan.outside, end, Level::Paragraph),
                }
            }
            line_start = end;
        }
        scan.open_at_end = fence.map(|f| (f, fence_content));
        scan
    }
}

fn push(out: &mut Vec<(usize, Level)>, pos: usize, level: Level) {
    match out.last_mut() {
        Some((last, l)) if *last == pos => *l = (*l).max(level),
        _ => out.push((pos, level)),
    }
}

/// Word and sentence ends inside one line (its line end is handled by the
/// caller).
fn words_and_sentences(line: &str, base: usize, out: &mut Vec<(usize, Level)>) {
    let mut prev: Option<char> = None;
    let mut sentence_end = false;
    for (i, c) in line.char_indices() {
        if c == '\n' {
            break;
        }
        if c == ' ' || c == '\t' {
            let mut level = if sentence_end {
                Level::Sentence
            } else {
                Level::Word
            };
            // A run of blanks: only its end is a cut, so no chunk starts
            // with a blank.
            if prev.is_some_and(|p| p == ' ' || p == '\t')
                && let Some((_, l)) = out.pop()
            {
                level = level.max(l);
            }
            push(out, base + i + c.len_utf8(), level);
        } else {
            sentence_end = matches!(c, '.' | '!' | '?')
                || (sentence_end && matches!(c, '"' | '\'' | ')' | ']' | '”' | '’' | '*' | '_'));
        }
        prev = Some(c);
    }
}

/// The fence a whole line opens or closes, if it is a fence line.
fn fence_marker(line: &str) -> Option<Fence> {
    let t = line.trim_start_matches([' ', '\t']);
    let marker = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = t.chars().take_while(|c| *c == marker).count();
    (len >= 3).then_some(Fence { marker, len })
}

/// Whether a line still arriving could turn out to be a fence line.
fn could_become_marker(line: &str, whole: bool) -> bool {
    if whole {
        return false;
    }
    let t = line.trim_start_matches([' ', '\t']);
    t.chars().all(|c| c == '`') || t.chars().all(|c| c == '~')
}

fn next_fence(open: Option<Fence>, line: &str) -> Option<Fence> {
    let marker = fence_marker(line);
    match (open, marker) {
        (None, m) => m,
        (Some(f), Some(m)) if m.marker == f.marker && m.len >= f.len => {
            let rest = line.trim().trim_start_matches(f.marker);
            if rest.is_empty() { None } else { Some(f) }
        }
        (Some(f), _) => Some(f),
    }
}
