//! Plan and run a chain of agents from a config file through the library,
//! as `agentgate run --chain NAME` does, and print the result envelope.
//!
//! ```text
//! cargo run -p agentgate-core --example run_chain -- agentgate.yaml [--chain NAME] PROMPT
//! ```
//!
//! Without `--chain`, the config's chain `default` runs. The exit status
//! is the run's (0, 1, 2, 75, 124 or 130, as `agentgate run`'s).

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agentgate_core::config::{Config, ConfigSource};
use agentgate_core::plan::{self, RunFlags};
use agentgate_core::prompt::TaskInput;
use agentgate_core::run::{self, NullSink, RunOptions, RunOutcome};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(config), Some(first)) = (args.next(), args.next()) else {
        eprintln!("usage: run_chain CONFIG [--chain NAME] PROMPT");
        return ExitCode::from(2);
    };
    let (chain, prompt) = if first == "--chain" {
        (args.next(), args.next().unwrap_or_default())
    } else {
        (None, first)
    };
    match run_chain(Path::new(&config), chain.as_deref(), &prompt) {
        Ok(outcome) => {
            match serde_json::to_string_pretty(&outcome.envelope) {
                Ok(json) => println!("{json}"),
                Err(e) => eprintln!("run_chain: {e}"),
            }
            ExitCode::from(u8::try_from(outcome.exit_code).unwrap_or(1))
        }
        Err(e) => {
            eprintln!("run_chain: {e}");
            ExitCode::from(2)
        }
    }
}

/// Load the config file at `config`, plan `chain` (the config's `default`
/// when `None`) for `prompt`, and run it. Without a store: nothing is
/// recorded, and sessions are not mapped.
pub fn run_chain(
    config: &Path,
    chain: Option<&str>,
    prompt: &str,
) -> Result<RunOutcome, Box<dyn Error>> {
    let cfg = Config::read(ConfigSource::Flag(PathBuf::from(config)))?;
    let flags = RunFlags {
        chain: chain.map(str::to_owned),
        ..RunFlags::default()
    };
    let task = TaskInput {
        prompt: prompt.to_owned(),
        ..TaskInput::default()
    };
    let plan = plan::plan(&cfg, &flags, task)?;
    for w in &plan.warnings {
        eprintln!("run_chain: warning: {w}");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // Nothing cancels this run; keep the sender so the channel stays open.
    let (_cancel, cancel_rx) = tokio::sync::mpsc::channel(1);
    let options = RunOptions::default();
    Ok(runtime.block_on(run::run(&plan, &options, None, &mut NullSink, cancel_rx)))
}
