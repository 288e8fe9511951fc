//! The built-in providers, by name. Adding one is a line in [`BUILTIN`].

use std::sync::Arc;

use super::agy::AGY;
use super::builtin::Description;
use super::claude::CLAUDE;
use super::codex::CODEX;
use super::cursor::CURSOR;
use super::gemini::GEMINI;
use super::opencode::OPENCODE;
use super::provider::Provider;
use super::qwen::QWEN;
use crate::classify::{GENERIC, ProviderTable};

/// Every built-in provider, in the order `agentgate providers` lists them.
pub static BUILTIN: &[&Description] = &[&CLAUDE, &CODEX, &GEMINI, &QWEN, &OPENCODE, &CURSOR, &AGY];

/// The built-in provider `name` (any case).
pub fn description(name: &str) -> Option<&'static Description> {
    let name = name.trim();
    BUILTIN
        .iter()
        .copied()
        .find(|d| d.name.eq_ignore_ascii_case(name))
}

/// The built-in provider `name` (any case), ready to run.
pub fn builtin(name: &str) -> Option<Arc<dyn Provider>> {
    description(name).map(|d| Arc::new(*d) as Arc<dyn Provider>)
}

/// Every built-in provider, ready to run.
pub fn builtins() -> Vec<Arc<dyn Provider>> {
    BUILTIN
        .iter()
        .map(|d| Arc::new(**d) as Arc<dyn Provider>)
        .collect()
}

/// `claude, codex, ...`: the built-in names, for messages.
pub fn builtin_names() -> String {
    BUILTIN
        .iter()
        .map(|d| d.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The error table of the built-in provider `name` (any case), else
/// [`GENERIC`].
pub fn error_table(name: &str) -> &'static ProviderTable {
    description(name).map_or(&GENERIC, |d| d.errors)
}
