//! What a permission request is about, the same for every CLI: the tool's
//! class (the protocol's [`ToolClass`]: read, write, shell, web, browser,
//! other), its name, the paths it touches and the command it runs. Tool
//! names map to classes as in the events ([`class_of_tool`], the decoders'
//! table); an ACP agent's own `kind` is mapped by [`class_of_acp_kind`].

pub use agentgate_protocol::ToolClass;

pub use agentgate_providers::decode::tools::tool_class as class_of_tool;

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
        ] {
            assert_eq!(class_of_tool(name), class, "{name}");
        }
        assert_eq!(class_of_acp_kind(Some("edit"), "x"), ToolClass::Write);
        assert_eq!(class_of_acp_kind(Some("execute"), "x"), ToolClass::Shell);
        assert_eq!(class_of_acp_kind(None, "read_file"), ToolClass::Read);
        assert_eq!(class_of_acp_kind(Some("think"), "Bash"), ToolClass::Shell);
    }
}
