//! Runs one scripted, tool-using turn through every installed agent CLI
//! against an in-process fake-llm, from scratch homes, and prints a table.
//!
//! ```sh
//! scripts/install-clis.sh
//! cargo run -p agentgate-fakellm --example offline-turns
//! ```
//!
//! CLIs are looked up in `AGENTGATE_<CLI>_BIN`, `clis/node_modules/.bin`,
//! then `PATH`. No credentials and no network are needed.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentgate_fakellm::clients::{self, Cli, ClientOptions};
use agentgate_fakellm::{FakeLlm, Script, ServerConfig};

const SCRIPT: &str = r#"
turns:
  - name: write-file
    match: {contains: "greeting file", tool_result: false}
    repeat: true
    thinking: "The user wants a file; I will use the shell."
    text: "Writing the file."
    tool_call: {name: shell, command: "echo 'hello from fake-llm' > greeting.txt"}
    usage: {input: 1200, output: 20, reasoning: 12}
  - name: finish
    match: {tool_result: true}
    repeat: true
    text: "Created greeting.txt."
    usage: {input: 1300, output: 6}
"#;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let work = tempfile::Builder::new()
        .prefix("agentgate-offline-")
        .tempdir()?
        .keep();
    let log = work.join("requests.jsonl");
    let server = FakeLlm::start(
        "127.0.0.1:0".parse()?,
        ServerConfig {
            script: Script::parse(SCRIPT)?,
            log_path: Some(log.clone()),
        },
    )
    .await?;
    println!("fake-llm listening on {}\n", server.url());
    println!(
        "{:<9} {:<6} {:<24} {:<13} {:>8}",
        "CLI", "EXIT", "ANSWER", "FILE CREATED", "WALL"
    );
    let bin_dir = PathBuf::from("clis/node_modules/.bin");
    let mut failures = 0;
    for cli in Cli::ALL {
        let Some(program) = clients::locate(cli, std::slice::from_ref(&bin_dir)) else {
            println!(
                "{:<9} not installed (run scripts/install-clis.sh)",
                cli.binary()
            );
            failures += 1;
            continue;
        };
        let setup = clients::prepare(
            cli,
            &server.url(),
            &work.join(cli.binary()),
            &ClientOptions::default(),
        )?;
        let mut cmd = setup.command(&program, "Please create the greeting file.");
        cmd.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let start = Instant::now();
        let out = tokio::task::spawn_blocking(move || run_bounded(cmd, Duration::from_secs(120)))
            .await??;
        let wall = start.elapsed();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let answered = stdout.contains("Created greeting.txt.");
        let created = setup.workdir.join("greeting.txt").is_file();
        if !(answered && created && out.status.success()) {
            failures += 1;
        }
        println!(
            "{:<9} {:<6} {:<24} {:<13} {:>7.2}s",
            cli.binary(),
            out.status
                .code()
                .map_or("killed".to_owned(), |c| c.to_string()),
            if answered {
                "Created greeting.txt."
            } else {
                "(scripted answer missing)"
            },
            if created { "yes" } else { "no" },
            wall.as_secs_f64(),
        );
    }
    println!(
        "\n{} model requests logged to {}",
        server.requests().len(),
        log.display()
    );
    println!("homes and working folders under {}", work.display());
    server.shutdown().await?;
    if failures > 0 {
        return Err(format!("{failures} CLI(s) did not complete the scripted turn").into());
    }
    Ok(())
}

/// Wait for the command, killing its whole process group after `limit`.
fn run_bounded(mut cmd: Command, limit: Duration) -> std::io::Result<std::process::Output> {
    let child = cmd.spawn()?;
    let pgid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out,
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{pgid}")])
                .status();
            rx.recv().map_err(std::io::Error::other)?
        }
    }
}
