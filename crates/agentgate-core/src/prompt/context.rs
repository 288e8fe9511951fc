//! Context pieces: CONTEXT.md, `--context` files and the task input's
//! context, bounded together by `--context-max`.

use std::path::{Path, PathBuf};

use super::error::{FileRole, PromptError};
use super::parts::{PieceKind, PromptParts, PromptPiece};
use super::read::read_text;

/// The file a context folder or working directory provides.
pub const CONTEXT_FILE: &str = "CONTEXT.md";

/// One piece of context, read.
#[derive(Debug)]
pub(super) struct Piece {
    /// How the prompt names it: the path as given, or `task input`.
    pub label: String,
    /// The file read, if any.
    pub source: Option<PathBuf>,
    /// Its canonical path, to include a file once.
    pub canonical: Option<PathBuf>,
    pub text: String,
    /// The whole piece's size in bytes.
    pub size: u64,
    /// Whether `text` is all of it.
    pub complete: bool,
    /// A CONTEXT.md: standing context, sent at the start of a session only.
    pub standing: bool,
}

/// The context part of a prompt.
#[derive(Debug, Default)]
pub(super) struct Built {
    /// One section per piece (a header line, then the text), and the
    /// truncation marker.
    pub sections: Vec<String>,
    pub parts: Vec<PromptPiece>,
    pub warnings: Vec<String>,
}

/// Read every context piece of `p`, in prompt order: the CONTEXT.md, the
/// context files, the task input's context.
pub(super) fn gather(p: &PromptParts) -> Result<(Vec<Piece>, Vec<String>), PromptError> {
    let mut pieces = Vec::new();
    let mut warnings = Vec::new();
    let limit = match (p.context_max, p.max_bytes) {
        (Some(c), 0) => Some(c),
        (Some(c), m) => Some(c.min(m)),
        (None, 0) => None,
        (None, m) => Some(m),
    };
    let mut add = |label: String, path: PathBuf, role: FileRole, standing: bool| {
        let canonical = std::fs::canonicalize(&path).ok();
        if let Some(first) = pieces
            .iter_mut()
            .find(|c: &&mut Piece| canonical.is_some() && c.canonical == canonical)
        {
            // Asked for explicitly, it is sent on resume too.
            first.standing &= standing;
            warnings.push(format!(
                "the context file {label} is given more than once; it is included once"
            ));
            return Ok(());
        }
        let read = read_text(&path, role, limit)?;
        let over_prompt_limit = p
            .context_max
            .is_none_or(|c| p.max_bytes > 0 && c > p.max_bytes);
        if !read.complete && over_prompt_limit {
            return Err(PromptError::FileTooLarge {
                role,
                path,
                bytes: read.size,
                limit: p.max_bytes,
            });
        }
        pieces.push(Piece {
            label,
            canonical,
            source: Some(path),
            text: read.text,
            size: read.size,
            complete: read.complete,
            standing,
        });
        Ok(())
    };

    if let Some(dir) = &p.context_dir {
        let resolved = resolve(&p.cwd, dir);
        let missing = |detail: &str| PromptError::NoContextFile {
            dir: dir.clone(),
            detail: detail.to_owned(),
        };
        if !resolved.is_dir() {
            return Err(missing(if resolved.exists() {
                "it is not a folder"
            } else {
                "the folder does not exist"
            }));
        }
        let file = resolved.join(CONTEXT_FILE);
        if !file.is_file() {
            return Err(missing("the folder has no CONTEXT.md"));
        }
        let label = dir.join(CONTEXT_FILE).display().to_string();
        add(label, file, FileRole::ContextDir, true)?;
    } else if !p.skip_context_file {
        let file = p.cwd.join(CONTEXT_FILE);
        if file.is_file() {
            add(
                CONTEXT_FILE.to_owned(),
                file,
                FileRole::WorkingDirContext,
                true,
            )?;
        }
    }
    for f in &p.context_files {
        add(
            f.display().to_string(),
            resolve(&p.cwd, f),
            FileRole::ContextFile,
            false,
        )?;
    }
    if let Some(text) = p.task_context.as_deref().filter(|t| !t.trim().is_empty()) {
        pieces.push(Piece {
            label: "task input".to_owned(),
            canonical: None,
            source: None,
            text: text.to_owned(),
            size: u64::try_from(text.len()).unwrap_or(u64::MAX),
            complete: true,
            standing: false,
        });
    }
    Ok((pieces, warnings))
}

/// `path`, relative to `cwd` when relative.
pub(super) fn resolve(cwd: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

/// The visible line that replaces cut context.
pub fn truncation_marker(kept: u64, total: u64, max: usize) -> String {
    format!(
        "[... context truncated by agentgate: {kept} of {total} bytes kept (--context-max {max}) ...]"
    )
}

/// Lay out `pieces` in order, keeping at most `max` bytes of their text in
/// all: the piece that does not fit is cut, the ones after it are left out,
/// and a marker line says so.
pub(super) fn build(pieces: &[&Piece], max: Option<usize>) -> Built {
    let total: u64 = pieces.iter().map(|p| p.size).sum();
    let mut built = Built::default();
    let mut kept_total: u64 = 0;
    let mut room = max;
    let mut left_out = Vec::new();
    let mut marked = false;
    for piece in pieces {
        let (keep, truncated) = match room {
            Some(r) if !piece.complete || piece.text.len() > r => (cut_point(&piece.text, r), true),
            _ => (piece.text.len(), false),
        };
        room = match room {
            Some(_) if truncated => Some(0),
            Some(r) => Some(r - keep),
            None => None,
        };
        kept_total += u64::try_from(keep).unwrap_or(u64::MAX);
        built.parts.push(PromptPiece {
            kind: PieceKind::Context,
            source: piece.source.clone(),
            label: Some(piece.label.clone()),
            bytes: keep,
            total_bytes: piece.size,
            truncated,
        });
        let body = piece.text[..keep].trim_end();
        let mut section =
            (!body.is_empty()).then(|| format!("--- context: {} ---\n{body}", piece.label));
        if truncated && keep == 0 && piece.size > 0 {
            left_out.push(piece.label.clone());
        }
        if truncated && !marked {
            marked = true;
            let marker = truncation_marker(kept_total, total, max.unwrap_or(0));
            section = Some(match section {
                Some(s) => format!("{s}\n{marker}"),
                None => marker,
            });
            built.warnings.push(format!(
                "the context was truncated to {kept_total} of {total} bytes (--context-max {})",
                max.unwrap_or(0)
            ));
        }
        built.sections.extend(section);
    }
    if !left_out.is_empty() {
        built.warnings.push(format!(
            "left out of the context for lack of room (--context-max): {}",
            left_out.join(", ")
        ));
    }
    built
}

/// Where to cut `text` to keep at most `room` bytes: at a line end when one
/// is in the second half of the room, else at a character boundary.
fn cut_point(text: &str, room: usize) -> usize {
    let mut end = room.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text[..end].rfind('\n') {
        Some(nl) if (nl + 1) * 2 >= end => nl + 1,
        _ => end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(label: &str, text: &str) -> Piece {
        Piece {
            label: label.to_owned(),
            source: None,
            canonical: None,
            text: text.to_owned(),
            size: text.len() as u64,
            complete: true,
            standing: false,
        }
    }

    #[test]
    fn cuts_prefer_a_line_end_and_never_split_a_character() {
        assert_eq!(cut_point("one\ntwo\nthree", 10), 8);
        // The only line end is too early: cut inside the line instead.
        assert_eq!(cut_point("a\nbbbbbbbbbbbb", 10), 10);
        // 'é' is bytes 1..3: a cut at 2 moves back to 1.
        assert_eq!(cut_point("aéb", 2), 1);
        assert_eq!(cut_point("€€", 5), 3);
        assert_eq!(cut_point("abc", 0), 0);
        assert_eq!(cut_point("abc", 9), 3);
    }

    #[test]
    fn within_the_budget_nothing_is_cut() {
        let (a, b) = (piece("a.md", "alpha\n"), piece("b.md", "beta"));
        let built = build(&[&a, &b], Some(10));
        assert_eq!(
            built.sections,
            [
                "--- context: a.md ---\nalpha",
                "--- context: b.md ---\nbeta"
            ]
        );
        assert!(built.warnings.is_empty(), "{:?}", built.warnings);
        assert!(built.parts.iter().all(|p| !p.truncated));
    }

    #[test]
    fn the_budget_is_shared_and_the_marker_counts_exact_bytes() {
        let a = piece("a.md", "1234\n6789\n");
        let b = piece("b.md", "line one\nline two\n");
        let c = piece("c.md", "never seen");
        // 10 bytes for a, 7 left for b: "line on" has no line end, so
        // the cut is at 7 bytes.
        let built = build(&[&a, &b, &c], Some(17));
        assert_eq!(
            built.sections,
            [
                "--- context: a.md ---\n1234\n6789",
                "--- context: b.md ---\nline on\n[... context truncated by agentgate: 17 of 38 bytes kept (--context-max 17) ...]",
            ]
        );
        let kept: Vec<_> = built.parts.iter().map(|p| (p.bytes, p.truncated)).collect();
        assert_eq!(kept, [(10, false), (7, true), (0, true)]);
        assert_eq!(built.warnings.len(), 2, "{:?}", built.warnings);
        assert!(built.warnings[1].contains("c.md"), "{:?}", built.warnings);
    }

    #[test]
    fn a_budget_used_up_exactly_still_marks_what_is_left_out() {
        let (a, b) = (piece("a.md", "12345"), piece("b.md", "more"));
        let built = build(&[&a, &b], Some(5));
        assert_eq!(
            built.sections,
            [
                "--- context: a.md ---\n12345",
                "[... context truncated by agentgate: 5 of 9 bytes kept (--context-max 5) ...]",
            ]
        );
    }
}
