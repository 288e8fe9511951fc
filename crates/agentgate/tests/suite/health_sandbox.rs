//! `agentgate health`'s sandbox report: the kernel's side as `agentgate
//! __sandbox --probe` finds it (compared with the probe itself, not with
//! figures written here), bubblewrap and the container engines as their
//! own `--version` and `info` answer, and per level what a run would get;
//! a `PATH` without an engine makes `container` `not_enforced`; `serve`'s
//! `GET /v1/health` carries the same report.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::serve_support::{Env, Serve, get};
use super::support::{Run, clis_bin_dir, run_bounded};

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const LIMIT: Duration = Duration::from_secs(120);

/// `agentgate health ARGS` with `path` as `PATH` and an empty home.
fn health(home: &Path, path: &str, args: &[&str]) -> Run {
    let mut cmd = Command::new(AGENTGATE);
    cmd.arg("health")
        .args(args)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("TMPDIR", std::env::temp_dir())
        .current_dir(home);
    let run = run_bounded(cmd, LIMIT);
    assert!(
        !run.timed_out,
        "health did not finish:\n{}",
        run.all_output()
    );
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    run
}

fn sandbox_of(run: &Run) -> Value {
    let v: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", run.all_output()));
    v["sandbox"].clone()
}

fn level<'a>(sandbox: &'a Value, name: &str) -> &'a Value {
    sandbox["levels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["level"] == name)
        .unwrap_or_else(|| panic!("level {name} missing from {sandbox}"))
}

/// What `agentgate __sandbox --probe` prints on this host.
fn probe() -> Value {
    let out = Command::new(AGENTGATE)
        .args(["__sandbox", "--probe"])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the probe printed no report ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// The first line a program prints for `args`, and whether it exited 0.
fn answer(program: &str, args: &[&str]) -> (bool, String) {
    let mut cmd = Command::new(program);
    cmd.args(args);
    let run = run_bounded(cmd, Duration::from_secs(30));
    let line = run.stdout.lines().next().unwrap_or_default().to_owned();
    (run.code == Some(0), line)
}

#[test]
fn health_reports_what_the_kernel_probe_finds_and_judges_each_level() {
    let home = tempfile::tempdir().unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", clis_bin_dir().display());
    let run = health(home.path(), &path, &["--json", "--provider", "claude"]);
    let sandbox = sandbox_of(&run);
    let probed = probe();
    let kernel = &sandbox["kernel"];
    // This machine (and CI's) has Landlock and the namespaces: a host
    // without them fails here, it never skips.
    let abi = probed["landlock_abi"]
        .as_i64()
        .unwrap_or_else(|| panic!("the probe found no Landlock: {probed}"));
    assert!(abi >= 5, "Landlock ABI {abi}: {probed}");
    assert_eq!(kernel["landlock_abi"], probed["landlock_abi"], "{sandbox}");
    for (report, probe) in [
        ("user_namespace", "user_namespace"),
        ("network_namespace", "network_namespace"),
        ("pid_namespace", "pid_namespace"),
    ] {
        assert_eq!(probed[probe], true, "{probe} unavailable: {probed}");
        assert_eq!(kernel[report]["available"], true, "{report}: {sandbox}");
    }
    for name in ["workspace", "strict"] {
        let l = level(&sandbox, name);
        assert_eq!(l["state"], "enforced", "{l}");
        let reason = l["reason"].as_str().unwrap();
        assert!(reason.contains(&format!("Landlock ABI {abi}")), "{l}");
        assert!(reason.contains("PID namespace"), "{l}");
    }
    assert!(
        level(&sandbox, "strict")["reason"]
            .as_str()
            .unwrap()
            .contains("network namespace"),
        "{sandbox}"
    );

    // bubblewrap and the engines, as they answer themselves.
    let (_, bwrap_line) = answer("bwrap", &["--version"]);
    let bwrap_version = sandbox["bubblewrap"]["version"].as_str().unwrap();
    assert!(
        bwrap_line.contains(bwrap_version),
        "{bwrap_line} vs {sandbox}"
    );
    let engines = sandbox["engines"].as_array().unwrap();
    let podman = engines.iter().find(|e| e["name"] == "podman").unwrap();
    let (_, podman_line) = answer("podman", &["--version"]);
    assert_eq!(podman["found"], true, "{podman}");
    assert!(
        podman_line.contains(podman["version"].as_str().unwrap()),
        "{podman_line} vs {podman}"
    );
    let (podman_answers, _) = answer("podman", &["info"]);
    assert_eq!(podman["answers"], podman_answers, "{podman}");
    let container = level(&sandbox, "container");
    let any_answers = engines.iter().any(|e| e["answers"] == true);
    assert_eq!(
        container["state"],
        if any_answers {
            "enforced"
        } else {
            "not_enforced"
        },
        "{container}"
    );

    // The text says the same.
    let text = health(home.path(), &path, &["--provider", "claude"]);
    let lines: Vec<&str> = text.stdout.lines().collect();
    let landlock = lines
        .iter()
        .find(|l| l.trim_start().starts_with("Landlock"))
        .unwrap_or_else(|| panic!("no Landlock line:\n{}", text.stdout));
    assert!(landlock.ends_with(&format!("ABI {abi}")), "{landlock}");
    for name in ["workspace", "strict"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(name) && l.split_whitespace().nth(1) == Some("enforced")),
            "{name} is not enforced:\n{}",
            text.stdout
        );
    }
}

#[test]
fn a_path_without_an_engine_makes_container_not_enforced() {
    let home = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let run = health(home.path(), empty.path().to_str().unwrap(), &["--json"]);
    let sandbox = sandbox_of(&run);
    for engine in sandbox["engines"].as_array().unwrap() {
        assert_eq!(engine["found"], false, "{engine}");
        assert_eq!(engine["answers"], false, "{engine}");
    }
    assert_eq!(sandbox["bubblewrap"]["found"], false, "{sandbox}");
    let container = level(&sandbox, "container");
    assert_eq!(container["state"], "not_enforced", "{container}");
    assert_eq!(
        container["reason"], "no container engine on PATH (podman, docker)",
        "{container}"
    );
    // The kernel's side does not depend on PATH.
    assert_eq!(
        sandbox["kernel"]["landlock_abi"],
        probe()["landlock_abi"],
        "{sandbox}"
    );
    let text = health(home.path(), empty.path().to_str().unwrap(), &[]);
    assert!(
        text.stdout.lines().any(|l| l.starts_with("container")
            && l.contains("not_enforced")
            && l.contains("no container engine on PATH")),
        "{}",
        text.stdout
    );
}

#[test]
fn serve_health_carries_the_sandbox_report() {
    let home = tempfile::tempdir().unwrap();
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let token = "sandbox-health-token-0123456789abcdef";
    let env = Env {
        home: home.path(),
        bin: &bin,
        vars: vec![("AGENTGATE_TOKEN", token.to_owned())],
    };
    let server = Serve::start(&env, &[]);
    let r = get(&server.url, "/v1/health", Some(token));
    assert_eq!(r.status, 200, "{r:?}");
    let sandbox = r.json()["sandbox"].clone();
    let probed = probe();
    assert_eq!(
        sandbox["kernel"]["landlock_abi"], probed["landlock_abi"],
        "{sandbox}"
    );
    assert_eq!(
        sandbox["kernel"]["pid_namespace"]["available"], probed["pid_namespace"],
        "{sandbox}"
    );
    assert_eq!(
        level(&sandbox, "workspace")["state"],
        "enforced",
        "{sandbox}"
    );
    // serve's PATH is its bin folder, /usr/bin and /bin (Env's): podman is
    // found where Debian puts it, this machine's docker (/usr/local/bin) not.
    let engines = sandbox["engines"].as_array().unwrap();
    let found = |name: &str| engines.iter().find(|e| e["name"] == name).unwrap()["found"].clone();
    assert_eq!(
        found("podman"),
        Path::new("/usr/bin/podman").is_file(),
        "{sandbox}"
    );
    assert_eq!(
        found("docker"),
        Path::new("/usr/bin/docker").is_file(),
        "{sandbox}"
    );
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
}
