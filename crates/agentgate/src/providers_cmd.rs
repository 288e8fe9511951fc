//! `agentgate providers`: every provider, built in or described in the
//! config, with whether its CLI is installed and how far it is verified
//! ([`agentgate_core::provider_listing`] makes the listing; this prints it).

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use agentgate_core::Config;
use agentgate_core::provider_listing::{self, ProviderListing};

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let cfg = Config::load(config)?;
    let listing = provider_listing::list(&cfg);
    let mut out = Stdout::new();
    if args.json {
        out.json(&listing, None)?;
    } else {
        out.text(&table(&listing))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn table(l: &ProviderListing) -> String {
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
                match e.features.names() {
                    names if names.is_empty() => "-".to_owned(),
                    names => names.join(","),
                },
            ]
        })
        .collect();
    let header = ["NAME", "KIND", "BINARY", "VERIFIED", "FEATURES"];
    out.push_str(&crate::table::aligned(header, &rows));
    out
}
