//! Seed 002's first example, `example_processor`, written with the
//! toolkit: reads `--input FILE` (a JSON object with an `items` array of
//! objects, checked against a JSON Schema), reports progress, writes a
//! summary to `--output FILE` and declares it as an artifact with its hash.
//!
//! Exit codes (as its manifest says): 0 ok, 30 fatal error, 130 cancelled.

use std::process::ExitCode;

use agentgate_toolkit::{Stop, ToolContext, answer_selftest, arg_value, artifact};
use serde_json::{Map, Value, json};

const FATAL: u8 = 30;
const CANCELLED: u8 = 130;

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "object"}}},
        "required": ["items"]
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if answer_selftest(&args) {
        return ExitCode::SUCCESS;
    }
    let ctx = ToolContext::from_env();
    match run(&ctx, &args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("example-processor: {e}");
            ExitCode::from(FATAL)
        }
    }
}

fn run(ctx: &ToolContext, args: &[String]) -> std::io::Result<u8> {
    let (Some(input), Some(output)) = (arg_value(args, "--input"), arg_value(args, "--output"))
    else {
        ctx.error(
            "E_INPUT_NOT_FOUND",
            "usage: example-processor --input FILE --output FILE",
            "Give both paths",
        )?;
        return Ok(FATAL);
    };
    let input_path = ctx.resolve(input);
    let output_path = ctx.resolve(output);
    let Ok(text) = std::fs::read(&input_path) else {
        ctx.error(
            "E_INPUT_NOT_FOUND",
            &format!("Input not found: {}", input_path.display()),
            "Check path",
        )?;
        return Ok(FATAL);
    };
    ctx.start("process", json!({"input": input}))?;
    let data: Value = match serde_json::from_slice(&text) {
        Ok(data) => data,
        Err(e) => {
            ctx.error("E_SCHEMA_MISMATCH", "Input is not JSON", &e.to_string())?;
            return Ok(FATAL);
        }
    };
    let schema = input_schema();
    if let Err(e) = jsonschema::validate(&schema, &data) {
        let detail: String = e.to_string().chars().take(200).collect();
        ctx.error("E_SCHEMA_MISMATCH", "Input schema invalid", &detail)?;
        return Ok(FATAL);
    }
    let items = data["items"].as_array().map_or(0, Vec::len);
    let total = items.max(1);
    for i in 1..=items {
        if i % 100 == 0 {
            match ctx.should_stop() {
                Some(Stop::Cancelled) => {
                    ctx.cancelled("cancel-file")?;
                    return Ok(CANCELLED);
                }
                Some(Stop::Deadline) => {
                    ctx.error("E_DEADLINE", "The deadline passed", "Split the input")?;
                    return Ok(FATAL);
                }
                None => {}
            }
            let pct = i as f64 * 100.0 / total as f64;
            ctx.progress("process", pct, &format!("Processed {i}/{total}"))?;
            ctx.heartbeat("process")?;
        }
    }
    let keys: Vec<&String> = data
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    let summary = json!({"original_keys": keys, "item_count": items, "processed": true});
    std::fs::write(&output_path, serde_json::to_vec_pretty(&summary)?)?;
    let mut metrics = Map::new();
    metrics.insert("items".to_owned(), json!(items));
    ctx.result(vec![artifact(std::path::Path::new(output))?], metrics)?;
    Ok(0)
}
