//! `agentgate models`: the models each provider's CLI offers
//! ([`agentgate_core::list_models`] fetches, caches and reads them; this
//! prints them).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agentgate_core::{Config, ModelQuery, list_models, split_names};

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only these providers (comma-separated; default: every provider
    /// agentgate knows a catalog of).
    #[arg(long, short = 'p')]
    provider: Option<String>,
    /// Ask the CLIs again, whatever the cache holds (a cached catalog is
    /// otherwise used until `models.refresh`, 1 h by default).
    #[arg(long)]
    refresh: bool,
    /// Also the models a CLI hides from its own listing.
    #[arg(long)]
    all: bool,
    /// Ask the CLIs in this folder (they read the project's config from
    /// there; default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Print JSON (an array, one object per provider with its `models`)
    /// instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let cfg = Config::load(config)?;
    let cwd = crate::skills_cmd::working_folder(args.cwd.as_deref())?;
    let query = ModelQuery {
        providers: args
            .provider
            .as_deref()
            .map(split_names)
            .unwrap_or_default(),
        refresh: args.refresh,
        all: args.all,
        cwd,
    };
    let catalogs = crate::remote::runtime()?.block_on(list_models(&cfg, &query))?;
    let mut out = Stdout::new();
    if args.json {
        out.json(&catalogs, None)?;
    } else {
        let mut rows: Vec<[String; 6]> = Vec::new();
        for c in &catalogs {
            let when = match (&c.fetched_at, c.stale) {
                (Some(t), true) => format!("{t} (stale)"),
                (Some(t), false) => t.clone(),
                (None, _) => String::new(),
            };
            if c.models.is_empty() {
                let why = match (&c.error, c.source.as_str()) {
                    (Some(e), _) => format!("ERROR: {e}"),
                    (None, "none") => "agentgate knows no catalog of this CLI".to_owned(),
                    (None, _) => "no models".to_owned(),
                };
                rows.push([
                    c.provider.clone(),
                    String::new(),
                    String::new(),
                    String::new(),
                    c.source.clone(),
                    why,
                ]);
                continue;
            }
            for m in &c.models {
                let mut flags = Vec::new();
                if m.default {
                    flags.push("default".to_owned());
                }
                if m.hidden {
                    flags.push("hidden".to_owned());
                }
                if !m.aliases.is_empty() {
                    flags.push(format!("aliases: {}", m.aliases.join(",")));
                }
                let efforts = match &m.default_effort {
                    Some(d) => format!("{} ({d})", m.efforts.join(",")),
                    None => m.efforts.join(","),
                };
                rows.push([
                    c.provider.clone(),
                    m.id.clone(),
                    flags.join("; "),
                    efforts,
                    c.source.clone(),
                    when.clone(),
                ]);
            }
        }
        let header = ["PROVIDER", "MODEL", "NOTES", "EFFORTS", "SOURCE", "FETCHED"];
        out.text(&crate::table::aligned(header, &rows))?;
    }
    // A provider named on the command line whose catalog could not be had
    // at all is a failure; a stale copy is still an answer.
    let failed = !query.providers.is_empty()
        && catalogs
            .iter()
            .any(|c| c.models.is_empty() && c.error.is_some());
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
