//! A CLI that ends cleanly without the final record its output format
//! promises (Claude Code's `result`, Codex's `turn.completed`, ...) gave no
//! answer: its run failed, whatever its exit status says. This file holds
//! what the classifier knows of such a run: how much stdout there was, and
//! the words of the error.
//!
//! The evidence is weak on purpose: a terminal error, an error final
//! record, a non-zero exit, a signal, a text row or an error notice all
//! decide first. Only when nothing else explains the run is it
//! `provider_error` (recoverable, rule `fallback.no_final_record`), so that
//! a chain moves on to its next agent.

/// What the CLI printed on stdout: its non-blank lines, and how many of
/// them do not look like JSON (do not start with `{` or `[`). Counted line
/// by line as the output arrives, never from a kept copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StdoutSeen {
    /// Non-blank lines.
    pub lines: u64,
    /// Non-blank lines that do not start with `{` or `[`.
    pub not_json: u64,
}

impl StdoutSeen {
    /// Count one stdout line (without its terminator).
    pub fn line(&mut self, line: &[u8]) {
        let text = line.trim_ascii();
        let Some(first) = text.first() else {
            return;
        };
        self.lines += 1;
        if !matches!(first, b'{' | b'[') {
            self.not_json += 1;
        }
    }

    /// `"nothing on stdout"`, `"3 lines on stdout, 2 not JSON"`, `"4
    /// lines on stdout, all JSON"`.
    pub fn describe(&self) -> String {
        let lines = match self.lines {
            0 => return "nothing on stdout".to_owned(),
            1 => "1 line on stdout".to_owned(),
            n => format!("{n} lines on stdout"),
        };
        match self.not_json {
            0 => format!("{lines}, all JSON"),
            n if n == self.lines => format!("{lines}, none JSON"),
            n => format!("{lines}, {n} not JSON"),
        }
    }
}

/// The message of a run that ended without its final record:
/// `codex exited 0 without its closing `turn.completed` record (3 lines on
/// stdout, 2 not JSON; last words: "Segmentation fault")`.
pub(super) fn message(
    provider: &str,
    expected: &str,
    exit_code: Option<i32>,
    seen: StdoutSeen,
    last_words: Option<&str>,
) -> String {
    let ended = match exit_code {
        Some(code) => format!("exited {code}"),
        None => "ended".to_owned(),
    };
    let mut detail = seen.describe();
    if let Some(words) = last_words.map(plain).filter(|w| !w.is_empty()) {
        detail.push_str(&format!("; last words: \"{words}\""));
    }
    format!("{provider} {ended} without {expected} ({detail})")
}

/// `text` without terminal escape sequences (`ESC [ ... m` colours, as
/// opencode prints even into a pipe) and other control characters.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // A CSI sequence ends at its first byte in `@`..=`~`.
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
        } else if !c.is_control() || c == '\t' {
            out.push(c);
        }
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(lines: &[&str]) -> StdoutSeen {
        let mut s = StdoutSeen::default();
        for l in lines {
            s.line(l.as_bytes());
        }
        s
    }

    #[test]
    fn stdout_is_counted_by_non_blank_lines_and_json_looks() {
        assert_eq!(seen(&[]).describe(), "nothing on stdout");
        assert_eq!(seen(&["", "  \t", "\r"]).describe(), "nothing on stdout");
        assert_eq!(seen(&["hello"]).describe(), "1 line on stdout, none JSON");
        assert_eq!(
            seen(&[r#"{"type":"x"}"#, "  [1]", "oops", ""]).describe(),
            "3 lines on stdout, 1 not JSON"
        );
        assert_eq!(
            seen(&[r#"{"a":1}"#, r#"{"b":2}"#]).describe(),
            "2 lines on stdout, all JSON"
        );
    }

    #[test]
    fn the_message_names_the_cli_the_record_and_what_was_seen() {
        let m = message(
            "codex",
            "its closing `turn.completed` record",
            Some(0),
            seen(&["{}", "boom", "bang"]),
            Some("bang"),
        );
        assert_eq!(
            m,
            "codex exited 0 without its closing `turn.completed` record (3 lines on stdout, 2 not JSON; last words: \"bang\")"
        );
        let m = message(
            "opencode",
            "a `step_finish` record that ends the turn",
            Some(0),
            seen(&["{}"]),
            Some("\u{1b}[93m\u{1b}[1m! \u{1b}[0mpermission requested: bash; auto-rejecting\r"),
        );
        assert_eq!(
            m,
            "opencode exited 0 without a `step_finish` record that ends the turn (1 line on stdout, all JSON; last words: \"! permission requested: bash; auto-rejecting\")"
        );
        let m = message("agy", "an answer on stdout", None, seen(&[]), None);
        assert_eq!(
            m,
            "agy ended without an answer on stdout (nothing on stdout)"
        );
    }
}
