//! The `agentgate` command line.

mod fake_llm;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Run AI coding-agent CLIs unattended behind one contract.
#[derive(Debug, Parser)]
#[command(name = "agentgate", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve a scripted model (Anthropic, OpenAI and Gemini wire protocols)
    /// on 127.0.0.1, to run agent CLIs offline and deterministically.
    #[command(after_long_help = agentgate_fakellm::SCRIPT_HELP)]
    FakeLlm(fake_llm::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("AGENTGATE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let result = match cli.command {
        Command::FakeLlm(args) => fake_llm::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("agentgate: {e:#}");
            ExitCode::from(2)
        }
    }
}
