//! What a permission request is about, the same for every CLI: the tool's
//! class (read, write, shell, web, browser, other), its name, the paths it
//! touches and the command it runs. Each CLI's long-lived mode names its
//! tools its own way; [`class_of_tool`] maps the names, and an ACP
//! agent's own `kind` is mapped by [`class_of_acp_kind`].

use serde::{Deserialize, Serialize};

/// The class of a tool call, as the rules name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolClass {
    /// Reads files or searches them.
    Read,
    /// Creates, edits, moves or deletes files.
    Write,
    /// Runs a command.
    Shell,
    /// Fetches from or searches the web.
    Web,
    /// Drives a browser.
    Browser,
    /// Anything else (plans, questions, sub-agents, unknown tools).
    Other,
}

impl ToolClass {
    /// Every class, in the order the docs list them.
    pub const ALL: [ToolClass; 6] = [
        ToolClass::Read,
        ToolClass::Write,
        ToolClass::Shell,
        ToolClass::Web,
        ToolClass::Browser,
        ToolClass::Other,
    ];

    /// The name in rules and events.
    pub const fn as_str(self) -> &'static str {
        match self {
            ToolClass::Read => "read",
            ToolClass::Write => "write",
            ToolClass::Shell => "shell",
            ToolClass::Web => "web",
            ToolClass::Browser => "browser",
            ToolClass::Other => "other",
        }
    }
}

/// One permission request, as the policy sees it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolCall {
    /// The tool's name as the CLI gave it (`Write`, `mcp__x__y`,
    /// `commandExecution`, ...).
    pub tool: String,
    /// Its class.
    pub class: Option<ToolClass>,
    /// The paths it reads or writes, as given (absolute or relative to the
    /// workspace).
    pub paths: Vec<String>,
    /// The command it runs, for a shell call.
    pub command: Option<String>,
}

/// The class of a tool by its name, for the names the CLIs use (Claude
/// Code's tools, Gemini CLI's and Qwen Code's, MCP browser servers).
pub fn class_of_tool(name: &str) -> ToolClass {
    let lower = name.to_ascii_lowercase();
    if lower.contains("playwright") || lower.contains("browser") || lower.contains("chrome") {
        return ToolClass::Browser;
    }
    match lower.as_str() {
        "read"
        | "glob"
        | "grep"
        | "ls"
        | "notebookread"
        | "read_file"
        | "read_many_files"
        | "list_directory"
        | "glob_tool"
        | "search_file_content"
        | "grep_search" => ToolClass::Read,
        "write" | "edit" | "multiedit" | "notebookedit" | "write_file" | "replace"
        | "edit_file" | "filechange" | "apply_patch" => ToolClass::Write,
        "bash" | "bashoutput" | "killshell" | "run_shell_command" | "shell" | "exec_command"
        | "commandexecution" => ToolClass::Shell,
        "webfetch" | "websearch" | "web_fetch" | "google_web_search" | "web_search" => {
            ToolClass::Web
        }
        _ => ToolClass::Other,
    }
}

/// The class of an ACP tool call by its `kind` (the Agent Client
/// Protocol's `ToolKind`), falling back on the tool's name.
pub fn class_of_acp_kind(kind: Option<&str>, name: &str) -> ToolClass {
    match kind {
        Some("read" | "search") => ToolClass::Read,
        Some("edit" | "delete" | "move") => ToolClass::Write,
        Some("execute") => ToolClass::Shell,
        Some("fetch") => ToolClass::Web,
        _ => class_of_tool(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clis_tool_names_have_their_class() {
        for (name, class) in [
            ("Read", ToolClass::Read),
            ("Grep", ToolClass::Read),
            ("Write", ToolClass::Write),
            ("Edit", ToolClass::Write),
            ("Bash", ToolClass::Shell),
            ("run_shell_command", ToolClass::Shell),
            ("write_file", ToolClass::Write),
            ("WebFetch", ToolClass::Web),
            ("mcp__playwright__browser_navigate", ToolClass::Browser),
            ("Task", ToolClass::Other),
            ("mcp__agentgate__scanner", ToolClass::Other),
        ] {
            assert_eq!(class_of_tool(name), class, "{name}");
        }
        assert_eq!(class_of_acp_kind(Some("edit"), "x"), ToolClass::Write);
        assert_eq!(class_of_acp_kind(Some("execute"), "x"), ToolClass::Shell);
        assert_eq!(class_of_acp_kind(None, "read_file"), ToolClass::Read);
        assert_eq!(class_of_acp_kind(Some("think"), "Bash"), ToolClass::Shell);
    }
}
