//! Compiled patterns: every table pattern is compiled once, case-insensitive.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use regex::{Regex, RegexBuilder};

static CACHE: LazyLock<Mutex<HashMap<&'static str, Option<Regex>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The compiled form of a table pattern, or `None` if it does not compile
/// (the tests compile every pattern, so this only guards against a bad
/// table slipping through: the row is then skipped, never a panic).
pub fn compiled(pattern: &'static str) -> Option<Regex> {
    if let Ok(mut cache) = CACHE.lock() {
        return cache
            .entry(pattern)
            .or_insert_with(|| compile(pattern))
            .clone();
    }
    compile(pattern)
}

/// Compile `pattern` case-insensitively, reporting why it failed.
pub fn compile_checked(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern).case_insensitive(true).build()
}

fn compile(pattern: &str) -> Option<Regex> {
    compile_checked(pattern).ok()
}
