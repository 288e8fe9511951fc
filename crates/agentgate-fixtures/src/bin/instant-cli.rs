//! A fake Claude Code that answers at once: what `claude -p --output-format
//! stream-json --verbose ...` prints for a one-word answer, without a model.
//!
//! It ignores its arguments, reads stdin (the prompt) to end of file, prints
//! a short stream-json transcript (`system`/`init`, one `assistant` text
//! message with usage, a `result` line with usage and `total_cost_usd`), and
//! exits 0. `bench-run` uses it to measure what `agentgate run` adds over
//! calling the CLI directly; it must stay fast, so it never sleeps unless
//! told to.
//!
//! Two variables, for `bench-serve`, change that:
//! - `INSTANT_CLI_STAMP=PATH`: on start, append the wall-clock time (ns
//!   since the Unix epoch) and a newline to PATH;
//! - `INSTANT_CLI_HOLD_FILE=PATH`: after printing the init line, wait
//!   (polling every 100 ms, at most 10 minutes) until PATH exists before
//!   answering, so that many can be held running at once.
//!
//! The lines have the shapes of a real capture
//! (`/work/shared/captures/claude/text_stream_json.stdout`); the answer is
//! "done", the session id `9b40332f-0a4a-40ec-befc-135af2dd08ef`.

use std::io::{Read as _, Write as _};
use std::process::ExitCode;

const INIT: &str = concat!(
    r#"{"type":"system","subtype":"init","cwd":"/home/dev/demo/work/claude","session_id":"9b40332f-0a4a-40ec-befc-135af2dd08ef","#,
    r#""tools":["Task","Bash","Edit","NotebookEdit","Read","TaskCreate","TaskGet","TaskList","TaskOutput","TaskStop","TaskUpdate","WebFetch","WebSearch","Write"],"#,
    r#""mcp_servers":[],"model":"claude-opus-4-8[1m]","permissionMode":"default","#,
    r#""slash_commands":["debug","code-review","simplify","compact","config","context","init","review","security-review","usage"],"#,
    r#""apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.197","output_style":"default","#,
    r#""agents":["claude","Explore","general-purpose","Plan","statusline-setup"],"skills":["debug","code-review","simplify"],"#,
    r#""plugins":[],"analytics_disabled":true,"product_feedback_disabled":true,"uuid":"33b16fc4-fe9d-4280-82c9-69cdb1d6c6a3","#,
    r#""memory_paths":{"auto":"/home/dev/demo/home/claude/.claude/projects/-home-dev-demo-work-claude/memory/"},"fast_mode_state":"off"}"#,
);

const ASSISTANT: &str = concat!(
    r#"{"type":"assistant","message":{"id":"msg_fake17d192d78e1b4e93","type":"message","role":"assistant","model":"claude-opus-4-8","#,
    r#""content":[{"type":"text","text":"done"}],"stop_reason":null,"stop_sequence":null,"#,
    r#""usage":{"input_tokens":18988,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"context_management":null},"#,
    r#""parent_tool_use_id":null,"session_id":"9b40332f-0a4a-40ec-befc-135af2dd08ef","uuid":"8c36349d-ef28-475f-85d1-035430251a2a"}"#,
);

const RESULT: &str = concat!(
    r#"{"type":"result","subtype":"success","is_error":false,"api_error_status":null,"duration_ms":202,"duration_api_ms":37,"#,
    r#""ttft_ms":195,"ttft_stream_ms":189,"time_to_request_ms":172,"num_turns":1,"result":"done","stop_reason":"end_turn","#,
    r#""session_id":"9b40332f-0a4a-40ec-befc-135af2dd08ef","total_cost_usd":0.095115,"#,
    r#""usage":{"input_tokens":18988,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":7,"#,
    r#""server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard","#,
    r#""cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0},"inference_geo":"","iterations":[],"speed":"standard"},"#,
    r#""modelUsage":{"claude-opus-4-8[1m]":{"inputTokens":18988,"outputTokens":7,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"#,
    r#""webSearchRequests":0,"costUSD":0.095115,"contextWindow":1000000,"maxOutputTokens":64000}},"#,
    r#""permission_denials":[],"terminal_reason":"completed","fast_mode_state":"off","uuid":"d61b5ba0-4541-4e04-97a0-2bc7a961f2c2"}"#,
);

fn main() -> ExitCode {
    if let Some(path) = std::env::var_os("INSTANT_CLI_STAMP") {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| writeln!(f, "{now}"));
        if let Err(e) = appended {
            eprintln!("instant-cli: failed to append to the stamp file: {e}");
            return ExitCode::FAILURE;
        }
    }
    let mut prompt = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut prompt) {
        eprintln!("instant-cli: failed to read the prompt from stdin: {e}");
        return ExitCode::FAILURE;
    }
    let mut out = std::io::stdout().lock();
    if let Some(ticks) = std::env::var_os("INSTANT_CLI_TICKS") {
        return print_ticks(&mut out, &ticks);
    }
    if let Some(hold) = std::env::var_os("INSTANT_CLI_HOLD_FILE") {
        if let Err(e) = writeln!(out, "{INIT}").and_then(|()| out.flush()) {
            eprintln!("instant-cli: failed to write the transcript: {e}");
            return ExitCode::FAILURE;
        }
        let hold = std::path::Path::new(&hold);
        for _ in 0..6000 {
            if hold.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let rest = format!("{ASSISTANT}\n{RESULT}\n");
        return match out.write_all(rest.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("instant-cli: failed to write the transcript: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let transcript = format!("{INIT}\n{ASSISTANT}\n{RESULT}\n");
    if let Err(e) = out
        .write_all(transcript.as_bytes())
        .and_then(|()| out.flush())
    {
        eprintln!("instant-cli: failed to write the transcript: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Waits for `INSTANT_CLI_HOLD_FILE` (if set), up to 10 minutes.
fn hold() {
    let Some(hold) = std::env::var_os("INSTANT_CLI_HOLD_FILE") else {
        return;
    };
    let hold = std::path::Path::new(&hold);
    for _ in 0..6000 {
        if hold.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The `INSTANT_CLI_TICKS` transcript: init, the hold, `ticks` timestamped
/// answers, the result.
fn print_ticks(out: &mut impl std::io::Write, ticks: &std::ffi::OsStr) -> ExitCode {
    let number = |v: Option<&str>, default: u64| v.map_or(Some(default), |v| v.parse().ok());
    let every = std::env::var("INSTANT_CLI_TICK_MS").ok();
    let (Some(ticks), Some(every)) = (number(ticks.to_str(), 0), number(every.as_deref(), 20))
    else {
        eprintln!("instant-cli: INSTANT_CLI_TICKS and INSTANT_CLI_TICK_MS are numbers");
        return ExitCode::FAILURE;
    };
    let mut written = writeln!(out, "{INIT}").and_then(|()| out.flush());
    hold();
    for _ in 0..ticks {
        if written.is_err() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(every));
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        written = writeln!(
            out,
            r#"{{"type":"assistant","message":{{"content":[{{"type":"text","text":"tick {now}"}}]}},"session_id":"9b40332f-0a4a-40ec-befc-135af2dd08ef"}}"#
        )
        .and_then(|()| out.flush());
    }
    match written
        .and_then(|()| writeln!(out, "{RESULT}"))
        .and_then(|()| out.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("instant-cli: failed to write the transcript: {e}");
            ExitCode::FAILURE
        }
    }
}
