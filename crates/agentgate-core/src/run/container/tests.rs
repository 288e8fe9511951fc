//! The command lines `wrap` writes and what `report` says, with a stand-in
//! engine (a shell script that answers `--version`); the real engine's
//! runs are `podman_tests.rs`.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use agentgate_protocol::EnforcementState;
use agentgate_supervise::Invocation;

use super::command::{self, Target};
use super::engine::{self, EngineKind};
use super::*;

/// An executable script in `dir` that prints `version` for `--version`.
fn stand_in_engine(dir: &Path, file: &str, version: &str) -> PathBuf {
    let path = dir.join(file);
    std::fs::write(&path, format!("#!/bin/sh\necho '{version}'\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn spec(engine: &Path, image: Option<&str>, name: Option<&str>) -> ContainerSpec {
    ContainerSpec {
        engine: Some(engine.display().to_string()),
        image: image.map(str::to_owned),
        name: name.map(str::to_owned),
        args: vec!["--network".into(), "host".into()],
    }
}

fn cli_invocation(work: &Path) -> Invocation {
    let mut inv = Invocation::new("/opt/clis/claude").args(["-p", "--verbose"]);
    inv.env_clear = true;
    inv.env = vec![
        ("HOME".into(), "/home/agent".into()),
        ("ANTHROPIC_API_KEY".into(), "sk-secret-value-123".into()),
        ("AGENTGATE_TOKEN".into(), "agentgate-own".into()),
    ];
    inv.cwd = Some(work.to_owned());
    inv.stdin = Some(b"the prompt".to_vec());
    inv
}

fn strings(args: &[OsString]) -> Vec<String> {
    args.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn run_of_an_image_mounts_passes_names_sets_the_folder_and_keeps_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let engine = stand_in_engine(dir.path(), "podman", "podman version 4.3.1");
    let work = dir.path().join("work");
    let state = dir.path().join("home/.claude");
    let (wrapped, run) = wrap(
        &spec(&engine, Some("localhost/agents:1"), None),
        cli_invocation(&work),
        "agentgate-0a1b",
        &[work.clone(), state.clone()],
    )
    .unwrap();
    let w = work.display().to_string();
    let s = state.display().to_string();
    let expected: Vec<String> = [
        "run",
        "--rm",
        "-i",
        "--name",
        "agentgate-0a1b",
        "-v",
        &format!("{w}:{w}"),
        "-v",
        &format!("{s}:{s}"),
        "-e",
        "ANTHROPIC_API_KEY",
        "-e",
        "HOME",
        "-w",
        &w,
        "--network",
        "host",
        "localhost/agents:1",
        "/opt/clis/claude",
        "-p",
        "--verbose",
    ]
    .iter()
    .map(|a| (*a).to_owned())
    .collect();
    assert_eq!(strings(&wrapped.args), expected);
    assert_eq!(wrapped.program, engine);
    // The values reach the engine's own environment, never its command line.
    assert!(
        !strings(&wrapped.args)
            .iter()
            .any(|a| a.contains("sk-secret"))
    );
    assert!(
        wrapped
            .env
            .iter()
            .any(|(k, v)| k == "ANTHROPIC_API_KEY" && v == "sk-secret-value-123")
    );
    assert!(!wrapped.env_clear, "the engine needs its own environment");
    assert_eq!(wrapped.stdin.as_deref(), Some(&b"the prompt"[..]));
    assert_eq!(run.name, "agentgate-0a1b");
    assert_eq!(run.engine, engine);
}

#[test]
fn exec_in_a_named_container_records_the_cli_s_group_and_mounts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = stand_in_engine(dir.path(), "docker", "Docker version 28.2.2, build e6534b4");
    let work = dir.path().join("work");
    let (wrapped, run) = wrap(
        &spec(&engine, None, Some("devbox")),
        cli_invocation(&work),
        "agentgate-77",
        std::slice::from_ref(&work),
    )
    .unwrap();
    let args = strings(&wrapped.args);
    let w = work.display().to_string();
    assert_eq!(args[..2], ["exec", "-i"]);
    assert!(!args.contains(&"-v".to_owned()), "exec cannot add mounts");
    let tail: Vec<&str> = args[args.len() - 8..].iter().map(String::as_str).collect();
    assert_eq!(
        tail,
        [
            "devbox",
            "/bin/sh",
            "-c",
            "echo $$ > /tmp/agentgate-77.pid && exec \"$@\"",
            "sh",
            "/opt/clis/claude",
            "-p",
            "--verbose"
        ]
    );
    assert!(args.windows(2).any(|p| p == ["-w", w.as_str()]));
    assert_eq!(run.name, "devbox");
    let report = run.report();
    assert_eq!(report.state, EnforcementState::Partial);
    assert_eq!(report.by.as_deref(), Some("docker 28.2.2"));
    assert_eq!(report.limit, "exec in container devbox");
}

#[test]
fn the_report_of_a_run_names_engine_version_image_and_container() {
    let dir = tempfile::tempdir().unwrap();
    let engine = stand_in_engine(dir.path(), "podman", "podman version 4.3.1");
    let (_, run) = wrap(
        &spec(&engine, Some("localhost/agents:1"), None),
        cli_invocation(dir.path()),
        "agentgate-ff",
        &[],
    )
    .unwrap();
    let report = run.report();
    assert_eq!(report.state, EnforcementState::Enforced);
    assert_eq!(report.by.as_deref(), Some("podman 4.3.1"));
    assert_eq!(
        report.limit,
        "container agentgate-ff of image localhost/agents:1"
    );
}

#[test]
fn agentgate_s_own_variables_are_never_passed() {
    let mut inv = Invocation::new("cli");
    inv.env_clear = true;
    inv.env = vec![
        ("AGENTGATE_TOKEN".into(), "t".into()),
        ("PATH".into(), "/usr/bin".into()),
        ("PATH".into(), "/bin".into()),
    ];
    assert_eq!(command::env_names(&inv), vec![OsString::from("PATH")]);
}

#[test]
fn without_env_clear_the_inherited_names_less_the_removed_ones_are_passed() {
    // PATH is in every test process's environment.
    let mut inv = Invocation::new("cli");
    inv.env = vec![("EXTRA_ONE".into(), "1".into())];
    let names = command::env_names(&inv);
    assert!(names.contains(&OsString::from("PATH")));
    assert!(names.contains(&OsString::from("EXTRA_ONE")));
    inv.env_remove = vec!["PATH".into()];
    assert!(!command::env_names(&inv).contains(&OsString::from("PATH")));
}

#[test]
fn a_missing_engine_is_an_error_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-engine");
    let err = wrap(
        &spec(&missing, Some("img"), None),
        Invocation::new("cli"),
        "agentgate-1",
        &[],
    )
    .unwrap_err();
    assert!(err.contains("no-such-engine"), "{err}");
    assert!(err.contains("not an executable file"), "{err}");
    let named = ContainerSpec {
        engine: Some("agentgate-no-such-engine".into()),
        image: Some("img".into()),
        ..ContainerSpec::default()
    };
    let err = wrap(&named, Invocation::new("cli"), "agentgate-1", &[]).unwrap_err();
    assert!(err.contains("on PATH"), "{err}");
    assert_eq!(engine::find_program("podman".as_ref(), "".as_ref()), None);
}

#[test]
fn an_engine_that_fails_its_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken");
    std::fs::write(&path, "#!/bin/sh\nexit 3\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let err = wrap(
        &spec(&path, Some("img"), None),
        Invocation::new("cli"),
        "agentgate-1",
        &[],
    )
    .unwrap_err();
    assert!(err.contains("--version"), "{err}");
}

#[test]
fn the_spec_must_name_an_image_or_a_container_not_both() {
    let dir = tempfile::tempdir().unwrap();
    let engine = stand_in_engine(dir.path(), "podman", "podman version 4.3.1");
    for (image, name, says) in [
        (None, None, "needs an image"),
        (Some("img"), Some("box"), "both"),
        (None, Some("bad name"), "not a container name"),
    ] {
        let err = wrap(
            &spec(&engine, image, name),
            Invocation::new("cli"),
            "agentgate-1",
            &[],
        )
        .unwrap_err();
        assert!(err.contains(says), "{err}");
    }
    let err = wrap(
        &spec(&engine, Some("img"), None),
        Invocation::new("cli"),
        "-bad",
        &[],
    )
    .unwrap_err();
    assert!(err.contains("not a container name"), "{err}");
}

#[test]
fn mounts_must_be_absolute_and_free_of_colons() {
    for mount in ["work", "/a:b"] {
        let mounts = [PathBuf::from(mount)];
        let layout = command::Layout {
            name: "agentgate-1",
            mounts: &mounts,
            env_names: vec![],
            workdir: None,
            extra: &[],
        };
        let err =
            command::start_args(Target::Image("img"), &layout, "cli".as_ref(), &[]).unwrap_err();
        assert!(err.contains("mount"), "{err}");
    }
}

#[test]
fn removal_kills_at_once_in_each_dialect() {
    assert_eq!(
        strings(&command::remove_args(EngineKind::Podman, "agentgate-1")),
        ["rm", "-f", "-t", "0", "agentgate-1"]
    );
    assert_eq!(
        strings(&command::remove_args(EngineKind::Docker, "agentgate-1")),
        ["rm", "-f", "agentgate-1"]
    );
    let kill = strings(&command::kill_exec_args("devbox", "agentgate-9"));
    assert_eq!(kill[..4], ["exec", "devbox", "/bin/sh", "-c"]);
    assert!(kill[4].contains("/tmp/agentgate-9.pid"), "{}", kill[4]);
    assert!(kill[4].contains("kill -s KILL -- \"-$(cat"), "{}", kill[4]);
}

#[test]
fn engine_labels_and_dialects_come_from_the_version_line() {
    let podman = Path::new("/usr/bin/podman");
    let docker = Path::new("/usr/bin/docker");
    assert_eq!(
        engine::label_of(podman, "podman version 4.3.1"),
        "podman 4.3.1"
    );
    assert_eq!(
        engine::label_of(docker, "Docker version 28.2.2, build e6534b4"),
        "docker 28.2.2"
    );
    assert_eq!(engine::label_of(docker, "odd"), "docker (odd)");
    assert_eq!(engine::kind_of(podman, ""), EngineKind::Podman);
    assert_eq!(
        engine::kind_of(Path::new("/x/engine"), "podman version 5.0.0"),
        EngineKind::Podman
    );
    assert_eq!(
        engine::kind_of(docker, "Docker version 28"),
        EngineKind::Docker
    );
}

#[test]
fn attempt_names_are_fresh_and_valid() {
    let a = attempt_container_name("").unwrap();
    let b = attempt_container_name("").unwrap();
    assert_ne!(a, b);
    assert!(a.starts_with("agentgate-") && a.len() == "agentgate-".len() + 24);
    command::check_name("name", &a).unwrap();
    let named = attempt_container_name("01JB2-x/y").unwrap();
    assert!(named.starts_with("agentgate-01JB2xy-"), "{named}");
    command::check_name("name", &named).unwrap();
}

#[test]
fn gone_containers_are_recognised_in_both_dialects() {
    assert!(command::says_no_such_container(
        "Error response from daemon: No such container: agentgate-1".as_ref()
    ));
    assert!(command::says_no_such_container(
        "Error: no container with name or ID \"agentgate-1\" found".as_ref()
    ));
    assert!(!command::says_no_such_container(
        "permission denied".as_ref()
    ));
}

/// A docker-like stand-in whose `rm` answers `rm_says` on stderr (exit 1;
/// exit 0 when empty) and whose `container inspect` exits `inspect_exit`;
/// it appends each command line to `argv.log` beside it.
fn scripted_engine(dir: &Path, rm_says: &str, inspect_exit: u8) -> PathBuf {
    let path = dir.join("docker");
    let rm = if rm_says.is_empty() {
        "exit 0".to_owned()
    } else {
        format!("echo '{rm_says}' >&2; exit 1")
    };
    let script = format!(
        "#!/bin/sh\necho \"$@\" >> \"$(dirname \"$0\")/argv.log\"\ncase \"$1\" in\n  --version) echo 'Docker version 28.2.2, build e6534b4' ;;\n  rm) {rm} ;;\n  container) exit {inspect_exit} ;;\nesac\n"
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn logged(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("argv.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn removal_runs_rm_and_takes_a_missing_container_as_removed() {
    let dir = tempfile::tempdir().unwrap();
    let engine = scripted_engine(
        dir.path(),
        "Error response from daemon: No such container: agentgate-1",
        1,
    );
    let (_, run) = wrap(
        &spec(&engine, Some("img"), None),
        Invocation::new("cli"),
        "agentgate-1",
        &[],
    )
    .unwrap();
    run.remove().await.unwrap();
    assert_eq!(logged(dir.path()), ["--version", "rm -f agentgate-1"]);
}

#[tokio::test]
async fn a_failed_removal_of_a_container_still_there_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let engine = scripted_engine(dir.path(), "permission denied", 0);
    let (_, run) = wrap(
        &spec(&engine, Some("img"), None),
        Invocation::new("cli"),
        "agentgate-2",
        &[],
    )
    .unwrap();
    let err = run.remove().await.unwrap_err();
    assert!(err.contains("permission denied"), "{err}");
    assert_eq!(
        logged(dir.path())[1..],
        ["rm -f agentgate-2", "container inspect agentgate-2"]
    );
}

#[tokio::test]
async fn a_failed_removal_of_a_container_already_gone_is_no_error() {
    let dir = tempfile::tempdir().unwrap();
    let engine = scripted_engine(dir.path(), "removal already in progress", 1);
    let (_, run) = wrap(
        &spec(&engine, Some("img"), None),
        Invocation::new("cli"),
        "agentgate-3",
        &[],
    )
    .unwrap();
    run.remove().await.unwrap();
}

#[tokio::test]
async fn ending_an_exec_kills_the_group_in_the_named_container_and_removes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = scripted_engine(dir.path(), "", 0);
    let (_, run) = wrap(
        &spec(&engine, None, Some("devbox")),
        Invocation::new("cli"),
        "agentgate-4",
        &[],
    )
    .unwrap();
    run.remove().await.unwrap();
    let log = logged(dir.path());
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(
        log[1].starts_with("exec devbox /bin/sh -c f=/tmp/agentgate-4.pid;"),
        "{log:?}"
    );
    assert!(!log.iter().any(|l| l.starts_with("rm")), "{log:?}");
}
