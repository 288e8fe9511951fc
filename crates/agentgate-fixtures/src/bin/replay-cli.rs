//! A fake agent CLI that replays transcripts written from a CLI's
//! documented formats: agentgate's stand-in for CLIs that cannot be
//! installed here (cursor-agent, Antigravity `agy`).
//!
//! `REPLAY_DIR` names a folder such as `transcripts/cursor` holding:
//!
//! - `replay.json`, how the imitated CLI reads its arguments and keeps
//!   sessions:
//!   - `prompt`: `"last"` (the last argument) or a flag (`"--print"`,
//!     written `--print=PROMPT` or `--print PROMPT`);
//!   - `resume`, `model`: the flags naming the session to resume and the
//!     model; `model_default`: the model's name when none is given;
//!   - `session_file`: where a session lives under `$HOME`, a template;
//!   - `unknown_session`: what the CLI does when asked to resume a session
//!     it does not have: `stderr` lines, then `exit` with that code, or
//!     `"continue": true` to go on with a new session;
//!   - `after_run`: files the CLI writes under `$HOME` after a run that has
//!     a session: `{"path", "append": <file of the scenario>}` appends that
//!     file, `{"path", "write": <text>}` replaces the file with the text.
//! - one folder per scenario, holding `scenario.json` and the lines the CLI
//!   prints, `stdout` and `stderr`. `scenario.json`:
//!   - `match`: the scenario runs when the prompt contains this text (the
//!     folders are tried in name order);
//!   - `exit`: the exit status (0);
//!   - `session`: whether the run opens or resumes a session (true);
//!   - `line_delay_ms`: a pause before each stdout line (0);
//!   - `hang`: after printing, never exit (capped at 300 s);
//!   - `effects`: `[{"path", "content"}]`, files written in the working
//!     folder first (a tool call's side effect).
//!
//! Templates replace `{session}` (the session id), `{cwd_json}` (the
//! working folder, escaped for a JSON string), `{prompt_json}` and
//! `{model}` (the `model` flag's value, else `model_default`).
//!
//! stderr lines are printed before stdout lines. Every invocation is logged
//! to `$HOME/.replay/invocations.jsonl` (`pid`, `argv`, `cwd`, `scenario`,
//! `session`, `resumed`) before anything is printed, so a test can see the
//! CLI started and what it was given.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Map, Value, json};

/// The longest a scenario hangs, so that a failed test leaves no process
/// for long.
const FOREVER: Duration = Duration::from_secs(300);

fn main() -> ExitCode {
    match replay() {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("replay-cli: {e}");
            ExitCode::from(99)
        }
    }
}

/// The imitated CLI's argument and session conventions (`replay.json`).
struct Dialect {
    dir: PathBuf,
    conf: Map<String, Value>,
}

impl Dialect {
    fn load() -> Result<Dialect, String> {
        let dir = std::env::var_os("REPLAY_DIR").map(PathBuf::from).ok_or(
            "REPLAY_DIR is not set: point it at a transcripts folder such as transcripts/cursor",
        )?;
        let conf = read_object(&dir.join("replay.json"))?;
        Ok(Dialect { dir, conf })
    }

    fn str(&self, key: &str) -> Option<&str> {
        self.conf.get(key).and_then(Value::as_str)
    }
}

/// What a run was asked.
struct Request {
    argv: Vec<String>,
    prompt: String,
    resume: Option<String>,
    model: String,
    cwd: PathBuf,
    home: PathBuf,
}

impl Request {
    fn from_args(d: &Dialect) -> Result<Request, String> {
        let argv: Vec<String> = std::env::args().skip(1).collect();
        let prompt = match d.str("prompt") {
            Some("last") | None => argv.last().cloned(),
            Some(flag) => flag_value(&argv, flag),
        }
        .ok_or("no prompt on the command line")?;
        let resume = d.str("resume").and_then(|f| flag_value(&argv, f));
        let model = d
            .str("model")
            .and_then(|f| flag_value(&argv, f))
            .or_else(|| d.str("model_default").map(str::to_owned))
            .unwrap_or_else(|| "default".to_owned());
        let cwd = std::env::current_dir()
            .map_err(|e| format!("failed to read the working folder: {e}"))?;
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .ok_or("HOME is not set")?;
        Ok(Request {
            argv,
            prompt,
            resume,
            model,
            cwd,
            home,
        })
    }

    /// `template` with the placeholders filled in.
    fn fill(&self, template: &str, session: &str) -> String {
        let json_inner = |s: &str| {
            let quoted = Value::String(s.to_owned()).to_string();
            quoted[1..quoted.len() - 1].to_owned()
        };
        template
            .replace("{session}", session)
            .replace("{cwd_json}", &json_inner(&self.cwd.to_string_lossy()))
            .replace("{prompt_json}", &json_inner(&self.prompt))
            .replace("{model}", &self.model)
    }
}

/// `--flag VALUE` or `--flag=VALUE`; the last one wins.
fn flag_value(argv: &[String], flag: &str) -> Option<String> {
    let mut found = None;
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        if a == flag {
            found = it.next().cloned();
        } else if let Some(v) = a.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
            found = Some(v.to_owned());
        }
    }
    found
}

fn replay() -> Result<u8, String> {
    let d = Dialect::load()?;
    let req = Request::from_args(&d)?;
    let (name, scenario) = pick(&d.dir, &req.prompt)?;
    let sdir = d.dir.join(&name);
    let wants_session = scenario
        .get("session")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let session_file = |id: &str| {
        d.str("session_file")
            .map(|t| req.home.join(req.fill(t, id)))
    };

    let mut stderr_first: Vec<String> = Vec::new();
    let mut resumed = false;
    let session = match &req.resume {
        Some(id) if session_file(id).is_some_and(|f| f.exists()) => {
            resumed = true;
            Some(id.clone())
        }
        Some(id) => {
            let unknown = d
                .conf
                .get("unknown_session")
                .and_then(Value::as_object)
                .ok_or("replay.json has no unknown_session")?;
            for line in unknown
                .get("stderr")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                stderr_first.push(req.fill(line, id));
            }
            if !unknown
                .get("continue")
                .and_then(Value::as_bool)
                .unwrap_or(false)
            {
                log(&req, &name, Some(id), false)?;
                for l in &stderr_first {
                    eprintln!("{l}");
                }
                let code = unknown.get("exit").and_then(Value::as_u64).unwrap_or(1);
                return Ok(u8::try_from(code).unwrap_or(1));
            }
            wants_session.then(new_id)
        }
        None => wants_session.then(new_id),
    };
    log(&req, &name, session.as_deref(), resumed)?;
    let sid = session.clone().unwrap_or_default();

    if let Some(file) = session.as_deref().and_then(session_file) {
        write_file(&file, b"", false)?;
    }
    for effect in scenario
        .get("effects")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(path), Some(content)) = (
            effect.get("path").and_then(Value::as_str),
            effect.get("content").and_then(Value::as_str),
        ) else {
            return Err(format!("{name}: an effect needs path and content"));
        };
        write_file(&req.cwd.join(path), content.as_bytes(), false)?;
    }

    let mut err = std::io::stderr().lock();
    for line in stderr_first.into_iter().chain(
        lines(&sdir.join("stderr"))?
            .iter()
            .map(|l| req.fill(l, &sid)),
    ) {
        writeln!(err, "{line}").map_err(|e| format!("failed to write stderr: {e}"))?;
    }
    drop(err);
    let delay = Duration::from_millis(
        scenario
            .get("line_delay_ms")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    );
    let mut out = std::io::stdout().lock();
    for line in lines(&sdir.join("stdout"))? {
        if !delay.is_zero() {
            std::thread::sleep(delay);
        }
        writeln!(out, "{}", req.fill(&line, &sid))
            .and_then(|()| out.flush())
            .map_err(|e| format!("failed to write stdout: {e}"))?;
    }
    drop(out);

    if session.is_some() {
        after_run(&d, &req, &sdir, &sid)?;
    }
    if scenario
        .get("hang")
        .and_then(Value::as_bool)
        .unwrap_or(false)
    {
        std::thread::sleep(FOREVER);
    }
    let code = scenario.get("exit").and_then(Value::as_u64).unwrap_or(0);
    Ok(u8::try_from(code).unwrap_or(1))
}

/// The first scenario, in folder-name order, whose `match` is in the prompt.
fn pick(dir: &Path, prompt: &str) -> Result<(String, Map<String, Value>), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("failed to list {}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.path().join("scenario.json").is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    for name in names {
        let scenario = read_object(&dir.join(&name).join("scenario.json"))?;
        let needle = scenario
            .get("match")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !needle.is_empty() && prompt.contains(needle) {
            return Ok((name, scenario));
        }
    }
    Err(format!(
        "no scenario in {} matches the prompt {prompt:?}",
        dir.display()
    ))
}

/// The files the CLI keeps after a run (`after_run` of `replay.json`).
fn after_run(d: &Dialect, req: &Request, sdir: &Path, sid: &str) -> Result<(), String> {
    for step in d
        .conf
        .get("after_run")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(path) = step.get("path").and_then(Value::as_str) else {
            return Err("an after_run step needs a path".to_owned());
        };
        let target = req.home.join(req.fill(path, sid));
        if let Some(source) = step.get("append").and_then(Value::as_str) {
            let from = sdir.join(source);
            if !from.is_file() {
                continue;
            }
            let mut text = String::new();
            for line in lines(&from)? {
                text.push_str(&req.fill(&line, sid));
                text.push('\n');
            }
            write_file(&target, text.as_bytes(), true)?;
        } else if let Some(text) = step.get("write").and_then(Value::as_str) {
            write_file(&target, req.fill(text, sid).as_bytes(), false)?;
        }
    }
    Ok(())
}

fn log(req: &Request, scenario: &str, session: Option<&str>, resumed: bool) -> Result<(), String> {
    let entry = json!({
        "pid": std::process::id(),
        "argv": req.argv,
        "cwd": req.cwd.to_string_lossy(),
        "scenario": scenario,
        "session": session,
        "resumed": resumed,
    });
    let line = format!("{entry}\n");
    write_file(
        &req.home.join(".replay/invocations.jsonl"),
        line.as_bytes(),
        true,
    )
}

fn write_file(path: &Path, bytes: &[u8], append: bool) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("failed to create {}: {e}", parent.display()))?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(path)
        .map_err(|e| format!("failed to open {}: {e}", path.display()))?;
    f.write_all(bytes)
        .map_err(|e| format!("failed to write {}: {e}", path.display()))
}

/// The lines of a file; none when it does not exist.
fn lines(path: &Path) -> Result<Vec<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text.lines().map(str::to_owned).collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(format!("failed to read {}: {e}", path.display())),
    }
}

fn read_object(path: &Path) -> Result<Map<String, Value>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("failed to read {}: {e}", path.display()))?;
    match serde_json::from_str(&text) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(format!("{} is not a JSON object", path.display())),
        Err(e) => Err(format!("failed to parse {}: {e}", path.display())),
    }
}

/// A fresh UUID-shaped id (random enough for tests).
fn new_id() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let mut bits = [0u64; 2];
    for (i, b) in bits.iter_mut().enumerate() {
        let mut h = RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default(),
        );
        h.write_u32(std::process::id());
        h.write_usize(i);
        *b = h.finish();
    }
    let hex = format!("{:016x}{:016x}", bits[0], bits[1]);
    format!(
        "{}-{}-4{}-a{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}
