use serde_json::json;

use super::*;

fn key(k: &str) -> Segment {
    Segment::Key(k.to_owned())
}

fn scope() -> Scope {
    Scope {
        input: json!({"files": ["a.txt", "b.txt"], "n": 3, "flag": true, "none": null,
                      "obj": {"k": "v", "list": [1, 2]}}),
        workflow: json!({"run_id": "wf-1", "name": "triage"}),
        steps: BTreeMap::from([(
            "scan".to_owned(),
            json!({"status": "succeeded", "result": {"metrics": {"files": 12}},
                   "output": {"approve": false}, "run_id": "r-9", "action": null}),
        )]),
        action: Some(json!({"action": "confirm", "context": {"path": "/x"}})),
        answer: None,
    }
}

#[test]
fn each_root_and_path_form_is_parsed() {
    let r = Reference::parse("input.files[1]").unwrap();
    assert_eq!(r.root, RefRoot::Input);
    assert_eq!(r.path, [key("files"), Segment::Index(1)]);
    assert_eq!(r.text, "input.files[1]");

    let r = Reference::parse("input.files.0").unwrap();
    assert_eq!(r.path, [key("files"), Segment::Index(0)]);

    let r = Reference::parse("steps.scan.result.metrics.files").unwrap();
    assert_eq!(
        r.root,
        RefRoot::Step {
            id: "scan".into(),
            field: StepField::Result
        }
    );
    assert_eq!(r.path, [key("metrics"), key("files")]);
    assert_eq!(r.step(), Some("scan"));

    for (field, expected) in [
        ("status", StepField::Status),
        ("result", StepField::Result),
        ("output", StepField::Output),
        ("run_id", StepField::RunId),
        ("action", StepField::Action),
    ] {
        let r = Reference::parse(&format!("steps.a-1.{field}")).unwrap();
        assert_eq!(
            r.root,
            RefRoot::Step {
                id: "a-1".into(),
                field: expected
            }
        );
        assert!(r.path.is_empty());
    }
    // A step id of digits is still an id.
    assert_eq!(
        Reference::parse("steps.42.status").unwrap().step(),
        Some("42")
    );

    assert_eq!(
        Reference::parse("workflow.run_id").unwrap().root,
        RefRoot::Workflow
    );
    assert_eq!(
        Reference::parse("workflow").unwrap().root,
        RefRoot::Workflow
    );
    let r = Reference::parse("action.context.path").unwrap();
    assert_eq!(
        (r.root, r.path),
        (RefRoot::Action, vec![key("context"), key("path")])
    );
    assert_eq!(
        Reference::parse("answer.choice").unwrap().root,
        RefRoot::Answer
    );
    assert_eq!(Reference::parse("input").unwrap().path, []);
    // Spaces around the reference are allowed; the text keeps them.
    let r = Reference::parse(" input.n ").unwrap();
    assert_eq!((r.path, r.text.as_str()), (vec![key("n")], " input.n "));
}

#[test]
fn bad_references_are_refused_with_a_clear_message() {
    let err = |t: &str| Template::parse(t).unwrap_err();
    assert!(
        err("run ${input.x").contains("unclosed `${`"),
        "{}",
        err("run ${input.x")
    );
    assert!(err("${a ${input.x}").contains("unclosed `${`"));
    assert!(err("x ${} y").contains("empty reference"));
    assert!(err("${  }").contains("empty reference"));
    let e = err("${env.HOME}");
    assert!(e.contains("unknown root `env`"), "{e}");
    assert!(
        e.contains("input, workflow, steps, action or answer"),
        "{e}"
    );
    let e = err("${steps.scan.outptu.x}");
    assert!(e.contains("unknown step field `outptu`"), "{e}");
    assert!(e.contains("status, result, output, run_id, action"), "{e}");
    assert!(err("${steps.scan}").contains("`${steps.ID.FIELD}`"));
    assert!(err("${steps}").contains("`${steps.ID.FIELD}`"));
    assert!(err("${steps.scan.3}").contains("unknown step field `3`"));
    assert!(err("${workflow.id}").contains("run_id and name"));
    assert!(err("${input..x}").contains("empty name"));
    assert!(err("${input.}").contains("empty name"));
    assert!(err("${input[x]}").contains("`[x]` is not a list index"));
    assert!(err("${input[]}").contains("`[]` is not a list index"));
    assert!(err("${input[1}").contains("without its `]`"));
    assert!(err("${input[1]x}").contains("expected `.name`"));
    assert!(err("${input.a b}").contains("not a name"));
    assert!(err("${input.99999999999999999999999}").contains("too large"));
}

#[test]
fn a_template_is_text_and_references_and_dollar_dollar_is_literal() {
    let t = Template::parse("Review ${steps.scan.result.metrics.files} files").unwrap();
    let refs: Vec<&str> = t.references().map(|r| r.text.as_str()).collect();
    assert_eq!(refs, ["steps.scan.result.metrics.files"]);
    assert_eq!(t.whole(), None);
    assert_eq!(t.render(&scope()).unwrap(), "Review 12 files");

    let t = Template::parse("cost: $${HOME} and $$5 and ${input.n}").unwrap();
    assert_eq!(t.references().count(), 1);
    assert_eq!(t.render(&scope()).unwrap(), "cost: ${HOME} and $$5 and 3");

    let t = Template::parse("plain").unwrap();
    assert_eq!(t.references().count(), 0);
    assert_eq!(t.render(&Scope::default()).unwrap(), "plain");
    assert_eq!(Template::parse("").unwrap().render(&scope()).unwrap(), "");
    // A lone `}` or `$` is text.
    assert_eq!(
        Template::parse("a } $ b")
            .unwrap()
            .render(&scope())
            .unwrap(),
        "a } $ b"
    );
}

#[test]
fn values_render_as_text_or_compact_json() {
    let s = scope();
    let render = |t: &str| Template::parse(t).unwrap().render(&s).unwrap();
    assert_eq!(render("${input.files[0]}"), "a.txt");
    assert_eq!(render("${input.n}"), "3");
    assert_eq!(render("${input.flag}"), "true");
    assert_eq!(render("${input.none}"), "null");
    assert_eq!(render("${input.files}"), r#"["a.txt","b.txt"]"#);
    assert_eq!(render("${input.obj}"), r#"{"k":"v","list":[1,2]}"#);
    assert_eq!(render("${workflow.name}/${workflow.run_id}"), "triage/wf-1");
    assert_eq!(render("${steps.scan.status}"), "succeeded");
    assert_eq!(render("${action.context.path}"), "/x");
}

#[test]
fn a_whole_reference_gives_its_value_and_a_mixed_one_a_string() {
    let s = scope();
    let value = |t: &str| Template::parse(t).unwrap().value(&s).unwrap();
    assert_eq!(value("${input.obj}"), json!({"k": "v", "list": [1, 2]}));
    assert_eq!(value("${input.n}"), json!(3));
    assert_eq!(value("${input.none}"), Value::Null);
    assert_eq!(value("n=${input.n}"), json!("n=3"));
    assert_eq!(value("text"), json!("text"));
    let t = Template::parse("${input.obj.list}").unwrap();
    assert_eq!(t.whole().unwrap().path, [key("obj"), key("list")]);
}

#[test]
fn a_reference_without_a_value_is_named() {
    let s = scope();
    for t in [
        "${input.missing}",
        "${input.files[2]}",
        "${input.files.x}",
        "${input.obj[0]}",
        "${input.n.x}",
        "${steps.review.output}",
        "${answer.choice}",
        "${steps.scan.output.approve.x}",
    ] {
        let template = Template::parse(t).unwrap();
        let missing = template.render(&s).unwrap_err();
        assert_eq!(format!("${{{}}}", missing.reference), t);
        assert_eq!(missing.to_string(), format!("`{t}` has no value"));
        assert_eq!(template.value(&s).unwrap_err(), missing);
    }
    // A field the engine left out of a step's record is missing too.
    let mut s = scope();
    s.steps.insert("bare".into(), json!({"status": "skipped"}));
    let t = Template::parse("${steps.bare.output}").unwrap();
    assert!(t.render(&s).is_err());
    assert_eq!(
        Template::parse("${steps.bare.status}")
            .unwrap()
            .render(&s)
            .unwrap(),
        "skipped"
    );
}

#[test]
fn resolve_walks_indexes_into_lists_and_keys_into_objects_only() {
    let s = scope();
    let r = |t: &str| s.resolve(&Reference::parse(t).unwrap());
    assert_eq!(r("input.obj.list.1"), Some(json!(2)));
    assert_eq!(r("input.obj.list[1]"), Some(json!(2)));
    assert_eq!(r("input.obj.list.k"), None);
    assert_eq!(r("input.obj.0"), None);
    assert_eq!(r("steps.scan.action"), Some(Value::Null));
    assert_eq!(
        r("workflow"),
        Some(json!({"run_id": "wf-1", "name": "triage"}))
    );
}
