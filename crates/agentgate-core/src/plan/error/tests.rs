//! Each planning error names the request field it is about, from data.

use serde_json::{Value, json};

use super::PlanError;
use crate::config::{Config, ConfigSource};
use crate::request::{RequestError, RunRequest};

/// The refusal of `request` (JSON; `cwd` added when absent) planned with
/// the config `config`.
fn refusal(mut request: Value, config: &str, cwd: &std::path::Path) -> RequestError {
    if request.get("cwd").is_none() {
        request["cwd"] = json!(cwd);
    }
    let cfg = Config::parse(config, ConfigSource::Default).unwrap();
    let (flags, task) = RunRequest::from_value(request.clone())
        .unwrap()
        .to_flags()
        .unwrap();
    match crate::plan::plan(&cfg, &flags, task) {
        Ok(_) => panic!("{request} was planned"),
        Err(e) => RequestError::from(e),
    }
}

#[test]
fn every_planning_error_names_its_request_field() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let no_context = dir.path().join("empty");
    std::fs::create_dir(&no_context).unwrap();
    std::fs::write(cwd.join("agent.md"), "# Reviewer\nreview\n").unwrap();
    let agent_file = cwd.join("agent.md");
    let config = "version: 1\n";
    let p = |extra: Value| {
        let mut r = json!({"prompt": "do it", "providers": ["claude"], "skip_context_file": true});
        for (k, v) in extra.as_object().unwrap() {
            r[k] = v.clone();
        }
        r
    };
    for (request, field) in [
        (json!({"prompt": "do it"}), "providers"),
        (p(json!({"providers": ["nope"]})), "providers"),
        (json!({"prompt": "do it", "agents": ["b"]}), "agents"),
        (json!({"prompt": "do it", "chain": "c"}), "chain"),
        (
            p(json!({"providers": ["claude", "codex"], "binary": "/bin/true"})),
            "binary",
        ),
        (
            p(json!({"providers": ["claude", "codex"], "resume": "s-1"})),
            "resume",
        ),
        (p(json!({"cwd": "/no/such/dir"})), "cwd"),
        (p(json!({"system_file": "/no/such/file"})), "system_file"),
        (p(json!({"agent_file": "/no/such/agent.md"})), "agent_file"),
        (
            p(json!({"agent_file": agent_file, "persona": "nobody"})),
            "persona",
        ),
        (p(json!({"persona": "reviewer"})), "persona"),
        (p(json!({"context": ["/no/such/notes.md"]})), "context"),
        (p(json!({"context_dir": no_context})), "context_dir"),
        (
            json!({"task": {"prompt": "do it", "files": ["/no/such/task.md"]}, "providers": ["claude"], "skip_context_file": true}),
            "task",
        ),
        (
            p(json!({"prompt": "a prompt over ten bytes", "prompt_max_bytes": 10})),
            "prompt_max_bytes",
        ),
        (
            p(json!({"output_schema": "/no/such/schema.json"})),
            "output_schema",
        ),
        (p(json!({"env": {"AGENTGATE_HOME": "/x"}})), "env"),
        (p(json!({"sandbox": "container"})), "sandbox"),
        (
            p(json!({"providers": ["cursor"], "sandbox": "strict"})),
            "sandbox",
        ),
        (p(json!({"sandbox": "strict", "gateway": false})), "gateway"),
    ] {
        let e = refusal(request.clone(), config, cwd);
        assert_eq!(e.field, field, "{request}: {e}");
        assert!(!e.message.is_empty());
    }
    let e = refusal(
        p(json!({"sandbox": "off"})),
        "version: 1\nsandbox: {require: strict}\n",
        cwd,
    );
    assert_eq!(e.field, "sandbox", "{e}");
}

#[test]
fn the_field_is_the_errors_data_not_its_message() {
    // The message names one flag, the error was made for another field:
    // the field is the one it carries.
    let e = PlanError::Read {
        field: "request",
        what: "--system-file /etc/agent.md".into(),
        source: std::io::Error::other("gone"),
    };
    assert_eq!(RequestError::from(e).field, "request");
    let e = PlanError::OwnVariable {
        field: "env",
        place: "MCP server `x`".into(),
        name: "AGENTGATE_HOME".into(),
    };
    assert_eq!(e.field(), "env");
    let e = PlanError::OneProviderOnly {
        field: "resume",
        message: "--binary applies to one provider",
    };
    let refused = RequestError::from(e);
    assert_eq!(refused.field, "resume");
    assert_eq!(refused.message, "--binary applies to one provider");
}
