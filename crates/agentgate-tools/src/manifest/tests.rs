use std::path::Path;

use serde_json::{Map, Value, json};

use super::*;

const SEED: &str = "\
name: data_migrator
version: 1.2.0
entry: cli.py
protocol_version: 1
inputs:
  - {name: source, type: path, required: true}
  - {name: target, type: path, required: true}
permissions:
  filesystem:
    read: [\"${WORKSPACE}/source/**\"]
    write: [\"${WORKSPACE}/migrated/**\"]
  network:
    egress_allow: [\"api.example.com:443\"]
resources:
  cpu_seconds: 600
  memory_mb: 2048
env:
  require: [\"AWS_REGION\"]
exit_codes:
  ok: 0
  retryable_error: 20
  fatal_error: 30
health:
  selftest: [\"--selftest\"]
  describe: [\"--describe\"]
";

fn parse(text: &str) -> Result<Manifest, ManifestError> {
    Manifest::parse(text, Path::new("tool.yaml"), None)
}

/// The line and message of a manifest that must be refused.
fn refused(text: &str) -> (Option<u64>, String) {
    match parse(text) {
        Ok(m) => panic!("accepted: {m:?}"),
        Err(e) => (e.line(), e.to_string()),
    }
}

#[test]
fn the_seeds_manifest_is_read_as_is() {
    let m = Manifest::parse(SEED, Path::new("tool.yaml"), Some("data_migrator")).unwrap();
    assert_eq!(m.name, "data_migrator");
    assert_eq!(m.version, "1.2.0");
    assert_eq!(m.inputs.len(), 2);
    assert_eq!(m.inputs[0].kind, InputType::Path);
    assert_eq!(m.permissions.network.egress_allow, ["api.example.com:443"]);
    assert_eq!(m.resources.memory_mb, Some(2048));
    assert_eq!(m.env.require, ["AWS_REGION"]);
    assert_eq!(m.exit_codes.fatal_error, Some(30));
    assert!(
        m.result_required,
        "a result is required unless the manifest says not"
    );
    assert!(
        parse("name: t\nversion: '1'\nentry: r\nresult_required: false\n")
            .is_ok_and(|m| !m.result_required)
    );
    assert_eq!(
        m.health.selftest.as_deref(),
        Some(&["--selftest".to_owned()][..])
    );
    let (read, write) = m.filesystem_globs(Path::new("/runs/r1/work/"));
    assert_eq!(read, ["/runs/r1/work/source/**"]);
    assert_eq!(write, ["/runs/r1/work/migrated/**"]);
}

#[test]
fn every_fault_is_refused_with_its_line_and_says_what_is_wrong() {
    let base = "name: t\nversion: '1'\nentry: run.sh\n";
    let cases: Vec<(String, u64, &str)> = vec![
        (format!("{base}colour: red\n"), 4, "colour"),
        (
            format!("{base}inputs:\n  - {{name: a, kind: path}}\n"),
            5,
            "kind",
        ),
        (
            format!("{base}protocol_version: 2\n"),
            4,
            "tool protocol version 2 is not supported",
        ),
        (
            "name: 'bad name'\nversion: '1'\nentry: run.sh\n".into(),
            1,
            "not a safe tool name",
        ),
        (
            format!("name: {}\nversion: '1'\nentry: run.sh\n", "x".repeat(65)),
            1,
            "not a safe tool name",
        ),
        (
            "name: t\nversion: ''\nentry: run.sh\n".into(),
            2,
            "the version is empty",
        ),
        (
            "name: t\nversion: '1'\nentry: /bin/sh\n".into(),
            3,
            "is absolute",
        ),
        (
            "name: t\nversion: '1'\nentry: ../x/run.sh\n".into(),
            3,
            "leaves the tool's folder",
        ),
        (
            format!("{base}inputs:\n  - {{name: a}}\n  - {{name: a}}\n"),
            6,
            "the input `a` is given twice",
        ),
        (
            format!("{base}inputs:\n  - {{name: '-x'}}\n"),
            5,
            "cannot be a flag",
        ),
        (
            format!("{base}inputs:\n  - {{name: 'a b'}}\n"),
            5,
            "cannot be a flag",
        ),
        (
            format!("{base}inputs:\n  - {{name: n, type: integer, enum: ['1', two]}}\n"),
            5,
            "`two` is not a value of type integer",
        ),
        (
            format!("{base}exit_codes: {{ok: 0, retryable_error: 20, fatal_error: 20}}\n"),
            4,
            "20 is also `retryable_error`",
        ),
        (
            format!("{base}exit_codes:\n  ok: 0\n  fatal_error: 0\n"),
            6,
            "0 is also `ok`",
        ),
        (
            format!("{base}exit_codes: {{ok: 300}}\n"),
            4,
            "not an exit status",
        ),
        (
            format!("{base}permissions:\n  filesystem:\n    read: ['${{HOME}}/x']\n"),
            6,
            "`${HOME}` is not a variable a glob may hold",
        ),
        (
            format!("{base}permissions:\n  filesystem:\n    write: ['out/**']\n"),
            6,
            "is relative",
        ),
        (
            format!("{base}permissions:\n  filesystem:\n    write: ['/a/${{WORKSPACE}}/x']\n"),
            6,
            "may only start the glob",
        ),
        (
            format!("{base}permissions:\n  filesystem:\n    read: ['${{WORKSPACE}}/../etc']\n"),
            6,
            "holds `..`",
        ),
        (
            format!("{base}permissions:\n  network:\n    egress_allow: [example.com]\n"),
            6,
            "is not `host:port`",
        ),
        (
            format!("{base}permissions:\n  network:\n    egress_allow: ['example.com:0']\n"),
            6,
            "is not `host:port`",
        ),
        (
            format!("{base}permissions:\n  network:\n    egress_allow: ['*.example.com:443']\n"),
            6,
            "is not `host:port`",
        ),
        (
            format!("{base}env:\n  require: [OK, 1BAD]\n"),
            5,
            "`1BAD` is not a variable name",
        ),
        (
            format!("{base}env:\n  require: [A, A]\n"),
            5,
            "`A` is listed twice",
        ),
        (
            format!("{base}env:\n  require: [A, AGENTGATE_TOKEN]\n"),
            5,
            "`AGENTGATE_TOKEN` is one of agentgate's own variables",
        ),
        (
            format!("{base}result_required: maybe\n"),
            4,
            "invalid boolean",
        ),
        (
            format!("{base}resources: {{memory_mb: 0}}\n"),
            4,
            "resources.memory_mb: 0",
        ),
        (
            format!("{base}timeouts:\n  heartbeat_s: 0\n"),
            5,
            "timeouts.heartbeat_s: 0",
        ),
    ];
    for (text, line, says) in cases {
        let (got, message) = refused(&text);
        assert_eq!(got, Some(line), "{text}\n=> {message}");
        assert!(message.contains(says), "{text}\n=> {message}");
        assert!(message.contains("tool.yaml"), "{message}");
    }
}

#[test]
fn a_registry_tools_name_is_its_folders() {
    let e = Manifest::parse(SEED, Path::new("tool.yaml"), Some("migrator")).unwrap_err();
    assert_eq!(e.line(), Some(1), "{e}");
    assert!(
        e.to_string()
            .contains("not the name of its folder `migrator`"),
        "{e}"
    );
}

#[test]
fn accepted_forms_pass_the_checks() {
    let m = parse(
        "name: t\nversion: 1.0\nentry: bin/run\ninputs:\n  - {name: level, type: integer, enum: ['1', '2']}\npermissions:\n  filesystem:\n    read: ['/usr/share/**', '${WORKSPACE}']\n  network:\n    egress_allow: ['*', '[::1]:8080', 'db-1.internal:5432']\n",
    )
    .unwrap();
    assert_eq!(m.version, "1.0");
    assert_eq!(m.permissions.network.egress_allow.len(), 3);
}

fn inputs_manifest() -> Manifest {
    parse(
        "name: t\nversion: '1'\nentry: run\ninputs:\n  - {name: input, type: path, required: true, description: The data}\n  - {name: mode, enum: [fast, slow]}\n  - {name: count, type: integer}\n  - {name: ratio, type: number}\n  - {name: dry-run, type: boolean}\n",
    )
    .unwrap()
}

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("not an object"),
    }
}

#[test]
fn the_input_schema_has_types_requirements_choices_and_descriptions() {
    assert_eq!(
        inputs_manifest().input_schema(),
        json!({
            "type": "object",
            "properties": {
                "input": {"type": "string", "description": "The data"},
                "mode": {"type": "string", "enum": ["fast", "slow"]},
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "dry-run": {"type": "boolean"},
            },
            "required": ["input"],
            "additionalProperties": false,
        })
    );
}

#[test]
fn a_calls_inputs_become_flags_in_manifest_order() {
    let m = inputs_manifest();
    let args = m
        .args_for(&object(
            json!({"dry-run": true, "count": 3, "input": "a b.json", "ratio": 0.5, "mode": "slow"}),
        ))
        .unwrap();
    assert_eq!(
        args,
        [
            "--input",
            "a b.json",
            "--mode",
            "slow",
            "--count",
            "3",
            "--ratio",
            "0.5",
            "--dry-run"
        ]
    );
    let args = m
        .args_for(&object(
            json!({"input": "x", "dry-run": false, "mode": null}),
        ))
        .unwrap();
    assert_eq!(args, ["--input", "x"]);
}

#[test]
fn bad_call_inputs_are_refused_clearly() {
    let m = inputs_manifest();
    let err = |v: Value| m.args_for(&object(v)).unwrap_err().to_string();
    assert_eq!(
        err(json!({"input": "x", "colour": 1})),
        "unknown input `colour` (the tool takes: input, mode, count, ratio, dry-run)"
    );
    assert_eq!(
        err(json!({"mode": "fast"})),
        "the input `input` is required"
    );
    assert_eq!(err(json!({"input": null})), "the input `input` is required");
    assert_eq!(
        err(json!({"input": "x", "count": 1.5})),
        "the input `count` must be an integer, not a number"
    );
    assert_eq!(
        err(json!({"input": "x", "count": "3"})),
        "the input `count` must be an integer, not a string"
    );
    assert_eq!(
        err(json!({"input": "x", "ratio": "0.5"})),
        "the input `ratio` must be a number, not a string"
    );
    assert_eq!(
        err(json!({"input": 7})),
        "the input `input` must be a path (a string), not an integer"
    );
    assert_eq!(
        err(json!({"input": "x", "dry-run": "yes"})),
        "the input `dry-run` must be a boolean, not a string"
    );
    assert_eq!(
        err(json!({"input": "x", "mode": "medium"})),
        "the input `mode` must be one of fast, slow, not `medium`"
    );
}
