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
//!   engine, still enforcing it: the e2e test in `gardener.rs` will say
//!   when a later version stops.)
//!
//! The other CLIs take tool permissions only from their own settings files
//! or policy engines, which agentgate does not rewrite for a run, so for
//! them the file is not applied. [`apply`] adds the settings to the command
//! line (Gemini's go into its settings copy instead, see [`settings`]), and
//! a `status` notice for every part the CLI does not enforce: nothing is
//! pretended. `write_paths` is never the CLI's to enforce here: agentgate
//! checks an edit agent's changes against its `allow:` after each attempt.

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
                PermissionsWay::None => (
                    None,
                    vec![format!(
                        "the permissions file was not applied: {cli} takes no settings from agentgate (the agent's `mode` is still enforced)"
                    )],
                ),
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
        PermissionsWay::None => {
            gaps.push(format!(
                "the permissions file was not applied: {cli} takes no tool permissions from agentgate (the agent's `mode` is still enforced)"
            ));
            return (None, gaps);
        }
        PermissionsWay::ClaudeSettings => {
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
    };
    (Some(value), gaps)
}

/// What `p` adds to the CLI's command line the CLI's way, and the notices
/// for what it does not enforce. Gemini CLI's settings add nothing here:
/// its argv writes them into the run's settings copy
/// ([`merge_settings`]).
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
mod tests {
    use super::*;

    fn neutral(v: Value) -> Permissions {
        Permissions::from_value(v).unwrap()
    }

    #[test]
    fn neutral_keys_make_the_neutral_format_and_anything_else_is_native() {
        let p = neutral(json!({"allow": ["read"], "deny": ["shell", "mcp__x"], "network": false}));
        assert_eq!(
            p,
            Permissions::Neutral(NeutralPermissions {
                allow: vec!["read".into()],
                deny: vec!["shell".into(), "mcp__x".into()],
                write_paths: Vec::new(),
                network: Some(false),
            })
        );
        let native = json!({"permissions": {"deny": ["Bash"]}});
        assert_eq!(neutral(native.clone()), Permissions::Native(native));
        assert!(Permissions::from_value(json!({"allow": "read"})).is_err());
        assert!(Permissions::from_value(json!({"network": "no"})).is_err());
        assert!(Permissions::from_value(json!([1])).is_err());
    }

    #[test]
    fn classes_become_each_clis_tool_names_and_gaps_are_said() {
        let p = neutral(
            json!({"allow": ["read"], "deny": ["shell"], "network": false, "write_paths": ["notes"]}),
        );
        let (claude, gaps) = settings(PermissionsWay::ClaudeSettings, "claude", &p);
        assert_eq!(
            claude.unwrap(),
            json!({"permissions": {"allow": ["Read", "Glob", "Grep", "LS"], "deny": ["Bash", "WebFetch", "WebSearch"]}})
        );
        assert!(gaps.iter().any(|g| g.contains("write_paths")), "{gaps:?}");
        assert!(gaps.iter().any(|g| g.contains("network")), "{gaps:?}");
        // A CLI that takes none: not applied, and said so.
        let (none, gaps) = settings(PermissionsWay::None, "gemini", &p);
        assert!(none.is_none());
        assert!(gaps.iter().any(|g| g.contains("not applied")), "{gaps:?}");
        let (gemini, gaps) = settings(PermissionsWay::GeminiSettings, "gemini", &p);
        assert_eq!(
            gemini.unwrap(),
            json!({"tools": {
                "allowed": ["read_file", "read_many_files", "list_directory", "glob", "grep_search"],
                "exclude": ["run_shell_command", "web_fetch", "google_web_search"],
            }})
        );
        assert!(gaps.iter().any(|g| g.contains("write_paths")), "{gaps:?}");
        assert!(gaps.iter().all(|g| !g.contains("not applied")), "{gaps:?}");
        // Gemini's settings go into its settings copy, not the argv.
        let (args, _) = apply(PermissionsWay::GeminiSettings, "gemini", &p);
        assert!(args.is_empty(), "{args:?}");
        let own = neutral(json!({"deny": ["write", "mcp_x_tool"]}));
        let (v, _) = settings(PermissionsWay::GeminiSettings, "gemini", &own);
        assert_eq!(
            v.unwrap(),
            json!({"tools": {"exclude": ["write_file", "replace", "mcp_x_tool"]}})
        );
        let native = Permissions::Native(json!({"permissions": {"deny": ["Bash"]}}));
        let (v, gaps) = settings(PermissionsWay::ClaudeSettings, "claude", &native);
        assert_eq!(v.unwrap(), json!({"permissions": {"deny": ["Bash"]}}));
        assert!(gaps.is_empty());
    }

    #[test]
    fn merged_settings_keep_the_users_and_add_to_lists() {
        let mut user =
            json!({"tools": {"exclude": ["glob"], "sandbox": false}, "ui": {"theme": "x"}})
                .as_object()
                .unwrap()
                .clone();
        let extra = json!({"tools": {"exclude": ["glob", "run_shell_command"], "sandbox": true}});
        merge_settings(&mut user, extra.as_object().unwrap());
        assert_eq!(
            Value::Object(user),
            json!({"tools": {"exclude": ["glob", "run_shell_command"], "sandbox": true}, "ui": {"theme": "x"}})
        );
    }

    #[test]
    fn gemini_gets_the_permissions_in_its_runs_own_settings_copy() {
        use crate::gemini::GEMINI;
        use crate::provider::{CliRequest, Provider};
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
        std::fs::write(
            home.path().join(".gemini/settings.json"),
            r#"{"tools": {"exclude": ["glob"]}, "ui": {"theme": "mine"}}"#,
        )
        .unwrap();
        let mut r = CliRequest {
            env_clear: true,
            permissions: Some(neutral(
                json!({"deny": ["shell"], "write_paths": ["notes"]}),
            )),
            ..CliRequest::default()
        };
        r.env
            .push(("HOME".into(), home.path().display().to_string()));
        let c = GEMINI
            .command(&r, std::path::Path::new("/bin/gemini"), &dir.path().into())
            .unwrap();
        let root = c
            .env
            .iter()
            .find(|(k, _)| k == "GEMINI_CLI_HOME")
            .map(|(_, v)| PathBuf::from(v))
            .expect("a home of the run's own");
        let text = std::fs::read_to_string(root.join(".gemini/settings.json")).unwrap();
        let got: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            got["tools"]["exclude"],
            json!(["glob", "run_shell_command"])
        );
        assert_eq!(got["ui"]["theme"], "mine", "the user's settings kept");
        // Applied: only the unenforced part is said.
        assert!(
            c.notices.iter().all(|n| !n.contains("not applied")),
            "{:?}",
            c.notices
        );
        assert!(
            c.notices.iter().any(|n| n.contains("write_paths")),
            "{:?}",
            c.notices
        );
        assert!(!c.display_args().contains(&"--settings".to_owned()));
    }
}
