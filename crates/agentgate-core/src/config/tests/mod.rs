use std::path::PathBuf;

use super::*;
use agentgate_providers::argv::PromptInput;
use agentgate_providers::custom::{OutputFormat, ResumeSpec};
use agentgate_providers::{ArgTemplate, Placeholder};

/// Parse `text` as if read from `path`.
pub(super) fn parse_at(text: &str, path: &str) -> Result<Config, ConfigError> {
    Config::parse(text, ConfigSource::Flag(PathBuf::from(path)))
}

/// Parse `text` as if read from /cfg/agentgate.yaml.
pub(super) fn parse(text: &str) -> Result<Config, ConfigError> {
    parse_at(text, "/cfg/agentgate.yaml")
}

/// The error's (line, message).
pub(super) fn invalid(text: &str) -> (Option<u64>, String) {
    match parse(text).unwrap_err() {
        e @ ConfigError::Invalid { line, .. } => (line, e.to_string()),
        other => panic!("not an Invalid error: {other}"),
    }
}

const FULL: &str = r#"version: 1
providers:
  mycli:
    command: [mycli, --print, [--model, "{model}"], --retries, 3, "{prompt}"]
    prompt: argv
    resume: [--resume, "{session}"]
    permission_modes: {acceptEdits: [--allow-edits], bypass: [--yolo]}
    output: jsonl
    final: {type: result}
    text: /result
    message: {match: {type: assistant}, text: /message/content/0/text}
    session_id: [/session_id, /sessionId]
    usage:
      input_tokens: [/usage/input_tokens, /usage/cache_read_input_tokens]
      output_tokens: /usage/output_tokens
      cost_usd: /total_cost_usd
    error: {match: {type: error}, message: /error/message, status: /error/status, code: /error/type, is_error: /is_error}
    env: {MYCLI_NO_COLOR: "1", MYCLI_CWD: "{cwd}"}
    binary: bin/mycli
  plain:
    command: [echo]
"#;

#[test]
fn a_full_description_loads() {
    let cfg = parse(FULL).unwrap();
    assert_eq!(cfg.providers.len(), 2);
    let p = cfg.provider_spec("MyCli").unwrap();
    assert_eq!(p.name, "mycli");
    assert_eq!(p.program, "mycli");
    assert_eq!(p.args.len(), 5);
    assert!(p.args[1].is_group());
    // A number in the command is an argument as written.
    assert!(matches!(&p.args[3], ArgTemplate::Arg(t) if t.as_str() == "3"));
    assert_eq!(p.prompt, PromptInput::Argv);
    assert!(matches!(p.resume, ResumeSpec::Append(_)));
    assert!(p.permission_modes.accept_edits.is_some() && p.permission_modes.plan.is_none());
    assert_eq!(p.output.format, OutputFormat::Jsonl);
    assert_eq!(p.output.session_id.as_ref().unwrap().0.len(), 2);
    assert!(p.uses(Placeholder::Cwd) && !p.uses(Placeholder::System));
    // A relative path is relative to the config file's folder.
    assert_eq!(p.binary.as_deref(), Some("/cfg/bin/mycli"));
    let plain = cfg.provider_spec("plain").unwrap();
    assert_eq!(plain.prompt, PromptInput::Stdin);
    assert_eq!(plain.output.format, OutputFormat::Text);
    assert_eq!(plain.resume, ResumeSpec::Unsupported);
    assert!(cfg.provider("nonesuch").is_none());
    assert_eq!(cfg.custom_providers().len(), 2);
}

/// A described CLI's program given as a path is relative to the file's
/// folder, as `binary:` is (it was looked up on PATH, where `./bin/x` is
/// never found); a bare name is still looked up on PATH.
#[test]
fn a_program_given_as_a_path_is_relative_to_the_file() {
    let cfg = parse(
        "version: 1\nproviders:\n  local:\n    command: [./bin/mycli, \"{prompt}\"]\n  named:\n    command: [mycli, \"{prompt}\"]\n  both:\n    command: [./bin/mycli]\n    binary: /opt/mycli\n",
    )
    .unwrap();
    let binary = |name: &str| cfg.provider_spec(name).unwrap().binary.clone();
    assert_eq!(binary("local").as_deref(), Some("/cfg/bin/mycli"));
    assert_eq!(
        cfg.provider_spec("local").unwrap().binary_name(),
        "/cfg/bin/mycli"
    );
    assert_eq!(binary("named"), None);
    assert_eq!(binary("both").as_deref(), Some("/opt/mycli"));
}

#[test]
fn unknown_keys_are_errors_naming_the_key_and_the_line() {
    let (line, e) =
        invalid("version: 1\nproviders:\n  mycli:\n    command: [mycli]\n    ouptut: jsonl\n");
    assert_eq!(line, Some(5), "{e}");
    assert!(e.contains("unknown field `ouptut`"), "{e}");
    assert!(e.contains("/cfg/agentgate.yaml, line 5 column 5"), "{e}");
    let (line, e) = invalid("version: 1\nprovider: {}\n");
    assert_eq!(line, Some(2));
    assert!(e.contains("unknown field `provider`"), "{e}");
    let (line, e) =
        invalid("version: 1\nproviders:\n  a:\n    command: [x]\n  a:\n    command: [y]\n");
    assert_eq!(line, Some(5));
    assert!(e.ends_with("duplicate mapping key: a"), "{e}");
    // Nested sections are strict too.
    let (line, e) = invalid(
        "version: 1\nproviders:\n  m:\n    command: [m]\n    output: json\n    text: /r\n    usage:\n      input: /in\n",
    );
    assert_eq!(line, Some(8), "{e}");
    assert!(e.contains("unknown field `input`"), "{e}");
}

#[test]
fn the_version_is_required_and_checked() {
    let (line, e) = invalid("version: 2\n");
    assert_eq!(line, Some(1));
    assert!(e.contains("unsupported config version 2"), "{e}");
    let (_, e) = invalid("providers: {}\n");
    assert!(e.contains("version"), "{e}");
    let (_, e) = invalid("# nothing yet\n\n");
    assert!(e.contains("empty") && e.contains("version: 1"), "{e}");
    let cfg = parse("version: 1\nproviders:\n").unwrap();
    assert!(cfg.providers.is_empty());
}

#[test]
fn bad_values_are_located() {
    for (yaml, want_line, want) in [
        (
            "    command: [m, \"--x={modle}\"]\n",
            4,
            "unknown placeholder `{modle}`",
        ),
        ("    command: [m, true]\n", 4, "quote it"),
        (
            "    command: [m]\n    output: xml\n",
            5,
            "unknown variant `xml`",
        ),
        (
            "    command: [m]\n    output: json\n    text: result\n",
            6,
            "`/result`",
        ),
        ("    command: [m, [--verbose]]\n", 4, "needs a placeholder"),
        (
            "    command: [\"{prompt}\"]\n",
            4,
            "first element is the program",
        ),
        ("    command: []\n", 4, "`command` is empty"),
        (
            "    command: [m, --resume, \"{session}\"]\n",
            4,
            "no value on a fresh run",
        ),
        (
            "    command: [m]\n    prompt: argv\n",
            5,
            "needs `{prompt}`",
        ),
        (
            "    command: [m, \"{prompt}\"]\n    prompt: stdin\n",
            5,
            "say `prompt: argv`",
        ),
        (
            "    command: [m]\n    text: /r\n",
            5,
            "whole stdout is the answer",
        ),
        (
            "    command: [m]\n    output: jsonl\n    text: /r\n",
            3,
            "needs `final`",
        ),
        (
            "    command: [m]\n    output: jsonl\n    message: {text: /t}\n    usage: {input_tokens: /i}\n",
            7,
            "`match` for the lines that carry figures",
        ),
        (
            "    command: [m]\n    output: json\n    text: /t\n    resume: [--resume, \"{session}\"]\n",
            7,
            "needs `session_id`",
        ),
        (
            "    command: [m]\n    output: json\n    text: /t\n    final: {type: result}\n",
            7,
            "applies to jsonl output",
        ),
        (
            "    command: [m]\n    resume: [-r]\n    resume_command: [m, -r]\n",
            6,
            "not both",
        ),
        (
            "    command: [m]\n    output: jsonl\n    final: {}\n",
            6,
            "empty selector",
        ),
    ] {
        let text = format!("version: 1\nproviders:\n  m:\n{yaml}");
        let (line, e) = invalid(&text);
        assert_eq!(line, Some(want_line), "{yaml}: {e}");
        assert!(e.contains(want), "{yaml}: {e}");
    }
}

#[test]
fn built_in_names_are_taken() {
    let (line, e) = invalid("version: 1\nproviders:\n  Claude:\n    command: [claude]\n");
    assert_eq!(line, Some(3));
    assert!(e.contains("built-in adapter"), "{e}");
    let (_, e) = invalid("version: 1\nproviders:\n  \"my cli\":\n    command: [x]\n");
    assert!(e.contains("not a provider name"), "{e}");
}

#[test]
fn files_are_read_from_their_source() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.yaml");
    std::fs::write(&path, "version: 1\nproviders:\n  a:\n    command: [a]\n").unwrap();
    let cfg = Config::read(ConfigSource::Project(path.clone())).unwrap();
    assert_eq!(cfg.source, ConfigSource::Project(path));
    assert_eq!(cfg.providers[0].name, "a");
    assert!(
        Config::read(ConfigSource::Default)
            .unwrap()
            .providers
            .is_empty()
    );
    let e = Config::read(ConfigSource::User(dir.path().join("gone.yaml"))).unwrap_err();
    assert!(
        e.to_string().starts_with("failed to read the config file"),
        "{e}"
    );
}

mod automation;
mod budgets;
mod gardener;
mod gateway;
mod webhooks;

mod migrate;
mod rotation;
mod sandbox;

mod native;
