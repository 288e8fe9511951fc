//! `agentgate skills`: the skills each provider's CLI can see
//! ([`agentgate_core::list_skills`] scans the folders; this prints them).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agentgate_core::{Config, SkillQuery, list_skills, split_names};

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only these providers (comma-separated; default: every provider of
    /// the config).
    #[arg(long, short = 'p')]
    provider: Option<String>,
    /// Find the project's skills from this folder up to its repository
    /// root (default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Also the skills another of the same name shadows, and the ones a
    /// CLI installs itself (Codex's `.system`).
    #[arg(long)]
    all: bool,
    /// Ask the CLIs that have a cheap lister of their own instead of
    /// scanning their folders: Codex (`codex app-server`, `skills/list`,
    /// well under a second, no model request). The others are scanned.
    #[arg(long)]
    native: bool,
    /// Print JSON (an array of rows) instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let cfg = Config::load(config)?;
    let cwd = working_folder(args.cwd.as_deref())?;
    let query = SkillQuery {
        providers: args
            .provider
            .as_deref()
            .map(split_names)
            .unwrap_or_default(),
        cwd,
        all: args.all,
        native: args.native,
    };
    let rows = list_skills(&cfg, &query)?;
    let mut out = Stdout::new();
    if args.json {
        out.json(&rows, None)?;
        return Ok(ExitCode::SUCCESS);
    }
    let table: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            let s = &r.skill;
            let mut note = s.description.clone().unwrap_or_default();
            if let Some(e) = &s.error {
                note = format!("ERROR: {e}");
            } else if !s.warnings.is_empty() {
                note = format!("{note} (warning: {})", s.warnings.join("; "));
            }
            [
                r.provider.clone(),
                s.name.clone(),
                format!("{:?}", s.scope).to_lowercase() + if s.shadowed { ",shadowed" } else { "" },
                r.invocation.to_owned(),
                s.path.display().to_string(),
                note,
            ]
        })
        .collect();
    let header = [
        "PROVIDER",
        "NAME",
        "SCOPE",
        "INVOKED",
        "PATH",
        "DESCRIPTION",
    ];
    out.text(&crate::table::aligned(header, &table))?;
    Ok(ExitCode::SUCCESS)
}

/// The folder `--cwd` names (made absolute), else the current one.
pub fn working_folder(cwd: Option<&Path>) -> anyhow::Result<PathBuf> {
    Ok(match cwd {
        Some(d) => d
            .canonicalize()
            .map_err(|e| anyhow::anyhow!("--cwd {}: {e}", d.display()))?,
        None => std::env::current_dir()?,
    })
}
