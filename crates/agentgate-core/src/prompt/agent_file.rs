//! Agent definition files: Markdown with one persona block per heading.
//!
//! A persona block starts at an ATX heading of level 1 to 3 (`#`, `##`,
//! `###`) and runs until the next heading of the same or a higher level.
//! Deeper headings and `#` lines inside fenced code are text. What precedes
//! the first heading is a preamble shared by every persona.

use std::path::Path;

use super::error::PromptError;

/// A heading that can start a persona block.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Heading {
    /// 1 to 3.
    level: usize,
    /// Its text, trimmed, without the `#`s.
    text: String,
    /// Its line, 1-based.
    line: usize,
    /// The byte offset where its line starts.
    start: usize,
}

impl Heading {
    fn describe(&self) -> String {
        format!(
            "`{} {}` (line {})",
            "#".repeat(self.level),
            self.text,
            self.line
        )
    }
}

/// The part of an agent file a persona selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Selection {
    /// The text before the first heading, trimmed.
    pub preamble: String,
    /// The heading's text (without `#`s).
    pub heading: String,
    /// The block, heading line included, preceded by the lead text of the
    /// headings that enclose it; trimmed.
    pub block: String,
}

/// Select the persona `id` of the agent file `text` (read from `path`).
pub(super) fn select(text: &str, id: &str, path: &Path) -> Result<Selection, PromptError> {
    let id = id.trim();
    if id.is_empty() {
        return Err(PromptError::EmptyPersona);
    }
    let headings = headings(text);
    let wanted = id.to_lowercase();
    let matches: Vec<usize> = (0..headings.len())
        .filter(|&i| headings[i].text.to_lowercase().starts_with(&wanted))
        .collect();
    let exact: Vec<usize> = matches
        .iter()
        .copied()
        .filter(|&i| headings[i].text.to_lowercase() == wanted)
        .collect();
    let chosen = match (exact.as_slice(), matches.as_slice()) {
        ([one], _) | ([], [one]) => *one,
        (_, []) => {
            return Err(PromptError::PersonaNotFound {
                persona: id.to_owned(),
                path: path.to_path_buf(),
                available: headings.iter().map(Heading::describe).collect(),
            });
        }
        (several, all) => {
            let shown = if several.is_empty() { all } else { several };
            return Err(PromptError::PersonaAmbiguous {
                persona: id.to_owned(),
                path: path.to_path_buf(),
                matches: shown.iter().map(|&i| headings[i].describe()).collect(),
            });
        }
    };
    let preamble = headings.first().map_or(text, |h| &text[..h.start]);
    let mut block = String::new();
    for a in ancestors(&headings, chosen) {
        let end = headings.get(a + 1).map_or(text.len(), |h| h.start);
        block.push_str(&text[headings[a].start..end]);
    }
    let h = &headings[chosen];
    let end = headings[chosen + 1..]
        .iter()
        .find(|n| n.level <= h.level)
        .map_or(text.len(), |n| n.start);
    block.push_str(&text[h.start..end]);
    Ok(Selection {
        preamble: preamble.trim().to_owned(),
        heading: h.text.clone(),
        block: block.trim().to_owned(),
    })
}

/// The headings that enclose heading `i`, outermost first.
fn ancestors(headings: &[Heading], i: usize) -> Vec<usize> {
    let mut level = headings[i].level;
    let mut found = Vec::new();
    for a in (0..i).rev() {
        if headings[a].level < level {
            level = headings[a].level;
            found.push(a);
        }
    }
    found.reverse();
    found
}

/// The headings of level 1 to 3 outside fenced code, in order.
fn headings(text: &str) -> Vec<Heading> {
    let mut found = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut start = 0;
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        let line = raw.trim_end_matches(['\n', '\r']);
        let indent = line.len() - line.trim_start_matches(' ').len();
        let body = &line[indent..];
        if indent <= 3 {
            if let Some(f) = fence_of(body) {
                fence = match fence {
                    None => Some(f),
                    Some(open) if f.0 == open.0 && f.1 >= open.1 && is_bare_fence(body) => None,
                    still => still,
                };
            } else if fence.is_none()
                && let Some((level, text)) = heading_of(body)
                && level <= 3
            {
                found.push(Heading {
                    level,
                    text,
                    line: n + 1,
                    start,
                });
            }
        }
        start += raw.len();
    }
    found
}

/// The fence character and length of a code fence line.
fn fence_of(body: &str) -> Option<(char, usize)> {
    let c = body.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = body.len() - body.trim_start_matches(c).len();
    (len >= 3).then_some((c, len))
}

fn is_bare_fence(body: &str) -> bool {
    body.trim_start_matches(['`', '~']).trim().is_empty()
}

/// The level and text of an ATX heading line.
fn heading_of(body: &str) -> Option<(usize, String)> {
    let level = body.len() - body.trim_start_matches('#').len();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &body[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let rest = rest.trim();
    // A closing sequence of `#`s is not part of the text.
    let without_close = rest.trim_end_matches('#');
    let text = if without_close.is_empty() || without_close.ends_with([' ', '\t']) {
        without_close.trim_end()
    } else {
        rest
    };
    Some((level, text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "\
Shared rules for every agent.

# Reviewer — strict code review
Review the diff.
#### Checklist (not a persona)
- tests
```sh
# not a heading
```
# Writer
Write docs.
## Writer tone
Be brief.
### Writer examples
Short ones.
## Release notes ##
Changelog style.
";

    fn pick(id: &str) -> Result<Selection, PromptError> {
        select(FILE, id, Path::new("agents.md"))
    }

    #[test]
    fn a_prefix_selects_the_block_heading_included_and_keeps_the_preamble() {
        let s = pick("  REV ").unwrap();
        assert_eq!(s.preamble, "Shared rules for every agent.");
        assert_eq!(s.heading, "Reviewer — strict code review");
        assert_eq!(
            s.block,
            "# Reviewer — strict code review\nReview the diff.\n#### Checklist (not a persona)\n- tests\n```sh\n# not a heading\n```"
        );
    }

    #[test]
    fn a_block_runs_to_the_next_heading_of_its_level_or_higher() {
        let s = pick("writer tone").unwrap();
        // The enclosing `# Writer` lead text comes along; the sibling
        // `## Release notes` does not.
        assert_eq!(
            s.block,
            "# Writer\nWrite docs.\n## Writer tone\nBe brief.\n### Writer examples\nShort ones."
        );
        let s = pick("release").unwrap();
        assert_eq!(s.heading, "Release notes");
        assert_eq!(
            s.block,
            "# Writer\nWrite docs.\n## Release notes ##\nChangelog style."
        );
    }

    #[test]
    fn an_exact_heading_wins_over_longer_ones_with_the_same_prefix() {
        let s = pick("writer").unwrap();
        assert_eq!(s.heading, "Writer");
        assert!(s.block.ends_with("Changelog style."), "{}", s.block);
    }

    #[test]
    fn an_ambiguous_prefix_lists_the_matching_headings() {
        let e = pick("re").map(|_| ()).unwrap_err();
        assert!(matches!(e, PromptError::PersonaAmbiguous { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.contains("`# Reviewer — strict code review` (line 3)"),
            "{msg}"
        );
        assert!(msg.contains("`## Release notes` (line 16)"), "{msg}");
        let e = pick("w").map(|_| ()).unwrap_err();
        let PromptError::PersonaAmbiguous { matches, .. } = e else {
            panic!("{e:?}")
        };
        assert_eq!(matches.len(), 3, "{matches:?}");
    }

    #[test]
    fn no_match_lists_every_heading() {
        let e = pick("tester").map(|_| ()).unwrap_err();
        let PromptError::PersonaNotFound { available, .. } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(
            available,
            &[
                "`# Reviewer — strict code review` (line 3)",
                "`# Writer` (line 10)",
                "`## Writer tone` (line 12)",
                "`### Writer examples` (line 14)",
                "`## Release notes` (line 16)",
            ]
        );
        assert!(e.to_string().contains("agents.md"), "{e}");
        let e = pick("  ").map(|_| ()).unwrap_err();
        assert!(matches!(e, PromptError::EmptyPersona), "{e:?}");
    }

    #[test]
    fn crlf_lines_and_hashes_without_a_space_are_handled() {
        let text = "pre\r\n#hashtag\r\n## Ops\r\nrun it\r\n";
        let s = select(text, "ops", Path::new("a.md")).unwrap();
        assert_eq!(s.preamble, "pre\r\n#hashtag");
        assert_eq!(s.block, "## Ops\r\nrun it");
    }
}
