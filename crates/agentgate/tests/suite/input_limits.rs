//! Bounded reads: a prompt on stdin, `--system-file`, `--output-schema`,
//! the config file and `agentgate parse` inputs past their limits are
//! clear errors after a bounded read. The endless inputs (`/dev/zero`) run
//! under an address-space limit (`ulimit -v`): an unbounded read would die
//! of a failed allocation instead of answering.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::support::{Run, run_bounded};

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const LIMIT: Duration = Duration::from_secs(120);

/// What the command reads on stdin.
enum Input<'a> {
    Nothing,
    File(&'a Path),
    Bytes(Vec<u8>),
    /// `count` lines of `width` bytes, written as the command reads them.
    Lines {
        width: usize,
        count: usize,
    },
}

/// `agentgate ARGS` with at most `mib` MiB of address space (`ulimit -v`).
fn agentgate(args: &[&str], input: Input<'_>, mib: u64) -> Run {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", mib * 1024))
        .arg(AGENTGATE)
        .args(args)
        .env("AGENTGATE_HOME", home.path())
        .env_remove("AGENTGATE_CONFIG")
        .current_dir(home.path());
    match input {
        Input::Nothing => {
            cmd.stdin(Stdio::null());
        }
        Input::File(p) => {
            cmd.stdin(std::fs::File::open(p).unwrap());
        }
        Input::Bytes(bytes) => {
            let f = home.path().join("stdin");
            std::fs::write(&f, bytes).unwrap();
            cmd.stdin(std::fs::File::open(&f).unwrap());
        }
        Input::Lines { width, count } => {
            let (reader, mut writer) = std::io::pipe().unwrap();
            cmd.stdin(reader);
            std::thread::spawn(move || {
                let mut line = vec![b'x'; width - 1];
                line.push(b'\n');
                for _ in 0..count {
                    if writer.write_all(&line).is_err() {
                        break;
                    }
                }
            });
        }
    }
    let run = run_bounded(cmd, LIMIT);
    assert!(
        !run.timed_out,
        "agentgate {args:?} did not end:\n{}",
        run.all_output()
    );
    run
}

/// Exit 2 with `message` on stderr, and no sign of running out of memory.
fn assert_refused(run: &Run, message: &str, what: &str) {
    assert!(
        !run.stderr.contains("memory allocation"),
        "{what}: ran out of memory:\n{}",
        run.stderr
    );
    assert_eq!(run.code, Some(2), "{what}:\n{}", run.all_output());
    assert!(
        run.all_output().contains(message),
        "{what}: want {message:?} in:\n{}",
        run.all_output()
    );
}

const DRY_RUN: &[&str] = &[
    "run",
    "-p",
    "claude",
    "--binary",
    "/bin/true",
    "--dry-run",
    "--compact",
];

fn dry_run_with<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args: Vec<&str> = DRY_RUN.to_vec();
    args.extend_from_slice(extra);
    args
}

/// The `error.message` of a dry run's report.
fn dry_run_error(run: &Run) -> String {
    let report: Value = serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| {
        panic!("no report ({e}):\n{}", run.all_output());
    });
    report["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn endless_inputs_are_refused_after_a_bounded_read() {
    let zero = Path::new("/dev/zero");
    let run = agentgate(&dry_run_with(&["-"]), Input::File(zero), 256);
    assert_refused(
        &run,
        "agentgate: failed to read the prompt from stdin: it is larger than 10 MiB, the limit for a prompt on stdin",
        "prompt < /dev/zero",
    );
    for (flag, message) in [
        (
            "--system-file",
            "failed to read --system-file /dev/zero: it is larger than 10 MiB, the limit for --system-file",
        ),
        (
            "--output-schema",
            "failed to read the output schema /dev/zero: it is larger than 10 MiB, the limit for an output schema",
        ),
    ] {
        let run = agentgate(
            &dry_run_with(&[flag, "/dev/zero", "hi"]),
            Input::Nothing,
            256,
        );
        assert_refused(&run, message, flag);
        assert_eq!(dry_run_error(&run), message, "{flag}");
    }
    let line = "line 1 is longer than 32 MiB, the limit for a line of a capture";
    let run = agentgate(&["parse", "-p", "claude", "/dev/zero"], Input::Nothing, 256);
    assert_refused(
        &run,
        &format!("agentgate: failed to read /dev/zero: {line}"),
        "parse /dev/zero",
    );
    let run = agentgate(&["parse", "-p", "claude"], Input::File(zero), 256);
    assert_refused(
        &run,
        &format!("agentgate: failed to read stdin: {line}"),
        "parse < /dev/zero",
    );
    let run = agentgate(
        &["parse", "-p", "claude", "--stderr", "/dev/zero", "-"],
        Input::Bytes(b"{}\n".to_vec()),
        256,
    );
    assert_refused(&run, line, "parse --stderr /dev/zero");
}

#[test]
fn parse_decodes_a_capture_larger_than_its_memory_line_by_line() {
    // 256 MiB of output through a process allowed 160 MiB of address space
    // (the debug binary's code alone maps some 90 MiB of it).
    let run = agentgate(
        &["parse", "-p", "claude", "--exit-code", "0"],
        Input::Lines {
            width: 64 * 1024,
            count: 4096,
        },
        160,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let envelope: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(envelope["provider"], "claude", "{envelope:#}");
}

/// A valid config of about 10 MB: one agent after another.
fn ten_mb_config(dir: &Path) -> std::path::PathBuf {
    let mut yaml = String::from("version: 1\nagents:\n");
    let mut i = 0;
    while yaml.len() < 10_000_000 {
        yaml.push_str(&format!(
            "  agent{i}:\n    provider: claude\n    model: sonnet\n    timeout: 5m\n"
        ));
        i += 1;
    }
    let path = dir.join("agentgate.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}

#[test]
fn a_10_mb_config_is_refused_with_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    let config = ten_mb_config(dir.path());
    let config = config.to_str().unwrap();
    let message = format!(
        "agentgate: failed to read the config file {config}: it is larger than 1 MiB, the limit for a config file\n"
    );
    for args in [
        &["config", "check"][..],
        &["config", "show"][..],
        &["config", "show", "--json"][..],
        &["providers"][..],
    ] {
        let mut all = vec!["--config", config];
        all.extend_from_slice(args);
        let run = agentgate(&all, Input::Nothing, 512);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.all_output());
        assert_eq!(run.stderr, message, "{args:?}");
    }
}

#[test]
fn invalid_utf8_in_each_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, b"ok\xffno").unwrap();
    let bad = bad.to_str().unwrap();
    let not_utf8 = "it is not UTF-8 (invalid byte at offset 2); convert it to UTF-8 first";
    let run = agentgate(
        &dry_run_with(&["-"]),
        Input::Bytes(b"ok\xffno".to_vec()),
        512,
    );
    assert_refused(
        &run,
        &format!("agentgate: failed to read the prompt from stdin: {not_utf8}"),
        "prompt on stdin",
    );
    let run = agentgate(
        &dry_run_with(&["--system-file", bad, "hi"]),
        Input::Nothing,
        512,
    );
    assert_eq!(
        dry_run_error(&run),
        format!("failed to read --system-file {bad}: {not_utf8}")
    );
    let run = agentgate(
        &dry_run_with(&["--output-schema", bad, "hi"]),
        Input::Nothing,
        512,
    );
    assert_eq!(
        dry_run_error(&run),
        format!("failed to read the output schema {bad}: {not_utf8}")
    );
    let run = agentgate(&["--config", bad, "config", "check"], Input::Nothing, 512);
    assert_refused(
        &run,
        &format!("agentgate: failed to read the config file {bad}: {not_utf8}"),
        "config",
    );
}
