//! What opencode is told through its environment, for `opencode run` and
//! `opencode acp` alike: the permission rules of a mode (merged over an
//! inherited `OPENCODE_PERMISSION`) and of the agent's permissions file,
//! the entries of
//! `OPENCODE_CONFIG_CONTENT` (the system instructions file, MCP servers,
//! and what `acp` takes there), and a `TMPDIR` of its own.

use std::ffi::OsString;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::PermissionMode;
use crate::argv::Context;
use crate::mcp;
use crate::permissions::PermissionsWay;
use crate::provider::{CliCommand, CliRequest, CommandError};

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
pub(super) fn has_env(req: &CliRequest, key: &str) -> bool {
    req.env.iter().any(|(k, _)| k == key)
}

/// The value `key` has in agentgate's own environment, if the CLI inherits it.
pub(super) fn own_env(req: &CliRequest, key: &str) -> Option<String> {
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

/// Sets `OPENCODE_PERMISSION` (see `permissions` in `mod.rs`), a bypass
/// given as `bypass` says, with the agent's permissions file merged in
/// ([`with_file_rules`]).
pub(super) fn set_permissions(
    ctx: &Context<'_>,
    cmd: &mut CliCommand,
    bypass: Bypass,
) -> Result<(), CommandError> {
    let req = ctx.request;
    let file_rules = req.permissions.as_ref().and_then(|p| {
        match crate::permissions::settings(PermissionsWay::OpencodeRules, "opencode", p).0 {
            Some(Value::Object(rules)) => Some(rules),
            _ => None,
        }
    });
    if has_env(req, PERMISSION_ENV) {
        if file_rules.is_some() {
            cmd.notices.push(format!(
                "the permissions file was not applied: --env sets {PERMISSION_ENV}, which replaces the rules agentgate gives opencode (put the file's rules in that value instead; the agent's `mode` is still enforced)"
            ));
        }
        return Ok(());
    }
    let mode_rules = permission_rules(req.permission_mode, &req.add_dirs, bypass);
    let rules = match file_rules {
        Some(file) => Some(with_file_rules(mode_rules.unwrap_or_default(), file)),
        None => mode_rules,
    };
    if let Some(rules) = rules {
        let merged = merge_into(own_env(req, PERMISSION_ENV), rules).map_err(|what| {
            ctx.unsupported(format!("apply --permission-mode: {PERMISSION_ENV} {what}"))
        })?;
        cmd.env
            .push((OsString::from(PERMISSION_ENV), OsString::from(merged)));
    }
    Ok(())
}

/// The mode's `rules` with a permissions file's merged in: the file's
/// denies win; its allows replace a mode's `ask` (or nothing) but never a
/// mode's `deny` (a `plan` run stays read-only whatever the file allows).
pub(super) fn with_file_rules(
    mut rules: Map<String, Value>,
    file: Map<String, Value>,
) -> Map<String, Value> {
    for (tool, action) in file {
        let mode_denies = rules.get(&tool).and_then(Value::as_str) == Some("deny");
        if action.as_str() == Some("deny") || !mode_denies {
            rules.insert(tool, action);
        }
    }
    rules
}

/// Sets `OPENCODE_CONFIG_CONTENT`: `extra` entries (which `taking` names
/// for an error), `--system` as a file listed in its `instructions`, and
/// the request's MCP servers as its `mcp`, merged over the inherited value.
pub(super) fn set_config_content(
    ctx: &Context<'_>,
    cmd: &mut CliCommand,
    mut extra: Map<String, Value>,
    mut taking: Vec<&str>,
) -> Result<(), CommandError> {
    let req = ctx.request;
    let servers = mcp::checked(ctx)?;
    if req.system.is_some() {
        taking.push("--system");
    }
    if !servers.is_empty() {
        taking.push("MCP servers");
    }
    if taking.is_empty() {
        return Ok(());
    }
    let what = format!("take {}", taking.join(" and "));
    if has_env(req, CONFIG_ENV) {
        return Err(ctx.unsupported(format!(
            "{what} while --env sets {CONFIG_ENV} (list the instructions file in that config's `instructions`, the servers in its `mcp`, instead)"
        )));
    }
    if let Some(system) = &req.system {
        let path = system_file(&ctx.scratch.path()?, system)?;
        extra.insert("instructions".into(), json!([path.display().to_string()]));
        cmd.files.push(path);
    }
    if !servers.is_empty() {
        extra.insert("mcp".into(), mcp::opencode_mcp_object(servers));
    }
    let merged = merge_into(own_env(req, CONFIG_ENV), extra)
        .map_err(|e| ctx.unsupported(format!("{what}: {CONFIG_ENV} {e}")))?;
    cmd.env
        .push((OsString::from(CONFIG_ENV), OsString::from(merged)));
    Ok(())
}

/// Bun unpacks a native library into `TMPDIR` at every start and never
/// removes it: the run gives opencode a temp folder of its own.
pub(super) fn private_tmpdir(_: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    cmd.private_tmpdir = true;
    Ok(())
}
