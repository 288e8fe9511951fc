//! What `agentgate tools list` and `tools describe` print, as data: the
//! binary only renders it.

use serde::Serialize;
use serde_json::{Value, json};

use super::{ListedTool, Registry, ResolvedTool};

/// The registry as listed.
#[derive(Debug, Clone, Serialize)]
pub struct RegistryListing {
    /// The registry folder, if any.
    pub registry: Option<String>,
    /// The policy file, if any (`null`: the default policy).
    pub policy: Option<String>,
    /// The error codes file, if any.
    pub error_codes: Option<String>,
    /// Every tool, by name.
    pub tools: Vec<ToolRow>,
}

/// One tool as listed.
#[derive(Debug, Clone, Serialize)]
pub struct ToolRow {
    /// Its name.
    pub name: String,
    /// Its version (`null` when its manifest is broken).
    pub version: Option<String>,
    /// Where it is defined.
    pub source: String,
    /// `ok` or `broken`.
    pub status: &'static str,
    /// Why it is broken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What it does, from its manifest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl Registry {
    /// The listing of every tool.
    pub fn listing(&self) -> RegistryListing {
        let path = |p: &std::path::Path| p.display().to_string();
        RegistryListing {
            registry: self.root.as_deref().map(path),
            policy: self.policy.source.as_deref().map(path),
            error_codes: self.error_codes.source.as_deref().map(path),
            tools: self.tools.iter().map(row).collect(),
        }
    }
}

fn row(t: &ListedTool) -> ToolRow {
    match &t.state {
        Ok(tool) => ToolRow {
            name: t.name.clone(),
            version: Some(tool.manifest.version.clone()),
            source: t.source.to_string(),
            status: "ok",
            error: None,
            description: tool.manifest.description.clone(),
        },
        Err(e) => ToolRow {
            name: t.name.clone(),
            version: None,
            source: t.source.to_string(),
            status: "broken",
            error: Some(e.to_string()),
            description: None,
        },
    }
}

impl ResolvedTool {
    /// What `agentgate tools describe` prints: the manifest, its folder,
    /// entry and source resolved, and the input schema.
    pub fn describe(&self) -> Value {
        json!({
            "manifest": self.manifest,
            "tool_dir": self.tool_dir.display().to_string(),
            "entry": self.entry.display().to_string(),
            "source": self.source.to_string(),
            "input_schema": self.manifest.input_schema(),
        })
    }
}
