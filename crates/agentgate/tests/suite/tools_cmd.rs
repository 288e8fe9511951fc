//! `agentgate tools list|describe|check` over a registry in a temp dir: a
//! good shell-script tool (its selftest checks its scoped environment and
//! leaves a background process behind), one whose selftest fails, a broken
//! manifest, a tool the policy refuses, and an error codes file.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::support::{Run, run_bounded};

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const LIMIT: Duration = Duration::from_secs(90);

/// `agentgate ARGS` in `cwd`, from an empty environment plus `vars`.
fn agentgate(cwd: &Path, args: &[&str], vars: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(AGENTGATE);
    cmd.args(args)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", cwd)
        .envs(vars.iter().copied())
        .current_dir(cwd);
    let run = run_bounded(cmd, LIMIT);
    assert!(
        !run.timed_out,
        "agentgate did not finish:\n{}",
        run.all_output()
    );
    run
}

fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", run.all_output()))
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn script(p: &Path, text: &str) {
    write(p, text);
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The good tool's selftest: fails unless the environment is scoped (the
/// required variable there, the caller's other variables not, the run's
/// variables set, the workspace its working directory); leaves a sleeper
/// behind whose pid it writes to $PIDFILE.
const GOOD: &str = r#"#!/bin/sh
if [ "$1" != "--selftest" ]; then echo "not a selftest" >&2; exit 30; fi
[ -n "$LEAK_ME" ] && { echo "LEAK_ME leaked" >&2; exit 4; }
[ "$GOOD_VAR" = "given" ] || { echo "GOOD_VAR missing" >&2; exit 5; }
[ "$(pwd)" = "$WORKSPACE" ] || { echo "not in the workspace" >&2; exit 6; }
[ "$AI_PROTOCOL_VERSION" = 1 ] && [ -n "$RUN_ID" ] && [ -n "$CANCEL_FILE" ] && [ -n "$DEADLINE_TS" ] && [ -n "$LOG_DIR" ] || { echo "run variables missing" >&2; exit 7; }
sleep 300 &
echo $! > "$PIDFILE"
echo '{"selftest":"ok"}'
exit 0
"#;

/// A registry under `root`; returns the pid file the good tool writes.
fn registry(root: &Path) -> std::path::PathBuf {
    let reg = root.join("tools/registry");
    write(
        &reg.join("good/tool.yaml"),
        "name: good\nversion: 1.2.0\nentry: run.sh\ndescription: A good tool\ninputs:\n  - {name: input, type: path, required: true}\n  - {name: fast, type: boolean}\nenv:\n  require: [GOOD_VAR, PIDFILE]\nexit_codes: {ok: 0, fatal_error: 30}\nhealth: {selftest: [--selftest]}\n",
    );
    script(&root.join("tools/good/run.sh"), GOOD);
    write(
        &reg.join("failing/tool.yaml"),
        "name: failing\nversion: '0.1'\nentry: run.sh\nhealth: {selftest: [--selftest]}\n",
    );
    script(
        &root.join("tools/failing/run.sh"),
        "#!/bin/sh\necho 'selftest broke'\nexit 3\n",
    );
    write(
        &reg.join("broken/tool.yaml"),
        "name: broken\nversion: '1'\nentry: run.sh\ncolour: red\n",
    );
    write(
        &reg.join("error_codes.yaml"),
        "version: 1\ncodes:\n  E_INPUT_NOT_FOUND: {class: user_error, retryable: false}\n",
    );
    root.join("good.pid")
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} missing from {list}"))
}

#[test]
fn tools_list_shows_every_tool_and_the_broken_one_with_its_error() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    registry(&root);
    let sub = root.join("deep/er");
    std::fs::create_dir_all(&sub).unwrap();
    // Found from a subfolder, upwards.
    let run = agentgate(&sub, &["tools", "list", "--json"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let list = json(&run);
    let names: Vec<&str> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["broken", "failing", "good"]);
    let reg = root.join("tools/registry");
    assert_eq!(list["registry"], reg.display().to_string());
    assert_eq!(
        list["error_codes"],
        reg.join("error_codes.yaml").display().to_string()
    );
    assert_eq!(list["policy"], Value::Null);
    let good = tool(&list, "good");
    assert_eq!(good["status"], "ok");
    assert_eq!(good["version"], "1.2.0");
    assert_eq!(
        good["source"],
        reg.join("good/tool.yaml").display().to_string()
    );
    let broken = tool(&list, "broken");
    assert_eq!(broken["status"], "broken");
    let error = broken["error"].as_str().unwrap();
    assert!(
        error.contains("line 4") && error.contains("colour"),
        "{error}"
    );
    // The table says the same.
    let run = agentgate(&root, &["tools", "list"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    assert!(
        run.stdout.contains("broken: invalid manifest"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("good") && l.ends_with(" ok")),
        "{}",
        run.stdout
    );
}

#[test]
fn tools_describe_prints_the_manifest_entry_and_input_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    registry(&root);
    let run = agentgate(&root, &["tools", "describe", "good"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let d = json(&run);
    assert_eq!(d["manifest"]["name"], "good");
    assert_eq!(d["manifest"]["env"]["require"][0], "GOOD_VAR");
    assert_eq!(
        d["entry"],
        root.join("tools/good/run.sh").display().to_string()
    );
    assert_eq!(d["tool_dir"], root.join("tools/good").display().to_string());
    assert_eq!(d["input_schema"]["required"], serde_json::json!(["input"]));
    assert_eq!(d["input_schema"]["properties"]["fast"]["type"], "boolean");
    for (name, says) in [
        ("broken", "cannot be used"),
        ("nope", "unknown tool `nope`"),
    ] {
        let run = agentgate(&root, &["tools", "describe", name], &[]);
        assert_eq!(run.code, Some(2), "{}", run.all_output());
        assert!(run.stderr.contains(says), "{}", run.stderr);
    }
}

fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.split(") ")
            .nth(1)
            .is_some_and(|rest| rest.starts_with('Z'))
    })
}

#[test]
fn tools_check_runs_the_selftest_scoped_and_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let pidfile = registry(&root);
    let pidfile = pidfile.display().to_string();
    let vars = [
        ("GOOD_VAR", "given"),
        ("PIDFILE", pidfile.as_str()),
        ("LEAK_ME", "secret-value"),
    ];
    let run = agentgate(&root, &["tools", "check", "good", "--json"], &vars);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let c = json(&run);
    assert_eq!(c["passed"], true);
    let checks = &c["tools"][0]["checks"];
    let outcomes: Vec<(&str, &str)> = checks
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["check"].as_str().unwrap(), i["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("manifest", "pass"),
            ("entry", "pass"),
            ("policy", "pass"),
            ("selftest", "pass")
        ]
    );
    assert!(
        checks[3]["detail"]
            .as_str()
            .unwrap()
            .contains(r#"{"selftest":"ok"}"#),
        "{c}"
    );
    // The sleeper the selftest left is gone (bounded wait: the keeper reaps it).
    let pid = std::fs::read_to_string(&pidfile).unwrap().trim().to_owned();
    let until = Instant::now() + Duration::from_secs(10);
    while alive(&pid) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !alive(&pid),
        "the selftest's background process {pid} survived"
    );

    // A required variable missing fails the selftest without running it.
    let run = agentgate(
        &root,
        &["tools", "check", "good"],
        &[("PIDFILE", pidfile.as_str())],
    );
    assert_eq!(run.code, Some(1), "{}", run.all_output());
    assert!(
        run.stdout.contains("E_ENV_MISSING") && run.stdout.contains("GOOD_VAR"),
        "{}",
        run.stdout
    );
}

#[test]
fn tools_check_fails_a_failing_selftest_a_broken_manifest_and_a_missing_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    registry(&root);
    let run = agentgate(&root, &["tools", "check", "failing"], &[]);
    assert_eq!(run.code, Some(1), "{}", run.all_output());
    assert!(run.stdout.contains("failing: FAILED"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("exited with status 3, not 0; output: selftest broke"),
        "{}",
        run.stdout
    );
    let run = agentgate(&root, &["tools", "check", "broken", "--json"], &[]);
    assert_eq!(run.code, Some(1), "{}", run.all_output());
    let c = json(&run);
    assert_eq!(c["tools"][0]["checks"][0]["outcome"], "fail");
    assert_eq!(c["tools"][0]["checks"][3]["outcome"], "skip");
    // Every tool: one failure is enough for exit 1; each is reported.
    let run = agentgate(&root, &["tools", "check", "--json"], &[]);
    assert_eq!(run.code, Some(1), "{}", run.all_output());
    assert_eq!(json(&run)["tools"].as_array().unwrap().len(), 3);
    // An entry that is not executable.
    std::fs::set_permissions(
        root.join("tools/failing/run.sh"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let run = agentgate(&root, &["tools", "check", "failing"], &[]);
    assert_eq!(run.code, Some(1), "{}", run.all_output());
    assert!(run.stdout.contains("is not executable"), "{}", run.stdout);
    // An unknown tool is a usage error.
    let run = agentgate(&root, &["tools", "check", "nope"], &[]);
    assert_eq!(run.code, Some(2), "{}", run.all_output());
}

#[test]
fn the_config_defines_tools_and_names_the_policy_that_refuses_them() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    script(&root.join("scripts/ok.sh"), "#!/bin/sh\nexit 0\n");
    write(
        &root.join("agentgate.yaml"),
        "version: 1\ntools:\n  policy: org-policy.yaml\n  define:\n    fetcher:\n      version: '1'\n      dir: scripts\n      entry: ok.sh\n      permissions:\n        network:\n          egress_allow: ['evil.example.org:443']\n      health: {selftest: []}\n    local:\n      version: '1'\n      dir: scripts\n      entry: ok.sh\n      health: {selftest: []}\n",
    );
    write(
        &root.join("org-policy.yaml"),
        "version: 1\negress_allow: ['*.example.com:443']\n",
    );
    let run = agentgate(&root, &["tools", "check", "local"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let run = agentgate(&root, &["tools", "check", "fetcher", "--json"], &[]);
    assert_eq!(run.code, Some(1), "{}", run.all_output());
    let c = json(&run);
    let policy = &c["tools"][0]["checks"][2];
    assert_eq!(policy["outcome"], "fail", "{c}");
    let detail = policy["detail"].as_str().unwrap();
    assert!(
        detail.contains("rule `egress_allow`")
            && detail.contains("evil.example.org:443")
            && detail.contains("org-policy.yaml"),
        "{detail}"
    );
    assert_eq!(c["tools"][0]["checks"][3]["outcome"], "skip");
    assert!(
        c["tools"][0]["source"]
            .as_str()
            .unwrap()
            .contains("agentgate.yaml:5"),
        "{c}"
    );
}

#[test]
fn an_error_codes_file_that_redefines_a_runner_code_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    registry(&root);
    write(
        &root.join("tools/registry/error_codes.yaml"),
        "version: 1\ncodes:\n  E_HEARTBEAT_MISSED: {class: user_error, retryable: false}\n",
    );
    let run = agentgate(&root, &["tools", "list"], &[]);
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(
        run.stderr.contains("error_codes.yaml, line 3")
            && run.stderr.contains("runner's own codes"),
        "{}",
        run.stderr
    );
}
