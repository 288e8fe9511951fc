//! `mcp-probe`: a small real MCP server (stdio, on the official Rust SDK)
//! for the tests of MCP servers given to agent CLIs for one run.
//!
//! One tool, `lookup(key)`, answers `value-of-<key>`. When the variable
//! `MCP_PROBE_LOG` names a file, the probe appends one JSON line to it when
//! it starts (`{"event":"start","pid":N}`) and one per call
//! (`{"event":"call","tool":"lookup","key":K,"pid":N}`), so a test can
//! count the calls, see their arguments, and check that no probe process
//! outlives the run.

use std::io::Write;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, ServiceExt, schemars, tool, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};

/// The variable naming the call log.
const LOG_ENV: &str = "MCP_PROBE_LOG";

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct LookupArgs {
    /// The key to look up.
    key: String,
}

#[derive(Debug, Clone, Copy)]
struct Probe;

#[tool_router(server_handler)]
impl Probe {
    #[tool(
        name = "lookup",
        description = "Look a key up; answers value-of-<key>."
    )]
    fn lookup(
        &self,
        Parameters(LookupArgs { key }): Parameters<LookupArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        log(json!({"event": "call", "tool": "lookup", "key": key})).map_err(|e| {
            ErrorData::internal_error(format!("failed to write the call log: {e}"), None)
        })?;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "value-of-{key}"
        ))]))
    }
}

/// Appends `entry` (with this process's id) to the call log, if one is named.
fn log(mut entry: Value) -> std::io::Result<()> {
    let Some(path) = std::env::var_os(LOG_ENV) else {
        return Ok(());
    };
    entry["pid"] = json!(std::process::id());
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    writeln!(file, "{entry}")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    if let Err(e) = log(json!({"event": "start"})) {
        eprintln!("mcp-probe: failed to write the call log: {e}");
        return std::process::ExitCode::from(1);
    }
    let served = match Probe.serve(rmcp::transport::stdio()).await {
        Ok(service) => service
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-probe: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
