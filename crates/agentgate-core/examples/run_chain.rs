//! Plan and run a chain of agents from a config file through the library,
//! as `agentgate run --chain NAME` does, and print the result envelope.
//!
//! ```text
//! cargo run -p agentgate-core --example run_chain -- agentgate.yaml [--chain NAME] PROMPT
//! ```
//!
//! Without `--chain`, the config's chain `default` runs. The exit status
//! is the run's (0, 1, 2, 75, 124 or 130, as `agentgate run`'s).

use std::path::Path;
use std::process::ExitCode;

use agentgate_core::{Engine, EngineError, RunOutcome, RunRequest};

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

/// Load the config file at `config` and run `chain` (the config's
/// `default` when `None`) for `prompt`. Without a store: nothing is
/// recorded, and sessions are not mapped.
pub fn run_chain(
    config: &Path,
    chain: Option<&str>,
    prompt: &str,
) -> Result<RunOutcome, EngineError> {
    let engine =
        Engine::from_config_file(config)?.on_warning(|w| eprintln!("run_chain: warning: {w}"));
    let request = RunRequest {
        prompt: Some(prompt.to_owned()),
        chain: chain.map(str::to_owned),
        ..RunRequest::default()
    };
    engine.run(&request)
}
