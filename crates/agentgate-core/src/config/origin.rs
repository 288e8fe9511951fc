//! Where each value of an entry was written, for `agentgate config show`.

use std::collections::HashMap;

/// The lines of one entry (a provider's defaults, an agent, a chain) and
/// of each key given in it. A key without a line was not written: its
/// value is a default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origins {
    line: Option<u64>,
    /// Key -> line; a map, since `config show` asks for every key of
    /// entries that can have thousands (`models.<alias>`).
    keys: HashMap<String, u64>,
}

impl Origins {
    /// Origins of an entry whose name is on `line`.
    pub(super) fn at(line: u64) -> Origins {
        Origins {
            line: Some(line),
            keys: HashMap::new(),
        }
    }

    /// Record that `key` was written on `line` (the line of its value);
    /// the first line given for a key is kept.
    pub(super) fn set(&mut self, key: impl Into<String>, line: u64) {
        self.keys.entry(key.into()).or_insert(line);
    }

    /// The line of the entry's name (1-based); `None` for an entry the
    /// file did not write.
    pub fn line(&self) -> Option<u64> {
        self.line
    }

    /// The line of `key`'s value (`models.sonnet` for one alias), if the
    /// file wrote it.
    pub fn key(&self, key: &str) -> Option<u64> {
        self.keys.get(key).copied()
    }
}
