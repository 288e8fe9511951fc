//! `agentgate tool NAME`: fixture tools that misbehave, each run for real
//! under the runner (the supervisor, the sandbox, the store). Each must end
//! with its error code and class, leave no process behind, and lose nothing
//! of what it printed.

use agentgate_protocol::{ArtifactState, ExitMeaning, ToolErrorClass, ToolStatus};

use crate::suite::tool_support::{
    Project, is_tool_message, message_types, non_json_logs, pids_in, run_processes, tool_messages,
};

/// A tool that prints its pid (and its children's) to `$WORKSPACE/pids`.
const RECORD_PIDS: &str = "echo $$ >> \"$WORKSPACE/pids\"\n";

#[test]
fn every_line_is_kept_json_or_not_in_order() {
    let p = Project::new();
    p.tool(
        "chatty",
        "",
        "#!/bin/bash\n\
         echo '{\"v\":1,\"type\":\"start\",\"step\":\"s\"}'\n\
         echo 'plain text, not JSON'\n\
         printf 'caf\\xe9\\n'\n\
         echo '{\"v\":1,\"type\":\"progress\",\"pct\":50,\"msg\":\"half\"}'\n\
         echo '{\"v\":1,\"type\":\"metric_sample\",\"cpu\":0.5}'\n\
         echo '{\"v\":1,\"type\":\"progress\",\"pct\":\"half\"}'\n\
         echo 'to stderr' >&2\n\
         echo '{\"v\":1,\"type\":\"result\",\"status\":\"ok\",\"metrics\":{\"rows\":3}}'\n",
    );
    let (run, envelope) = p.run_tool(&["chatty"]);
    assert_eq!(envelope.status, ToolStatus::Ok, "{}", run.all_output());
    assert_eq!(run.code, Some(0));
    assert_eq!(envelope.metrics["rows"], 3);
    let events = p.events(&envelope.run_id);
    assert_eq!(
        message_types(&events),
        [
            "start",
            "log",
            "log",
            "progress",
            "metric_sample",
            "progress",
            "result"
        ]
    );
    assert_eq!(
        non_json_logs(&events),
        ["plain text, not JSON", "caf\u{fffd}"]
    );
    let messages = tool_messages(&events);
    assert_eq!(messages[2]["bytes_base64"], "Y2Fm6Q==");
    assert_eq!(messages[4]["cpu"], 0.5);
    assert_eq!(
        messages[5]["pct"], "half",
        "a malformed message is kept as it came"
    );
    assert!(envelope.warnings.iter().any(|w| w.contains("do not fit")));
    let stderr = std::fs::read_to_string(p.run_dir(&envelope.run_id).join("stderr.log")).unwrap();
    assert_eq!(stderr, "to stderr\n");
    assert_eq!(envelope.stderr_tail.as_deref(), Some("to stderr"));
}

#[test]
fn a_tool_that_never_heartbeats_ends_with_heartbeat_missed_and_leaves_nothing() {
    let p = Project::new();
    p.tool(
        "silent",
        "timeouts: {heartbeat_s: 1}\n",
        &format!(
            "#!/bin/bash\n{RECORD_PIDS}\
             echo '{{\"v\":1,\"type\":\"start\",\"step\":\"wait\"}}'\n\
             sleep 60 & echo $! >> \"$WORKSPACE/pids\"\nwait\n"
        ),
    );
    let (run, envelope) = p.run_tool(&["silent"]);
    assert_eq!(
        envelope.code.as_deref(),
        Some("E_HEARTBEAT_MISSED"),
        "{}",
        run.all_output()
    );
    assert_eq!(envelope.class, Some(ToolErrorClass::InfraError));
    assert!(envelope.retryable);
    assert_eq!(run.code, Some(124));
    let pids = pids_in(&std::path::Path::new(envelope.workspace.as_deref().unwrap()).join("pids"));
    assert_eq!(pids.len(), 2, "the tool and its child ran");
    assert_eq!(
        run_processes(&envelope.run_id),
        Vec::<u32>::new(),
        "a process survived"
    );
    assert_eq!(message_types(&p.events(&envelope.run_id)), ["start"]);
}

#[test]
fn a_tool_that_ignores_its_cancel_file_is_terminated_after_the_grace() {
    let p = Project::new();
    p.tool(
        "stubborn",
        "",
        &format!(
            "#!/bin/bash\ntrap '' INT TERM\n{RECORD_PIDS}\
             while :; do echo '{{\"v\":1,\"type\":\"heartbeat\"}}'; sleep 0.2; done\n"
        ),
    );
    let (events, envelope, code) =
        p.interrupt_tool(&["--cancel-grace", "1s", "stubborn"], is_tool_message, 1);
    assert_eq!(envelope.status, ToolStatus::Cancelled);
    assert_eq!(code, Some(130));
    let run_dir = p.run_dir(&envelope.run_id);
    assert!(
        run_dir.join("CANCEL").exists(),
        "CANCEL_FILE was created first"
    );
    let exit = envelope.tool_exit.clone().unwrap();
    assert_eq!(exit.signal.as_deref(), Some("SIGKILL"), "{exit:?}");
    assert_eq!(pids_in(&run_dir.join("work/pids")).len(), 1);
    assert_eq!(
        run_processes(&envelope.run_id),
        Vec::<u32>::new(),
        "a process survived"
    );
    assert_eq!(
        p.events(&envelope.run_id).len(),
        events.len(),
        "what was streamed is what is stored"
    );
}

#[test]
fn a_second_interrupt_kills_at_once_without_waiting_for_the_grace() {
    let p = Project::new();
    p.tool(
        "deaf",
        "",
        &format!(
            "#!/bin/bash\ntrap '' INT TERM\n{RECORD_PIDS}\
             while :; do echo '{{\"v\":1,\"type\":\"heartbeat\"}}'; sleep 0.2; done\n"
        ),
    );
    let (_, envelope, code) =
        p.interrupt_tool(&["--cancel-grace", "60s", "deaf"], is_tool_message, 2);
    assert_eq!(envelope.status, ToolStatus::Cancelled);
    assert_eq!(code, Some(130));
    let exit = envelope.tool_exit.clone().unwrap();
    assert_eq!(exit.signal.as_deref(), Some("SIGKILL"), "{exit:?}");
    assert!(
        envelope.duration_ms < 30_000,
        "the 60 s grace was not waited out ({} ms)",
        envelope.duration_ms
    );
    assert_eq!(
        pids_in(&p.run_dir(&envelope.run_id).join("work/pids")).len(),
        1
    );
    assert_eq!(
        run_processes(&envelope.run_id),
        Vec::<u32>::new(),
        "a process survived"
    );
}

#[test]
fn a_tool_that_honours_its_cancel_file_stops_by_itself() {
    let p = Project::new();
    p.tool(
        "polite",
        "",
        "#!/bin/bash\n\
         while [ ! -e \"$CANCEL_FILE\" ]; do echo '{\"v\":1,\"type\":\"heartbeat\"}'; sleep 0.1; done\n\
         echo '{\"v\":1,\"type\":\"cancelled\",\"reason\":\"cancel-file\"}'\nexit 130\n",
    );
    let (events, envelope, code) =
        p.interrupt_tool(&["--cancel-grace", "60s", "polite"], is_tool_message, 1);
    assert_eq!(envelope.status, ToolStatus::Cancelled);
    assert_eq!(code, Some(130));
    assert_eq!(envelope.tool_exit.clone().unwrap().code, Some(130));
    assert!(message_types(&events).contains(&"cancelled".to_owned()));
    assert!(
        envelope.duration_ms < 60_000,
        "it did not wait for the grace"
    );
}

#[test]
fn a_cpu_burner_is_stopped_at_its_cpu_limit() {
    let p = Project::new();
    p.tool(
        "burner",
        "resources: {cpu_seconds: 1}\n",
        "#!/bin/bash\nwhile :; do :; done\n",
    );
    let (run, envelope) = p.run_tool(&["burner"]);
    assert_eq!(
        envelope.code.as_deref(),
        Some("E_CPU_LIMIT"),
        "{}",
        run.all_output()
    );
    assert_eq!(envelope.class, Some(ToolErrorClass::InfraError));
    assert_eq!(run.code, Some(1));
    let limits = envelope.limits.unwrap();
    assert_eq!(
        limits.cpu.state,
        agentgate_protocol::EnforcementState::Enforced
    );
    assert!(envelope.cpu_ms.unwrap() >= 500);
}

#[test]
fn a_memory_hog_fails_under_its_memory_limit() {
    let p = Project::new();
    p.tool(
        "hog",
        "resources: {memory_mb: 64}\n",
        "#!/usr/bin/env python3\nblob = bytearray(512 * 1024 * 1024)\nprint('allocated', len(blob))\n",
    );
    let (run, envelope) = p.run_tool(&["hog"]);
    assert_eq!(
        envelope.code.as_deref(),
        Some("E_MEMORY_LIMIT"),
        "{}",
        run.all_output()
    );
    assert_eq!(envelope.class, Some(ToolErrorClass::InfraError));
    assert!(envelope.max_rss_kib.unwrap() < 64 * 1024);
    assert!(
        non_json_logs(&p.events(&envelope.run_id)).is_empty(),
        "nothing was allocated"
    );
}

#[test]
fn a_write_outside_the_allowed_paths_is_refused() {
    let p = Project::new();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("stolen.txt");
    p.tool(
        "trespasser",
        "",
        "#!/bin/bash\nset -e\necho inside > \"$WORKSPACE/inside.txt\"\necho x > \"$1\"\n",
    );
    let (run, envelope) = p.run_tool(&["trespasser", target.to_str().unwrap()]);
    assert!(!target.exists(), "the file was written outside");
    let workspace = std::path::PathBuf::from(envelope.workspace.clone().unwrap());
    assert!(workspace.join("inside.txt").exists());
    assert_eq!(
        envelope.code.as_deref(),
        Some("E_PERMISSION"),
        "{}",
        run.all_output()
    );
    assert_eq!(envelope.class, Some(ToolErrorClass::PolicyError));
    assert_eq!(
        envelope.limits.unwrap().filesystem.state,
        agentgate_protocol::EnforcementState::Enforced
    );
}

#[test]
fn a_connection_with_no_egress_allowed_never_arrives() {
    let p = Project::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    p.tool(
        "caller",
        "",
        "#!/usr/bin/env python3\nimport socket, sys\n\
         socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5)\n\
         print('connected')\n",
    );
    let (run, envelope) = p.run_tool(&["caller", &port.to_string()]);
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "the listener saw a connection");
    assert_eq!(
        envelope.code.as_deref(),
        Some("E_PERMISSION"),
        "{}",
        run.all_output()
    );
    assert_eq!(
        envelope.limits.unwrap().network.state,
        agentgate_protocol::EnforcementState::Enforced
    );
}

#[test]
fn a_gibibyte_on_stdout_is_cut_at_the_cap() {
    let p = Project::new();
    p.tool(
        "flood",
        "resources: {max_output_mb: 1}\n",
        &format!(
            "#!/bin/bash\n{RECORD_PIDS}\
             yes '{{\"v\":1,\"type\":\"heartbeat\",\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}' | head -c 1073741824\n"
        ),
    );
    let (run, envelope) = p.run_tool(&["flood"]);
    assert_eq!(
        envelope.code.as_deref(),
        Some("E_OUTPUT_LIMIT"),
        "{}",
        run.all_output()
    );
    let events = std::fs::metadata(p.run_dir(&envelope.run_id).join("events.jsonl"))
        .unwrap()
        .len();
    assert!(events < 4 * 1024 * 1024, "the events hold {events} bytes");
    assert_eq!(
        pids_in(&p.run_dir(&envelope.run_id).join("work/pids")).len(),
        1
    );
    assert_eq!(
        run_processes(&envelope.run_id),
        Vec::<u32>::new(),
        "a process survived"
    );
}

#[test]
fn exit_codes_map_through_the_manifest() {
    let p = Project::new();
    let codes = "exit_codes: {ok: 0, retryable_error: 20, fatal_error: 30}\n";
    p.tool("odd", codes, "#!/bin/bash\nexit \"$1\"\n");
    let (run, envelope) = p.run_tool(&["odd", "7"]);
    assert_eq!(envelope.code.as_deref(), Some("E_EXIT_UNEXPECTED"));
    assert_eq!(envelope.class, Some(ToolErrorClass::Unknown));
    assert!(!envelope.retryable);
    assert_eq!(run.code, Some(1));
    let exit = envelope.tool_exit.unwrap();
    assert_eq!(
        (exit.code, exit.meaning),
        (Some(7), ExitMeaning::Unexpected)
    );
    assert!(
        envelope
            .warnings
            .iter()
            .any(|w| w.contains("exit status 7"))
    );

    let (run, envelope) = p.run_tool(&["odd", "20"]);
    assert_eq!(envelope.code.as_deref(), Some("E_EXIT_RETRYABLE"));
    assert!(envelope.retryable);
    assert_eq!(run.code, Some(75));

    let (run, envelope) = p.run_tool(&["odd", "30"]);
    assert_eq!(envelope.code.as_deref(), Some("E_EXIT_FATAL"));
    assert_eq!(run.code, Some(1));

    // Exit 0 alone is no success: a `result` ends a run (see below).
    let (run, envelope) = p.run_tool(&["odd", "0"]);
    assert_eq!(
        envelope.code.as_deref(),
        Some("E_PROTOCOL"),
        "{}",
        run.all_output()
    );
}

#[test]
fn an_artifact_whose_hash_does_not_match_fails_the_run() {
    let p = Project::new();
    p.tool(
        "liar",
        "",
        "#!/bin/bash\nprintf abc > out.txt\n\
         echo '{\"v\":1,\"type\":\"result\",\"status\":\"ok\",\"artifacts\":[{\"path\":\"out.txt\",\"sha256\":\"'\"$1\"'\"}]}'\n",
    );
    let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    let (_, envelope) = p.run_tool(&["liar", &"0".repeat(64)]);
    assert_eq!(envelope.code.as_deref(), Some("E_ARTIFACT_MISMATCH"));
    assert_eq!(envelope.artifacts[0].state, ArtifactState::Mismatch);
    assert_eq!(envelope.artifacts[0].actual_sha256.as_deref(), Some(abc));

    let (_, envelope) = p.run_tool(&["liar", abc]);
    assert_eq!(envelope.status, ToolStatus::Ok);
    assert_eq!(envelope.artifacts[0].state, ArtifactState::Verified);
}

#[test]
fn a_tools_error_code_is_classed_by_the_registry() {
    let p = Project::new();
    p.error_codes(
        "version: 1\ncodes:\n  E_RATE_LIMIT: {class: retryable, retryable: true}\n  \
         E_INPUT_NOT_FOUND: {class: user_error, retryable: false}\n",
    );
    p.tool(
        "failing",
        "",
        "#!/bin/bash\necho '{\"v\":1,\"type\":\"error\",\"code\":\"'\"$1\"'\",\"msg\":\"it failed\",\"hint\":\"wait\",\"retryable\":true}'\nexit 1\n",
    );
    let (run, envelope) = p.run_tool(&["failing", "E_RATE_LIMIT"]);
    assert_eq!(envelope.class, Some(ToolErrorClass::Retryable));
    assert!(envelope.retryable);
    assert_eq!(run.code, Some(75));
    assert_eq!(envelope.error.as_deref(), Some("it failed"));
    assert_eq!(envelope.hint.as_deref(), Some("wait"));

    let (run, envelope) = p.run_tool(&["failing", "E_INPUT_NOT_FOUND"]);
    assert_eq!(envelope.class, Some(ToolErrorClass::UserError));
    assert!(!envelope.retryable);
    assert_eq!(run.code, Some(1));

    // A code the registry does not list, an exit status the manifest does
    // not name: the tool's own word decides.
    let (run, envelope) = p.run_tool(&["failing", "E_NOBODY_KNOWS"]);
    assert_eq!(envelope.class, Some(ToolErrorClass::Retryable));
    assert!(envelope.retryable, "the tool said retryable: true");
    assert_eq!(run.code, Some(75));
    assert!(
        envelope
            .warnings
            .iter()
            .any(|w| w.contains("`E_NOBODY_KNOWS` is not in the error codes registry: retryable, as the tool's error message says")),
        "{:?}",
        envelope.warnings
    );
}

/// Issue 31: the evidence in order: the registry's table for a code it
/// lists, else the manifest's meaning of the exit status, else the
/// message's own `retryable`.
#[test]
fn an_unlisted_codes_class_comes_from_the_exit_status_then_the_message() {
    let p = Project::new();
    p.error_codes(
        "version: 1\ncodes:\n  E_INPUT_NOT_FOUND: {class: user_error, retryable: false}\n",
    );
    p.tool(
        "says",
        "exit_codes: {ok: 0, retryable_error: 20, fatal_error: 30}\n",
        "#!/bin/bash\necho '{\"v\":1,\"type\":\"error\",\"code\":\"'\"$1\"'\",\"msg\":\"no\"'\"$3\"'}'\nexit \"$2\"\n",
    );
    let said = ",\"retryable\":true";
    let unsaid = ",\"retryable\":false";
    for (code, exit, says, class, retryable) in [
        // The registry lists it: its word, whatever the exit and message.
        (
            "E_INPUT_NOT_FOUND",
            "20",
            said,
            ToolErrorClass::UserError,
            false,
        ),
        // Unlisted: the manifest's retryable_error, even against the message.
        ("E_BUSY", "20", unsaid, ToolErrorClass::Retryable, true),
        ("E_BUSY", "20", "", ToolErrorClass::Retryable, true),
        // Unlisted: the manifest's fatal_error, even against the message.
        ("E_BUSY", "30", said, ToolErrorClass::Unknown, false),
        // Unlisted, an exit status without a meaning: the message.
        ("E_BUSY", "7", said, ToolErrorClass::Retryable, true),
        ("E_BUSY", "7", unsaid, ToolErrorClass::Unknown, false),
        ("E_BUSY", "7", "", ToolErrorClass::Unknown, false),
    ] {
        let (run, envelope) = p.run_tool(&["says", code, exit, says]);
        let case = format!("{code} exit {exit} {says}: {}", run.all_output());
        assert_eq!(envelope.code.as_deref(), Some(code), "{case}");
        assert_eq!(envelope.class, Some(class), "{case}");
        assert_eq!(envelope.retryable, retryable, "{case}");
        assert_eq!(run.code, Some(if retryable { 75 } else { 1 }), "{case}");
    }
}

/// Issue 31: a `result` or an `error` ends a run (seed 002): exiting ok
/// without a valid `result` is a protocol error, unless the manifest says
/// the tool reports by its exit status alone.
#[test]
fn exiting_ok_without_a_valid_result_is_a_protocol_error() {
    let p = Project::new();
    p.tool("mute", "", "#!/bin/bash\necho 'all done'\n");
    p.tool(
        "garbled",
        "",
        "#!/bin/bash\necho '{\"v\":1,\"type\":\"result\",\"status\":\"ok\"'\n",
    );
    p.tool(
        "misfit",
        "",
        "#!/bin/bash\necho '{\"v\":1,\"type\":\"result\",\"status\":7}'\n",
    );
    p.tool(
        "twice",
        "",
        "#!/bin/bash\necho '{\"v\":1,\"type\":\"result\",\"status\":\"failed\",\"status\":\"ok\"}'\n",
    );
    p.tool(
        "plain",
        "result_required: false\n",
        "#!/bin/bash\necho 'all done'\n",
    );
    for (tool, why) in [
        ("mute", None),
        ("garbled", None),
        ("misfit", Some("does not fit the protocol")),
        ("twice", Some("duplicate key `status`")),
    ] {
        let (run, envelope) = p.run_tool(&[tool]);
        let case = format!("{tool}: {}", run.all_output());
        assert_eq!(envelope.status, ToolStatus::Error, "{case}");
        assert_eq!(envelope.code.as_deref(), Some("E_PROTOCOL"), "{case}");
        assert_eq!(envelope.class, Some(ToolErrorClass::Unknown), "{case}");
        assert!(!envelope.retryable, "{case}");
        assert_eq!(run.code, Some(1), "{case}");
        let error = envelope.error.clone().unwrap();
        assert!(error.contains("without a valid `result` message"), "{case}");
        if let Some(why) = why {
            assert!(error.contains(why), "{case}");
        }
        assert_eq!(envelope.tool_exit.unwrap().meaning, ExitMeaning::Ok);
    }
    let (run, envelope) = p.run_tool(&["plain"]);
    assert_eq!(envelope.status, ToolStatus::Ok, "{}", run.all_output());
    assert_eq!(run.code, Some(0));
    assert!(envelope.warnings.is_empty(), "{:?}", envelope.warnings);
}

/// The repository's own example registry (examples/tools), as
/// docs/guide/tools.md shows it: a shell tool, its input copied into the workspace.
#[test]
fn the_readme_example_runs_and_is_recorded_as_a_tool_run() {
    let p = Project::new();
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tools");
    let status = std::process::Command::new("cp")
        .args(["-r", examples.to_str().unwrap(), p.root().to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success());
    let notes = p.root().join("notes.txt");
    std::fs::write(&notes, "one two three four\nfive\n").unwrap();
    let (run, envelope) = p.run_tool(&[
        "--copy-in",
        notes.to_str().unwrap(),
        "word_count",
        "--input",
        "notes.txt",
        "--output",
        "count.json",
    ]);
    assert_eq!(envelope.status, ToolStatus::Ok, "{}", run.all_output());
    assert_eq!(envelope.metrics["words"], 5);
    assert_eq!(envelope.artifacts[0].state, ArtifactState::Verified);
    assert_eq!(
        message_types(&p.events(&envelope.run_id)),
        ["start", "progress", "result"]
    );

    let (run, envelope) = p.run_tool(&["word_count", "--input", "gone.txt", "--output", "x"]);
    assert_eq!(envelope.code.as_deref(), Some("E_INPUT_NOT_FOUND"));
    assert_eq!(
        envelope.class,
        Some(ToolErrorClass::UserError),
        "the seed's error codes file"
    );
    assert_eq!(run.code, Some(1));

    let listed = crate::suite::support::run_bounded(
        p.command(&["runs", "--json"]),
        std::time::Duration::from_secs(30),
    );
    let runs: Vec<serde_json::Value> = listed
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(runs.len(), 2, "{}", listed.all_output());
    for r in &runs {
        assert_eq!(r["record"]["kind"], "tool", "{r}");
        assert_eq!(r["record"]["providers"][0], "word_count");
    }
}

#[test]
fn the_policy_refuses_wildcard_egress_before_anything_runs() {
    let p = Project::new();
    p.tool(
        "leaky",
        "permissions: {network: {egress_allow: [\"*\"]}}\n",
        "#!/bin/bash\ntouch \"$WORKSPACE/ran\"\n",
    );
    let (run, envelope) = p.run_tool(&["leaky"]);
    assert_eq!(
        envelope.code.as_deref(),
        Some("E_POLICY"),
        "{}",
        run.all_output()
    );
    assert_eq!(envelope.class, Some(ToolErrorClass::PolicyError));
    assert_eq!(run.code, Some(2));
    assert!(envelope.tool_exit.is_none());
    let workspace = std::path::PathBuf::from(envelope.workspace.unwrap());
    assert!(!workspace.join("ran").exists(), "the tool ran");
    assert!(envelope.error.unwrap().contains("egress"));
}

#[test]
fn the_environment_is_scoped_and_a_required_secret_is_redacted() {
    let p = Project::new();
    p.tool(
        "envy",
        "env: {require: [SERVICE_TOKEN]}\n",
        "#!/bin/bash\nenv | sort\necho '{\"v\":1,\"type\":\"result\",\"status\":\"ok\"}'\n",
    );
    let mut cmd = p.command(&["tool", "envy"]);
    cmd.env("SERVICE_TOKEN", "tok-3f9a7c1e5b")
        .env("UNRELATED_SECRET", "not-for-tools-8d2e");
    let run = crate::suite::support::run_bounded(cmd, crate::suite::tool_support::LIMIT);
    let envelope: agentgate_protocol::ToolEnvelope =
        serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(envelope.status, ToolStatus::Ok, "{}", run.all_output());
    let lines = non_json_logs(&p.events(&envelope.run_id));
    let has = |prefix: &str| lines.iter().any(|l| l.starts_with(prefix));
    assert!(has("SERVICE_TOKEN=[redacted"), "{lines:?}");
    assert!(
        !lines.iter().any(|l| l.contains("tok-3f9a7c1e5b")),
        "the secret is in the events"
    );
    assert!(
        !has("UNRELATED_SECRET="),
        "a variable the manifest does not require reached the tool"
    );
    for name in [
        "RUN_ID=",
        "TRACE_ID=",
        "WORKSPACE=",
        "DEADLINE_TS=",
        "CANCEL_FILE=",
        "AI_PROTOCOL_VERSION=1",
        "LOG_DIR=",
        "PATH=",
    ] {
        assert!(has(name), "{name} is missing: {lines:?}");
    }
    let events = std::fs::read_to_string(p.run_dir(&envelope.run_id).join("events.jsonl")).unwrap();
    assert!(!events.contains("tok-3f9a7c1e5b"));

    let (run, envelope) = p.run_tool(&["envy"]);
    assert_eq!(
        envelope.code.as_deref(),
        Some("E_ENV_MISSING"),
        "{}",
        run.all_output()
    );
    assert_eq!(envelope.class, Some(ToolErrorClass::UserError));
}

/// Issue 31: a tool whose read paths hold agentgate's data folder (the
/// store, the token) and its config file cannot read them, while the
/// folder's other files stay readable.
#[test]
fn a_tool_that_reads_the_project_cannot_read_agentgates_own_files() {
    let p = Project::new();
    let root = std::fs::canonicalize(p.root()).unwrap();
    std::fs::write(
        root.join("agentgate.yaml"),
        "version: 1\n# config-secret-41c7\n",
    )
    .unwrap();
    std::fs::write(p.home().join("token"), "token-secret-9e02").unwrap();
    std::fs::write(root.join("notes.txt"), "notes-readable").unwrap();
    p.tool(
        "nosy",
        &format!(
            "permissions:\n  filesystem:\n    read: [\"{}/**\"]\n",
            root.display()
        ),
        &format!(
            "#!/bin/bash\nfor f in notes.txt agentgate.yaml home/token home/agentgate.db; do \
             cat {root}/$f 2>&1; echo; done\n\
             echo '{{\"v\":1,\"type\":\"result\",\"status\":\"ok\"}}'\n",
            root = root.display()
        ),
    );
    let (run, envelope) = p.run_tool(&["nosy"]);
    assert_eq!(envelope.status, ToolStatus::Ok, "{}", run.all_output());
    let said = non_json_logs(&p.events(&envelope.run_id)).join("\n");
    assert!(said.contains("notes-readable"), "{said}");
    for secret in ["config-secret-41c7", "token-secret-9e02", "SQLite"] {
        assert!(!said.contains(secret), "{secret} leaked: {said}");
    }
    assert_eq!(said.matches("Permission denied").count(), 3, "{said}");
    let limits = envelope.limits.unwrap();
    assert_eq!(
        limits.private_files.state,
        agentgate_protocol::EnforcementState::Enforced,
        "{:?}",
        limits.private_files
    );
    assert_eq!(
        limits.processes.state,
        agentgate_protocol::EnforcementState::Enforced
    );
}
