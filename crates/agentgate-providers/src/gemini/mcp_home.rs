//! MCP servers, thinking settings and an agent's permissions for one
//! Gemini CLI run, through a home of the run's own.
//!
//! Gemini CLI (0.61) takes MCP servers, the thinking config of a
//! model (`modelConfigs.customOverrides`, which `--reasoning-effort` and
//! `--thinking-budget` become: see `reasoning.rs`) and tool permissions
//! (`tools.exclude`/`tools.allowed`, which a permissions file becomes: see
//! `permissions.rs`) only from settings files: its system
//! settings (skipped unless root owns the file and every folder above it,
//! never true of a run's folder), the user's `~/.gemini/settings.json` and
//! the project's `.gemini/settings.json` (both the user's own). It finds
//! its home with `GEMINI_CLI_HOME`, so a run with any of them gets a home
//! in the run's folder whose `.gemini/settings.json` is the user's settings
//! with the servers, overrides and permissions added, and whose every other entry is a symlink to the
//! user's own `~/.gemini` (the login, the sessions under `tmp/`, the
//! history, the trusted folders), so the run logs in, writes its session
//! and reads its memory files where a plain run would. `tmp/` and
//! `history/` are made in the user's folder first if missing (Gemini makes
//! them on any run). `--allowed-mcp-server-names` keeps the user's own
//! servers from starting.
//!
//! What the overlay cannot carry back: a file Gemini replaces by renaming a
//! new one over it (its project registry `projects.json` when it records a
//! new folder, a refreshed `oauth_creds.json`) lands in the run's home, and
//! the user's copy keeps its old content (the old refresh token still
//! works; a new folder is recorded again by the next plain run).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::argv::Context;
use super::super::mcp;
use super::super::permissions::{self, PermissionsWay};
use super::super::provider::{CliCommand, CommandError};
use super::super::system_settings::{env_of, read_object};

/// The variable Gemini CLI finds its home with.
const HOME_ENV: &str = "GEMINI_CLI_HOME";

/// Gemini's folder under a home.
const GEMINI_DIR: &str = ".gemini";

/// Folders of the user's Gemini home a run writes into: made there when
/// missing, so the run's home links to them.
const SHARED_DIRS: &[&str] = &["tmp", "history"];

/// Entries of the user's home (beside `.gemini`) that Gemini reads through
/// its home: its variables file and the user's agent skills.
const HOME_ENTRIES: &[&str] = &[".env", ".agents"];

/// Gives the run's servers, thinking settings and permissions to Gemini
/// through a home of the run's own.
pub(super) fn mcp_home(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let servers = mcp::checked(ctx)?;
    let thinking = crate::reasoning::gemini_overrides(ctx);
    let permissions = ctx.request.permissions.as_ref().and_then(|p| {
        permissions::settings(PermissionsWay::GeminiSettings, "gemini", p)
            .0
            .and_then(|v| match v {
                Value::Object(map) => Some(map),
                _ => None,
            })
    });
    if servers.is_empty() && thinking.is_empty() && permissions.is_none() {
        return Ok(());
    }
    let what = if !servers.is_empty() {
        "run with MCP servers"
    } else if !thinking.is_empty() {
        "set its thinking per run"
    } else {
        "apply the agent's permissions file"
    };
    let unsupported = |why: String| ctx.unsupported(format!("{what}: {why}"));
    let Some(home) = user_home(ctx) else {
        return Err(unsupported(
            "no home folder is known (set HOME or GEMINI_CLI_HOME) to take the login and settings from".into(),
        ));
    };
    let user_dir = home.join(GEMINI_DIR);
    let write = |path: &Path, source: std::io::Error| CommandError::Write {
        path: path.to_path_buf(),
        source,
    };
    for dir in SHARED_DIRS {
        let path = user_dir.join(dir);
        std::fs::create_dir_all(&path).map_err(|e| write(&path, e))?;
    }
    let settings_path = user_dir.join("settings.json");
    let mut settings =
        read_object(&settings_path, "its settings", &unsupported)?.unwrap_or_default();
    if !servers.is_empty() {
        mcp::add_to_settings(&mut settings, servers);
    }
    add_overrides(&mut settings, thinking);
    if let Some(p) = &permissions {
        permissions::merge_settings(&mut settings, p);
    }
    let text = Value::Object(settings).to_string();

    // Named by content: the steps of a run that share its folder keep
    // their own servers.
    let root = ctx
        .scratch
        .path()?
        .join(format!("gemini-home-{}", mcp::content_hash(&text)));
    let run_dir = root.join(GEMINI_DIR);
    std::fs::create_dir_all(&run_dir).map_err(|e| write(&run_dir, e))?;
    let settings_copy = run_dir.join("settings.json");
    mcp::write_private(&settings_copy, &text)?;
    cmd.files.push(settings_copy);

    let mut links = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&user_dir) {
        for e in entries.flatten() {
            if e.file_name() != "settings.json" {
                links.push((e.path(), run_dir.join(e.file_name())));
            }
        }
    }
    for name in HOME_ENTRIES {
        let path = home.join(name);
        if path.symlink_metadata().is_ok() {
            links.push((path, root.join(name)));
        }
    }
    for (target, link) in links {
        if link.symlink_metadata().is_err() {
            std::os::unix::fs::symlink(&target, &link).map_err(|e| write(&link, e))?;
        }
        cmd.files.push(link);
    }
    cmd.env
        .push((OsString::from(HOME_ENV), root.as_os_str().to_owned()));
    if !servers.is_empty() {
        cmd.args.extend(mcp::allowed_names_args(servers));
    }
    Ok(())
}

/// Appends `overrides` to the settings' `modelConfigs.customOverrides`
/// (after the user's own: a later entry of the same specificity wins).
fn add_overrides(settings: &mut serde_json::Map<String, Value>, overrides: Vec<Value>) {
    if overrides.is_empty() {
        return;
    }
    let configs = settings
        .entry("modelConfigs")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if !configs.is_object() {
        *configs = Value::Object(serde_json::Map::new());
    }
    let Some(configs) = configs.as_object_mut() else {
        return;
    };
    let list = configs
        .entry("customOverrides")
        .or_insert_with(|| Value::Array(Vec::new()));
    if !list.is_array() {
        *list = Value::Array(Vec::new());
    }
    if let Some(list) = list.as_array_mut() {
        list.extend(overrides);
    }
}

/// The home Gemini will use: `GEMINI_CLI_HOME`, else `HOME`, as the CLI
/// will see them.
fn user_home(ctx: &Context<'_>) -> Option<PathBuf> {
    [HOME_ENV, "HOME"]
        .into_iter()
        .filter_map(|name| env_of(ctx.request, name))
        .find(|v| !v.is_empty())
        .map(PathBuf::from)
}
