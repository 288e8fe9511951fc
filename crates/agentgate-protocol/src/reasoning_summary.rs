//! The compact form of a run's reasoning (the envelope's
//! `reasoning_summary`): the shell wrappers' 600-character `reasoning`.

/// The most characters a reasoning summary holds, the marker included.
pub const REASONING_SUMMARY_CHARS: usize = 600;

/// What ends a summary that was cut.
const CUT_MARKER: char = '…';

/// The wrappers' compact form of `reasoning`: lines that hold only a
/// placeholder (`{}`, `[]`, `null`) or a bare code fence (```` ``` ````,
/// ```` ```json ````) dropped, every run of whitespace (newlines included)
/// made one space, the ends trimmed, and the whole cut to
/// [`REASONING_SUMMARY_CHARS`] characters on a character boundary, the last
/// one then being `…`. Empty when nothing is left.
pub fn compact_reasoning(reasoning: &str) -> String {
    let mut words = String::new();
    for line in reasoning.lines().filter(|l| !is_placeholder(l.trim())) {
        for word in line.split_whitespace() {
            if !words.is_empty() {
                words.push(' ');
            }
            words.push_str(word);
        }
    }
    if words.chars().count() <= REASONING_SUMMARY_CHARS {
        return words;
    }
    let mut cut: String = words.chars().take(REASONING_SUMMARY_CHARS - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push(CUT_MARKER);
    cut
}

/// Whether a trimmed line is a placeholder value or a bare code fence.
fn is_placeholder(line: &str) -> bool {
    matches!(line, "{}" | "[]" | "null" | "\"\"")
        || line.strip_prefix("```").is_some_and(|lang| {
            lang.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newlines_and_whitespace_collapse_to_single_spaces() {
        assert_eq!(
            compact_reasoning("  First,\n\n read the file.\tThen\r\n  edit it.  "),
            "First, read the file. Then edit it."
        );
    }

    #[test]
    fn placeholders_and_bare_fences_are_dropped() {
        for only in ["{}", "[]", "null", "```", "```json", "  {}  \n```\n"] {
            assert_eq!(compact_reasoning(only), "", "{only:?}");
        }
        assert_eq!(
            compact_reasoning("```json\n{\"plan\": 1}\n```\nnull\nDone."),
            "{\"plan\": 1} Done."
        );
        // A placeholder inside a sentence is text, not a placeholder.
        assert_eq!(compact_reasoning("returns {} here"), "returns {} here");
    }

    #[test]
    fn long_reasoning_is_cut_at_600_characters_with_a_marker() {
        let short = "a".repeat(600);
        assert_eq!(compact_reasoning(&short), short);
        // Multi-byte characters: cut on a character boundary.
        let long = "é".repeat(700);
        let summary = compact_reasoning(&long);
        assert_eq!(summary.chars().count(), 600);
        assert!(summary.ends_with('…'));
        assert!(summary.starts_with("éé"));
        // Trailing space before the marker is trimmed.
        let spaced = format!("{} tail", "b".repeat(598));
        let summary = compact_reasoning(&spaced);
        assert_eq!(summary, format!("{}…", "b".repeat(598)));
    }
}
