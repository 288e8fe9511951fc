//! Printing JSON: pretty on a terminal, one line otherwise.

use std::io::{IsTerminal, Write};

use serde::Serialize;

/// Print `value` to stdout: indented when stdout is a terminal, one line
/// otherwise (so pipelines get JSONL).
pub fn print_json<T: Serialize>(value: &T, pretty: Option<bool>) -> anyhow::Result<()> {
    let pretty = pretty.unwrap_or_else(|| std::io::stdout().is_terminal());
    let text = if pretty {
        serde_json::to_string_pretty(value)?
    } else {
        serde_json::to_string(value)?
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}
