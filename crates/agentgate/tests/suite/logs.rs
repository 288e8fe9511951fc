//! `-v`/`-vv`, `-q` and `AGENTGATE_LOG` on real commands: logs and notes go
//! to stderr only, and stdout is byte for byte the same at every level.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::support::{Run, run_bounded};

/// A project with a config that warns (a cli_agents.yaml whose built-in
/// agent has command arguments) and a described CLI that answers at once.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("cli_agents.yaml"),
        "version: 1\nagents:\n  - name: main\n    provider: claude\n    command: [claude, -p, \"{{prompt}}\"]\n  - name: echo\n    provider: echoer\n    command: [sh, -c, 'echo \"answer: $0\"', \"{{prompt}}\"]\n",
    )
    .unwrap();
    dir
}

fn agentgate(dir: &Path, args: &[&str], log_env: Option<&str>) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(args)
        .current_dir(dir)
        .env("AGENTGATE_HOME", dir.join("home"))
        .env_remove("AGENTGATE_STORE")
        .env_remove("AGENTGATE_CONFIG")
        .env_remove("AGENTGATE_LOG")
        .stdin(Stdio::null());
    if let Some(v) = log_env {
        cmd.env("AGENTGATE_LOG", v);
    }
    run_bounded(cmd, Duration::from_secs(60))
}

const INFO: &str = " INFO agentgate_core::config: read the config file";
const WARNING: &str =
    "agentgate: config: agent `main` (line 5): the command's arguments are not used";

#[test]
fn verbose_adds_logs_quiet_leaves_errors_and_stdout_never_changes() {
    let p = project();
    let dry = [
        "--config",
        "cli_agents.yaml",
        "run",
        "--agent",
        "echo",
        "--dry-run",
        "hi",
    ];
    let with = |flags: &[&str], env: Option<&str>| {
        let args: Vec<&str> = flags.iter().chain(&dry).copied().collect();
        let run = agentgate(p.path(), &args, env);
        assert_eq!(run.code, Some(0), "{flags:?}: {}", run.all_output());
        run
    };
    let plain = with(&[], None);
    assert!(plain.stderr.contains(WARNING), "{}", plain.stderr);
    assert!(!plain.stderr.contains(" INFO "), "{}", plain.stderr);
    assert!(plain.stdout.starts_with('{'), "{}", plain.stdout);

    let verbose = with(&["-v"], None);
    assert!(verbose.stderr.contains(INFO), "{}", verbose.stderr);
    assert!(verbose.stderr.contains(WARNING), "{}", verbose.stderr);
    assert!(!verbose.stderr.contains(" DEBUG "), "{}", verbose.stderr);
    let debug = with(&["-vv"], None);
    assert!(
        debug
            .stderr
            .contains(" DEBUG agentgate::logging: logging from=\"flag\""),
        "{}",
        debug.stderr
    );
    let quiet = with(&["--quiet"], None);
    assert_eq!(quiet.stderr, "", "-q prints no warning");
    // The flag goes after the command too (a global flag).
    let late = agentgate(p.path(), &[&dry[..], &["-q"]].concat(), None);
    assert_eq!(late.stderr, "");

    // AGENTGATE_LOG when no flag is given; a flag wins over it.
    let by_env = with(&[], Some("info"));
    assert!(by_env.stderr.contains(INFO), "{}", by_env.stderr);
    assert_eq!(with(&["-q"], Some("trace")).stderr, "");
    let narrowed = with(&["-v"], Some("off"));
    assert!(narrowed.stderr.contains(INFO), "{}", narrowed.stderr);
    let bad = with(&[], Some("agentgate=loud"));
    assert!(
        bad.stderr
            .lines()
            .any(|l| l.starts_with("agentgate: AGENTGATE_LOG is not a log filter")),
        "{}",
        bad.stderr
    );

    for run in [&verbose, &debug, &quiet, &late, &by_env, &bad] {
        assert_eq!(
            run.stdout, plain.stdout,
            "stdout changed with the log level"
        );
    }
}

#[test]
fn quiet_keeps_the_error_and_drops_the_audit_line() {
    let p = project();
    let run = |flags: &[&str]| {
        let args: Vec<&str> = flags
            .iter()
            .copied()
            .chain([
                "--config",
                "cli_agents.yaml",
                "run",
                "--agent",
                "echo",
                "--compact",
                "hello",
            ])
            .collect();
        agentgate(p.path(), &args, None)
    };
    let plain = run(&[]);
    assert_eq!(plain.code, Some(0), "{}", plain.all_output());
    assert!(plain.stdout.contains("answer: hello"), "{}", plain.stdout);
    assert!(
        plain
            .stderr
            .lines()
            .any(|l| l.starts_with("agentgate run=")),
        "the audit line: {}",
        plain.stderr
    );
    assert!(
        !plain.stderr.contains("starting the CLI"),
        "{}",
        plain.stderr
    );
    let verbose = run(&["-v"]);
    assert!(
        verbose
            .stderr
            .contains("INFO agentgate_core::run::emitter: starting the CLI provider=\"echo\""),
        "{}",
        verbose.stderr
    );
    let quiet = run(&["-q"]);
    assert_eq!(quiet.code, Some(0), "{}", quiet.all_output());
    assert_eq!(quiet.stderr, "", "no audit line, no warning with -q");
    assert!(quiet.stdout.contains("answer: hello"), "{}", quiet.stdout);
    // It is still in audit.log.
    let audit = std::fs::read_to_string(p.path().join("home/audit.log")).unwrap();
    assert_eq!(audit.lines().count(), 3, "{audit}");

    // An error is printed, -q or not.
    let missing = agentgate(
        p.path(),
        &["-q", "--config", "missing.yaml", "config", "check"],
        None,
    );
    assert_eq!(missing.code, Some(2));
    assert!(
        missing.stderr.starts_with("agentgate: ") && missing.stderr.contains("missing.yaml"),
        "{}",
        missing.stderr
    );
    assert_eq!(missing.stdout, "");
    // -v and -q together are a usage error.
    let both = agentgate(p.path(), &["-v", "-q", "config", "check"], None);
    assert_eq!(both.code, Some(2), "{}", both.all_output());
    assert!(
        both.stderr.contains("cannot be used with"),
        "{}",
        both.stderr
    );
}

#[test]
fn the_help_documents_the_flags_and_the_variable() {
    let p = project();
    let help = agentgate(p.path(), &["--help"], None);
    assert_eq!(help.code, Some(0));
    for said in ["-v, --verbose", "-q, --quiet", "AGENTGATE_LOG", "EnvFilter"] {
        assert!(help.stdout.contains(said), "{said}: {}", help.stdout);
    }
    let run_help = agentgate(p.path(), &["run", "--help"], None);
    assert!(run_help.stdout.contains("--verbose"), "{}", run_help.stdout);
}
