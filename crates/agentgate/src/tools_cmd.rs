//! `agentgate tools list|describe|check`: the registry of deterministic
//! tools ([`agentgate_tools::registry`] finds and reads it,
//! [`agentgate_tools::check`] checks a tool; this prints).

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use agentgate_core::Config;
use agentgate_tools::check::{Outcome, ToolCheck, check_tool};
use agentgate_tools::registry::Registry;
use anyhow::Context as _;

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// List every tool: name, version, where it is defined, and whether it
    /// is usable (ok) or broken (with the error).
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print a tool as JSON: its manifest, its folder and entry resolved,
    /// where it is defined, and the JSON Schema of its inputs.
    Describe {
        /// The tool.
        name: String,
    },
    /// Check tools: manifest valid, entry an executable file, the policy
    /// admits it, and its health.selftest exits 0 within 30 s (run under
    /// the supervisor, in its own process group, with a scoped
    /// environment). Exits 0 when every check passes, 1 otherwise.
    Check {
        /// The tool to check; every tool when left out.
        name: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Examples and where tools are found, for `agentgate tools --help`.
pub const AFTER_HELP: &str = "\
WHERE TOOLS ARE
  tools/registry/<name>/tool.yaml in the working directory or its nearest
  ancestor (or the folder `tools.registry` names in the config); the tool's
  files are in tools/<name>/, its `entry` relative to it. The config's
  `tools.define` adds tools; `error_codes.yaml` and `policy.yaml` sit in
  the registry folder (`tools.policy` names another policy file).
  See docs/tools.md.

EXAMPLES
  agentgate tools list
  agentgate tools list --json
  agentgate tools describe example_processor
  agentgate tools check                  # every tool; exit 1 if one fails
  agentgate tools check example_processor --json";

/// Run `agentgate tools`.
pub fn run(args: Args, config_flag: Option<&Path>) -> anyhow::Result<ExitCode> {
    let cfg = Config::load(config_flag)?;
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let registry = Registry::discover(&cfg, &cwd)?;
    let mut out = Stdout::new();
    match args.command {
        Sub::List { json } => {
            let listing = registry.listing();
            if json {
                out.json(&listing, None)?;
            } else {
                out.text(&table(&listing))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Sub::Describe { name } => {
            let tool = registry.get(&name)?;
            out.json(&tool.describe(), None)?;
            Ok(ExitCode::SUCCESS)
        }
        Sub::Check { name, json } => {
            let listed: Vec<_> = match &name {
                Some(n) => {
                    // An unknown name is a usage error; a broken one is checked.
                    if let Err(e @ agentgate_tools::registry::LookupError::Unknown { .. }) =
                        registry.get(n)
                    {
                        return Err(e.into());
                    }
                    registry.list().iter().filter(|t| t.name == *n).collect()
                }
                None => registry.list().iter().collect(),
            };
            let keeper = crate::cli_process::keeper_path();
            let rt = crate::remote::runtime()?;
            let checks: Vec<ToolCheck> = rt.block_on(async {
                let mut all = Vec::new();
                for t in listed {
                    all.push(check_tool(&registry, t, keeper.clone()).await);
                }
                all
            });
            let passed = checks.iter().all(ToolCheck::passed);
            if json {
                out.json(
                    &serde_json::json!({"passed": passed, "tools": checks}),
                    None,
                )?;
            } else {
                out.text(&check_text(&checks, &registry))?;
            }
            Ok(if passed {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}

fn table(l: &agentgate_tools::registry::RegistryListing) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "registry: {}",
        l.registry.as_deref().unwrap_or("none found")
    );
    let _ = writeln!(
        out,
        "policy: {}",
        l.policy.as_deref().unwrap_or("the default policy")
    );
    if l.tools.is_empty() {
        out.push_str("no tools\n");
        return out;
    }
    let rows: Vec<[String; 4]> = l
        .tools
        .iter()
        .map(|t| {
            [
                t.name.clone(),
                t.version.clone().unwrap_or_else(|| "-".to_owned()),
                t.source.clone(),
                match &t.error {
                    Some(e) => format!("broken: {e}"),
                    None => t.status.to_owned(),
                },
            ]
        })
        .collect();
    let header = ["NAME", "VERSION", "SOURCE", "STATUS"];
    // The status is last: a broken tool's error is long.
    out.push_str(&crate::table::aligned(header, &rows));
    out
}

fn check_text(checks: &[ToolCheck], registry: &Registry) -> String {
    let mut out = String::new();
    if checks.is_empty() {
        let _ = writeln!(
            out,
            "no tools to check (registry: {})",
            registry
                .root
                .as_deref()
                .map_or_else(|| "none found".to_owned(), |p| p.display().to_string())
        );
    }
    for c in checks {
        let verdict = if c.passed() { "ok" } else { "FAILED" };
        let _ = writeln!(out, "{}: {verdict} ({})", c.tool, c.source);
        for item in &c.checks {
            let outcome = match item.outcome {
                Outcome::Pass => "pass",
                Outcome::Fail => "FAIL",
                Outcome::Skip => "skip",
            };
            let _ = writeln!(out, "  {outcome:<4}  {:<8}  {}", item.check, item.detail);
        }
    }
    out
}
