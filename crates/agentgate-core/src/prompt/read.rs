//! Reading a text file without holding more of it than needed.

use std::io::Read;
use std::path::Path;

use super::error::{FileRole, PromptError};

/// The start of a file, as text.
#[derive(Debug)]
pub(super) struct FileText {
    /// The text read (a UTF-8 byte order mark removed).
    pub text: String,
    /// The whole file's size, or what was read when the size is unknown
    /// (a pipe).
    pub size: u64,
    /// Whether `text` is the whole file.
    pub complete: bool,
}

/// Read at most `limit` bytes of `path` (all of it for `None`). A read that
/// stops inside a character ends at the character before it.
pub(super) fn read_text(
    path: &Path,
    role: FileRole,
    limit: Option<usize>,
) -> Result<FileText, PromptError> {
    let read_err = |source| PromptError::Read {
        role,
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_err)?;
    let meta = file.metadata().map_err(read_err)?;
    if meta.is_dir() {
        return Err(PromptError::IsFolder {
            role,
            path: path.to_path_buf(),
        });
    }
    let mut bytes = Vec::new();
    let complete = match limit {
        None => {
            file.take(u64::MAX)
                .read_to_end(&mut bytes)
                .map_err(read_err)?;
            true
        }
        Some(limit) => {
            // One byte more than the limit tells whether the file goes on.
            let want = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
            file.take(want).read_to_end(&mut bytes).map_err(read_err)?;
            let complete = bytes.len() <= limit;
            bytes.truncate(limit);
            complete
        }
    };
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    let size = if complete {
        read
    } else {
        meta.len().max(read.saturating_add(1))
    };
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let text = match std::str::from_utf8(body) {
        Ok(s) => s.to_owned(),
        // A character cut by the limit, not a bad byte.
        Err(e) if !complete && e.error_len().is_none() => {
            String::from_utf8_lossy(&body[..e.valid_up_to()]).into_owned()
        }
        Err(e) => {
            return Err(PromptError::NotUtf8 {
                role,
                path: path.to_path_buf(),
                offset: e.valid_up_to() + (bytes.len() - body.len()),
            });
        }
    };
    Ok(FileText {
        text,
        size,
        complete,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(bytes: &[u8]) -> tempfile::NamedTempFile {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), bytes).unwrap();
        f
    }

    #[test]
    fn reads_a_whole_file_without_its_byte_order_mark() {
        let f = file(b"\xEF\xBB\xBFhello\n");
        let t = read_text(f.path(), FileRole::ContextFile, None).unwrap();
        assert_eq!((t.text.as_str(), t.size, t.complete), ("hello\n", 9, true));
    }

    #[test]
    fn a_limit_keeps_whole_characters_and_reports_the_full_size() {
        // "é" is two bytes: a limit of 2 would cut it.
        let f = file("aé€b".as_bytes());
        let t = read_text(f.path(), FileRole::ContextFile, Some(2)).unwrap();
        assert_eq!((t.text.as_str(), t.size, t.complete), ("a", 7, false));
        let t = read_text(f.path(), FileRole::ContextFile, Some(7)).unwrap();
        assert_eq!((t.text.as_str(), t.complete), ("aé€b", true));
    }

    #[test]
    fn invalid_utf8_is_an_error_naming_the_file_and_offset() {
        let f = file(b"ok\xFFno");
        let e = read_text(f.path(), FileRole::ContextFile, None).unwrap_err();
        assert!(matches!(e, PromptError::NotUtf8 { offset: 2, .. }), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains(&f.path().display().to_string()), "{msg}");
        assert!(msg.contains("not UTF-8"), "{msg}");
    }

    #[test]
    fn missing_files_and_folders_are_errors_saying_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.md");
        let e = read_text(&missing, FileRole::AgentFile, None).unwrap_err();
        assert!(e.to_string().contains("--agent-file"), "{e}");
        assert!(e.to_string().contains("nope.md"), "{e}");
        let e = read_text(dir.path(), FileRole::ContextFile, None).unwrap_err();
        assert!(e.to_string().contains("--context-dir"), "{e}");
    }
}
