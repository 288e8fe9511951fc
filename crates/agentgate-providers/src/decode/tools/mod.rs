//! Tool names across providers: which [`ToolClass`] a tool belongs to, the
//! compact form names are reported in, and how much of a tool's output the
//! stream keeps.
//!
//! A name is classified in three steps: the CLIs' own tools by an exact
//! table (their bookkeeping tools, such as `TaskCreate` or `write_todos`,
//! are `other` there, so they never count as workspace writes); then a name
//! that mentions a browser is `browser`; then any other name (MCP tools,
//! a custom CLI's tools) by the shell wrappers' word patterns
//! ([`words`]), matched against its tool part (`create_issue` of
//! `mcp__github__create_issue`).

mod words;

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
    // Shell, about background processes.
    ("read_background_output", ToolClass::Shell),
    ("list_background_processes", ToolClass::Shell),
    // The CLIs' bookkeeping tools, whose names hold a pattern word but which
    // neither read nor change the workspace.
    ("todowrite", ToolClass::Other),
    ("todo_write", ToolClass::Other),
    ("todo_list", ToolClass::Other),
    ("todoread", ToolClass::Other),
    ("write_todos", ToolClass::Other),
    ("taskcreate", ToolClass::Other),
    ("taskget", ToolClass::Other),
    ("tasklist", ToolClass::Other),
    ("taskupdate", ToolClass::Other),
    ("taskoutput", ToolClass::Other),
    ("taskstop", ToolClass::Other),
    ("task_stop", ToolClass::Other),
    ("croncreate", ToolClass::Other),
    ("crondelete", ToolClass::Other),
    ("cronlist", ToolClass::Other),
    ("create_goal", ToolClass::Other),
    ("get_goal", ToolClass::Other),
    ("update_goal", ToolClass::Other),
    ("update_plan", ToolClass::Other),
    ("update_topic", ToolClass::Other),
    ("tool_search", ToolClass::Other),
    ("enterworktree", ToolClass::Other),
    ("exitworktree", ToolClass::Other),
    ("enter_plan_mode", ToolClass::Other),
    ("exitplanmode", ToolClass::Other),
    ("slashcommand", ToolClass::Other),
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
/// A `functions.` prefix is ignored. Known names match case-insensitively
/// (`Bash`, `exec_command`, `run_shell_command`, `bash` are all shell); a
/// name that mentions a browser (`browser`, `playwright`, `puppeteer`,
/// `chrome`), such as an MCP browser tool, is [`ToolClass::Browser`]; any
/// other name is classified by the wrappers' word patterns on its tool part
/// (so `mcp__github__create_issue` is a write and `mcp__github__list_issues`
/// a read), and is [`ToolClass::Other`] when no pattern word occurs.
pub fn tool_class(name: &str) -> ToolClass {
    let name = strip_functions(name.trim());
    let lower = name.to_ascii_lowercase();
    if let Some((_, class)) = CLASSES.iter().find(|(n, _)| *n == lower) {
        return *class;
    }
    if BROWSER_WORDS.iter().any(|w| lower.contains(w)) {
        return ToolClass::Browser;
    }
    let tool_part = mcp_parts(name).map_or(name, |(_, tool)| tool);
    words::class_by_words(tool_part)
}

/// `name` without the `functions.` prefix some CLIs report tools under.
fn strip_functions(name: &str) -> &str {
    name.strip_prefix("functions.").unwrap_or(name)
}

/// The server and tool of an MCP name written `mcp__server__tool`.
fn mcp_parts(name: &str) -> Option<(&str, &str)> {
    name.strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
        .filter(|(server, tool)| !server.is_empty() && !tool.is_empty())
}

/// The short name a tool is reported under (the wrappers' compaction): a
/// `functions.` prefix is dropped (`functions.shell` is `shell`); MCP tools
/// written `mcp__server__tool` (Claude Code, and Codex's MCP calls as
/// agentgate names them) become `server.tool`; each run of characters other
/// than letters, digits, `_`, `.` and `-` becomes one `_`.
///
/// Only names are compacted: Gemini's tool call ids such as
/// `run_shell_command__run_shell_command_1795298501020_0` also contain `__`
/// but are ids, and a name without the `mcp__` prefix is never split.
pub fn compact_tool_name(name: &str) -> String {
    let name = strip_functions(name.trim());
    let joined = match mcp_parts(name) {
        Some((server, tool)) => format!("{server}.{tool}"),
        None => name.to_owned(),
    };
    collapse_noise(&joined)
}

/// `name` with each run of characters other than ASCII letters, digits, `_`,
/// `.` and `-` replaced by one `_`.
fn collapse_noise(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_noise = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
            out.push(c);
            in_noise = false;
        } else if !in_noise {
            out.push('_');
            in_noise = true;
        }
    }
    out
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
        for name in ["Task", "TodoWrite", "mcp__github__get_me", "todo_list", ""] {
            assert_eq!(tool_class(name), ToolClass::Other, "{name}");
        }
    }

    #[test]
    fn mcp_and_unknown_tools_are_classified_by_their_tool_part() {
        let table = [
            ("mcp__github__create_issue", ToolClass::Write),
            ("mcp__github__list_issues", ToolClass::Read),
            ("mcp__github__search_code", ToolClass::Read),
            ("mcp__filesystem__write_file", ToolClass::Write),
            ("mcp__filesystem__read_text_file", ToolClass::Read),
            ("mcp__fetch__fetch", ToolClass::Web),
            ("mcp__shell__exec", ToolClass::Shell),
            ("functions.shell", ToolClass::Shell),
            ("functions.apply_patch", ToolClass::Write),
            ("github.delete_file", ToolClass::Write),
        ];
        for (name, class) in table {
            assert_eq!(tool_class(name), class, "{name}");
        }
    }

    #[test]
    fn the_clis_bookkeeping_tools_from_captures_are_not_reads_or_writes() {
        // Real names from the captures whose words match a pattern.
        for name in [
            "TaskCreate",
            "TaskList",
            "TaskUpdate",
            "CronCreate",
            "CronDelete",
            "CronList",
            "todo_write",
            "todowrite",
            "write_todos",
            "create_goal",
            "update_goal",
            "tool_search",
            "EnterWorktree",
            "enter_plan_mode",
        ] {
            assert_eq!(tool_class(name), ToolClass::Other, "{name}");
        }
        for name in ["read_background_output", "list_background_processes"] {
            assert_eq!(tool_class(name), ToolClass::Shell, "{name}");
        }
    }

    #[test]
    fn functions_prefix_dropped_and_noise_collapsed() {
        assert_eq!(compact_tool_name("functions.shell"), "shell");
        assert_eq!(
            compact_tool_name("functions.mcp__github__create_issue"),
            "github.create_issue"
        );
        assert_eq!(compact_tool_name("my tool (v2)!"), "my_tool_v2_");
        assert_eq!(
            compact_tool_name("chrome-devtools.click"),
            "chrome-devtools.click"
        );
        assert_eq!(compact_tool_name(" Read "), "Read");
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
