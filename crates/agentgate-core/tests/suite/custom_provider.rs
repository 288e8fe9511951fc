//! Described CLIs (`providers:` entries with a `command:`) as the config
//! loader builds them: their argv tables and their decoders, from YAML
//! through `agentgate_core::config` to `agentgate_providers::custom`.
//! (These were the unit tests of `custom/`; they need the config loader,
//! which lives above the providers crate.)

#[cfg(test)]
mod argv_table {
    use std::path::PathBuf;

    use std::path::Path;

    use agentgate_core::{Config, ConfigSource};
    use agentgate_providers::custom::*;
    use agentgate_providers::{
        CliRequest, CommandError, PermissionMode, Provider, Scratch, Verification,
    };

    fn provider(yaml: &str) -> CustomProvider {
        let cfg = Config::parse(
            &format!("version: 1\nproviders:\n  mycli:\n{yaml}"),
            ConfigSource::Flag(PathBuf::from("/etc/agentgate.yaml")),
        )
        .unwrap();
        cfg.provider("mycli").unwrap()
    }

    fn req() -> CliRequest {
        CliRequest {
            prompt: "do it".into(),
            cwd: PathBuf::from("/work"),
            ..CliRequest::default()
        }
    }

    fn argv(p: &CustomProvider, r: &CliRequest) -> Result<Vec<String>, CommandError> {
        p.command(r, Path::new("/bin/mycli"), &Scratch::at("/tmp"))
            .map(|plan| plan.display_args())
    }

    #[test]
    fn groups_model_resume_and_permissions_build_the_argv() {
        let p = provider(
            r#"    command: [mycli, -p, [--model, "{model}"], --cwd, "{cwd}"]
    resume: [--resume, "{session}"]
    permission_modes: {bypass: [--yolo], plan: [--mode, plan]}
    output: jsonl
    final: {type: result}
    text: /result
    session_id: /session_id
    env: {MYCLI_SYSTEM: "{system}", MYCLI_QUIET: "1"}
"#,
        );
        let plan = p
            .command(&req(), Path::new("/bin/mycli"), &Scratch::at("/tmp"))
            .unwrap();
        assert_eq!(plan.display_args(), ["-p", "--cwd", "/work"]);
        assert_eq!(plan.stdin.as_deref(), Some(&b"do it"[..]));
        assert_eq!(plan.env, [("MYCLI_QUIET".into(), "1".into())]);
        assert_eq!(plan.program, PathBuf::from("/bin/mycli"));
        let r = CliRequest {
            model: Some("m1".into()),
            resume: Some("S1".into()),
            system: Some("Be brief.".into()),
            permission_mode: PermissionMode::Bypass,
            extra_args: vec!["--debug".into()],
            ..req()
        };
        let plan = p
            .command(&r, Path::new("/bin/mycli"), &Scratch::at("/tmp"))
            .unwrap();
        assert_eq!(
            plan.display_args(),
            [
                "-p", "--model", "m1", "--cwd", "/work", "--yolo", "--resume", "S1", "--debug"
            ]
        );
        assert!(
            plan.env
                .contains(&("MYCLI_SYSTEM".into(), "Be brief.".into()))
        );
        let f = p.features();
        assert!(f.streaming && f.resume && f.permission_modes && !f.usage && !f.reasoning);
        assert_eq!(p.verification(), Verification::Config);
        assert_eq!(p.adapter_kind(), "config");
        assert_eq!(p.binary_name(), "mycli");
        assert_eq!(p.binary_env(), "AGENTGATE_MYCLI_BIN");
    }

    #[test]
    fn what_the_config_cannot_express_is_refused_with_a_reason() {
        let p = provider("    command: [mycli, \"{prompt}\"]\n");
        assert_eq!(argv(&p, &req()).unwrap(), ["do it"]);
        let plan = p
            .command(&req(), Path::new("/bin/mycli"), &Scratch::at("/tmp"))
            .unwrap();
        assert_eq!(plan.stdin, None);
        for (r, want) in [
            (
                CliRequest {
                    model: Some("m".into()),
                    ..req()
                },
                "mycli cannot take --model: its config uses no {model} placeholder",
            ),
            (
                CliRequest {
                    resume: Some("S".into()),
                    ..req()
                },
                "mycli cannot resume a session",
            ),
            (
                CliRequest {
                    permission_mode: PermissionMode::Plan,
                    ..req()
                },
                "`permission_modes.plan`",
            ),
            (
                CliRequest {
                    add_dirs: vec![PathBuf::from("/x")],
                    ..req()
                },
                "--add-dir",
            ),
        ] {
            let e = argv(&p, &r).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
        // A plain argument needs its value.
        let p = provider("    command: [mycli, --model, \"{model}\"]\n");
        let e = argv(&p, &req()).unwrap_err().to_string();
        assert!(e.contains("{model}"), "{e}");
    }

    #[test]
    fn a_resume_command_replaces_the_fresh_one() {
        let p = provider(
            r#"    command: [mycli, exec, --json, "-"]
    resume_command: [mycli, exec, resume, --json, "{session}", "-"]
    output: jsonl
    message: {match: {type: message}, text: /text}
    session_id: /thread_id
"#,
        );
        assert_eq!(argv(&p, &req()).unwrap(), ["exec", "--json", "-"]);
        let r = CliRequest {
            resume: Some("T1".into()),
            ..req()
        };
        assert_eq!(
            argv(&p, &r).unwrap(),
            ["exec", "resume", "--json", "T1", "-"]
        );
    }

    #[test]
    fn a_spec_built_in_code_is_validated() {
        let cfg = Config::parse(
            "version: 1\nproviders:\n  ok:\n    command: [x]\n",
            ConfigSource::Default,
        )
        .unwrap();
        let mut spec = cfg.providers[0].clone();
        spec.name = "codex".into();
        let e = CustomProvider::new(spec).unwrap_err();
        assert!(e.message.contains("built-in"), "{e}");
    }
}

#[cfg(test)]
mod decoder {
    use std::path::PathBuf;

    use std::sync::Arc;

    use agentgate_core::{Config, ConfigSource};
    use agentgate_protocol::{EventBody, UsageScope};
    use agentgate_providers::custom::*;
    use agentgate_providers::decode::*;

    fn decoder(yaml: &str) -> CustomDecoder {
        let cfg = Config::parse(
            &format!("version: 1\nproviders:\n  mycli:\n    command: [mycli]\n{yaml}"),
            ConfigSource::Flag(PathBuf::from("/etc/agentgate.yaml")),
        )
        .unwrap();
        CustomDecoder::new(Arc::new(cfg.providers[0].output.clone()))
    }

    fn decode(d: &mut CustomDecoder, stdout: &str) -> Vec<Decoded> {
        let mut out = Vec::new();
        for line in stdout.lines() {
            d.stdout_line(line.as_bytes(), &mut out);
        }
        d.finish(&mut out);
        out
    }

    fn finals(out: &[Decoded]) -> Vec<&ProviderFinal> {
        out.iter()
            .filter_map(|d| match d {
                Decoded::Final(f) => Some(f),
                _ => None,
            })
            .collect()
    }

    fn errors(out: &[Decoded]) -> Vec<&ProviderError> {
        out.iter()
            .filter_map(|d| match d {
                Decoded::ProviderError(e) => Some(e),
                _ => None,
            })
            .collect()
    }

    fn events(out: &[Decoded]) -> Vec<&EventBody> {
        out.iter()
            .filter_map(|d| match d {
                Decoded::Event(e) => Some(e),
                _ => None,
            })
            .collect()
    }

    const CLAUDE: &str = r#"    output: jsonl
    final: {type: result}
    text: /result
    session_id: /session_id
    message: {match: {type: assistant}, text: /message/content/0/text}
    usage:
      input_tokens: [/usage/input_tokens, /usage/cache_read_input_tokens, /usage/cache_creation_input_tokens]
      output_tokens: /usage/output_tokens
      cache_read_input_tokens: /usage/cache_read_input_tokens
      cost_usd: /total_cost_usd
    error: {message: /result, status: /api_error_status, is_error: /is_error}
    tool_use:
      match: {type: assistant, /message/content/0/type: tool_use}
      id: /message/content/0/id
      name: /message/content/0/name
      input: /message/content/0/input
    tool_result:
      match: {type: user, /message/content/0/type: tool_result}
      id: /message/content/0/tool_use_id
      output: /message/content/0/content
      is_error: /message/content/0/is_error
"#;

    #[test]
    fn claude_stream_json_decodes_through_pointers() {
        let mut d = decoder(CLAUDE);
        let stdout = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../agentgate-providers/tests/fixtures/decode/claude/tool_stream_json.stdout"
        ))
        .unwrap();
        let out = decode(&mut d, &stdout);
        let ev = events(&out);
        assert!(
            matches!(ev[0], EventBody::Session(s) if s.session_id == "358ff9e1-c88e-4a8a-b341-e15832f54555")
        );
        let messages: Vec<&str> = ev
            .iter()
            .filter_map(|e| match e {
                EventBody::Message(m) => Some(m.text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(messages, ["I'll run the command.", "done"]);
        let tools: Vec<String> = ev
            .iter()
            .filter_map(|e| match e {
                EventBody::ToolUse(t) => {
                    Some(format!("{} {} {:?} {}", t.id, t.name, t.class, t.input))
                }
                EventBody::ToolResult(r) => Some(format!("{} ok={} {:?}", r.id, r.ok, r.output)),
                _ => None,
            })
            .collect();
        assert_eq!(
            tools,
            [
                "toolu_1a0e89e60cc14b24af90 Bash Shell {\"command\":\"echo hello > hello.txt\"}",
                "toolu_1a0e89e60cc14b24af90 ok=true \"(Bash completed with no output)\""
            ]
        );
        // Lines the config does not describe are kept.
        assert!(ev.iter().any(|e| matches!(e, EventBody::Raw(_))));
        let f = finals(&out);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].text.as_deref(), Some("done"));
        assert!(!f[0].is_error);
        let u = f[0].usage.as_ref().unwrap();
        assert_eq!(
            (u.input_tokens, u.output_tokens, u.total_tokens),
            (38104, 14, 38118)
        );
        assert!((u.cost_usd.unwrap() - 0.19087).abs() < 1e-9, "{u:?}");
        assert!(errors(&out).is_empty());
    }

    #[test]
    fn an_error_result_is_a_terminal_provider_error_with_its_status() {
        let mut d = decoder(CLAUDE);
        let stdout = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../agentgate-providers/tests/fixtures/decode/claude/err_429_maxretry2_stream_json.stdout"
        ))
        .unwrap();
        let out = decode(&mut d, &stdout);
        let e = errors(&out);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].http_status, Some(429));
        assert!(e[0].terminal);
        assert!(
            e[0].message
                .starts_with("API Error: Request rejected (429)"),
            "{}",
            e[0].message
        );
        assert!(finals(&out)[0].is_error);
    }

    #[test]
    fn jsonl_error_lines_and_per_call_usage() {
        let mut d = decoder(
            r#"    output: jsonl
    message: {match: {type: [text, answer]}, text: /part/text}
    session_id: /sessionID
    usage: {match: {type: step_finish}, input_tokens: /tokens/input, output_tokens: /tokens/output, cost_usd: /cost}
    error: {match: {type: error}, message: /error/data/message, status: /error/data/statusCode, code: /error/name}
"#,
        );
        let out = decode(
            &mut d,
            concat!(
                "{\"type\":\"step_start\",\"sessionID\":\"ses_1\"}\n",
                "{\"type\":\"text\",\"part\":{\"text\":\"hi\"}}\n",
                "{\"type\":\"step_finish\",\"tokens\":{\"input\":10,\"output\":2},\"cost\":0.5}\n",
                "{\"type\":\"step_finish\",\"tokens\":{\"input\":20,\"output\":3}}\n",
                "not json\n",
                "{\"type\":\"error\",\"error\":{\"name\":\"APIError\",\"data\":{\"message\":\"Too Many Requests\",\"statusCode\":429}}}\n",
            ),
        );
        let ev = events(&out);
        assert!(matches!(ev[0], EventBody::Session(s) if s.session_id == "ses_1"));
        let usage: Vec<(u64, u64, Option<f64>)> = ev
            .iter()
            .filter_map(|e| match e {
                EventBody::Usage(u) if u.scope == UsageScope::Turn => Some((
                    u.usage.input_tokens,
                    u.usage.output_tokens,
                    u.usage.cost_usd,
                )),
                _ => None,
            })
            .collect();
        assert_eq!(usage, [(10, 2, Some(0.5)), (20, 3, None)]);
        let raws = ev.iter().filter(|e| matches!(e, EventBody::Raw(_))).count();
        // The step_start line (a session id only) and the non-JSON line.
        assert_eq!(raws, 2);
        let e = errors(&out);
        assert_eq!(e[0].message, "Too Many Requests");
        assert_eq!(e[0].http_status, Some(429));
        assert_eq!(e[0].code.as_deref(), Some("APIError"));
        assert!(e[0].terminal);
        // Without `final`, a stream that had a message ends with a record
        // (no text of its own); the terminal error still decides the run.
        let f = finals(&out);
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].text.as_deref(), f[0].session_id.as_deref()),
            (None, Some("ses_1"))
        );
    }

    const CODEX: &str = r#"    output: jsonl
    message: {match: {type: item.completed, /item/type: agent_message}, text: /item/text}
    session_id: /thread_id
    usage: {match: {type: turn.completed}, input_tokens: /usage/input_tokens, output_tokens: /usage/output_tokens}
    error: {match: {type: [error, turn.failed]}, message: [/error/message, /message], terminal: false}
"#;

    fn fixture(path: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/../agentgate-providers/tests/fixtures/decode/{path}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    #[test]
    fn notice_errors_only_type_a_failure_the_exit_status_reveals() {
        use agentgate_providers::{ClassifyInput, classify};
        let mut d = decoder(CODEX);
        let out = decode(&mut d, &fixture("codex/err_429_json.stdout"));
        let e = errors(&out);
        assert_eq!(e.len(), 7);
        assert!(e.iter().all(|e| !e.terminal));
        let tz = jiff::tz::TimeZone::UTC;
        let now = jiff::Timestamp::now();
        let owned: Vec<ProviderError> = e.into_iter().cloned().collect();
        let failed = ClassifyInput {
            errors: &owned,
            exit_code: Some(1),
            provider: "codex-cfg",
            ..ClassifyInput::new(&agentgate_providers::GENERIC, now, &tz)
        };
        let info = classify(&failed).unwrap();
        assert_eq!(
            info.kind,
            agentgate_protocol::ErrorKind::RateLimit,
            "{info:?}"
        );
        // The same notices before a clean exit: the CLI recovered.
        let recovered = ClassifyInput {
            exit_code: Some(0),
            ..failed
        };
        assert_eq!(classify(&recovered), None);
        // A plain answer.
        let mut d = decoder(CODEX);
        let out = decode(&mut d, &fixture("codex/text_json.stdout"));
        let ev = events(&out);
        assert!(matches!(ev[0], EventBody::Session(_)));
        assert!(
            ev.iter()
                .any(|e| matches!(e, EventBody::Message(m) if m.text == "done"))
        );
        assert!(
            ev.iter()
                .any(|e| matches!(e, EventBody::Usage(u) if u.usage.input_tokens == 9510))
        );
    }

    #[test]
    fn a_json_document_is_the_final_record_even_after_a_banner() {
        let spec = r#"    output: json
    text: /response
    session_id: /session_id
    usage: {input_tokens: /stats/in, output_tokens: /stats/out}
    error: {message: /error/message, code: /error/type}
"#;
        let mut d = decoder(spec);
        let out = decode(
            &mut d,
            "{\n  \"response\": \"Paris.\",\n  \"session_id\": \"s9\",\n  \"stats\": {\"in\": 5, \"out\": 1}\n}\n",
        );
        let f = finals(&out);
        assert_eq!(f[0].text.as_deref(), Some("Paris."));
        assert_eq!(f[0].session_id.as_deref(), Some("s9"));
        assert_eq!(f[0].usage.as_ref().unwrap().total_tokens, 6);
        assert!(errors(&out).is_empty());
        // Without is_error, an error object makes the record an error.
        let mut d = decoder(spec);
        let out = decode(
            &mut d,
            "Loaded cached credentials.\n{\"error\": {\"type\": \"auth\", \"message\": \"bad key\"}}\n",
        );
        assert!(matches!(events(&out)[0], EventBody::Raw(_)));
        let e = errors(&out);
        assert_eq!(
            (e[0].message.as_str(), e[0].code.as_deref()),
            ("bad key", Some("auth"))
        );
        assert!(finals(&out)[0].is_error);
        // Not JSON at all: every line is kept, nothing is made up.
        let mut d = decoder(spec);
        let out = decode(&mut d, "oops\nno json\n");
        assert_eq!(events(&out).len(), 2);
        assert!(finals(&out).is_empty());
    }

    #[test]
    fn text_output_streams_deltas_and_ends_with_the_whole_answer() {
        let mut d = decoder("    output: text\n");
        let mut out = Vec::new();
        for line in [&b"First line."[..], b"", b"Third \xff line.", b"", b""] {
            d.stdout_line(line, &mut out);
        }
        d.finish(&mut out);
        let ev = events(&out);
        let deltas: String = ev
            .iter()
            .filter_map(|e| match e {
                EventBody::TextDelta(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(deltas, "First line.\n\nThird \u{fffd} line.\n\n");
        assert!(
            matches!(ev.last().unwrap(), EventBody::Message(m) if m.text == "First line.\n\nThird \u{fffd} line.")
        );
        // The answer is the final record of plain text.
        let f = finals(&out);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].text.as_deref(),
            Some("First line.\n\nThird \u{fffd} line.")
        );
    }

    #[test]
    fn blank_text_is_no_answer_and_no_final_record() {
        for stdout in ["", "\n  \n\t\n"] {
            let out = decode(&mut decoder("    output: text\n"), stdout);
            assert!(finals(&out).is_empty(), "{stdout:?}: {out:?}");
        }
    }

    #[test]
    fn jsonl_without_final_ends_with_a_record_only_after_a_message() {
        let spec = "    output: jsonl\n    session_id: /sid\n    message: {match: {type: say}, text: /text}\n";
        let out = decode(
            &mut decoder(spec),
            "{\"type\":\"start\",\"sid\":\"s1\"}\n{\"type\":\"say\",\"text\":\"hi\"}\n",
        );
        let f = finals(&out);
        assert_eq!(f.len(), 1, "{out:?}");
        assert_eq!(f[0].session_id.as_deref(), Some("s1"));
        // No message line, or lines that are not JSON: no answer.
        for stdout in ["{\"type\":\"start\",\"sid\":\"s1\"}\n", "oops\n", ""] {
            let out = decode(&mut decoder(spec), stdout);
            assert!(finals(&out).is_empty(), "{stdout:?}: {out:?}");
        }
    }
}

/// A described CLI has no per-run way to take MCP servers: it refuses,
/// naming the provider, and writes nothing (the built-in CLIs' refusals
/// are tested in `agentgate-providers`' `src/tests/mcp.rs`).
#[cfg(test)]
mod mcp {
    use std::path::{Path, PathBuf};

    use agentgate_core::{Config, ConfigSource};
    use agentgate_providers::{CliRequest, McpServer, Provider, Scratch};

    #[test]
    fn described_clis_refuse_mcp_servers_naming_the_provider() {
        let mut probe = McpServer::new("probe", "/opt/probe", &["--key", "a \"b\" \\c"]);
        probe
            .env
            .push(("PROBE_LOG".into(), "/tmp/probe.log".into()));
        let r = CliRequest {
            mcp_servers: vec![probe],
            prompt: "do it".into(),
            cwd: PathBuf::from("/work"),
            ..CliRequest::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let cfg = Config::parse(
            "version: 1\nproviders:\n  mycli:\n    command: [mycli, \"{prompt}\"]\n    output: text\n",
            ConfigSource::Flag(PathBuf::from("/etc/agentgate.yaml")),
        )
        .unwrap();
        let custom = cfg.provider("mycli").unwrap();
        let err = custom
            .command(&r, Path::new("/bin/mycli"), &Scratch::at(dir.path()))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("mycli cannot run with MCP servers"),
            "{err}"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
