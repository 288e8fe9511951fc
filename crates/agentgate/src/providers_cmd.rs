//! `agentgate providers`: every provider, built in or described in the
//! config, with whether its CLI is installed and how far it is verified.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use agentgate_core::config::Config;
use agentgate_core::providers::{Features, Provider, locate_binary};
use serde::Serialize;

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Serialize)]
struct Listing {
    config: ConfigInfo,
    providers: Vec<Entry>,
}

#[derive(Debug, Serialize)]
struct ConfigInfo {
    /// The file read, or null for built-in defaults.
    path: Option<String>,
    /// flag, env, project, user or default.
    found_by: &'static str,
}

#[derive(Debug, Serialize)]
struct Entry {
    name: String,
    /// builtin or config.
    adapter_kind: &'static str,
    /// The executable looked up on PATH.
    binary_name: String,
    /// The variable that may name the executable.
    binary_env: String,
    binary_found: bool,
    /// The executable's path, or null when not found.
    binary: Option<String>,
    /// Why it was not found.
    #[serde(skip_serializing_if = "Option::is_none")]
    binary_detail: Option<String>,
    /// Provider::verification().as_str().
    verification: &'static str,
    features: FeatureFlags,
}

#[derive(Debug, Serialize)]
struct FeatureFlags {
    streaming: bool,
    resume: bool,
    reasoning: bool,
    usage: bool,
    cost: bool,
    permission_modes: bool,
}

impl From<Features> for FeatureFlags {
    fn from(f: Features) -> Self {
        FeatureFlags {
            streaming: f.streaming,
            resume: f.resume,
            reasoning: f.reasoning,
            usage: f.usage,
            cost: f.cost,
            permission_modes: f.permission_modes,
        }
    }
}

impl FeatureFlags {
    fn names(&self) -> String {
        let all = [
            (self.streaming, "streaming"),
            (self.resume, "resume"),
            (self.reasoning, "reasoning"),
            (self.usage, "usage"),
            (self.cost, "cost"),
            (self.permission_modes, "permission-modes"),
        ];
        let on: Vec<&str> = all.iter().filter(|(b, _)| *b).map(|(_, n)| *n).collect();
        if on.is_empty() {
            "-".to_owned()
        } else {
            on.join(",")
        }
    }
}

fn entry(p: &dyn Provider) -> Entry {
    let (binary, binary_detail) = match locate_binary(p, None) {
        Ok(path) => (Some(path.display().to_string()), None),
        Err(e) => (None, Some(e.detail)),
    };
    Entry {
        name: p.name().to_owned(),
        adapter_kind: p.adapter_kind(),
        binary_name: p.binary_name().to_owned(),
        binary_env: p.binary_env(),
        binary_found: binary.is_some(),
        binary,
        binary_detail,
        verification: p.verification().as_str(),
        features: p.features().into(),
    }
}

pub fn run(args: Args, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let cfg = Config::load(config)?;
    let listing = Listing {
        config: ConfigInfo {
            path: cfg.source.path().map(|p| p.display().to_string()),
            found_by: cfg.source.kind(),
        },
        providers: cfg
            .all_providers()
            .iter()
            .map(|p| entry(p.as_ref()))
            .collect(),
    };
    let mut out = Stdout::new();
    if args.json {
        out.json(&listing, None)?;
    } else {
        out.text(&table(&listing))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn table(l: &Listing) -> String {
    let mut out = String::new();
    let _ = match &l.config.path {
        Some(p) => writeln!(out, "config: {p} ({})", l.config.found_by),
        None => writeln!(out, "config: none (built-in defaults)"),
    };
    let rows: Vec<[String; 5]> = l
        .providers
        .iter()
        .map(|e| {
            [
                e.name.clone(),
                e.adapter_kind.to_owned(),
                match (&e.binary, &e.binary_detail) {
                    (Some(p), _) => p.clone(),
                    (None, Some(d)) => format!("not found ({d})"),
                    (None, None) => "not found".to_owned(),
                },
                e.verification.to_owned(),
                e.features.names(),
            ]
        })
        .collect();
    let header = ["NAME", "KIND", "BINARY", "VERIFIED", "FEATURES"].map(str::to_owned);
    let mut widths = [0usize; 5];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<w$}  ");
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}
