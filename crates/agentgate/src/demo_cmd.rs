//! `agentgate demo`: every installed CLI through one scripted, tool-using
//! turn against the built-in model server, offline, with no credentials.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use agentgate_core::{NullSink, RunOptions};
use agentgate_core::{Plan, Step};
use agentgate_fakellm::clients::{self, Cli, ClientOptions};
use agentgate_fakellm::{FakeLlm, Script, ServerConfig};
use agentgate_providers::claude::CLAUDE;
use agentgate_providers::codex::CODEX;
use agentgate_providers::gemini::GEMINI;
use agentgate_providers::opencode::OPENCODE;
use agentgate_providers::qwen::QWEN;
use agentgate_providers::{CliRequest, Description, PermissionMode};
use agentgate_store::{RunStore, Store};
use anyhow::Context;

use crate::output::{Stdout, note};

const SCRIPT: &str = r#"
turns:
  - name: write-file
    match: {contains: "greeting file", tool_result: false}
    repeat: true
    thinking: "The user wants a file; the shell will do."
    text: "Writing the file."
    tool_call: {name: shell, command: "echo 'hello from agentgate' > greeting.txt"}
    usage: {input: 1200, output: 20, cache_read: 300, reasoning: 12}
  - name: finish
    match: {tool_result: true}
    repeat: true
    text: "Created greeting.txt."
    usage: {input: 1350, output: 8}
"#;

const PROMPT: &str = "Please create the greeting file.";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Folder for the scratch homes, working folders and the demo's run
    /// store (default: a new folder under the system temp dir).
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// The CLIs `agentgate run` has adapters for, with their recipes.
const PROVIDERS: [(&Description, Cli); 5] = [
    (&CLAUDE, Cli::Claude),
    (&CODEX, Cli::Codex),
    (&GEMINI, Cli::Gemini),
    (&QWEN, Cli::Qwen),
    (&OPENCODE, Cli::Opencode),
];

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dir = match args.dir {
        Some(d) => {
            std::fs::create_dir_all(&d)
                .with_context(|| format!("failed to create {}", d.display()))?;
            d.canonicalize()?
        }
        None => tempfile::Builder::new()
            .prefix("agentgate-demo-")
            .tempdir()
            .context("failed to create a scratch folder")?
            .keep(),
    };
    let store =
        Store::open(dir.join("agentgate.db")).context("failed to open the demo's run store")?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    let search = vec![PathBuf::from("clis/node_modules/.bin")];
    let rows = rt.block_on(async {
        let server = FakeLlm::start(
            "127.0.0.1:0".parse()?,
            ServerConfig {
                script: Script::parse(SCRIPT)?,
                log_path: Some(dir.join("fake-llm-requests.jsonl")),
            },
        )
        .await
        .context("failed to start the scripted model server")?;
        note!("scripted model server on {}", server.url());
        let mut rows = Vec::new();
        for (kind, cli) in PROVIDERS {
            let Some(program) = clients::locate(cli, &search) else {
                rows.push(Row::missing(kind));
                continue;
            };
            note!("running {kind} ...");
            let opts = ClientOptions {
                bin_dir: program.parent().map(Path::to_path_buf),
                ..ClientOptions::default()
            };
            let setup = clients::prepare(cli, &server.url(), &dir.join(kind.name), &opts)
                .with_context(|| format!("failed to prepare a scratch home for {kind}"))?;
            let request = CliRequest {
                prompt: PROMPT.into(),
                // Codex and opencode take the model from the recipe's config.
                model: (cli != Cli::Codex && cli != Cli::Opencode).then(|| setup.model.clone()),
                permission_mode: PermissionMode::Bypass,
                cwd: setup.workdir.clone(),
                env: setup.env.clone(),
                env_clear: true,
                ..CliRequest::default()
            };
            let mut step = Step::new(std::sync::Arc::new(*kind), request);
            step.binary = Some(program);
            step.timeout = Some(std::time::Duration::from_secs(120));
            let plan = Plan {
                home: Some(setup.home.clone()),
                ..Plan::single(step)
            };
            let options = RunOptions {
                keeper: std::env::current_exe().ok(),
                ..RunOptions::default()
            };
            let start = Instant::now();
            let (_tx, cancel) = tokio::sync::mpsc::channel(1);
            let store = Some(&store as &dyn RunStore);
            let outcome = agentgate_core::run(&plan, &options, store, &mut NullSink, cancel).await;
            let env = &outcome.envelope;
            rows.push(Row {
                provider: kind,
                exit: Some(outcome.exit_code),
                answer: match &env.error {
                    Some(e) => format!("error: {e}"),
                    None => env.response.clone(),
                },
                tokens: env.tokens_used.total_tokens,
                tools: env
                    .metadata
                    .tool_activity
                    .as_ref()
                    .map(|t| t.tool_names.join(","))
                    .unwrap_or_default(),
                wall: start.elapsed().as_secs_f64(),
                file: setup.workdir.join("greeting.txt").is_file(),
            });
        }
        server.shutdown().await?;
        anyhow::Ok(rows)
    })?;

    let mut out = Stdout::new();
    out.line(format_args!(
        "\n{:<8} {:<5} {:<32} {:>7} {:<18} {:>7}  FILE",
        "PROVIDER", "EXIT", "ANSWER", "TOKENS", "TOOLS", "WALL"
    ))?;
    for r in &rows {
        match r.exit {
            None => out.line(format_args!(
                "{:<8} not installed (run scripts/install-clis.sh, or set AGENTGATE_{}_BIN)",
                r.provider,
                r.provider.name.to_ascii_uppercase()
            ))?,
            Some(code) => out.line(format_args!(
                "{:<8} {:<5} {:<32} {:>7} {:<18} {:>6.2}s  {}",
                r.provider,
                code,
                truncate(&r.answer, 32),
                r.tokens,
                truncate(&r.tools, 18),
                r.wall,
                if r.file { "greeting.txt" } else { "-" }
            ))?,
        }
    }
    out.line(format_args!("\nruns stored in {}", dir.display()))?;
    out.line(format_args!(
        "  AGENTGATE_HOME={} agentgate runs",
        dir.display()
    ))?;
    let ran: Vec<&Row> = rows.iter().filter(|r| r.exit.is_some()).collect();
    let ok = !ran.is_empty() && ran.iter().all(|r| r.exit == Some(0) && r.file);
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[derive(Debug)]
struct Row {
    provider: &'static Description,
    exit: Option<i32>,
    answer: String,
    tokens: u64,
    tools: String,
    wall: f64,
    file: bool,
}

impl Row {
    fn missing(provider: &'static Description) -> Row {
        Row {
            provider,
            exit: None,
            answer: String::new(),
            tokens: 0,
            tools: String::new(),
            wall: 0.0,
            file: false,
        }
    }
}

fn truncate(s: &str, max: usize) -> String {
    let one_line = s.replace('\n', " ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        let cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}
