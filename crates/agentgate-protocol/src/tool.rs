//! What kind of thing a tool does.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The class of a tool, as `tool_use` events and the envelope's tool activity
/// report it. Provider adapters map their tool names onto these.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum ToolClass {
    /// Reads files or lists, searches the workspace (`Read`, `Grep`, `ls`).
    #[serde(rename = "read")]
    Read,
    /// Changes files (`Edit`, `Write`, `apply_patch`).
    #[serde(rename = "write")]
    Write,
    /// Runs a shell command (`Bash`, `exec_command`, `run_shell_command`).
    #[serde(rename = "shell")]
    Shell,
    /// Fetches or searches the web (`WebFetch`, `web_search`).
    #[serde(rename = "web")]
    Web,
    /// Drives a browser (Playwright and similar).
    #[serde(rename = "browser")]
    Browser,
    /// Anything else (MCP tools, todo lists, sub-agents).
    #[serde(rename = "other")]
    Other,
}
