use serde_json::json;

use super::*;

fn workflow_row() -> Value {
    // As an older version stored it: the tag was a field of its own.
    json!({
        "kind": "workflow",
        "workflow": {"version": 1, "name": "w", "steps": [{"id": "a", "tool": "scanner"}]},
        "input": {"n": 1},
        "base_dir": "/srv/w",
        "priority": 3,
    })
}

#[test]
fn a_run_is_stored_tagged_and_read_back_the_same() {
    let run = RunRequest::from_value(
        json!({"prompt": "hi", "providers": ["claude"], "warm": false, "timeout": "5m"}),
    )
    .unwrap();
    let stored = JobRequest::Run(Box::new(run.clone())).to_stored().unwrap();
    assert_eq!(stored["kind"], "run", "{stored}");
    assert_eq!(stored["prompt"], "hi");
    assert_eq!(
        JobRequest::from_stored(stored.clone()).unwrap(),
        JobRequest::Run(Box::new(run.clone()))
    );
    // Serde reads it the same way.
    let read: JobRequest = serde_json::from_value(stored).unwrap();
    assert_eq!(read.as_run(), Some(&run));
    // The API shows the body it was submitted as.
    let shown = read.to_submitted().unwrap();
    assert_eq!(shown, serde_json::to_value(&run).unwrap());
    assert!(shown.get("kind").is_none(), "{shown}");
}

#[test]
fn rows_an_older_version_queued_are_read_as_they_were_meant() {
    // A run's request stored as its body, untagged.
    let old_run = json!({"prompt": "tidy up", "providers": ["codex"], "ignore_quota": true, "idempotency_key": "k"});
    let read = JobRequest::from_stored(old_run).unwrap();
    assert_eq!(read.kind(), JobKind::Run);
    let run = read.as_run().unwrap();
    assert_eq!(
        (run.prompt.as_deref(), run.ignore_quota),
        (Some("tidy up"), true)
    );
    // A workflow's, with its `kind` field.
    let read = JobRequest::from_stored(workflow_row()).unwrap();
    let JobRequest::Workflow(w) = &read else {
        panic!("{read:?}");
    };
    assert_eq!((w.workflow.name.as_str(), w.priority), ("w", 3));
    assert_eq!(w.input, json!({"n": 1}));
    assert_eq!(w.base_dir, PathBuf::from("/srv/w"));
    // Stored again, it is the same row.
    assert_eq!(read.to_stored().unwrap(), workflow_row());
}

#[test]
fn the_kind_is_read_from_the_tag_alone_even_when_sealed() {
    let sealed = json!({"prompt": "p", "env": {"A": "[sealed]"}, "sealed": {"v": 1, "key": "k", "nonce": "00", "data": "00"}});
    assert_eq!(JobKind::of(&sealed), Ok(JobKind::Run));
    let mut tagged = sealed.clone();
    tagged["kind"] = json!("run");
    assert_eq!(JobKind::of(&tagged), Ok(JobKind::Run));
    assert_eq!(JobKind::of(&workflow_row()), Ok(JobKind::Workflow));
    // A sealed request is not a request until it is opened.
    assert_eq!(JobRequest::from_stored(sealed).unwrap_err().field, "sealed");
}

#[test]
fn a_request_that_does_not_read_is_refused_naming_its_field() {
    for (stored, field) in [
        (json!({"kind": "batch", "prompt": "p"}), "kind"),
        (json!({"kind": 7, "prompt": "p"}), "kind"),
        (json!(["prompt"]), "request"),
        (
            json!({"kind": "run", "prompt": "p", "timeout": 5}),
            "timeout",
        ),
        (json!({"prompt": "p", "colour": "red"}), "colour"),
        (
            json!({"kind": "workflow", "workflow": {"version": 1}, "base_dir": "/w"}),
            "workflow",
        ),
        (json!({"kind": "workflow", "prompt": "p"}), "workflow"),
    ] {
        let e = JobRequest::from_stored(stored.clone()).unwrap_err();
        assert_eq!(e.field, field, "{stored}: {e}");
        assert!(serde_json::from_value::<JobRequest>(stored).is_err());
    }
}

#[test]
fn a_kept_trace_context_is_set_aside_from_the_request_and_read_back() {
    let run = RunRequest::from_value(json!({"prompt": "hi", "providers": ["claude"]})).unwrap();
    let given = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let context = agentgate_telemetry::TraceContext::parse(given, Some("k=v")).unwrap();
    for request in [
        JobRequest::Run(Box::new(run)),
        JobRequest::from_stored(workflow_row()).unwrap(),
    ] {
        let mut stored = request.to_stored().unwrap();
        keep_trace_context(&mut stored, &context);
        assert_eq!(stored["trace_context"]["traceparent"], given);
        // The request reads as it was (its strict fields refuse no key)...
        assert_eq!(JobRequest::from_stored(stored.clone()).unwrap(), request);
        // ...and the context comes back whole.
        assert_eq!(trace_context_of(&stored), Some(context.clone()));
    }
    assert_eq!(trace_context_of(&workflow_row()), None);
}
