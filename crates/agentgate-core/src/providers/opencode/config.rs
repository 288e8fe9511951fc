//! What opencode is told through its environment: the permission rules of
//! a mode (merged over an inherited `OPENCODE_PERMISSION`), and the system
//! instructions file listed in `OPENCODE_CONFIG_CONTENT`.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::providers::provider::{CommandError, RunRequest};
use crate::settings::PermissionMode;

/// The environment variable opencode merges over its `permission` config.
pub(super) const PERMISSION_ENV: &str = "OPENCODE_PERMISSION";

/// The environment variable opencode reads as one more config file.
pub(super) const CONFIG_ENV: &str = "OPENCODE_CONFIG_CONTENT";

/// The permissions a bypass allows by rule, in a mode of opencode's
/// without `--auto` (`opencode acp`): every one that can ask.
const BYPASS_ALLOWS: [&str; 6] = [
    "edit",
    "bash",
    "webfetch",
    "websearch",
    "external_directory",
    "doom_loop",
];

/// How a bypass is given: `opencode run`'s `--auto`, or rules (`acp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bypass {
    Flag,
    Rules,
}

/// The `permission` entries a mode sets, plus the extra directories; `None`
/// when there are none.
pub(super) fn permission_rules(
    mode: PermissionMode,
    add_dirs: &[PathBuf],
    bypass: Bypass,
) -> Option<Map<String, Value>> {
    let mut rules = Map::new();
    let mut set = |tool: &str, action: &str| {
        rules.insert(tool.to_owned(), Value::from(action));
    };
    match mode {
        PermissionMode::Default | PermissionMode::Ask => {
            set("edit", "ask");
            set("bash", "ask");
        }
        PermissionMode::AcceptEdits => {
            set("edit", "allow");
            set("bash", "ask");
        }
        PermissionMode::Plan => {
            set("edit", "deny");
            set("bash", "deny");
        }
        PermissionMode::Bypass => {
            if bypass == Bypass::Rules {
                for tool in BYPASS_ALLOWS {
                    set(tool, "allow");
                }
            }
        }
    }
    if !add_dirs.is_empty() && !rules.contains_key("external_directory") {
        let mut dirs = Map::new();
        for d in add_dirs {
            let d = d.display().to_string();
            let d = d.trim_end_matches('/');
            dirs.insert(d.to_owned(), Value::from("allow"));
            dirs.insert(format!("{d}/*"), Value::from("allow"));
        }
        rules.insert("external_directory".into(), Value::Object(dirs));
    }
    (!rules.is_empty()).then_some(rules)
}

/// Writes the system instructions where opencode will read them. The name
/// follows the text, so runs sharing a folder never see each other's.
pub(super) fn system_file(scratch: &Path, text: &str) -> Result<PathBuf, CommandError> {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    let path = scratch.join(format!("opencode-system-{:016x}.md", h.finish()));
    std::fs::write(&path, text).map_err(|source| CommandError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// Whether `--env` sets `key`.
pub(super) fn has_env(req: &RunRequest, key: &str) -> bool {
    req.env.iter().any(|(k, _)| k == key)
}

/// The value `key` has in agentgate's own environment, if the CLI inherits it.
pub(super) fn own_env(req: &RunRequest, key: &str) -> Option<String> {
    if req.env_clear {
        return None;
    }
    std::env::var(key).ok()
}

/// `base` (a JSON object, or nothing) with `extra` merged over it: arrays
/// are appended to, objects merged, anything else replaced. Errs with what
/// is wrong with `base`.
pub(super) fn merge_into(
    base: Option<String>,
    extra: Map<String, Value>,
) -> Result<String, &'static str> {
    let mut merged = match base.as_deref().map(str::trim) {
        None | Some("") => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            _ => return Err("is set to something other than a JSON object"),
        },
    };
    merge(&mut merged, extra);
    Ok(Value::Object(merged).to_string())
}

fn merge(into: &mut Map<String, Value>, extra: Map<String, Value>) {
    for (k, v) in extra {
        match (into.get_mut(&k), v) {
            (Some(Value::Array(a)), Value::Array(b)) => a.extend(b),
            (Some(Value::Object(a)), Value::Object(b)) => merge(a, b),
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}
