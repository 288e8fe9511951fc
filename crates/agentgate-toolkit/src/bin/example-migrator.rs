//! Seed 002's second example, `data_migrator`, written with the toolkit:
//! migrates the `*.json` files of `--source DIR` into `--target DIR` in
//! batches of `--batch-size N`, saving a checkpoint after each batch and
//! stopping between batches when `CANCEL_FILE` appears. Run again in the
//! same workspace (`agentgate tool --resume RUN`), it continues after the
//! last checkpoint instead of starting over.
//!
//! `--delay-ms N` waits that long per file (to watch it work).
//! Exit codes (as its manifest says): 0 ok, 20 retryable error, 30 fatal
//! error, 130 cancelled.

use std::process::ExitCode;
use std::time::Duration;

use agentgate_protocol::ArtifactRef;
use agentgate_toolkit::{Checkpoints, Stop, ToolContext, answer_selftest, arg_value};
use serde_json::{Map, Value, json};

const RETRYABLE: u8 = 20;
const FATAL: u8 = 30;
const CANCELLED: u8 = 130;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if answer_selftest(&args) {
        return ExitCode::SUCCESS;
    }
    let ctx = ToolContext::from_env();
    match run(&ctx, &args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("example-migrator: {e}");
            ExitCode::from(FATAL)
        }
    }
}

fn run(ctx: &ToolContext, args: &[String]) -> std::io::Result<u8> {
    let source = ctx.resolve(arg_value(args, "--source").unwrap_or(""));
    let target_arg = arg_value(args, "--target").unwrap_or("migrated");
    let target = ctx.resolve(target_arg);
    let batch_size: usize = arg_value(args, "--batch-size")
        .and_then(|n| n.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(100);
    let delay = Duration::from_millis(
        arg_value(args, "--delay-ms")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0),
    );
    let Ok(entries) = std::fs::read_dir(&source) else {
        ctx.error(
            "E_INPUT_NOT_FOUND",
            &format!("Source dir not found: {}", source.display()),
            "Check --source",
        )?;
        return Ok(FATAL);
    };
    let mut files: Vec<std::path::PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let total = files.len();
    if total == 0 {
        ctx.error(
            "E_INPUT_NOT_FOUND",
            "No JSON files to migrate",
            "Add files to source",
        )?;
        return Ok(FATAL);
    }
    std::fs::create_dir_all(&target)?;
    ctx.start(
        "migrate",
        json!({"source": source, "target": target_arg, "batch_size": batch_size}),
    )?;
    ctx.action_required(
        "choose_migration_strategy",
        json!({"files": total, "batch_size": batch_size}),
    )?;
    let checkpoints = Checkpoints::in_workspace(&ctx.workspace);
    let resumed_at = checkpoints
        .load("migrate")?
        .and_then(|cp| cp["i"].as_u64())
        .map_or(0, |i| usize::try_from(i).unwrap_or(0).min(total));
    let mut i = resumed_at;
    let batches = total.div_ceil(batch_size);
    while i < total {
        match ctx.should_stop() {
            Some(Stop::Cancelled) => {
                ctx.cancelled("cancel-file")?;
                return Ok(CANCELLED);
            }
            Some(Stop::Deadline) => {
                ctx.error("E_DEADLINE", "The deadline passed", "Resume the run")?;
                return Ok(FATAL);
            }
            None => {}
        }
        let end = (i + batch_size).min(total);
        let pct = end as f64 * 100.0 / total as f64;
        ctx.progress(
            "migrate",
            pct,
            &format!("batch {}/{batches}", i / batch_size + 1),
        )?;
        for file in &files[i..end] {
            if let Err(e) = migrate_one(file, &target) {
                let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
                ctx.error(
                    "E_UNKNOWN",
                    &format!("Failed {}", name.unwrap_or_default()),
                    &e.to_string(),
                )?;
                return Ok(RETRYABLE);
            }
            std::thread::sleep(delay);
        }
        i = end;
        checkpoints.save("migrate", &json!({"i": i}))?;
        ctx.heartbeat("migrate")?;
    }
    let mut metrics = Map::new();
    metrics.insert("files".to_owned(), json!(total));
    metrics.insert("migrated_now".to_owned(), json!(total - resumed_at));
    metrics.insert("resumed_at".to_owned(), json!(resumed_at));
    let folder = ArtifactRef {
        path: target_arg.to_owned(),
        sha256: None,
        extra: Map::new(),
    };
    ctx.result(vec![folder], metrics)?;
    Ok(0)
}

fn migrate_one(file: &std::path::Path, target: &std::path::Path) -> std::io::Result<()> {
    let mut record: Value = serde_json::from_slice(&std::fs::read(file)?)?;
    if let Some(object) = record.as_object_mut() {
        object.insert(
            "migrated_at".to_owned(),
            json!(jiff::Timestamp::now().to_string()),
        );
        object.insert("version".to_owned(), json!("2.0"));
    }
    let name = file.file_name().unwrap_or_default();
    std::fs::write(target.join(name), serde_json::to_vec(&record)?)
}
