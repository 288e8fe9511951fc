//! From the registry to a run: a tool's [`ToolRunRequest`] (its policy
//! verdict and limits, its error codes), and the tools `agentgate mcp`
//! offers.

use std::sync::Arc;
use std::time::Duration;

use crate::mcp::McpTool;
use crate::registry::{LookupError, Registry, ResolvedTool};
use crate::runner::{
    ClassifyCode, DEFAULT_CANCEL_GRACE, DEFAULT_MAX_OUTPUT_BYTES, RunLimits, ToolRunRequest,
    ToolTarget,
};

/// What a caller may change about one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunOverrides {
    /// The deadline (`--timeout`), within the policy's `caps.run_s`.
    pub timeout: Option<Duration>,
    /// The heartbeat time (`--heartbeat`).
    pub heartbeat: Option<Duration>,
    /// The cancel grace (`--cancel-grace`).
    pub cancel_grace: Option<Duration>,
}

/// The limits of `tool` under the registry's policy and `overrides`, or
/// the policy's refusal (with the manifest's own limits, for the record).
pub fn limits_for(
    registry: &Registry,
    tool: &ResolvedTool,
    overrides: &RunOverrides,
) -> (RunLimits, Option<String>) {
    let policy = registry.policy();
    let mut refusal = None;
    let mut limits = match policy.check(tool) {
        Ok(effective) => RunLimits {
            timeout: Duration::from_secs(effective.run_s),
            heartbeat: Some(Duration::from_secs(effective.heartbeat_s)),
            cancel_grace: DEFAULT_CANCEL_GRACE,
            cpu_seconds: effective.cpu_seconds,
            memory_mb: effective.memory_mb,
            max_output_bytes: effective
                .max_output_mb
                .map_or(DEFAULT_MAX_OUTPUT_BYTES, |mb| {
                    mb.saturating_mul(1024 * 1024)
                }),
        },
        Err(refused) => {
            refusal = Some(refused.to_string());
            RunLimits::from_manifest(&tool.manifest)
        }
    };
    if let Some(timeout) = overrides.timeout {
        let cap = policy.caps.run_s.map(Duration::from_secs);
        match cap {
            Some(cap) if timeout > cap && refusal.is_none() => {
                refusal = Some(format!(
                    "the policy caps a tool's deadline at {} s (caps.run_s); --timeout asked {} s",
                    cap.as_secs(),
                    timeout.as_secs()
                ));
            }
            _ => limits.timeout = timeout,
        }
    }
    if let Some(heartbeat) = overrides.heartbeat {
        limits.heartbeat = Some(heartbeat);
    }
    if let Some(grace) = overrides.cancel_grace {
        limits.cancel_grace = grace;
    }
    (limits, refusal)
}

/// The error-code registry of `registry`, as the runner asks it.
pub fn classifier(registry: &Registry) -> ClassifyCode {
    let codes = registry.error_codes().clone();
    Arc::new(move |code: &str| codes.lookup(code).map(|m| (m.class, m.retryable)))
}

/// The target of a resolved tool.
pub fn target_of(tool: &ResolvedTool) -> ToolTarget {
    ToolTarget {
        manifest: tool.manifest.clone(),
        tool_dir: tool.tool_dir.clone(),
        entry: tool.entry.clone(),
    }
}

/// A run of the tool `name` with `args`, its environment taken from
/// `caller_env`.
pub fn request_for(
    registry: &Registry,
    name: &str,
    args: Vec<String>,
    overrides: &RunOverrides,
    caller_env: Vec<(String, String)>,
) -> Result<ToolRunRequest, LookupError> {
    let tool = registry.get(name)?;
    let (limits, refusal) = limits_for(registry, tool, overrides);
    Ok(ToolRunRequest {
        target: target_of(tool),
        args,
        limits,
        refusal,
        run_id: None,
        parent_run_id: None,
        labels: Default::default(),
        resume_from: None,
        trace_id: None,
        stdin: None,
        copy_in: Vec::new(),
        copy_in_base: None,
        caller_env,
        classify: classifier(registry),
    })
}

/// The tools `agentgate mcp` offers: `names`, or every usable tool of the
/// registry when `names` is empty. A name that is not a usable tool is an
/// error (the server would otherwise start without the tool it was asked
/// for).
pub fn mcp_tools(registry: &Registry, names: &[String]) -> Result<Vec<McpTool>, LookupError> {
    let chosen: Vec<&ResolvedTool> = if names.is_empty() {
        registry
            .list()
            .iter()
            .filter_map(|listed| listed.state.as_ref().ok())
            .collect()
    } else {
        names
            .iter()
            .map(|name| registry.get(name))
            .collect::<Result<_, _>>()?
    };
    Ok(chosen
        .into_iter()
        .map(|tool| {
            let (limits, refusal) = limits_for(registry, tool, &RunOverrides::default());
            let input_schema = match tool.manifest.input_schema() {
                serde_json::Value::Object(map) => map,
                _ => serde_json::Map::new(),
            };
            McpTool {
                target: target_of(tool),
                limits,
                refusal,
                input_schema,
            }
        })
        .collect())
}

/// This process's environment as text: a variable whose name or value is
/// not UTF-8 is left out (it could not be passed on faithfully, and
/// `std::env::vars` would panic on it).
pub fn caller_env() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}
