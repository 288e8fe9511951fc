//! The unit tests of the attempt's sandbox: the network rule of each level, the
//! files' rules, confining Claude, the agentgate binary that runs it.

use super::*;

fn settings(level: SandboxLevel) -> StepSandbox {
    StepSandbox::at(level)
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

#[test]
fn strict_relays_only_the_gateways_port_to_its_socket() {
    let off = AttemptSandbox::prepare(Some(&settings(SandboxLevel::Off))).unwrap();
    assert!(off.is_none(), "off is no sandbox");
    let mut workspace = AttemptSandbox::prepare(Some(&settings(SandboxLevel::Workspace)))
        .unwrap()
        .unwrap();
    assert_eq!(workspace.gateway_socket(), None);
    let mut inv = Invocation::new("/bin/true");
    assert_eq!(
        block_on(workspace.network(&mut inv, None)).unwrap(),
        NetworkRule::Any
    );
    let mut strict = AttemptSandbox::prepare(Some(&settings(SandboxLevel::Strict)))
        .unwrap()
        .unwrap();
    let socket = strict.gateway_socket().unwrap();
    assert!(socket.starts_with(strict.private.path()));
    let rule = block_on(strict.network(&mut inv, Some(41234))).unwrap();
    assert_eq!(
        rule,
        NetworkRule::Forward(vec![PortForward {
            port: 41234,
            socket
        }])
    );
    assert!(inv.env.is_empty(), "no proxy without egress_allow");
    let why = block_on(strict.network(&mut inv, None)).unwrap_err();
    assert!(why.contains("--gateway"), "{why}");
}

#[test]
fn the_workspace_the_state_and_the_temp_folder_are_written_the_rest_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (home, work, tmp) = (root.join("home"), root.join("work"), root.join("tmp"));
    let runs = root.join("data/runs");
    let worktree = runs.join("r1/worktree");
    for d in [&home, &work, &tmp, &worktree] {
        std::fs::create_dir_all(d).unwrap();
    }
    let state = [home.join(".claude")];
    // A server's token file outside the data folder.
    let hidden = [home.join("secrets/token")];
    let asked = |cwd: &Path, scope: &EditScope| {
        files(&FilesAsked {
            settings: &settings(SandboxLevel::Workspace),
            program: Path::new("/bin/sh"),
            path_var: None,
            home: Some(&home),
            cwd,
            edit_scope: scope,
            state: &state,
            tmpdir: &tmp,
            command_files: &[],
            runs_dir: Some(&runs),
            hidden: &hidden,
            mcp_servers: &[],
        })
    };
    let f = asked(&work, &EditScope::Any);
    for w in [&work, &state[0], &tmp] {
        assert!(f.write.contains(w), "{w:?}: {:?}", f.write);
    }
    assert!(f.read.contains(&home) && f.read.contains(&work));
    assert!(f.private.contains(&home.join(".ssh")) && f.private.contains(&runs));
    assert!(f.private.contains(&hidden[0]), "{:?}", f.private);
    assert!(f.weakened.is_none());
    let classify = asked(&work, &EditScope::Nothing);
    assert!(!classify.write.contains(&work) && classify.read.contains(&work));
    // A run's worktree, inside the store's runs folder: the run's own.
    let f = asked(&worktree, &EditScope::Any);
    assert!(f.run.contains(&worktree) && !f.write.contains(&worktree));
    assert!(f.weakened.is_none());
    let f = asked(&worktree, &EditScope::Nothing);
    assert!(f.weakened.is_some_and(|w| w.contains("classify")));
}

#[test]
fn confining_claude_makes_its_state_folder_and_runs_it_through_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (home, work) = (root.join("home"), root.join("work"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let claude = agentgate_providers::builtin("claude").unwrap();
    let mut asked = settings(SandboxLevel::Workspace);
    asked.env_allow = vec!["CORP_*".to_owned()];
    let mut sandbox = AttemptSandbox::prepare(Some(&asked)).unwrap().unwrap();
    let mut inv = Invocation::new("/bin/sh").args(["-c", "true"]);
    inv.env = vec![
        ("HOME".into(), home.clone().into()),
        ("MY_RUN_VAR".into(), "1".into()),
    ];
    inv.cwd = Some(work.clone());
    let scratch = Scratch::at(root.join("scratch"));
    std::fs::create_dir_all(root.join("scratch")).unwrap();
    let agentgate = root.join("agentgate");
    let at = Confinement {
        provider: claude.as_ref(),
        agentgate: Some(&agentgate),
        scratch: &scratch,
        runs_dir: None,
        hidden: &[],
        edit_scope: &EditScope::Any,
        command_files: &[],
        mcp_servers: &[],
        gateway_port: None,
        run_id: "r1",
    };
    let notice = block_on(sandbox.confine(&mut inv, at)).unwrap();
    assert!(notice.starts_with("sandbox workspace:"), "{notice}");
    assert_eq!(inv.program, agentgate);
    assert_eq!(inv.args[0], "__sandbox");
    assert!(inv.env_clear);
    let var = |k: &str| env::get(&inv, k).map(PathBuf::from);
    assert_eq!(var("CLAUDE_CONFIG_DIR"), Some(home.join(".claude")));
    assert_eq!(var("TMPDIR").as_deref(), Some(sandbox.tmpdir.path()));
    assert!(var("MY_RUN_VAR").is_some(), "what the run sets is kept");
    assert!(home.join(".claude").is_dir(), "its state folder is made");
    let spec_path = PathBuf::from(&inv.args[1]);
    let spec: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&spec_path).unwrap()).unwrap();
    assert_eq!(spec["program"], "/bin/sh");
    assert_eq!(spec["args"], serde_json::json!(["-c", "true"]));
    assert_eq!(spec["network"], "any");
    let has = |key: &str, p: &Path| {
        spec[key]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v.as_str() == p.to_str())
    };
    assert!(has("write_paths", &work) && has("write_paths", &home.join(".claude")));
    assert!(has("read_paths", &home) && !has("write_paths", &home));
    assert!(has("private_paths", &home.join(".ssh")));
    let report = block_on(sandbox.finish());
    assert!(!spec_path.exists(), "the spec is removed after the CLI");
    assert_eq!(
        report.environment.state,
        agentgate_protocol::EnforcementState::Enforced
    );
    // The sandbox never ran here: nothing is said to hold.
    assert_eq!(
        report.state,
        agentgate_protocol::EnforcementState::NotEnforced
    );
}

#[test]
fn the_sandbox_runs_through_the_agentgate_binary_beside_the_keeper() {
    let dir = tempfile::tempdir().unwrap();
    let keeper = dir.path().join("agentgate-keeper");
    let agentgate = dir.path().join("agentgate");
    std::fs::write(&keeper, "").unwrap();
    std::fs::write(&agentgate, "").unwrap();
    assert_eq!(agentgate_binary(Some(&keeper)).unwrap(), agentgate);
    assert_eq!(agentgate_binary(Some(&agentgate)).unwrap(), agentgate);
    assert_eq!(
        agentgate_binary(None).unwrap(),
        std::env::current_exe().unwrap()
    );
}
