//! Error codes and what they mean: `tools/registry/error_codes.yaml` (the
//! seed's format: `version: 1`, `codes: {CODE: {class, retryable}}`) and
//! the runner's own codes, built in.
//!
//! The runner's codes name what the runner itself saw (a deadline, a
//! missed heartbeat, a limit): their meaning is fixed, and a registry that
//! redefines one is refused. A code neither table knows is `unknown`, not
//! retryable.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentgate_core::{MIB, read_text_file};
use agentgate_protocol::ToolErrorClass;
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::yaml::{Entries, from_str};

/// The error codes file's name, in the registry folder.
pub const ERROR_CODES_FILE: &str = "error_codes.yaml";

/// The version of the error codes file this agentgate reads.
pub const ERROR_CODES_VERSION: u32 = 1;

/// What a code means: its class, and whether a retry may succeed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeMeaning {
    /// The class.
    pub class: ToolErrorClass,
    /// Whether a retry may succeed.
    pub retryable: bool,
}

/// The run ran past its deadline.
pub const E_TIMEOUT: &str = agentgate_protocol::CODE_TIMEOUT;
/// No `progress` or `heartbeat` for the heartbeat time.
pub const E_HEARTBEAT_MISSED: &str = agentgate_protocol::CODE_HEARTBEAT_MISSED;
/// The CPU-seconds limit was reached.
pub const E_CPU_LIMIT: &str = "E_CPU_LIMIT";
/// The memory limit was reached.
pub const E_MEMORY_LIMIT: &str = "E_MEMORY_LIMIT";
/// The tool printed more than its output limit.
pub const E_OUTPUT_LIMIT: &str = "E_OUTPUT_LIMIT";
/// An artifact's sha256 is not the one the tool declared.
pub const E_ARTIFACT_MISMATCH: &str = "E_ARTIFACT_MISMATCH";
/// A declared artifact is not there.
pub const E_ARTIFACT_MISSING: &str = "E_ARTIFACT_MISSING";
/// The tool exited with a status its manifest does not list.
pub const E_EXIT_UNEXPECTED: &str = "E_EXIT_UNEXPECTED";
/// The policy refused the tool.
pub const E_POLICY: &str = agentgate_protocol::CODE_POLICY;
/// A variable the manifest requires is not set.
pub const E_ENV_MISSING: &str = "E_ENV_MISSING";
/// The tool could not be started.
pub const E_SPAWN: &str = "E_SPAWN";
/// The run was cancelled by its caller.
pub const E_CANCELLED: &str = "E_CANCELLED";
/// The tool exited with its manifest's `retryable_error` status without
/// reporting an error.
pub const E_EXIT_RETRYABLE: &str = "E_EXIT_RETRYABLE";
/// The tool exited with its manifest's `fatal_error` status without
/// reporting an error.
pub const E_EXIT_FATAL: &str = "E_EXIT_FATAL";
/// The tool failed after the sandbox refused one of its file accesses or
/// connections (the seed's code for a permission refusal).
pub const E_PERMISSION: &str = "E_PERMISSION";
/// The tool's `result` has a status other than `ok`.
pub const E_RESULT_NOT_OK: &str = "E_RESULT_NOT_OK";
/// The tool broke the protocol: it ended with its `ok` status without a
/// valid `result` message (none, or one that is not valid), and its
/// manifest does not say `result_required: false`.
pub const E_PROTOCOL: &str = "E_PROTOCOL";

/// The runner's own codes and their fixed meaning. Seed 002's example
/// `error_codes.yaml` lists some of them (`E_TIMEOUT`, `E_HEARTBEAT_MISSED`,
/// `E_PERMISSION`) with these same meanings, so a file may list a runner
/// code as long as it does not change its meaning.
pub const RUNNER_CODES: [(&str, ToolErrorClass, bool); 17] = [
    (E_TIMEOUT, ToolErrorClass::InfraError, false),
    (E_HEARTBEAT_MISSED, ToolErrorClass::InfraError, true),
    (E_CPU_LIMIT, ToolErrorClass::InfraError, false),
    (E_MEMORY_LIMIT, ToolErrorClass::InfraError, false),
    (E_OUTPUT_LIMIT, ToolErrorClass::InfraError, false),
    (E_ARTIFACT_MISMATCH, ToolErrorClass::InfraError, false),
    (E_ARTIFACT_MISSING, ToolErrorClass::InfraError, false),
    (E_EXIT_UNEXPECTED, ToolErrorClass::Unknown, false),
    (E_POLICY, ToolErrorClass::PolicyError, false),
    (E_ENV_MISSING, ToolErrorClass::UserError, false),
    (E_SPAWN, ToolErrorClass::InfraError, false),
    (E_CANCELLED, ToolErrorClass::UserError, false),
    (E_EXIT_RETRYABLE, ToolErrorClass::Retryable, true),
    (E_EXIT_FATAL, ToolErrorClass::Unknown, false),
    (E_PERMISSION, ToolErrorClass::PolicyError, false),
    (E_RESULT_NOT_OK, ToolErrorClass::Unknown, false),
    (E_PROTOCOL, ToolErrorClass::Unknown, false),
];

/// The meaning of the runner's code `code`, if it is one.
pub fn runner_code(code: &str) -> Option<CodeMeaning> {
    RUNNER_CODES
        .iter()
        .find(|(c, _, _)| *c == code)
        .map(|(_, class, retryable)| CodeMeaning {
            class: *class,
            retryable: *retryable,
        })
}

/// An error codes file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid error codes file {}{}: {message}", path.display(), location(*line))]
pub struct ErrorCodesError {
    /// The file.
    pub path: PathBuf,
    /// The line at fault, when known.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

fn location(line: Option<u64>) -> String {
    line.map(|l| format!(", line {l}")).unwrap_or_default()
}

/// The codes of a registry (none without a file) over the runner's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorCodes {
    /// The file they came from.
    pub source: Option<PathBuf>,
    codes: BTreeMap<String, CodeMeaning>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    version: Spanned<u32>,
    #[serde(default)]
    codes: Entries<CodeMeaning>,
}

impl ErrorCodes {
    /// Read the file `path` strictly.
    pub fn load(path: &Path) -> Result<ErrorCodes, ErrorCodesError> {
        let text =
            read_text_file(path, MIB, "an error codes file").map_err(|e| ErrorCodesError {
                path: path.to_path_buf(),
                line: None,
                message: e.to_string(),
            })?;
        ErrorCodes::parse(&text, path)
    }

    /// Parse an error codes file's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<ErrorCodes, ErrorCodesError> {
        let fail = |line: Option<u64>, message: String| ErrorCodesError {
            path: path.to_path_buf(),
            line,
            message,
        };
        let raw: RawFile = from_str(text).map_err(|f| fail(f.line, f.message))?;
        if raw.version.value != ERROR_CODES_VERSION {
            return Err(fail(
                Some(raw.version.referenced.line()),
                format!(
                    "version {} is not supported (this agentgate reads version {ERROR_CODES_VERSION})",
                    raw.version.value
                ),
            ));
        }
        let mut codes = BTreeMap::new();
        for (code, meaning) in raw.codes.0 {
            let line = Some(code.referenced.line());
            let code = code.value;
            if code.is_empty()
                || !code
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            {
                return Err(fail(
                    line,
                    format!(
                        "`{code}` is not an error code (capital letters, digits and `_`, e.g. E_INPUT_NOT_FOUND)"
                    ),
                ));
            }
            if let Some(fixed) = runner_code(&code)
                && fixed != meaning
            {
                return Err(fail(
                    line,
                    format!(
                        "`{code}` is one of the runner's own codes, whose meaning is fixed ({}, retryable: {}): remove it from the file or give it that meaning",
                        fixed.class.as_str(),
                        fixed.retryable
                    ),
                ));
            }
            if codes.insert(code.clone(), meaning).is_some() {
                return Err(fail(line, format!("`{code}` is given twice")));
            }
        }
        Ok(ErrorCodes {
            source: Some(path.to_path_buf()),
            codes,
        })
    }

    /// What `code` means: the runner's table, then the file's; `None` for a
    /// code neither lists.
    pub fn lookup(&self, code: &str) -> Option<CodeMeaning> {
        runner_code(code).or_else(|| self.codes.get(code).copied())
    }

    /// The class of `code` and whether it is retryable: the runner's table,
    /// then the file's; `(Unknown, false)` for a code neither knows (a
    /// tool's run asks more witnesses first: see `runner::verdict`).
    pub fn classify(&self, code: &str) -> (ToolErrorClass, bool) {
        self.lookup(code)
            .map_or((ToolErrorClass::Unknown, false), |m| (m.class, m.retryable))
    }

    /// The file's codes, sorted.
    pub fn codes(&self) -> impl Iterator<Item = (&str, CodeMeaning)> {
        self.codes.iter().map(|(k, v)| (k.as_str(), *v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = "version: 1\ncodes:\n  E_INPUT_NOT_FOUND: {class: user_error, retryable: false}\n  E_TRANSIENT_NET: {class: retryable, retryable: true}\n  E_PERMISSION: {class: policy_error, retryable: false}\n";

    #[test]
    fn the_file_classifies_its_codes_and_unknown_codes_are_unknown() {
        let codes = ErrorCodes::parse(SEED, Path::new("e.yaml")).unwrap();
        assert_eq!(
            codes.classify("E_INPUT_NOT_FOUND"),
            (ToolErrorClass::UserError, false)
        );
        assert_eq!(
            codes.classify("E_TRANSIENT_NET"),
            (ToolErrorClass::Retryable, true)
        );
        assert_eq!(
            codes.classify("E_PERMISSION"),
            (ToolErrorClass::PolicyError, false)
        );
        assert_eq!(codes.classify("E_NOPE"), (ToolErrorClass::Unknown, false));
        assert_eq!(codes.codes().count(), 3);
    }

    #[test]
    fn the_runner_codes_are_built_in_with_their_fixed_meaning() {
        let codes = ErrorCodes::default();
        assert_eq!(
            codes.classify(E_HEARTBEAT_MISSED),
            (ToolErrorClass::InfraError, true)
        );
        assert_eq!(
            codes.classify(E_TIMEOUT),
            (ToolErrorClass::InfraError, false)
        );
        assert_eq!(
            codes.classify(E_POLICY),
            (ToolErrorClass::PolicyError, false)
        );
        assert_eq!(
            codes.classify(E_CPU_LIMIT),
            (ToolErrorClass::InfraError, false)
        );
        assert_eq!(
            codes.classify(E_EXIT_UNEXPECTED),
            (ToolErrorClass::Unknown, false)
        );
        // The seed's own file lists runner codes with their meaning: read as is.
        let seed = "version: 1\ncodes:\n  E_PERMISSION: {class: policy_error, retryable: false}\n  E_HEARTBEAT_MISSED: {class: infra_error, retryable: true}\n  E_TIMEOUT: {class: infra_error, retryable: false}\n";
        assert!(ErrorCodes::parse(seed, Path::new("e.yaml")).is_ok());
        let text = "version: 1\ncodes:\n  E_OK: {class: user_error, retryable: false}\n  E_TIMEOUT: {class: retryable, retryable: true}\n";
        let e = ErrorCodes::parse(text, Path::new("e.yaml")).unwrap_err();
        assert_eq!(e.line, Some(4), "{e}");
        assert!(
            e.to_string()
                .contains("`E_TIMEOUT` is one of the runner's own codes"),
            "{e}"
        );
    }

    #[test]
    fn bad_files_are_refused_with_their_line() {
        for (text, line, says) in [
            ("version: 2\ncodes: {}\n", 1, "version 2 is not supported"),
            (
                "version: 1\ncodes:\n  E_X: {class: oops, retryable: false}\n",
                3,
                "oops",
            ),
            (
                "version: 1\ncodes:\n  E_X: {class: unknown, retryable: false, extra: 1}\n",
                3,
                "extra",
            ),
            (
                "version: 1\ncodes:\n  e-x: {class: unknown, retryable: false}\n",
                3,
                "is not an error code",
            ),
            ("version: 1\ncode: {}\n", 2, "code"),
        ] {
            let e = ErrorCodes::parse(text, Path::new("e.yaml")).unwrap_err();
            assert_eq!(e.line, Some(line), "{text}: {e}");
            assert!(e.to_string().contains(says), "{text}: {e}");
        }
    }
}
