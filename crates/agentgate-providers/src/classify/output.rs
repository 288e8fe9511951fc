//! The CLI's output tails as text evidence: the lines patterns are matched
//! against, and a one-line summary when no line was matched.

use regex::Regex;
use serde_json::Value;

use super::pattern::compiled;

/// The lines of the output tails that may carry an error text: stderr,
/// and the stdout lines that are not JSON records (those are the decoder's
/// business, and the model's own words live in them), less the table's
/// noise lines.
#[derive(Debug)]
pub struct Tails<'a> {
    stderr: Vec<&'a str>,
    stdout: Vec<&'a str>,
}

impl<'a> Tails<'a> {
    pub fn new(stdout: &'a str, stderr: &'a str, noise: &[&'static str]) -> Tails<'a> {
        let noise: Vec<Regex> = noise.iter().filter_map(|p| compiled(p)).collect();
        let keep = |l: &&str| !l.trim().is_empty() && !noise.iter().any(|re| re.is_match(l));
        Tails {
            stderr: stderr.lines().filter(keep).collect(),
            stdout: stdout
                .lines()
                .filter(keep)
                .filter(|l| !l.trim_start().starts_with(['{', '[']))
                .collect(),
        }
    }

    /// Every line, stderr first.
    pub fn lines(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.stderr.iter().chain(self.stdout.iter()).copied()
    }

    /// The first line `re` matches.
    pub fn find(&self, re: &Regex) -> Option<&'a str> {
        self.lines().find(|l| re.is_match(l))
    }

    /// The line most likely to say what went wrong: the last `"message"`
    /// of a JSON error printed over several lines (Gemini's json mode), else
    /// the last line with words in it that is not a stack frame.
    pub fn summary(&self) -> Option<String> {
        let lines: Vec<&str> = self.lines().collect();
        let json_message = lines.iter().rev().find_map(|l| {
            let t = l.trim().trim_end_matches(',');
            if !t.starts_with("\"message\"") {
                return None;
            }
            let v: Value = serde_json::from_str(&format!("{{{t}}}")).ok()?;
            v.get("message")?.as_str().map(str::to_owned)
        });
        json_message.or_else(|| {
            lines
                .iter()
                .rev()
                .map(|l| l.trim())
                .find(|l| !l.starts_with("at ") && l.chars().any(char::is_alphabetic))
                .map(str::to_owned)
        })
    }
}
