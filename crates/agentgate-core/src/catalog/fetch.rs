//! Asking a CLI for its models: a listing subcommand (`opencode models`)
//! run under the supervisor (its own process group, a bounded timeout,
//! nothing left behind), or Codex's `app-server` asked `model/list` page
//! by page ([`AppServer`]). The CLI gets agentgate's environment (less its
//! own variables, as every child) under the config's `env:` for the
//! provider and the source's own variables, in the given folder: the
//! same environment its runs get, so it sees the same config files and
//! servers.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use tokio::sync::mpsc;

use crate::app_server::AppServer;
use agentgate_providers::catalog::{CatalogEntry, CatalogSource, static_entries};
use agentgate_providers::codex::{MODEL_LIST_METHOD, catalog_page};
use agentgate_supervise::{
    Invocation, OutputLine, Stream, SupervisorConfig, TerminationTable, supervise,
};

/// The longest a CLI may take to list its models.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(30);

/// The most `model/list` pages read (a guard against a cursor that never
/// ends).
const MAX_PAGES: usize = 50;

/// The models `source` lists, `program` being the CLI.
pub(super) async fn fetch(
    source: CatalogSource,
    program: &Path,
    env: &[(String, String)],
    cwd: &Path,
    timeout: Duration,
) -> Result<Vec<CatalogEntry>, String> {
    match source {
        CatalogSource::Static(table) => Ok(static_entries(table)),
        CatalogSource::Command {
            args,
            env: own,
            parse,
        } => {
            let stdout = command_output(program, args, own, env, cwd, timeout).await?;
            let entries = parse(&stdout);
            if entries.is_empty() {
                return Err(format!(
                    "`{} {}` listed no models",
                    program.display(),
                    args.join(" ")
                ));
            }
            Ok(entries)
        }
        CatalogSource::CodexAppServer => {
            let (program, env, cwd) = (program.to_path_buf(), env.to_vec(), cwd.to_path_buf());
            tokio::task::spawn_blocking(move || codex_models(&program, &env, &cwd, timeout))
                .await
                .map_err(|e| format!("listing Codex's models failed: {e}"))?
        }
    }
}

async fn command_output(
    program: &Path,
    args: &[&str],
    own: &[(&str, &str)],
    env: &[(String, String)],
    cwd: &Path,
    timeout: Duration,
) -> Result<String, String> {
    let mut inv = Invocation::new(program).args(args.iter().copied());
    inv.env = env
        .iter()
        .map(|(k, v)| (k.into(), v.into()))
        .chain(own.iter().map(|(k, v)| ((*k).into(), (*v).into())))
        .collect();
    inv.cwd = Some(cwd.to_path_buf());
    let cfg = SupervisorConfig {
        timeout: Some(timeout),
        grace: TerminationTable {
            interrupt_grace: Duration::from_millis(500),
            terminate_grace: Duration::from_millis(500),
        },
        ..SupervisorConfig::default()
    };
    let (line_tx, mut line_rx) = mpsc::channel::<OutputLine>(256);
    let (_control_tx, control_rx) = mpsc::channel(1);
    let collect = tokio::spawn(async move {
        let (mut out, mut err) = (String::new(), String::new());
        while let Some(line) = line_rx.recv().await {
            let text = String::from_utf8_lossy(&line.bytes);
            match line.stream {
                Stream::Stdout => {
                    out.push_str(&text);
                    out.push('\n');
                }
                _ if err.len() < 2000 => {
                    err.push_str(&text);
                    err.push('\n');
                }
                _ => {}
            }
        }
        (out, err)
    });
    let report = supervise(inv, cfg, line_tx, control_rx)
        .await
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let (out, err) = collect
        .await
        .map_err(|e| format!("reading {}'s output failed: {e}", program.display()))?;
    if !report.status.success() {
        let why = match report.ended_by.as_str() {
            "exited" => format!("it exited with {:?}", report.status.code),
            other => format!("it ended ({other})"),
        };
        let err = err.trim();
        return Err(format!(
            "`{} {}`: {why}{}{err}",
            program.display(),
            args.join(" "),
            if err.is_empty() { "" } else { ": " }
        ));
    }
    Ok(out)
}

fn codex_models(
    program: &Path,
    env: &[(String, String)],
    cwd: &Path,
    timeout: Duration,
) -> Result<Vec<CatalogEntry>, String> {
    let mut server = AppServer::start(program, env, cwd, timeout)?;
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json!({"cursor": c, "includeHidden": true}),
            None => json!({"includeHidden": true}),
        };
        let (page, next) = catalog_page(&server.request(MODEL_LIST_METHOD, params)?);
        out.extend(page);
        match next {
            Some(n) if Some(&n) != cursor.as_ref() => cursor = Some(n),
            _ => return Ok(out),
        }
    }
    Ok(out)
}
