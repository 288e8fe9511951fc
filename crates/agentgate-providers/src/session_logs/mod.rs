//! A CLI's own session files, read without running it: the last turn's
//! reasoning and token figures of a session agentgate may never have run
//! (`agentgate run --reasoning-fallback`), and Codex's thread totals before
//! a turn (a resumed thread the store never saw).
//!
//! | CLI | file | reasoning | tokens |
//! |---|---|---|---|
//! | Claude Code | `$CLAUDE_CONFIG_DIR` or `~/.claude` `/projects/<cwd slug>/<id>.jsonl` | `thinking` blocks of the last turn's assistant records | their `message.usage`, one per message id, summed |
//! | Codex | `$CODEX_HOME` or `~/.codex` `/sessions/YYYY/MM/DD/rollout-*-<id>.jsonl` | `response_item` `reasoning` summaries (and raw content) of the last turn | `token_count` totals: the last turn's end minus its start |
//! | Gemini CLI | `~/.gemini/tmp/<project>/chats/session-*.json[l]` ([`crate::gemini::session`]) | the last turn's thoughts | its model messages' `tokens`, summed |
//!
//! The last turn's `usage.context_tokens` is its context length: Codex's
//! last `token_count`'s `last_token_usage` (input, cached included, +
//! output), Gemini's last model message's tokens (input + tool + output +
//! thoughts); Claude's file is not asked (its stream tells it).
//!
//! The last turn is what follows the last prompt the user typed. Files are
//! read line by line ([`lines`]): a line over [`MAX_LINE_BYTES`], one that
//! is not UTF-8 or not a JSON object is skipped and named in
//! [`SessionLog::skipped`], never a panic; reading stops after
//! [`MAX_FILE_BYTES`]. Qwen Code's chat files carry token counts but no
//! thoughts, so they are not read here (see the reasoning-fallback docs).

mod claude;
mod codex;
mod gemini;
pub mod lines;

use std::path::{Path, PathBuf};

use agentgate_protocol::Usage;

pub use crate::cli_homes::CliHomes;
pub(crate) use codex::usage_of as codex_usage;
pub use codex::{
    CodexRollout, RolloutTurn, codex_totals_before_last_turn, find_rollout, read_rollout,
};
pub use lines::{MAX_FILE_BYTES, MAX_LINE_BYTES};

/// The CLIs whose session files are read, in the order they are tried.
pub const READABLE: [&str; 3] = ["claude", "codex", "gemini"];

/// A session's last turn, read from its CLI's own file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionLog {
    /// The CLI (`claude`, `codex`, `gemini`).
    pub provider: &'static str,
    /// The file read.
    pub path: PathBuf,
    /// The session id.
    pub session_id: String,
    /// The last turn's reasoning, each piece as written.
    pub reasoning: Vec<String>,
    /// The last turn's token figures, when the file has any.
    pub usage: Option<Usage>,
    /// The model of the last turn, when written.
    pub model: Option<String>,
    /// Lines that were skipped, each with why (`line 7: not UTF-8`).
    pub skipped: Vec<String>,
}

/// The session file of `session_id` for `provider` under `homes`, read;
/// `None` when the CLI is not one whose files are read or there is no such
/// file. An unreadable file is `Err` with why.
pub fn read_session_log(
    provider: &str,
    homes: &CliHomes,
    cwd: Option<&Path>,
    session_id: &str,
) -> Result<Option<SessionLog>, String> {
    if !plausible_id(session_id) {
        return Ok(None);
    }
    match provider {
        "claude" => match homes.claude() {
            Some(dir) => claude::read(&dir, cwd, session_id),
            None => Ok(None),
        },
        "codex" => match homes.codex() {
            Some(dir) => codex::read_log(&dir, session_id),
            None => Ok(None),
        },
        "gemini" => match homes.gemini() {
            Some(dir) => gemini::read(&dir, session_id),
            None => Ok(None),
        },
        _ => Ok(None),
    }
}

/// A session id that can be part of a file name (no separators, no `..`).
fn plausible_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 200 && !id.contains(['/', '\\', '\0']) && !id.contains("..")
}

#[cfg(test)]
mod tests;
