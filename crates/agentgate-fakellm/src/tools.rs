//! Resolving scripted tool calls to the tools a client declared.

use serde_json::{Map, Value, json};

use crate::request::ToolDecl;

/// The alias that names "whichever shell tool the client declared".
pub const SHELL_ALIAS: &str = "shell";

/// Shell tool names of the known clients, in the order they are tried:
/// Claude Code `Bash`, Codex `exec_command` (and its older `shell`),
/// Gemini CLI and Qwen Code `run_shell_command`, opencode `bash`.
pub const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "exec_command",
    "run_shell_command",
    "bash",
    "shell",
    "local_shell",
];

/// A tool call that could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The alias `shell` was used but the client declared no shell tool.
    #[error(
        "the script calls `shell` but the request declared no shell tool (declared: {declared})"
    )]
    NoShellTool {
        /// The declared tool names, comma-separated.
        declared: String,
    },
}

/// The declared tool an alias or name refers to, and its arguments shaped
/// to that tool's schema.
///
/// `shell` resolves to the first declared tool named in [`SHELL_TOOLS`];
/// the command goes into the schema's `cmd` or `command` property (as a
/// string, or as `["bash", "-lc", cmd]` when that property is an array), and
/// a required `description` gets a short one. `args` from the script are
/// merged over the shaped arguments. Any other name is used as it is (a
/// script may call a tool the client did not declare, to test how it copes).
pub fn resolve(
    name: &str,
    command: Option<&str>,
    args: Option<&Value>,
    declared: &[ToolDecl],
) -> Result<(String, Value), ToolError> {
    let mut out = Map::new();
    let resolved = if name == SHELL_ALIAS {
        let tool = SHELL_TOOLS
            .iter()
            .find_map(|s| declared.iter().find(|d| d.name == *s))
            .ok_or_else(|| ToolError::NoShellTool {
                declared: declared
                    .iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        shape_shell_args(&tool.parameters, command.unwrap_or(""), &mut out);
        tool.name.clone()
    } else {
        if let Some(cmd) = command {
            let schema = declared
                .iter()
                .find(|d| d.name == name)
                .map(|d| &d.parameters)
                .unwrap_or(&Value::Null);
            shape_shell_args(schema, cmd, &mut out);
        }
        name.to_owned()
    };
    if let Some(Value::Object(extra)) = args {
        for (k, v) in extra {
            out.insert(k.clone(), v.clone());
        }
    }
    Ok((resolved, Value::Object(out)))
}

fn shape_shell_args(schema: &Value, command: &str, out: &mut Map<String, Value>) {
    let props = schema.get("properties").and_then(Value::as_object);
    let key = match props {
        Some(p) if p.contains_key("cmd") && !p.contains_key("command") => "cmd",
        _ => "command",
    };
    let is_array = props
        .and_then(|p| p.get(key))
        .and_then(|p| p.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|t| t.eq_ignore_ascii_case("array"));
    if is_array {
        out.insert(key.to_owned(), json!(["bash", "-lc", command]));
    } else {
        out.insert(key.to_owned(), Value::String(command.to_owned()));
    }
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect::<Vec<_>>())
        .unwrap_or_default();
    if required.contains(&"description") {
        out.insert(
            "description".into(),
            Value::String("Run a scripted command".into()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(name: &str, parameters: Value) -> ToolDecl {
        ToolDecl {
            name: name.into(),
            parameters,
            ..ToolDecl::default()
        }
    }

    #[test]
    fn shell_alias_picks_the_declared_shell_tool_and_its_argument_name() {
        let codex = [
            decl("write_stdin", json!({})),
            decl(
                "exec_command",
                json!({"properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}),
            ),
        ];
        assert_eq!(
            resolve("shell", Some("echo hi"), None, &codex).unwrap(),
            ("exec_command".to_owned(), json!({"cmd": "echo hi"}))
        );
        let claude = [
            decl("Read", json!({})),
            decl(
                "Bash",
                json!({"properties": {"command": {"type": "string"}, "description": {"type": "string"}}, "required": ["command"]}),
            ),
        ];
        assert_eq!(
            resolve("shell", Some("ls"), None, &claude).unwrap(),
            ("Bash".to_owned(), json!({"command": "ls"}))
        );
        let gemini = [decl(
            "run_shell_command",
            json!({"properties": {"command": {"type": "STRING"}}}),
        )];
        assert_eq!(
            resolve("shell", Some("ls"), None, &gemini).unwrap().0,
            "run_shell_command"
        );
        let opencode = [decl(
            "bash",
            json!({"properties": {"command": {"type": "string"}, "description": {"type": "string"}}, "required": ["command", "description"]}),
        )];
        assert_eq!(
            resolve("shell", Some("ls"), None, &opencode).unwrap(),
            (
                "bash".to_owned(),
                json!({"command": "ls", "description": "Run a scripted command"})
            )
        );
    }

    #[test]
    fn array_command_schemas_get_an_argv() {
        let old_codex = [decl(
            "shell",
            json!({"properties": {"command": {"type": "array"}}}),
        )];
        assert_eq!(
            resolve("shell", Some("ls"), None, &old_codex).unwrap().1,
            json!({"command": ["bash", "-lc", "ls"]})
        );
    }

    #[test]
    fn script_args_are_merged_over_shaped_ones() {
        let claude = [decl("Bash", json!({"properties": {"command": {}}}))];
        let (_, args) = resolve(
            "shell",
            Some("ls"),
            Some(&json!({"timeout": 5000})),
            &claude,
        )
        .unwrap();
        assert_eq!(args, json!({"command": "ls", "timeout": 5000}));
        let (name, args) =
            resolve("Write", None, Some(&json!({"file_path": "a"})), &claude).unwrap();
        assert_eq!((name.as_str(), args), ("Write", json!({"file_path": "a"})));
    }

    #[test]
    fn shell_without_a_declared_shell_tool_is_an_error_naming_the_tools() {
        let err = resolve("shell", Some("ls"), None, &[decl("Read", Value::Null)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the script calls `shell` but the request declared no shell tool (declared: Read)"
        );
    }
}
