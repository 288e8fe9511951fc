//! An agent's permissions file, applied to the CLI that runs it.
//!
//! Two kinds of file ([`Permissions::from_value`]):
//!
//! - **agentgate's vendor-neutral format**: only the keys `allow`, `deny`
//!   (tool classes `read`, `write`, `shell`, `web`, or a CLI's own tool
//!   names), `write_paths` and `network`;
//! - **a CLI's own settings** (any other JSON/YAML object, such as Claude
//!   Code's settings.json with its `permissions`), passed through as they
//!   are to the CLI the agent runs.
//!
//! Each CLI says how it takes settings ([`PermissionsWay`]):
//!
//! - Claude Code with `--settings JSON` (its `permissions.allow`/`deny`
//!   rules);
//! - Gemini CLI through the run's own copy of its user settings (the home
//!   `gemini/mcp_home.rs` gives a run): `tools.exclude` for `deny` (a list
//!   Gemini merges as a union over its settings files, so a project's
//!   `.gemini/settings.json` cannot take a denied tool back) and
//!   `tools.allowed` for `allow`; a native file is merged into that copy.
//!   (Gemini 0.61 calls `tools.exclude` deprecated in favour of its policy
//!   engine, still enforcing it: the e2e test in `permissions_per_cli.rs`
//!   will say when a later version stops.)
//! - Qwen Code through the run's copy of its system settings
//!   (`system_settings.rs`): `permissions.deny`/`permissions.allow`, which
//!   Qwen merges over every settings scope (a denied tool is not even
//!   registered); a native file is merged into that copy;
//! - opencode through `OPENCODE_PERMISSION` (`opencode/config.rs`), merged
//!   with the mode's rules: a class becomes its permission keys with
//!   `deny` or `allow` (never `ask`: nobody answers an unattended run); a
//!   deny wins over the mode's rules, an allow never lifts a mode's deny;
//!   a native opencode config gives its `permission` (its asks become
//!   denies);
//! - Codex, which has no per-tool list, through `-c` overrides
//!   (`codex/permissions.rs`): `deny: [shell]` turns its shell tools off
//!   (`features.shell_tool=false`), `deny: [write]` runs it in the
//!   read-only sandbox with approval `never` (whatever the mode, also
//!   `--yolo`), `deny: [web]` and `network: false` set `web_search` to
//!   `disabled`; what has no such knob (`read`, its own tool names, any
//!   `allow`, a native file) is said not to be applied.
//!
//! The other CLIs take tool permissions only from their own settings files
//! or policy engines, which agentgate does not rewrite for a run, so for
//! them the file is not applied. [`apply`] adds the settings to the command
//! line (the others' go into their settings copy or environment instead,
//! see [`settings`]), and a `status` notice for every part the CLI does
//! not enforce: nothing is pretended. `write_paths` is never the CLI's to
//! enforce here: agentgate checks an edit agent's changes against its
//! `allow:` after each attempt.

use std::ffi::OsString;
use std::path::PathBuf;

use serde_json::{Map, Value, json};

/// The keys of the vendor-neutral format.
pub const NEUTRAL_KEYS: &[&str] = &["allow", "deny", "write_paths", "network"];

/// The tool classes of the vendor-neutral format.
pub const TOOL_CLASSES: &[&str] = &["read", "write", "shell", "web"];

/// A read permissions file.
#[derive(Debug, Clone, PartialEq)]
pub enum Permissions {
    /// agentgate's vendor-neutral format.
    Neutral(NeutralPermissions),
    /// A CLI's own settings, passed through.
    Native(Value),
}

/// The vendor-neutral permissions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NeutralPermissions {
    /// Tools the CLI may use without asking: classes or its own names.
    pub allow: Vec<String>,
    /// Tools the CLI must not use.
    pub deny: Vec<String>,
    /// Where edits may go (agentgate's edit check enforces them).
    pub write_paths: Vec<PathBuf>,
    /// `false`: no network for the agent's tools.
    pub network: Option<bool>,
}

/// How a CLI takes settings agentgate hands it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PermissionsWay {
    /// It takes none from agentgate.
    #[default]
    None,
    /// Claude Code: `--settings JSON`.
    ClaudeSettings,
    /// Gemini CLI: `tools.exclude`/`tools.allowed` in the run's copy of its
    /// user settings.
    GeminiSettings,
    /// Qwen Code: `permissions.deny`/`permissions.allow` in the run's copy
    /// of its system settings.
    QwenSettings,
    /// opencode: `deny`/`allow` rules in `OPENCODE_PERMISSION`.
    OpencodeRules,
    /// Codex: `-c` overrides of its shell tool, sandbox and web search.
    CodexConfig,
}

impl Permissions {
    /// The permissions of a file's parsed content (`Err`: why not).
    pub fn from_value(v: Value) -> Result<Permissions, String> {
        let Value::Object(map) = v else {
            return Err("a permissions file is an object (a mapping)".into());
        };
        if map.is_empty() || !map.keys().all(|k| NEUTRAL_KEYS.contains(&k.as_str())) {
            return Ok(Permissions::Native(Value::Object(map)));
        }
        let list = |k: &str| -> Result<Vec<String>, String> {
            match map.get(k) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| match i.as_str() {
                        Some(s) if !s.trim().is_empty() => Ok(s.trim().to_owned()),
                        _ => Err(format!("`{k}` holds {i}, not a tool name")),
                    })
                    .collect(),
                Some(other) => Err(format!("`{k}` is {other}, not a list")),
            }
        };
        let network = match map.get("network") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(other) => Err(format!("`network` is {other}, not true or false"))?,
        };
        Ok(Permissions::Neutral(NeutralPermissions {
            allow: list("allow")?,
            deny: list("deny")?,
            write_paths: list("write_paths")?
                .into_iter()
                .map(PathBuf::from)
                .collect(),
            network,
        }))
    }
}

/// A CLI's tool names of a class (`None`: not a class, a CLI's own name).
fn class_tools(way: PermissionsWay, name: &str) -> Option<&'static [&'static str]> {
    match way {
        PermissionsWay::None => None,
        PermissionsWay::ClaudeSettings => match name {
            "read" => Some(&["Read", "Glob", "Grep", "LS"][..]),
            "write" => Some(&["Edit", "Write", "MultiEdit", "NotebookEdit"][..]),
            "shell" => Some(&["Bash"][..]),
            "web" => Some(&["WebFetch", "WebSearch"][..]),
            _ => None,
        },
        // Gemini CLI 0.61's built-in tool names.
        PermissionsWay::GeminiSettings => match name {
            "read" => Some(
                &[
                    "read_file",
                    "read_many_files",
                    "list_directory",
                    "glob",
                    "grep_search",
                ][..],
            ),
            "write" => Some(&["write_file", "replace"][..]),
            "shell" => Some(&["run_shell_command"][..]),
            "web" => Some(&["web_fetch", "google_web_search"][..]),
            _ => None,
        },
        // Qwen Code 0.24's tool names (`exec` is its code-mode runner).
        PermissionsWay::QwenSettings => match name {
            "read" => Some(&["read_file", "grep_search", "glob", "list_directory"][..]),
            "write" => Some(&["edit", "write_file", "notebook_edit"][..]),
            "shell" => Some(&["run_shell_command", "exec"][..]),
            "web" => Some(&["web_fetch", "web_search"][..]),
            _ => None,
        },
        // opencode 1.18's permission keys (`edit` covers edit, write and
        // apply_patch).
        PermissionsWay::OpencodeRules => match name {
            "read" => Some(&["read", "glob", "grep", "list"][..]),
            "write" => Some(&["edit"][..]),
            "shell" => Some(&["bash"][..]),
            "web" => Some(&["webfetch", "websearch"][..]),
            _ => None,
        },
        // Codex has no tool names to list: `codex_overrides` maps classes.
        PermissionsWay::CodexConfig => None,
    }
}

fn expand(way: PermissionsWay, names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        match class_tools(way, n) {
            Some(tools) => out.extend(tools.iter().map(|t| (*t).to_owned())),
            None => out.push(n.clone()),
        }
    }
    out.dedup();
    out
}

/// The CLI's settings for `p`, and what of `p` it does not enforce.
pub fn settings(way: PermissionsWay, cli: &str, p: &Permissions) -> (Option<Value>, Vec<String>) {
    let n = match p {
        Permissions::Native(v) => {
            return match way {
                PermissionsWay::None | PermissionsWay::CodexConfig => (
                    None,
                    vec![format!(
                        "the permissions file was not applied: {cli} takes no settings from agentgate (the agent's `mode` is still enforced)"
                    )],
                ),
                PermissionsWay::OpencodeRules => match v.get("permission") {
                    Some(rules @ Value::Object(_)) => (Some(never_ask(rules.clone())), Vec::new()),
                    _ => (
                        None,
                        vec![format!(
                            "the permissions file was not applied: it is not agentgate's format and has no `permission` object (tool -> action) for {cli} (the agent's `mode` is still enforced)"
                        )],
                    ),
                },
                _ => (Some(v.clone()), Vec::new()),
            };
        }
        Permissions::Neutral(n) => n,
    };
    let mut gaps = Vec::new();
    if !n.write_paths.is_empty() {
        gaps.push(format!(
            "permissions write_paths are not enforced by {cli}: agentgate checks the changes of an agent with `mode: edit` against its `allow:` after each attempt"
        ));
    }
    if way == PermissionsWay::CodexConfig {
        return codex_overrides(cli, n, gaps);
    }
    let mut deny = expand(way, &n.deny);
    if n.network == Some(false) {
        deny.extend(expand(way, &["web".to_owned()]));
        deny.dedup();
        if way != PermissionsWay::None {
            gaps.push(format!(
                "permissions network: false denies {cli}'s web tools, but its shell is not cut off from the network (deny `shell` too, or use a sandbox)"
            ));
        }
    }
    let allow = expand(way, &n.allow);
    let value = match way {
        PermissionsWay::None | PermissionsWay::CodexConfig => {
            gaps.push(format!(
                "the permissions file was not applied: {cli} takes no tool permissions from agentgate (the agent's `mode` is still enforced)"
            ));
            return (None, gaps);
        }
        // Claude's settings and Qwen's take the same `permissions` block.
        PermissionsWay::ClaudeSettings | PermissionsWay::QwenSettings => {
            let mut perms = Map::new();
            if !allow.is_empty() {
                perms.insert("allow".into(), json!(allow));
            }
            if !deny.is_empty() {
                perms.insert("deny".into(), json!(deny));
            }
            json!({"permissions": perms})
        }
        PermissionsWay::GeminiSettings => {
            let mut tools = Map::new();
            if !allow.is_empty() {
                tools.insert("allowed".into(), json!(allow));
            }
            if !deny.is_empty() {
                tools.insert("exclude".into(), json!(deny));
            }
            json!({"tools": tools})
        }
        PermissionsWay::OpencodeRules => {
            let mut rules = Map::new();
            for tool in &allow {
                rules.insert(tool.clone(), json!("allow"));
            }
            // A tool both allowed and denied is denied.
            for tool in &deny {
                rules.insert(tool.clone(), json!("deny"));
            }
            Value::Object(rules)
        }
    };
    (Some(value), gaps)
}

/// The `-c` overrides (key -> TOML value) that enforce `n` on Codex, which
/// has no per-tool list, and the notices for what they cannot enforce.
fn codex_overrides(
    cli: &str,
    n: &NeutralPermissions,
    mut gaps: Vec<String>,
) -> (Option<Value>, Vec<String>) {
    let mut overrides = Map::new();
    let mut left: Vec<String> = Vec::new();
    for name in &n.deny {
        match name.as_str() {
            "shell" => {
                overrides.insert("features.shell_tool".into(), json!("false"));
            }
            "write" => {
                overrides.insert("sandbox_mode".into(), json!("\"read-only\""));
                overrides.insert("approval_policy".into(), json!("\"never\""));
            }
            "web" => {
                overrides.insert("web_search".into(), json!("\"disabled\""));
            }
            other => left.push(format!("deny `{other}`")),
        }
    }
    if n.network == Some(false) {
        overrides.insert("web_search".into(), json!("\"disabled\""));
        gaps.push(format!(
            "permissions network: false turns {cli}'s web search off, but its shell is not cut off from the network by this file (deny `shell` too, or keep its workspace-write sandbox, whose network is off)"
        ));
    }
    if !n.allow.is_empty() {
        left.push(format!("allow {}", n.allow.join(", ")));
    }
    if !left.is_empty() {
        gaps.push(format!(
            "the permissions file was not fully applied: {cli} has no per-tool allow or deny list, so {} is not enforced (it takes `deny` of shell, write and web only; the agent's `mode` is still enforced)",
            left.join("; ")
        ));
    }
    let value = (!overrides.is_empty()).then_some(Value::Object(overrides));
    (value, gaps)
}

/// `rules` with every `ask` made a `deny`: nobody answers an unattended
/// run.
fn never_ask(rules: Value) -> Value {
    match rules {
        Value::String(s) if s == "ask" => json!("deny"),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, never_ask(v))).collect())
        }
        other => other,
    }
}

/// What `p` adds to the CLI's command line the CLI's way, and the notices
/// for what it does not enforce. Only Claude Code's settings go on the
/// command line here: Gemini CLI's and Qwen Code's are written into the
/// run's settings copy ([`merge_settings`]), opencode's into
/// `OPENCODE_PERMISSION`, Codex's are `-c` overrides its argv adds.
pub fn apply(way: PermissionsWay, cli: &str, p: &Permissions) -> (Vec<OsString>, Vec<String>) {
    let (value, gaps) = settings(way, cli, p);
    let args = match (way, value) {
        (PermissionsWay::ClaudeSettings, Some(value)) => {
            vec![
                OsString::from("--settings"),
                OsString::from(value.to_string()),
            ]
        }
        _ => Vec::new(),
    };
    (args, gaps)
}

/// Merges `extra` into `base`: objects key by key, lists as a union (the
/// base's entries first), anything else replaced by `extra`'s.
pub fn merge_settings(base: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (key, value) in extra {
        match (base.get_mut(key), value) {
            (Some(Value::Object(b)), Value::Object(e)) => merge_settings(b, e),
            (Some(Value::Array(b)), Value::Array(e)) => {
                for item in e {
                    if !b.contains(item) {
                        b.push(item.clone());
                    }
                }
            }
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests;
