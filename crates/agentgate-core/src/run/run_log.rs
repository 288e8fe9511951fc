//! The optional log file of a run (`--log-dir DIR`, the config's
//! `log_dir:`), as seed 000's wrappers wrote
//! `agent_logs/<ticket>_<workflow>_<ts>.log`: one file per run in a folder
//! the caller names, holding a header (run id, labels, providers, chain,
//! start time), the CLI's stderr as it comes, and the answer at the end.
//!
//! - **Its name** comes from the plan's template (`crate::log_name`).
//! - **What it holds** is what the run prints and stores: the stderr
//!   lines were redacted as they were read, the header and the answer go
//!   through the run's redactor here.
//! - **It is private** (mode 600; a folder it makes, 700) and **never
//!   costs the run**: a folder that cannot be written, or a write that
//!   fails, is a warning (a `log` event) and the run goes on without it.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

#[cfg(test)]
use agentgate_protocol::Labels;
#[cfg(test)]
use jiff::Timestamp;

#[cfg(test)]
use crate::log_name::DEFAULT_LOG_NAME;
use crate::log_name::{NameParts, RunLogSpec, log_file_name, safe_file_name};
use crate::redact::Redactor;

/// An open run log.
pub(super) struct RunLog {
    path: PathBuf,
    file: File,
    redactor: Redactor,
}

/// What the header names.
pub(super) struct Header<'a> {
    pub parts: NameParts<'a>,
    pub providers: Vec<String>,
    pub chain: Option<&'a str>,
}

impl RunLog {
    /// Create the run's file under `spec.dir` and write its header. The
    /// error says what failed, for the run's warning.
    pub(super) fn open(
        spec: &RunLogSpec,
        header: &Header<'_>,
        redactor: Redactor,
    ) -> Result<RunLog, String> {
        make_private_dir(&spec.dir)
            .map_err(|e| format!("cannot make the log folder {}: {e}", spec.dir.display()))?;
        let name = log_file_name(&spec.name, &header.parts);
        let (path, file) = match create_private(&spec.dir.join(&name)) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                // Another run took the name: this run's id makes it its own.
                let (stem, ext) = name.rsplit_once('.').unwrap_or((name.as_str(), "log"));
                let path = spec.dir.join(safe_file_name(&format!(
                    "{stem}_{}.{ext}",
                    header.parts.run_id
                )));
                create_private(&path).map(|f| (path, f))
            }
            other => other.map(|f| (spec.dir.join(&name), f)),
        }
        .map_err(|e| format!("cannot create a log file in {}: {e}", spec.dir.display()))?;
        let mut log = RunLog {
            path,
            file,
            redactor,
        };
        let labels: Vec<String> = header
            .parts
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let text = format!(
            "# agentgate run {}\n# labels: {}\n# providers: {}{}\n# started: {}\n# --- stderr ---\n",
            header.parts.run_id,
            if labels.is_empty() {
                "-".to_owned()
            } else {
                labels.join(" ")
            },
            header.providers.join(","),
            header
                .chain
                .map(|c| format!(" (chain {c})"))
                .unwrap_or_default(),
            header.parts.started,
        );
        log.write_redacted(&text)?;
        Ok(log)
    }

    /// The file's path.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// A line of the CLI's stderr, already redacted where it was read.
    pub(super) fn stderr(&mut self, line: &[u8]) -> Result<(), String> {
        self.file
            .write_all(line)
            .and_then(|()| self.file.write_all(b"\n"))
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }

    /// The run's end: its outcome and the answer (redacted), then closed.
    pub(super) fn finish(mut self, outcome: &str, answer: &str) -> Result<(), String> {
        let mut text = format!("# --- answer ({outcome}) ---\n{answer}");
        if !text.ends_with('\n') {
            text.push('\n');
        }
        self.write_redacted(&text)?;
        self.file
            .sync_data()
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }

    fn write_redacted(&mut self, text: &str) -> Result<(), String> {
        let text = self.redactor.redact_str(text).into_owned();
        self.file
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

fn create_private(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn a_log_is_private_and_holds_header_stderr_and_answer_redacted() {
        let dir = tempfile::tempdir().unwrap();
        let spec = RunLogSpec {
            dir: dir.path().join("agent_logs"),
            name: "{label:ticket}_{ts}.log".to_owned(),
        };
        let labels = labels(&[("ticket", "T-9")]);
        let mut b = crate::redact::RedactorBuilder::new();
        b.value("sk-secret-0123456789");
        let header = Header {
            parts: NameParts {
                labels: &labels,
                run_id: "r1",
                started: "2026-05-01T12:00:00Z".parse().unwrap(),
                provider: Some("claude"),
            },
            providers: vec!["claude".to_owned(), "codex".to_owned()],
            chain: Some("default"),
        };
        let mut log = RunLog::open(&spec, &header, b.build()).unwrap();
        let path = log.path().to_path_buf();
        log.stderr(b"warming up").unwrap();
        log.finish("exit 0", "the answer is sk-secret-0123456789")
            .unwrap();
        assert_eq!(path, spec.dir.join("T-9_20260501T120000Z.log"));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("# agentgate run r1\n# labels: ticket=T-9\n"),
            "{text}"
        );
        assert!(
            text.contains("# providers: claude,codex (chain default)\n"),
            "{text}"
        );
        assert!(text.contains("# --- stderr ---\nwarming up\n# --- answer (exit 0) ---\n"));
        assert!(!text.contains("sk-secret-0123456789"), "{text}");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // A second run of the same name gets its own file.
        let again = RunLog::open(
            &spec,
            &Header {
                parts: NameParts {
                    run_id: "r2",
                    ..header.parts
                },
                providers: header.providers.clone(),
                chain: None,
            },
            Redactor::default(),
        )
        .unwrap();
        assert_eq!(again.path(), spec.dir.join("T-9_20260501T120000Z_r2.log"));
    }

    #[test]
    fn a_folder_that_cannot_be_written_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        std::fs::write(&file, "").unwrap();
        let labels = Labels::new();
        let err = RunLog::open(
            &RunLogSpec {
                dir: file.join("sub"),
                name: DEFAULT_LOG_NAME.to_owned(),
            },
            &Header {
                parts: NameParts {
                    labels: &labels,
                    run_id: "r1",
                    started: Timestamp::now(),
                    provider: None,
                },
                providers: Vec::new(),
                chain: None,
            },
            Redactor::default(),
        )
        .err()
        .unwrap();
        assert!(err.contains("cannot make the log folder"), "{err}");
    }
}
