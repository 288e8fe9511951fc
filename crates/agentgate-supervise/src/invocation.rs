use std::ffi::OsString;
use std::path::PathBuf;

/// One process to run: what [`supervise`](super::supervise) spawns.
///
/// The environment is built in this order: start from agentgate's own
/// environment (or from nothing when `env_clear`), remove `env_remove`, then
/// set `env` (a later pair wins over an earlier one with the same name);
/// last, agentgate's own variables are removed, whoever set them (see
/// [`crate::own_env`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Invocation {
    /// The executable: a path, or a bare name looked up on `PATH` (the `PATH`
    /// the child gets, when `env` sets one).
    pub program: PathBuf,
    /// Its arguments, without the program name.
    pub args: Vec<OsString>,
    /// Environment variables to set.
    pub env: Vec<(OsString, OsString)>,
    /// Start from an empty environment instead of agentgate's own.
    pub env_clear: bool,
    /// Environment variables to remove from the inherited environment.
    pub env_remove: Vec<OsString>,
    /// The working directory; agentgate's own when `None`.
    pub cwd: Option<PathBuf>,
    /// Bytes written to the child's stdin, which is then closed (the prompt);
    /// `None` gives the child `/dev/null` as stdin.
    pub stdin: Option<Vec<u8>>,
}

impl Invocation {
    /// An invocation of `program` with no arguments, the inherited
    /// environment and `/dev/null` as stdin.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Invocation {
            program: program.into(),
            ..Invocation::default()
        }
    }

    /// Appends arguments.
    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets the bytes written to the child's stdin.
    #[must_use]
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// The value `name` will have in the child's environment, if the
    /// invocation decides it (`Some(None)` = removed); `None` when the child
    /// inherits agentgate's own value.
    pub(crate) fn env_override(&self, name: &str) -> Option<Option<&OsString>> {
        if let Some((_, value)) = self.env.iter().rev().find(|(k, _)| k == name) {
            return Some(Some(value));
        }
        if self.env_clear || self.env_remove.iter().any(|k| k == name) {
            return Some(None);
        }
        None
    }
}
