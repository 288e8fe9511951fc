//! The warm engine against the REAL CLIs and `agentgate fake-llm`: one
//! process serves three turns (the model server sees each turn carry the
//! earlier ones), and each turn's usage is the script's; each CLI's
//! permission requests answered by a policy. These drive the protocols and
//! `WarmProcess` directly, below the run engine (`warm_run.rs` goes
//! through it).

use std::path::PathBuf;
use std::time::Duration;

use agentgate_core::warm::process::{Step, WarmProcess, WarmStart};
use agentgate_core::warm::{Answer, PermissionAsk, WarmProtocol};
use agentgate_fakellm::clients::Cli;
use agentgate_protocol::{EventBody, Usage};
use agentgate_providers::decode::Decoded;
use agentgate_providers::{CliRequest, PermissionMode, Scratch, builtin};
use agentgate_supervise::{Invocation, SupervisorConfig};

use super::cli_versions::qwen_stops_at_a_refusal;
use super::support::{Client, FakeServer};

pub(super) const THREE_TURNS: &str = r#"turns:
  - match: {contains: "turn ONE"}
    text: "reply-one"
    usage: {input: 100, output: 10}
  - match: {contains: "turn TWO"}
    text: "reply-two"
    usage: {input: 200, output: 20}
  - match: {contains: "turn THREE"}
    text: "reply-three"
    usage: {input: 300, output: 30}
"#;

/// What one turn gave.
#[derive(Debug, Default)]
struct Turn {
    answer: Option<String>,
    usage: Vec<Usage>,
    asks: Vec<PermissionAsk>,
    session: Option<String>,
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn invocation(client: &Client, args: Vec<String>) -> Invocation {
    let mut inv = Invocation::new(&client.program).args(args);
    inv.env_clear = true;
    inv.env = client
        .setup
        .env
        .iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
    inv.cwd = Some(client.setup.workdir.clone());
    inv
}

/// Claude Code's long-lived command line, as its provider builds it.
fn claude_warm_args(client: &Client, mode: PermissionMode) -> Vec<String> {
    let request = CliRequest {
        model: Some(client.setup.model.clone()),
        permission_mode: mode,
        cwd: client.setup.workdir.clone(),
        ..CliRequest::default()
    };
    let claude = builtin("claude").unwrap();
    let command = claude
        .warm_command(&request, &client.program, &Scratch::temporary())
        .unwrap()
        .unwrap()
        .command;
    command.display_args()
}

/// The model server's last request carried the earlier turns of the
/// three (`THREE_TURNS`).
pub(super) fn carries_the_earlier_turns(server: &FakeServer, context: &str) {
    let last = server.turn_requests().last().unwrap().to_string();
    assert!(
        last.contains("turn ONE") && last.contains("reply-two") && last.contains("turn THREE"),
        "{context}: {last}"
    );
}

async fn start(
    inv: Invocation,
    protocol: Box<dyn WarmProtocol>,
    decoder: Box<dyn agentgate_providers::decode::Decoder>,
) -> WarmProcess {
    WarmProcess::start(WarmStart {
        invocation: inv,
        supervisor: SupervisorConfig {
            timeout: None,
            idle_timeout: None,
            keeper: Some(PathBuf::from(env!("CARGO_BIN_EXE_agentgate"))),
            ..SupervisorConfig::default()
        },
        protocol,
        decoder,
        open_timeout: Duration::from_secs(60),
    })
    .await
    .unwrap()
}

async fn turn(
    p: &mut WarmProcess,
    prompt: &str,
    answer: impl Fn(&PermissionAsk) -> Answer,
) -> Turn {
    p.send_turn(prompt).await.unwrap();
    let mut t = Turn::default();
    loop {
        let step = tokio::time::timeout(Duration::from_secs(120), p.next())
            .await
            .unwrap();
        match step {
            Step::Output(items) => {
                for item in items {
                    match item {
                        Decoded::Final(f) => {
                            t.answer = f.text;
                            t.session = f.session_id;
                            if let Some(u) = f.usage {
                                t.usage.push(u);
                            }
                        }
                        Decoded::Event(EventBody::Usage(u)) => t.usage.push(u.usage),
                        _ => {}
                    }
                }
            }
            Step::Ask(ask) => {
                p.answer(&ask, &answer(&ask)).await.unwrap();
                t.asks.push(ask);
            }
            Step::TurnEnd => return t,
            Step::Withdrawn(_) => {}
            Step::Died(report) => panic!("the CLI died: {report:?}"),
        }
    }
}

#[test]
fn claude_code_serves_three_turns_from_one_process() {
    use agentgate_core::warm::claude::ClaudeWarm;
    use agentgate_providers::claude::ClaudeDecoder;
    let server = FakeServer::start(THREE_TURNS);
    let client = Client::new(Cli::Claude, &server);
    let args = claude_warm_args(&client, PermissionMode::Bypass);
    runtime().block_on(async {
        let mut p = start(
            invocation(&client, args),
            Box::new(ClaudeWarm::new()),
            Box::new(ClaudeDecoder::new()),
        )
        .await;
        let mut turns = Vec::new();
        for prompt in ["turn ONE", "turn TWO", "turn THREE"] {
            turns.push(turn(&mut p, prompt, |_| Answer::Allow).await);
        }
        let answers: Vec<Option<String>> = turns.iter().map(|t| t.answer.clone()).collect();
        assert_eq!(
            answers,
            [
                Some("reply-one".to_owned()),
                Some("reply-two".to_owned()),
                Some("reply-three".to_owned())
            ]
        );
        assert_eq!(p.turns(), 3);
        assert!(p.is_alive(), "one process served all three");
        let sessions: Vec<&Option<String>> = turns.iter().map(|t| &t.session).collect();
        assert!(sessions[0].is_some() && sessions.iter().all(|s| *s == sessions[0]));
        // Claude's `result.usage` in a long-lived process counts from the
        // process's start: a turn's figures are the difference between
        // its result and the one before.
        let totals: Vec<(u64, u64)> = turns
            .iter()
            .map(|t| {
                let u = t.usage.last().unwrap();
                (u.input_tokens, u.output_tokens)
            })
            .collect();
        assert_eq!(totals, [(100, 10), (300, 30), (600, 60)]);
        let per_turn: Vec<(u64, u64)> = totals
            .iter()
            .scan((0, 0), |prev, &(i, o)| {
                let d = (i - prev.0, o - prev.1);
                *prev = (i, o);
                Some(d)
            })
            .collect();
        assert_eq!(per_turn, [(100, 10), (200, 20), (300, 30)], "the script's");
        p.close(Duration::from_secs(10)).await;
    });
    // The model server saw each turn carry the earlier ones.
    carries_the_earlier_turns(&server, "claude");
}

#[test]
fn codex_app_server_serves_three_turns_from_one_process() {
    use agentgate_core::warm::codex::{CodexThread, CodexWarm};
    use agentgate_core::warm::codex_decode::CodexAppServerDecoder;
    let server = FakeServer::start(THREE_TURNS);
    let client = Client::new(Cli::Codex, &server);
    let thread = CodexThread {
        cwd: client.setup.workdir.display().to_string(),
        resume: None,
        model: Some(client.setup.model.clone()),
        ask: false,
        sandbox: "read-only".into(),
    };
    runtime().block_on(async {
        let mut p = start(
            invocation(&client, vec!["app-server".to_owned()]),
            Box::new(CodexWarm::new(thread)),
            Box::new(CodexAppServerDecoder::new()),
        )
        .await;
        let session = p.session_id().map(str::to_owned);
        assert!(session.is_some(), "the thread is named at open");
        let mut turns = Vec::new();
        for prompt in ["turn ONE", "turn TWO", "turn THREE"] {
            turns.push(turn(&mut p, prompt, |_| Answer::Allow).await);
        }
        let answers: Vec<Option<String>> = turns.iter().map(|t| t.answer.clone()).collect();
        assert_eq!(
            answers,
            [
                Some("reply-one".to_owned()),
                Some("reply-two".to_owned()),
                Some("reply-three".to_owned())
            ]
        );
        assert!(p.is_alive(), "one process served all three");
        // Each turn's usage events are that turn's model request, as
        // scripted.
        let per_turn: Vec<(u64, u64)> = turns
            .iter()
            .map(|t| {
                t.usage.iter().fold((0, 0), |(i, o), u| {
                    (i + u.input_tokens, o + u.output_tokens)
                })
            })
            .collect();
        assert_eq!(per_turn, [(100, 10), (200, 20), (300, 30)]);
        p.close(Duration::from_secs(10)).await;
    });
    carries_the_earlier_turns(&server, "codex");
}

/// An ACP agent (Gemini CLI, Qwen Code) served three turns by one process.
fn acp_three_turns(cli: Cli, args: Vec<String>, usage_each_turn: bool) {
    use agentgate_core::warm::acp::AcpWarm;
    use agentgate_core::warm::acp_decode::AcpDecoder;
    let server = FakeServer::start(THREE_TURNS);
    let client = Client::new(cli, &server);
    let cwd = client.setup.workdir.display().to_string();
    runtime().block_on(async {
        let mut p = start(
            invocation(&client, args),
            Box::new(AcpWarm::new(&cwd, None)),
            Box::new(AcpDecoder::new(None)),
        )
        .await;
        assert!(p.session_id().is_some(), "the session is named at open");
        let mut turns = Vec::new();
        for prompt in ["turn ONE", "turn TWO", "turn THREE"] {
            turns.push(turn(&mut p, prompt, |_| Answer::Allow).await);
        }
        let answers: Vec<Option<String>> = turns.iter().map(|t| t.answer.clone()).collect();
        assert_eq!(
            answers,
            [
                Some("reply-one".to_owned()),
                Some("reply-two".to_owned()),
                Some("reply-three".to_owned())
            ],
            "{cli:?}"
        );
        assert!(p.is_alive(), "one process served all three");
        if usage_each_turn {
            let per_turn: Vec<(u64, u64)> = turns
                .iter()
                .map(|t| {
                    let u = t.usage.last().unwrap();
                    (u.input_tokens, u.output_tokens)
                })
                .collect();
            assert_eq!(per_turn, [(100, 10), (200, 20), (300, 30)], "{cli:?}");
        }
        p.close(Duration::from_secs(10)).await;
    });
    carries_the_earlier_turns(&server, &format!("{cli:?}"));
}

#[test]
fn gemini_cli_serves_three_turns_from_one_process_over_acp() {
    let model = Cli::Gemini.default_model().to_owned();
    acp_three_turns(Cli::Gemini, vec!["--acp".into(), "-m".into(), model], true);
}

#[test]
fn qwen_code_serves_three_turns_from_one_process_over_acp() {
    acp_three_turns(
        Cli::Qwen,
        vec!["--acp".into(), "--auth-type".into(), "openai".into()],
        true,
    );
}

/// A read outside the folder, then a write, each asked of agentgate.
const READ_THEN_WRITE: &str = r#"turns:
  - match: {contains: "READ"}
    tool_call: {name: Read, args: {file_path: "/etc/hostname"}}
  - match: {tool_result: true}
    text: "read done: {{tool_output}}"
  - match: {contains: "WRITE"}
    tool_call: {name: Write, args: {file_path: "@DIR@/denied.txt", content: "should not exist\n"}}
  - match: {tool_result: true}
    text: "write done: {{tool_output}}"
"#;

#[test]
fn claude_codes_permission_requests_are_answered_by_the_policy() {
    use agentgate_core::warm::claude::ClaudeWarm;
    use agentgate_core::{ApprovalPolicy, Decision, Rule, ToolClass};
    use agentgate_providers::claude::ClaudeDecoder;
    // The write goes to a folder of its own, named in the script.
    let target = tempfile::tempdir().unwrap();
    let server =
        FakeServer::start(&READ_THEN_WRITE.replace("@DIR@", &target.path().display().to_string()));
    let client = Client::new(Cli::Claude, &server);
    let workdir = client.setup.workdir.clone();
    let policy = ApprovalPolicy {
        rules: vec![Rule {
            class: Some(ToolClass::Read),
            tool: None,
            path: None,
            command: None,
            decision: Decision::Allow,
            label: "approvals.rules[0]".into(),
        }],
        ..ApprovalPolicy::default()
    };
    let args = claude_warm_args(&client, PermissionMode::Ask);
    runtime().block_on(async {
        let mut p = start(
            invocation(&client, args),
            Box::new(ClaudeWarm::new()),
            Box::new(ClaudeDecoder::new()),
        )
        .await;
        let decide = |ask: &PermissionAsk| {
            let verdict = policy.decide(&ask.call, &workdir);
            match verdict.decision {
                Decision::Allow => Answer::Allow,
                _ => Answer::Deny {
                    message: format!("denied by {}", verdict.rule),
                },
            }
        };
        let read = turn(&mut p, "READ it", decide).await;
        assert_eq!(read.asks.len(), 1, "{read:?}");
        assert_eq!(read.asks[0].call.class, Some(ToolClass::Read));
        assert!(
            read.answer
                .as_deref()
                .unwrap_or_default()
                .starts_with("read done:"),
            "{read:?}"
        );
        assert!(
            !read
                .answer
                .as_deref()
                .unwrap_or_default()
                .contains("denied"),
            "{read:?}"
        );
        let write = turn(&mut p, "WRITE it", decide).await;
        assert_eq!(write.asks.len(), 1, "{write:?}");
        assert_eq!(write.asks[0].call.class, Some(ToolClass::Write));
        assert!(
            write
                .answer
                .as_deref()
                .unwrap_or_default()
                .contains("denied by default"),
            "the agent was told why: {write:?}"
        );
        p.close(Duration::from_secs(10)).await;
    });
    assert!(
        !target.path().join("denied.txt").exists(),
        "the denied write did not happen"
    );
}

/// Codex: a reading command, then a writing one.
const CODEX_READ_THEN_WRITE: &str = r#"turns:
  - match: {contains: "READ"}
    tool_call: {name: shell, command: "cat input.txt"}
  - match: {tool_result: true}
    times: 1
    text: "read done"
  - match: {contains: "WRITE"}
    tool_call: {name: shell, command: "echo hi > denied.txt"}
  - match: {tool_result: true}
    text: "write done: {{tool_output}}"
"#;

#[test]
fn codexs_approval_requests_are_answered_by_the_policy() {
    use agentgate_core::warm::codex::{CodexThread, CodexWarm};
    use agentgate_core::warm::codex_decode::CodexAppServerDecoder;
    use agentgate_core::{ApprovalPolicy, Decision, Rule, ToolClass};
    let server = FakeServer::start(CODEX_READ_THEN_WRITE);
    let client = Client::new(Cli::Codex, &server);
    let workdir = client.setup.workdir.clone();
    std::fs::write(workdir.join("input.txt"), "hello world\n").unwrap();
    let policy = ApprovalPolicy {
        rules: vec![Rule {
            class: None,
            tool: None,
            path: None,
            command: Some("cat *".into()),
            decision: Decision::Allow,
            label: "approvals.rules[0]".into(),
        }],
        ..ApprovalPolicy::default()
    };
    let thread = CodexThread {
        cwd: workdir.display().to_string(),
        resume: None,
        model: Some(client.setup.model.clone()),
        ask: true,
        sandbox: "read-only".into(),
    };
    runtime().block_on(async {
        let mut p = start(
            invocation(&client, vec!["app-server".to_owned()]),
            Box::new(CodexWarm::new(thread)),
            Box::new(CodexAppServerDecoder::new()),
        )
        .await;
        let decide = |ask: &PermissionAsk| match policy.decide(&ask.call, &workdir).decision {
            Decision::Allow => Answer::Allow,
            _ => Answer::Deny {
                message: "denied".into(),
            },
        };
        let read = turn(&mut p, "READ it", decide).await;
        assert_eq!(read.asks.len(), 1, "{read:?}");
        assert_eq!(read.asks[0].call.command.as_deref(), Some("cat input.txt"));
        assert_eq!(read.answer.as_deref(), Some("read done"), "{read:?}");
        let write = turn(&mut p, "WRITE it", decide).await;
        assert_eq!(write.asks.len(), 1, "{write:?}");
        assert_eq!(write.asks[0].call.class, Some(ToolClass::Shell));
        assert!(
            write
                .answer
                .as_deref()
                .unwrap_or_default()
                .contains("rejected"),
            "the agent was told: {write:?}"
        );
        p.close(Duration::from_secs(10)).await;
    });
    assert!(!workdir.join("denied.txt").exists());
}

/// An ACP agent asked to write a file: asked, refused, not written.
fn acp_write_is_refused(cli: Cli, args: Vec<String>, absolute: bool) {
    use agentgate_core::warm::acp::AcpWarm;
    use agentgate_core::warm::acp_decode::AcpDecoder;
    use agentgate_core::{ApprovalPolicy, Decision, ToolClass};
    // Gemini refuses any path outside its folder without asking, so it
    // gets a relative one; Qwen wants an absolute one: a folder of its own.
    let target = tempfile::tempdir().unwrap();
    let path = if absolute {
        target.path().join("denied.txt").display().to_string()
    } else {
        "denied.txt".to_owned()
    };
    let script = format!(
        "turns:\n  - match: {{contains: \"WRITE\"}}\n    tool_call: {{name: write_file, args: {{file_path: \"{path}\", content: \"no\"}}}}\n  - match: {{tool_result: true}}\n    text: \"after: {{{{tool_output}}}}\"\n"
    );
    let server = FakeServer::start(&script);
    let client = Client::new(cli, &server);
    let workdir = client.setup.workdir.clone();
    let file = if absolute {
        target.path().join("denied.txt")
    } else {
        workdir.join("denied.txt")
    };
    let cwd = workdir.display().to_string();
    let policy = ApprovalPolicy::default();
    runtime().block_on(async {
        let mut p = start(
            invocation(&client, args),
            Box::new(AcpWarm::new(&cwd, None)),
            Box::new(AcpDecoder::new(None)),
        )
        .await;
        let decide = |ask: &PermissionAsk| match policy.decide(&ask.call, &workdir).decision {
            Decision::Allow => Answer::Allow,
            _ => Answer::Deny {
                message: "denied".into(),
            },
        };
        let write = turn(&mut p, "WRITE it", decide).await;
        assert_eq!(write.asks.len(), 1, "{cli:?}: {write:?}");
        assert_eq!(write.asks[0].call.class, Some(ToolClass::Write), "{cli:?}");
        assert!(
            write.asks[0]
                .call
                .paths
                .iter()
                .all(|p| p.ends_with("denied.txt")),
            "{cli:?}: {:?}",
            write.asks[0].call.paths
        );
        if cli == Cli::Qwen && qwen_stops_at_a_refusal() {
            // Qwen Code 0.24 ends its turn at a refused permission without
            // asking the model again.
            assert_eq!(write.answer.as_deref(), Some(""), "{cli:?}: {write:?}");
            assert_eq!(server.turn_requests().len(), 1, "{cli:?}: {write:?}");
        } else {
            assert!(
                write
                    .answer
                    .as_deref()
                    .unwrap_or_default()
                    .contains("cancel"),
                "{cli:?}: the agent was told: {write:?}"
            );
        }
        p.close(Duration::from_secs(10)).await;
    });
    assert!(!file.exists(), "{cli:?} wrote the refused file");
}

#[test]
fn gemini_clis_permission_requests_are_answered_by_the_policy() {
    let model = Cli::Gemini.default_model().to_owned();
    acp_write_is_refused(Cli::Gemini, vec!["--acp".into(), "-m".into(), model], false);
}

#[test]
fn qwen_codes_permission_requests_are_answered_by_the_policy() {
    acp_write_is_refused(
        Cli::Qwen,
        vec!["--acp".into(), "--auth-type".into(), "openai".into()],
        true,
    );
}
