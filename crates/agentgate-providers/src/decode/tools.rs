//! Tool names across providers: which [`ToolClass`] a tool belongs to, the
//! compact form names are reported in, and how much of a tool's output the
//! stream keeps.

use agentgate_protocol::ToolClass;

/// How many bytes of a tool's output a `tool_result` event keeps (64 KiB).
/// The rest is cut at a UTF-8 boundary; the event says it was cut and how
/// long the whole output was. The full output stays in the provider's own
/// session files.
pub const TOOL_OUTPUT_CAP: usize = 64 * 1024;

/// Tool names (lowercased) and their class. Claude Code, Codex, Gemini CLI,
/// Qwen Code and opencode spellings.
const CLASSES: &[(&str, ToolClass)] = &[
    // Shell.
    ("bash", ToolClass::Shell),
    ("bashoutput", ToolClass::Shell),
    ("killshell", ToolClass::Shell),
    ("shell", ToolClass::Shell),
    ("local_shell", ToolClass::Shell),
    ("exec_command", ToolClass::Shell),
    ("write_stdin", ToolClass::Shell),
    ("run_shell_command", ToolClass::Shell),
    // Read.
    ("read", ToolClass::Read),
    ("read_file", ToolClass::Read),
    ("read_many_files", ToolClass::Read),
    ("glob", ToolClass::Read),
    ("grep", ToolClass::Read),
    ("ls", ToolClass::Read),
    ("list", ToolClass::Read),
    ("list_directory", ToolClass::Read),
    ("grep_search", ToolClass::Read),
    ("search_file_content", ToolClass::Read),
    ("view_image", ToolClass::Read),
    // Write.
    ("write", ToolClass::Write),
    ("edit", ToolClass::Write),
    ("multiedit", ToolClass::Write),
    ("notebookedit", ToolClass::Write),
    ("write_file", ToolClass::Write),
    ("replace", ToolClass::Write),
    ("smart_edit", ToolClass::Write),
    ("apply_patch", ToolClass::Write),
    ("patch", ToolClass::Write),
    // Web.
    ("webfetch", ToolClass::Web),
    ("websearch", ToolClass::Web),
    ("web_fetch", ToolClass::Web),
    ("web_search", ToolClass::Web),
    ("google_web_search", ToolClass::Web),
];

/// The built-in tools with which a CLI asks its user a question and waits
/// for the answer (names as the CLI declares them to the model): Claude
/// Code `AskUserQuestion`, Gemini CLI and Qwen Code `ask_user`, Codex
/// `request_user_input`, opencode `question`. Nobody answers an unattended
/// run, so a call of one is a failure (the run's `user_input_requested`),
/// not a wait until the timeout. Exact names only: an MCP tool of another
/// name never matches.
pub const ASK_USER_TOOLS: &[&str] = &[
    "AskUserQuestion",
    "ask_user",
    "request_user_input",
    "question",
];

/// Whether a tool call of `name` asks the user a question (see
/// [`ASK_USER_TOOLS`]).
pub fn asks_the_user(name: &str) -> bool {
    ASK_USER_TOOLS.contains(&name)
}

/// Words that make a tool (usually an MCP tool) a browser driver.
const BROWSER_WORDS: &[&str] = &["browser", "playwright", "puppeteer", "chrome"];

/// The class of the tool called `name`, as any supported CLI names it.
///
/// Known names match case-insensitively (`Bash`, `exec_command`,
/// `run_shell_command`, `bash` are all shell); a name that mentions a
/// browser (`browser`, `playwright`, `puppeteer`, `chrome`), such as an MCP
/// browser tool, is [`ToolClass::Browser`]; anything else, MCP tools
/// included, is [`ToolClass::Other`].
pub fn tool_class(name: &str) -> ToolClass {
    let lower = name.trim().to_ascii_lowercase();
    if let Some((_, class)) = CLASSES.iter().find(|(n, _)| *n == lower) {
        return *class;
    }
    if BROWSER_WORDS.iter().any(|w| lower.contains(w)) {
        return ToolClass::Browser;
    }
    ToolClass::Other
}

/// The short name a tool is reported under: MCP tools written
/// `mcp__server__tool` (Claude Code, and Codex's MCP calls as agentgate
/// names them) become `server.tool`; every other name is kept as it is.
///
/// Only names are compacted: Gemini's tool call ids such as
/// `run_shell_command__run_shell_command_1795298501020_0` also contain `__`
/// but are ids, and a name without the `mcp__` prefix is never split.
pub fn compact_tool_name(name: &str) -> String {
    let name = name.trim();
    match name
        .strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
    {
        Some((server, tool)) if !server.is_empty() && !tool.is_empty() => {
            format!("{server}.{tool}")
        }
        _ => name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_ask_tools_of_the_clis_ask_the_user() {
        for name in [
            "AskUserQuestion",
            "ask_user",
            "request_user_input",
            "question",
        ] {
            assert!(asks_the_user(name), "{name}");
        }
        // Exact names: an MCP tool or another spelling is not one.
        for name in [
            "askuserquestion",
            "mcp__forms__ask_user",
            "Bash",
            "questions",
            "",
        ] {
            assert!(!asks_the_user(name), "{name}");
        }
    }

    #[test]
    fn shell_tools_of_every_cli_are_shell() {
        for name in ["Bash", "exec_command", "run_shell_command", "bash", "shell"] {
            assert_eq!(tool_class(name), ToolClass::Shell, "{name}");
        }
    }

    #[test]
    fn read_write_and_web_tools() {
        for name in [
            "Read",
            "read_file",
            "Glob",
            "Grep",
            "LS",
            "list_directory",
            "grep_search",
            "glob",
            "view_image",
        ] {
            assert_eq!(tool_class(name), ToolClass::Read, "{name}");
        }
        for name in [
            "Write",
            "Edit",
            "MultiEdit",
            "NotebookEdit",
            "write_file",
            "replace",
            "apply_patch",
            "edit",
        ] {
            assert_eq!(tool_class(name), ToolClass::Write, "{name}");
        }
        for name in [
            "WebFetch",
            "WebSearch",
            "web_fetch",
            "google_web_search",
            "web_search",
        ] {
            assert_eq!(tool_class(name), ToolClass::Web, "{name}");
        }
    }

    #[test]
    fn browser_mcp_tools_are_browser_and_other_tools_other() {
        for name in [
            "mcp__playwright__browser_navigate",
            "mcp__puppeteer__puppeteer_click",
            "mcp__chrome-devtools__take_screenshot",
            "browser_snapshot",
        ] {
            assert_eq!(tool_class(name), ToolClass::Browser, "{name}");
        }
        for name in [
            "Task",
            "TodoWrite",
            "mcp__github__create_issue",
            "todo_list",
            "",
        ] {
            assert_eq!(tool_class(name), ToolClass::Other, "{name}");
        }
    }

    #[test]
    fn mcp_names_are_compacted_and_others_kept() {
        assert_eq!(
            compact_tool_name("mcp__github__create_issue"),
            "github.create_issue"
        );
        assert_eq!(compact_tool_name("mcp__srv__a__b"), "srv.a__b");
        assert_eq!(compact_tool_name("Bash"), "Bash");
        assert_eq!(
            compact_tool_name("run_shell_command__run_shell_command_1795298501020_0"),
            "run_shell_command__run_shell_command_1795298501020_0"
        );
        assert_eq!(compact_tool_name("mcp__"), "mcp__");
        assert_eq!(compact_tool_name("mcp__server"), "mcp__server");
    }
}
