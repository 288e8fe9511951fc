//! An agent step's `agent:` mapping (and a decision's) as a [`RunRequest`]:
//! the body of `POST /v1/runs`, with the few differences a file allows.
//!
//! - `agent: NAME` and `provider: NAME` are accepted for `agents: [NAME]`
//!   and `providers: [NAME]` (not both forms at once);
//! - the queue's fields (`priority`, `idempotency_key`, `not_before`) are
//!   refused: the step's run is queued with the workflow's own job;
//! - a relative path is relative to the workflow file's folder.
//!
//! Then [`RunRequest::from_value`] and [`RunRequest::to_flags`] must accept
//! it, so a bad field is a load-time fault, named by the field. The prompt
//! is still a template here: the engine renders it before the run.

use std::path::Path;

use agentgate_core::{RequestError, RunRequest};
use serde_json::{Map, Value};

/// The fields of the queue, which belong to the workflow's job.
pub const QUEUE_FIELDS: [&str; 3] = ["priority", "idempotency_key", "not_before"];

/// The fields holding one path.
pub const PATH_FIELDS: [&str; 6] = [
    "system_file",
    "agent_file",
    "context_dir",
    "cwd",
    "binary",
    "output_schema",
];

/// The fields holding a list of paths.
pub const PATH_LIST_FIELDS: [&str; 2] = ["context", "add_dirs"];

/// The singular forms a file may use, with the list each stands for.
const SINGULAR: [(&str, &str); 2] = [("agent", "agents"), ("provider", "providers")];

/// The run an `agent:` mapping asks for, its relative paths made absolute
/// against `base_dir`. A refusal names the field of the mapping (`request`
/// for the mapping itself).
pub fn agent_request(value: &Value, base_dir: &Path) -> Result<RunRequest, RequestError> {
    let Value::Object(given) = value else {
        return Err(RequestError::new(
            "request",
            "expected a mapping: the run's fields (prompt, chain or agent, model, ...)",
        ));
    };
    let mut fields = given.clone();
    let mut renamed: Vec<(&str, &str)> = Vec::new();
    for (one, many) in SINGULAR {
        let Some(name) = fields.remove(one) else {
            continue;
        };
        if fields.contains_key(many) {
            return Err(RequestError::new(
                one,
                format!("give {one} or {many}, not both"),
            ));
        }
        if !name.is_string() {
            return Err(RequestError::new(
                one,
                format!("expected a name (several are given as {many}: a list)"),
            ));
        }
        fields.insert(many.to_owned(), Value::Array(vec![name]));
        renamed.push((many, one));
    }
    if let Some(field) = QUEUE_FIELDS.into_iter().find(|f| fields.contains_key(*f)) {
        return Err(RequestError::new(
            field,
            "a step's run is queued with the workflow: give it to the workflow's own job",
        ));
    }
    // The workflow file is stored with its run (its events carry it, so a
    // resume runs the same workflow): a secret written in it would be
    // stored too. Secrets reach the CLI from the environment.
    if let Some(Value::Object(env)) = fields.get("env")
        && let Some(name) = env.keys().find(|k| agentgate_core::is_secret(k))
    {
        return Err(RequestError::new(
            format!("env.{name}"),
            "looks like a secret: the workflow is stored with its run, so give it in \
             agentgate's environment instead (the agent CLI inherits it)",
        ));
    }
    absolute_paths(&mut fields, base_dir);
    let as_written = |mut e: RequestError| {
        if let Some((_, one)) = renamed.iter().find(|(many, _)| e.field == *many) {
            e.field = (*one).to_owned();
        }
        e
    };
    let request = RunRequest::from_value(Value::Object(fields)).map_err(as_written)?;
    request.to_flags().map_err(as_written)?;
    Ok(request)
}

/// Each relative path of a path field joined to `base_dir`; values that are
/// not strings are left for [`RunRequest::from_value`] to refuse.
fn absolute_paths(fields: &mut Map<String, Value>, base_dir: &Path) {
    let absolute = |v: &mut Value| {
        if let Value::String(s) = v
            && !s.is_empty()
            && !Path::new(s.as_str()).is_absolute()
        {
            *s = base_dir.join(s.as_str()).to_string_lossy().into_owned();
        }
    };
    for field in PATH_FIELDS {
        if let Some(v) = fields.get_mut(field) {
            absolute(v);
        }
    }
    for field in PATH_LIST_FIELDS {
        if let Some(Value::Array(items)) = fields.get_mut(field) {
            items.iter_mut().for_each(absolute);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;

    use super::*;

    const BASE: &str = "/flows";

    #[test]
    fn singular_names_become_lists_and_relative_paths_absolute() {
        let value = json!({
            "agent": "reviewer", "prompt": "Review ${steps.scan.result}",
            "output_schema": "review.schema.json", "context": ["a.md", "/abs/b.md"],
            "add_dirs": ["../shared"], "cwd": "/work", "system_file": "sys/system.md",
            "model": "opus", "timeout": "10m",
        });
        let r = agent_request(&value, Path::new(BASE)).unwrap();
        assert_eq!(r.agents, ["reviewer"]);
        assert_eq!(r.prompt.as_deref(), Some("Review ${steps.scan.result}"));
        assert_eq!(
            r.output_schema,
            Some(PathBuf::from("/flows/review.schema.json"))
        );
        assert_eq!(
            r.context,
            [PathBuf::from("/flows/a.md"), PathBuf::from("/abs/b.md")]
        );
        assert_eq!(r.add_dirs, [PathBuf::from("/flows/../shared")]);
        assert_eq!(r.cwd, Some(PathBuf::from("/work")));
        assert_eq!(r.system_file, Some(PathBuf::from("/flows/sys/system.md")));
        assert_eq!(r.model.as_deref(), Some("opus"));

        let r = agent_request(
            &json!({"provider": "claude", "prompt": "hi"}),
            Path::new(BASE),
        )
        .unwrap();
        assert_eq!(r.providers, ["claude"]);
        let r = agent_request(
            &json!({"chain": "default", "prompt": "hi"}),
            Path::new(BASE),
        )
        .unwrap();
        assert_eq!(r.chain.as_deref(), Some("default"));
    }

    #[test]
    fn every_refusal_names_the_field_as_written() {
        let refused = |v: Value| agent_request(&v, Path::new(BASE)).unwrap_err();
        let e = refused(json!("claude"));
        assert_eq!(e.field, "request");
        assert!(e.message.contains("expected a mapping"), "{e}");

        let e = refused(json!({"agent": "a", "agents": ["b"], "prompt": "p"}));
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("agent", "give agent or agents, not both")
        );
        let e = refused(json!({"provider": "a", "providers": ["b"], "prompt": "p"}));
        assert_eq!(e.field, "provider");
        let e = refused(json!({"agent": ["a"], "prompt": "p"}));
        assert_eq!(e.field, "agent");
        assert!(e.message.contains("expected a name"), "{e}");
        // A refusal of the list made from `agent:` names `agent`.
        let e = refused(json!({"agent": " ", "prompt": "p"}));
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("agent", "a name is empty")
        );

        for field in QUEUE_FIELDS {
            let e = refused(json!({"prompt": "p", field: 1}));
            assert_eq!(e.field, field);
            assert!(e.message.contains("workflow's own job"), "{e}");
        }
        let e = refused(json!({"prompt": "p", "env": {"LOG": "1", "GITHUB_TOKEN": "ghp_x"}}));
        assert_eq!(e.field, "env.GITHUB_TOKEN");
        assert!(e.message.contains("looks like a secret"), "{e}");
        assert!(
            agent_request(
                &json!({"prompt": "p", "env": {"LOG": "1"}}),
                Path::new(BASE)
            )
            .is_ok()
        );
        let e = refused(json!({"prompt": "p", "colour": "red"}));
        assert_eq!(e.field, "colour");
        let e = refused(json!({"prompt": "p", "model": 3}));
        assert_eq!(e.field, "model");
        let e = refused(json!({"chain": "c"}));
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("prompt", "a prompt or a task is needed")
        );
        let e = refused(json!({"prompt": "p", "timeout": "soon"}));
        assert_eq!(e.field, "timeout");
        let e = refused(json!({"prompt": "p", "chain": "c", "agent": "a"}));
        assert_eq!(e.field, "chain");
        let e = refused(json!({"prompt": "p", "session_busy": "wait"}));
        assert_eq!(e.field, "session_busy");
    }
}
