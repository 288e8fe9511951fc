//! A warm process end to end with a stand-in of Claude Code's long-lived
//! mode (a bash script speaking its stream-json input and control
//! requests): three turns in one process, a permission request answered
//! both ways, an interrupt, and the process's death seen as such. The real
//! CLIs are driven by the agentgate crate's end-to-end tests.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers fail loudly"
)]

use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::time::Duration;

use agentgate_core::warm::claude::ClaudeWarm;
use agentgate_core::warm::process::{Step, WarmProcess, WarmStart};
use agentgate_core::warm::{Answer, PermissionAsk};
use agentgate_protocol::EventBody;
use agentgate_providers::claude::ClaudeDecoder;
use agentgate_providers::decode::Decoded;
use agentgate_supervise::{Invocation, SupervisorConfig, TerminationTable};

/// Reads user lines; `ASK` asks to write a file and reports the answer;
/// `TWICE` asks the same write twice, then waits; `HANG` waits for an
/// interrupt; anything else is echoed. Each turn ends
/// with a `result` naming the process.
const STAND_IN: &str = r#"#!/bin/bash
sid="sess-$$"
while IFS= read -r line; do
  case "$line" in
    *control_request*interrupt*)
      echo '{"type":"control_response","response":{"subtype":"success","request_id":"x"}}'
      echo "{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"is_error\":true,\"result\":\"\",\"session_id\":\"$sid\"}"
      continue;;
  esac
  echo "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"$sid\",\"model\":\"stand-in\"}"
  case "$line" in
    *ASK*)
      echo '{"type":"control_request","request_id":"req-1","request":{"subtype":"can_use_tool","tool_name":"Write","input":{"file_path":"notes.txt","content":"x"},"tool_use_id":"toolu_1"}}'
      IFS= read -r answer
      case "$answer" in
        *'"behavior":"allow"'*updatedInput*) verdict=allowed;;
        *'"behavior":"deny"'*) verdict=denied;;
        *) verdict=malformed;;
      esac
      echo "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"$verdict\",\"session_id\":\"$sid\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}";;
    *TWICE*)
      # The same call asked twice in one turn; then it waits for the
      # interrupt, as Claude does when its call was refused.
      for id in req-1 req-2; do
        echo "{\"type\":\"control_request\",\"request_id\":\"$id\",\"request\":{\"subtype\":\"can_use_tool\",\"tool_name\":\"Write\",\"input\":{\"file_path\":\"notes.txt\",\"content\":\"x\"},\"tool_use_id\":\"toolu_1\"}}"
        IFS= read -r answer
      done;;
    *HANG*) ;;
    *)
      echo "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"pid $$\",\"session_id\":\"$sid\",\"usage\":{\"input_tokens\":10,\"output_tokens\":2}}";;
  esac
done
"#;

fn stand_in() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("claude");
    std::fs::write(&path, STAND_IN).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    (dir, path)
}

async fn start(program: &PathBuf) -> WarmProcess {
    WarmProcess::start(WarmStart {
        invocation: Invocation::new(program),
        supervisor: SupervisorConfig {
            timeout: None,
            idle_timeout: None,
            grace: TerminationTable {
                interrupt_grace: Duration::from_millis(300),
                terminate_grace: Duration::from_millis(300),
            },
            keeper: Some(PathBuf::from(env!("CARGO_BIN_EXE_fixture-keeper"))),
            ..SupervisorConfig::default()
        },
        protocol: Box::new(ClaudeWarm::new()),
        decoder: Box::new(ClaudeDecoder::new()),
        open_timeout: Duration::from_secs(10),
    })
    .await
    .unwrap()
}

/// The turn's steps to its end, asks answered by `answer`.
async fn turn(
    p: &mut WarmProcess,
    prompt: &str,
    answer: impl Fn(&PermissionAsk) -> Answer,
) -> (Option<String>, Vec<PermissionAsk>) {
    p.send_turn(prompt).await.unwrap();
    let mut text = None;
    let mut asks = Vec::new();
    loop {
        let step = tokio::time::timeout(Duration::from_secs(20), p.next())
            .await
            .unwrap();
        match step {
            Step::Output(items) => {
                for item in items {
                    if let Decoded::Final(f) = item {
                        text = f.text;
                    }
                }
            }
            Step::Ask(ask) => {
                p.answer(&ask, &answer(&ask)).await.unwrap();
                asks.push(ask);
            }
            Step::TurnEnd => return (text, asks),
            Step::Withdrawn(_) => {}
            Step::Died(report) => panic!("died: {report:?}"),
        }
    }
}

#[tokio::test]
async fn three_turns_are_served_by_one_process() {
    let (_dir, program) = stand_in();
    let mut p = start(&program).await;
    let mut answers = Vec::new();
    for prompt in ["one", "two", "three"] {
        let (text, _) = turn(&mut p, prompt, |_| Answer::Allow).await;
        answers.push(text.unwrap());
    }
    assert!(answers[0].starts_with("pid "), "{answers:?}");
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[1], answers[2]);
    assert_eq!(p.turns(), 3);
    assert!(p.is_alive());
    let report = p.close(Duration::from_secs(5)).await.unwrap();
    assert_eq!(report.status.code, Some(0), "it ended at end of file");
}

#[tokio::test]
async fn a_permission_request_is_answered_both_ways() {
    let (_dir, program) = stand_in();
    let mut p = start(&program).await;
    let (allowed, asks) = turn(&mut p, "ASK", |_| Answer::Allow).await;
    assert_eq!(allowed.as_deref(), Some("allowed"));
    assert_eq!(asks.len(), 1);
    assert_eq!(asks[0].call.tool, "Write");
    assert_eq!(asks[0].call.paths, ["notes.txt"]);
    let (denied, _) = turn(&mut p, "ASK", |_| Answer::Deny {
        message: "no writes".into(),
    })
    .await;
    assert_eq!(denied.as_deref(), Some("denied"));
    p.kill().await;
}

#[tokio::test]
async fn an_interrupted_turn_ends_and_a_killed_process_is_seen_dead() {
    let (_dir, program) = stand_in();
    let mut p = start(&program).await;
    p.send_turn("HANG").await.unwrap();
    // The turn runs (its init came) until interrupted.
    match tokio::time::timeout(Duration::from_secs(20), p.next())
        .await
        .unwrap()
    {
        Step::Output(items) => assert!(
            items
                .iter()
                .any(|d| matches!(d, Decoded::Event(EventBody::Session(_)))),
            "{items:?}"
        ),
        other => panic!("{other:?}"),
    }
    p.interrupt().await.unwrap();
    let mut ended = false;
    for _ in 0..10 {
        match tokio::time::timeout(Duration::from_secs(20), p.next())
            .await
            .unwrap()
        {
            Step::TurnEnd => {
                ended = true;
                break;
            }
            Step::Died(r) => panic!("died: {r:?}"),
            _ => {}
        }
    }
    assert!(ended);
    // The next turn still works in the same process.
    let (text, _) = turn(&mut p, "after", |_| Answer::Allow).await;
    assert!(text.unwrap().starts_with("pid "));
    // Killed, it is seen dead, and its next step says so.
    let report = p.kill().await;
    assert!(report.is_some());
    assert!(!p.is_alive());
    assert!(matches!(p.next().await, Step::Died(_)));
}

#[derive(Default)]
struct Events(Vec<agentgate_protocol::Event>);

impl agentgate_core::EventSink for Events {
    fn emit(&mut self, event: &agentgate_protocol::Event) {
        self.0.push(event.clone());
    }
}

/// Through the run engine (permission mode `ask`, the default policy that
/// denies everything): a call the policy refused, asked again in the same
/// turn, is refused without asking, the turn is interrupted and ends with
/// a `policy` error; both decisions are events and counted.
#[tokio::test]
async fn a_refused_call_asked_again_stops_the_turn() {
    use agentgate_core::{Plan, Step};
    use agentgate_core::{RunOptions, run};
    use agentgate_protocol::{DecidedBy, ErrorKind};
    use agentgate_providers::{CliRequest, PermissionMode, builtin};

    let (dir, program) = stand_in();
    let request = CliRequest {
        prompt: "TWICE".into(),
        permission_mode: PermissionMode::Ask,
        cwd: dir.path().to_path_buf(),
        ..CliRequest::default()
    };
    let mut step = Step::new(builtin("claude").unwrap(), request);
    step.binary = Some(program);
    step.timeout = Some(Duration::from_secs(30));
    let plan = Plan::single(step);
    let options = RunOptions {
        keeper: Some(PathBuf::from(env!("CARGO_BIN_EXE_fixture-keeper"))),
        ..RunOptions::default()
    };
    let mut events = Events::default();
    let (_cancel, rx) = tokio::sync::mpsc::channel(1);
    let outcome = run(&plan, &options, None, &mut events, rx).await;
    let env = &outcome.envelope;
    let bys: Vec<DecidedBy> = events
        .0
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ApprovalDecision(d) => Some(d.by),
            _ => None,
        })
        .collect();
    assert_eq!(bys, [DecidedBy::Policy, DecidedBy::Repeat], "{env:#?}");
    assert_eq!(env.error_type, Some(ErrorKind::Policy), "{env:#?}");
    let counts = env.approvals.clone().unwrap();
    assert_eq!((counts.requested, counts.denied), (2, 2));
    assert!(!dir.path().join("notes.txt").exists());
}
