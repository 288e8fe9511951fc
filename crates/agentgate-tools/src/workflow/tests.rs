//! Loading and checking workflows: the issue's example, every refusal
//! with its line and message, dependencies and cycles.

use std::path::{Path, PathBuf};

use super::definition::{StepKind, WorkflowDef};
use super::*;

mod refusals;

/// The issue's example.
pub(super) const EXAMPLE: &str = r#"version: 1
name: triage
steps:
  - id: scan
    tool: scanner
    args: [--input, data.json]
  - id: fix
    parallel:
      max_concurrency: 2
      steps:
        - {id: fix_a, tool: fixer, args: [a]}
        - {id: fix_b, tool: fixer, args: [b]}
  - id: review
    agent: {chain: default, prompt: "Review ${steps.scan.result.metrics.files} files",
            output_schema: review.schema.json}
  - id: publish
    when: "${steps.review.output.approve}"
    tool: publisher
    retries: 2
"#;

pub(super) fn load(text: &str) -> Result<Workflow, WorkflowError> {
    Workflow::from_yaml(text, "wf.yaml", Path::new("/flows"))
}

/// The deps of each step, as `id: a b`, in file order.
fn all_deps(w: &Workflow) -> Vec<String> {
    w.ids()
        .into_iter()
        .map(|id| format!("{id}: {}", w.deps(id).join(" ")))
        .collect()
}

#[test]
fn the_issues_example_is_accepted_with_its_dependencies() {
    let w = load(EXAMPLE).unwrap();
    assert_eq!(w.def.name, "triage");
    assert_eq!(w.base_dir, PathBuf::from("/flows"));
    assert_eq!(
        w.ids(),
        ["scan", "fix", "fix_a", "fix_b", "review", "publish"]
    );
    assert_eq!(
        all_deps(&w),
        [
            "scan: ",
            "fix: scan",
            "fix_a: scan",
            "fix_b: scan",
            "review: fix scan",
            "publish: review",
        ]
    );
    assert_eq!(w.group_of("fix_a"), Some("fix"));
    assert_eq!(w.group_of("fix"), None);
    assert_eq!(w.group_of("nope"), None);
    assert_eq!(w.members("fix"), ["fix_a", "fix_b"]);
    assert!(w.members("scan").is_empty());
    assert!(w.deps("nope").is_empty());
    let fix_b = w.step("fix_b").unwrap();
    assert_eq!(
        (fix_b.kind(), fix_b.args.as_slice()),
        (Some(StepKind::Tool), &["b".to_owned()][..])
    );
    assert_eq!(w.step("publish").unwrap().retries, 2);
    assert_eq!(w.step("fix").unwrap().kind(), Some(StepKind::Parallel));
    assert!(w.step("nope").is_none());
    // The agent mapping is a run request, its paths under the file's folder.
    let review = w.step("review").unwrap().agent.clone().unwrap();
    let request = agent_request(&review, &w.base_dir).unwrap();
    assert_eq!(request.chain.as_deref(), Some("default"));
    assert_eq!(
        request.output_schema,
        Some(PathBuf::from("/flows/review.schema.json"))
    );
}

#[test]
fn a_stored_or_submitted_definition_passes_the_same_checks_without_a_line() {
    let def: WorkflowDef = serde_json::from_value(serde_json::json!({
        "version": 1, "name": "t",
        "steps": [{"id": "a", "tool": "t"}, {"id": "b", "tool": "t", "when": "${steps.x.status} == ok"}],
    }))
    .unwrap();
    let e = Workflow::from_def(def, Path::new("/flows")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid workflow <request>: steps[1].when: a reference to a missing step `x`"
    );
    assert_eq!(e.line(), None);
    let WorkflowError::Invalid { file, at, .. } = &e else {
        panic!("{e:?}");
    };
    assert_eq!((file.as_str(), at.as_str()), ("<request>", "steps[1].when"));

    let w = load(EXAMPLE).unwrap();
    let again = Workflow::from_def(w.def.clone(), Path::new("/flows")).unwrap();
    assert_eq!(again.ids(), w.ids());
    assert_eq!(again.deps("review"), w.deps("review"));
}

#[test]
fn a_file_is_read_within_its_limit_and_its_folder_is_the_base() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("triage.yaml");
    std::fs::write(&path, EXAMPLE).unwrap();
    let w = Workflow::load_file(&path).unwrap();
    assert_eq!(w.base_dir, dir.path());
    assert_eq!(w.ids().len(), 6);

    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, EXAMPLE.replace("version: 1", "version: 2")).unwrap();
    let e = Workflow::load_file(&bad).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "invalid workflow {}, line 1 column 1: version: workflow version 2 is not supported: this agentgate reads version 1",
            bad.display()
        )
    );

    let missing = dir.path().join("missing.yaml");
    let e = Workflow::load_file(&missing).unwrap_err();
    assert!(
        matches!(&e, WorkflowError::Read { path, .. } if *path == missing),
        "{e}"
    );
    assert!(
        e.to_string().starts_with("cannot read the workflow "),
        "{e}"
    );

    let big = dir.path().join("big.yaml");
    let filler = format!("{EXAMPLE}# {}\n", "x".repeat(1024 * 1024));
    std::fs::write(&big, filler).unwrap();
    let e = Workflow::load_file(&big).unwrap_err();
    assert!(matches!(e, WorkflowError::Read { .. }), "{e}");

    // A relative base is made absolute.
    let w = Workflow::from_yaml(EXAMPLE, "wf.yaml", Path::new("flows")).unwrap();
    assert!(
        w.base_dir.is_absolute() && w.base_dir.ends_with("flows"),
        "{:?}",
        w.base_dir
    );
}

#[test]
fn members_wait_for_what_their_group_waits_for_and_not_for_each_other() {
    let text = r#"version: 1
name: t
steps:
  - {id: prep, tool: t}
  - {id: other, tool: t}
  - id: group
    needs: [prep]
    when: "${steps.other.status} == succeeded"
    parallel:
      on_failure: collect
      steps:
        - {id: m1, tool: t}
        - {id: m2, tool: t, needs: [m1]}
        - id: inner
          parallel:
            steps:
              - {id: deep, tool: t, args: ["${steps.m2.output}"]}
  - id: ask
    decision:
      for: m1
      agent: {agent: judge, prompt: "The tool asks ${action.action}: ${action.context}"}
      choices: [yes, no]
      args: ["--answer=${answer.choice}", "${steps.prep.run_id}"]
  - {id: last, tool: t, when: "!${steps.ask.output.choice}"}
outputs:
  choice: "${steps.ask.output.choice}"
  late: "${steps.last.status}"
"#;
    let w = load(text).unwrap();
    assert_eq!(
        all_deps(&w),
        [
            "prep: ",
            "other: prep",
            "group: other prep",
            "m1: other prep",
            "m2: m1 other prep",
            "inner: other prep",
            "deep: m2 other prep",
            "ask: group m1 prep",
            "last: ask",
        ]
    );
    assert_eq!(w.group_of("deep"), Some("inner"));
    assert_eq!(w.group_of("inner"), Some("group"));
    assert_eq!(w.members("group"), ["m1", "m2", "inner"]);
}

#[test]
fn a_step_id_is_letters_digits_underscore_and_dash_up_to_64_bytes() {
    assert!(is_step_id("a"));
    assert!(is_step_id("-_9Z"));
    assert!(is_step_id(&"x".repeat(MAX_STEP_ID_LEN)));
    assert!(!is_step_id(&"x".repeat(MAX_STEP_ID_LEN + 1)));
    assert!(!is_step_id(""));
    assert!(!is_step_id("a.b"));
    assert!(!is_step_id("é"));
}

#[test]
fn no_text_makes_the_loader_panic() {
    // Every prefix of the example, and of a file with every kind of step:
    // each is accepted or refused, never a crash.
    let rich = EXAMPLE.replace(
        "    retries: 2\n",
        "    retries: 2\n  - id: ask\n    decision: {for: scan, agent: {prompt: \"${action.context[0]}\"}, choices: [a], args: [\"$${x} ${answer.choice}\"]}\noutputs: {x: \"${steps.ask.output.choice}\"}\n",
    );
    assert!(load(&rich).is_ok(), "{:?}", load(&rich).err());
    for text in [EXAMPLE, rich.as_str()] {
        for (i, _) in text.char_indices() {
            let _ = load(&text[..i]);
            let _ = refs::Template::parse(&text[i..]);
            let _ = condition::Condition::parse(&text[i..]);
        }
    }
}

#[test]
fn a_long_chain_and_many_references_load_on_a_small_stack() {
    // Some 1 MiB of steps, each referring to the one before: the checks
    // and the search for cycles are iterative (a recursive walk of some
    // 20,000 steps overflows the test thread's 2 MiB stack).
    let mut text = String::from("version: 1\nname: big\nsteps:\n  - {id: s0, tool: t}\n");
    let mut n = 1;
    while text.len() < 900 * 1024 {
        text.push_str(&format!(
            "  - {{id: s{n}, tool: t, args: [\"${{steps.s{}.output}}\"]}}\n",
            n - 1
        ));
        n += 1;
    }
    let w = load(&text).unwrap();
    assert_eq!(w.ids().len(), n);
    assert_eq!(w.deps(&format!("s{}", n - 1)), [format!("s{}", n - 2)]);
    // One step referring to another many times.
    let refs = vec!["${steps.a.output}"; 20_000].join(" ");
    let one = format!(
        "version: 1\nname: t\nsteps:\n  - {{id: a, tool: t}}\n  - {{id: b, tool: t, stdin: \"{refs}\"}}\n"
    );
    assert_eq!(load(&one).unwrap().deps("b"), ["a"]);
    // A cycle closing at the end of the long chain is found too.
    let cyclic = text.replacen(
        "{id: s0, tool: t}",
        &format!("{{id: s0, tool: t, needs: [s{}]}}", n - 1),
        1,
    );
    let e = load(&cyclic).unwrap_err().to_string();
    let last = n - 1;
    assert!(
        e.ends_with(&format!(
            "steps[0]: a cycle: s0 → s{last} → s{} → s{} → s{} → … → s4 → s3 → s2 → s1 → s0 (each waits for the next, {n} steps)",
            last - 1,
            last - 2,
            last - 3
        )),
        "{e}"
    );
}

/// Issue 31: a file that is no workflow (`/etc/shadow` read by a server)
/// is refused with its place and the kind of fault, never its text.
#[test]
fn a_reading_fault_names_its_place_never_the_text() {
    for (text, line, kind) in [
        (
            "root:$6$salt$hash-3c9a:20228:0:99999:7:::\ndaemon:*:20228::\n",
            1,
            "unknown field, expected one of version",
        ),
        ("secret-token-77f2\n", 1, ""),
        ("version: \"v-secret-1a\"\n", 1, "invalid"),
        (
            "version: 1\nversion: secret-dup-4b\n",
            2,
            "duplicate mapping key",
        ),
        (
            "version: 1\nname: w\nsteps:\n  - id: a\n    tol-secret-9d: t\n",
            5,
            "unknown key: a step is one of",
        ),
        (
            "version: 1\nsteps:\n  - id: a\n    tool: t\n    retries: \"many-secret-2e\"\n",
            5,
            "invalid",
        ),
    ] {
        let e = load(text).unwrap_err();
        let message = e.to_string();
        assert_eq!(e.line(), Some(line), "{text:?}: {message}");
        assert!(message.contains(kind), "{text:?}: {message}");
        for secret in ["3c9a", "77f2", "1a", "4b", "9d", "2e", "root", "salt"] {
            assert!(!message.contains(secret), "{text:?}: {message}");
        }
    }
}

#[test]
fn a_fault_keeps_what_was_expected_and_drops_what_was_found() {
    for (given, free) in [
        (
            "unknown field `a, expected b`, expected one of version, name",
            "unknown field, expected one of version, name",
        ),
        (
            "invalid type: string \"x\", expected u32",
            "invalid type: string, expected u32",
        ),
        (
            "invalid type: floating point `1.5`, expected u32",
            "invalid type: floating point, expected u32",
        ),
        ("duplicate mapping key: version", "duplicate mapping key"),
        (
            "unknown variant `nope`, expected one of `a`, `b`",
            "unknown variant, expected one of `a`, `b`",
        ),
        ("expected mapping start", "expected mapping start"),
        (
            "invalid value: text secret, expected x",
            "invalid value, expected x",
        ),
    ] {
        assert_eq!(super::load::content_free(given), free, "{given}");
    }
}
