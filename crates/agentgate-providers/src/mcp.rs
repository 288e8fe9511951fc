//! MCP servers for one run: what the request asks for ([`McpServer`]), and
//! how each CLI is told of them without touching the user's configuration.
//!
//! Every CLI that can take MCP servers gets them from something only this
//! run reads: Claude a config file in the run's folder (`--mcp-config FILE
//! --strict-mcp-config`, so the user's own servers are not loaded), Codex
//! `-c mcp_servers.NAME.*` overrides, Qwen `mcpServers` in a copy of its
//! system settings file the run points it at (with
//! `--allowed-mcp-server-names`, so only these servers start), opencode
//! `mcp` in `OPENCODE_CONFIG_CONTENT`. The CLIs that have no way refuse a
//! request with servers ([`refuse`]): cursor-agent, agy and CLIs a config
//! file describes. Gemini CLI gets them in a home of the run's own (its
//! `mcp_home.rs`). This module holds what the CLIs share: the check
//! of the request and the shapes of the entries; each provider's `mod.rs`
//! places them.
//!
//! A server's `env` values may be secrets: they go into files of the run's
//! private folder or into the CLI's environment, never into its argv
//! (Codex is told the variables' names with `env_vars`).

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::argv::Context;
pub use super::mcp_server::McpServer;
use super::provider::CommandError;
use super::system_settings;

/// The longest server name.
pub const NAME_MAX: usize = 64;

/// The request's servers, checked: names of letters, digits, `_` and `-`,
/// unique; a command; variable names without `=`. An empty list is fine.
pub fn checked<'a>(ctx: &Context<'a>) -> Result<&'a [McpServer], CommandError> {
    let servers = &ctx.request.mcp_servers[..];
    let mut seen = HashSet::new();
    for s in servers {
        let bad = |why: String| ctx.unsupported(format!("take the MCP server `{}`: {why}", s.name));
        let name_ok = !s.name.is_empty()
            && s.name.len() <= NAME_MAX
            && s.name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !name_ok {
            return Err(bad(format!(
                "a server's name is 1 to {NAME_MAX} letters, digits, `_` or `-`"
            )));
        }
        if !seen.insert(s.name.as_str()) {
            return Err(bad("two servers have that name".into()));
        }
        if s.command.as_os_str().is_empty() {
            return Err(bad("its command is empty".into()));
        }
        if let Some((k, _)) = s
            .env
            .iter()
            .find(|(k, _)| k.is_empty() || k.contains('=') || k.contains('\0'))
        {
            return Err(bad(format!("`{k}` is not a variable name")));
        }
    }
    Ok(servers)
}

/// A CLI with no way to take MCP servers for one run: refuse a request
/// that has some, naming the provider.
pub fn refuse(ctx: &Context<'_>) -> Result<(), CommandError> {
    if ctx.request.mcp_servers.is_empty() {
        return Ok(());
    }
    Err(ctx.unsupported(
        "run with MCP servers: it has no way to be given them for one run without changing the user's own configuration (use claude, codex, qwen or opencode)",
    ))
}

/// [`refuse`] as a table's code part.
pub fn refuse_part(
    ctx: &Context<'_>,
    _: &mut super::provider::CliCommand,
) -> Result<(), CommandError> {
    refuse(ctx)
}

/// The servers as Claude's and Qwen's `mcpServers` object:
/// `{"NAME": {"command", "args", "env"}}`, with `extra` added to each
/// entry (Qwen's `trust`).
pub fn mcp_servers_object(servers: &[McpServer], extra: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    for s in servers {
        let mut entry = Map::new();
        entry.insert("command".into(), Value::from(s.command_text()));
        entry.insert("args".into(), json!(s.args));
        if !s.env.is_empty() {
            entry.insert("env".into(), Value::Object(s.env_object()));
        }
        for (k, v) in extra {
            entry.insert(k.clone(), v.clone());
        }
        out.insert(s.name.clone(), Value::Object(entry));
    }
    Value::Object(out)
}

/// The servers as opencode's `mcp` object: `{"NAME": {"type": "local",
/// "command": [PROGRAM, ARGS...], "environment", "enabled": true}}`.
pub fn opencode_mcp_object(servers: &[McpServer]) -> Value {
    let mut out = Map::new();
    for s in servers {
        let mut command = vec![Value::from(s.command_text())];
        command.extend(s.args.iter().map(|a| Value::from(a.as_str())));
        let mut entry = Map::new();
        entry.insert("type".into(), Value::from("local"));
        entry.insert("command".into(), Value::Array(command));
        if !s.env.is_empty() {
            entry.insert("environment".into(), Value::Object(s.env_object()));
        }
        entry.insert("enabled".into(), Value::from(true));
        out.insert(s.name.clone(), Value::Object(entry));
    }
    Value::Object(out)
}

/// Writes `config` to `dir/<prefix>-<hash of the text>.json` (private,
/// as the run's folder is: it may hold the servers' variables) and returns
/// the path. Named by content, so the steps of a run that share a folder
/// never see each other's servers.
pub fn write_config(dir: &Path, prefix: &str, config: &Value) -> Result<PathBuf, CommandError> {
    let text = config.to_string();
    let path = dir.join(format!("{prefix}-{}.json", content_hash(&text)));
    write_private(&path, &text)?;
    Ok(path)
}

/// A name for a file or folder written for a run, from its content: the
/// steps of a run that share its folder never see each other's servers.
pub fn content_hash(text: &str) -> String {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    format!("{:016x}", h.finish())
}

/// Writes `text` to `path`, readable by the user only (it may hold the
/// servers' variables).
pub fn write_private(path: &Path, text: &str) -> Result<(), CommandError> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
        .map_err(|source| CommandError::Write {
            path: path.to_path_buf(),
            source,
        })
}

/// `--allowed-mcp-server-names NAME`, once per server (Qwen's option
/// gathers repeated flags): only
/// these servers start, not the ones of the user's settings. Placed before
/// another flag, since both CLIs' option would swallow the words after it.
pub fn allowed_names_args(servers: &[McpServer]) -> Vec<OsString> {
    servers
        .iter()
        .flat_map(|s| {
            [
                OsString::from("--allowed-mcp-server-names"),
                OsString::from(&s.name),
            ]
        })
        .collect()
}

/// Adds the servers to a Qwen settings object's `mcpServers`,
/// trusted (their calls need no confirmation: the caller chose them).
pub fn add_to_settings(settings: &mut Map<String, Value>, servers: &[McpServer]) {
    if servers.is_empty() {
        return;
    }
    let mut trust = Map::new();
    trust.insert("trust".into(), Value::from(true));
    let ours = mcp_servers_object(servers, &trust);
    let entry = system_settings::object_at(settings, "mcpServers");
    if let Value::Object(ours) = ours {
        for (name, server) in ours {
            entry[name] = server;
        }
    }
}

#[cfg(test)]
mod tests;
