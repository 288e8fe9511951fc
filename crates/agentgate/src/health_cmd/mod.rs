//! `agentgate health`: per provider, whether its CLI is installed and
//! answers `--version`, where its login comes from, and whether it can
//! resume sessions; then what this host can enforce for `--sandbox`
//! (`sandbox.rs` prints it). No model is called.

mod sandbox;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;

use agentgate_core::Config;
use agentgate_core::health::{self, ProviderHealth};
use agentgate_providers::Provider;

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Check only this provider (repeatable). The exit code is 1 when one of
    /// them is not installed or its `--version` fails.
    #[arg(long = "provider", value_name = "P")]
    providers: Vec<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Bound on each CLI's `--version` (and on bubblewrap's, and each
    /// container engine's `--version` and `info`), in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    timeout: u64,
}

pub fn run(args: Args, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let cfg = Config::load(config)?;
    let selected: Vec<Arc<dyn Provider>> = if args.providers.is_empty() {
        cfg.all_providers()
    } else {
        args.providers
            .iter()
            .map(|name| cfg.resolve_provider(name).map_err(anyhow::Error::from))
            .collect::<anyhow::Result<_>>()?
    };
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let env = |k: &str| std::env::var(k).ok();
    let timeout = Duration::from_secs(args.timeout.max(1));
    let agentgate = std::env::current_exe().context("cannot find the agentgate binary")?;
    let kernel = agentgate_tools::sandbox::kernel_support(&agentgate);
    let report = health::check_all(&selected, home.as_deref(), &env, timeout, kernel);
    let mut out = Stdout::new();
    if args.json {
        out.json(&report, None)?;
    } else {
        let mut text = table(&report.providers);
        text.push('\n');
        text.push_str(&sandbox::text(&report.sandbox));
        out.text(&text)?;
    }
    let unusable = !args.providers.is_empty() && report.providers.iter().any(|p| !p.usable);
    Ok(if unusable {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn table(rows: &[ProviderHealth]) -> String {
    let header = [
        "NAME",
        "INSTALLED",
        "VERSION",
        "LOGIN",
        "SESSIONS",
        "PROBE",
        "PATH",
    ];
    let cells: Vec<[String; 7]> = rows
        .iter()
        .map(|h| {
            [
                h.name.clone(),
                if h.installed { "yes" } else { "no" }.to_owned(),
                match (&h.version, &h.probe_error) {
                    (_, Some(_)) => "probe failed".to_owned(),
                    (Some(v), None) => v.clone(),
                    (None, None) if h.installed => "?".to_owned(),
                    (None, None) => "-".to_owned(),
                },
                h.login.state.as_str().to_owned(),
                if h.sessions { "yes" } else { "no" }.to_owned(),
                h.latency_ms.map_or("-".to_owned(), |ms| format!("{ms} ms")),
                match (&h.path, &h.not_found) {
                    (Some(p), _) => p.display().to_string(),
                    (None, Some(d)) => format!("not found ({d})"),
                    (None, None) => "not found".to_owned(),
                },
            ]
        })
        .collect();
    let mut out = crate::table::aligned(header, &cells);
    let notes: Vec<String> = rows
        .iter()
        .flat_map(|h| {
            let found = if !h.login.evidence.is_empty() {
                h.login.evidence.join("; ")
            } else if h.login.checked.is_empty() {
                "agentgate does not know where this CLI keeps its login".to_owned()
            } else {
                format!("nothing in {}", h.login.checked.join(", "))
            };
            let evidence = format!("{}: login {}: {found}", h.name, h.login.state.as_str());
            std::iter::once(evidence)
                .chain(h.probe_error.as_ref().map(|e| format!("{}: {e}", h.name)))
        })
        .collect();
    if !notes.is_empty() {
        out.push('\n');
        for n in notes {
            let _ = writeln!(out, "{n}");
        }
    }
    out
}
