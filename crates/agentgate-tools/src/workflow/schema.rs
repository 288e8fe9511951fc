//! The workflow file's JSON Schema, generated from its types
//! (`definition.rs`) and checked in at `schemas/workflow.schema.json` for
//! editors and other tools. A test fails when the file drifts from the
//! types; `AGENTGATE_BLESS=1 cargo test -p agentgate-tools` rewrites it.
//!
//! The schema says what serde reads (keys, types); the checks past parsing
//! (one kind per step, ids, references, cycles) are `check.rs`'s.

use super::definition::WorkflowDef;

/// The JSON Schema of a workflow file.
pub fn workflow_schema() -> serde_json::Value {
    schemars::schema_for!(WorkflowDef).to_value()
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::PathBuf;

    use serde_json::Value;

    use super::*;
    use crate::workflow::load::STEP_KEYS;

    const BLESS_HINT: &str = "schemas/workflow.schema.json is generated from the workflow's \
         types. If the type change is intended, regenerate it with\n\n    AGENTGATE_BLESS=1 \
         cargo test -p agentgate-tools workflow::schema\n\nthen review and commit the diff.";

    fn schema_path() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas/workflow.schema.json")
    }

    fn blessing() -> bool {
        std::env::var("AGENTGATE_BLESS").is_ok_and(|value| value == "1")
    }

    /// Fails when the checked-in schema differs from the types; with
    /// `AGENTGATE_BLESS=1` rewrites the file instead.
    #[test]
    fn the_checked_in_schema_matches_the_types() {
        let schema = workflow_schema();
        let path = schema_path();
        if blessing() {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
            fs::write(&path, text).unwrap();
            return;
        }
        // Compared as JSON values, not text: key order may differ with
        // serde_json's `preserve_order` feature.
        let on_disk = fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok());
        assert!(
            on_disk.as_ref() == Some(&schema),
            "{} is out of date or missing.\n\n{BLESS_HINT}",
            path.display()
        );
    }

    #[test]
    fn the_schema_describes_the_format() {
        let schema = workflow_schema();
        let required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(required, ["version", "name", "steps"]);
        assert_eq!(schema["additionalProperties"], Value::Bool(false));
        let step = &schema["$defs"]["StepDef"];
        assert_eq!(step["additionalProperties"], Value::Bool(false));
        assert_eq!(step["properties"]["agent"]["type"][0], "object");
        let decision = &schema["$defs"]["DecisionDef"]["properties"];
        assert!(decision.get("for").is_some(), "{decision}");
        // The keys a step may have, as the loader's clearer message for an
        // unknown one lists them.
        let mut keys: Vec<&str> = step["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected = STEP_KEYS.to_vec();
        keys.sort_unstable();
        expected.sort_unstable();
        assert_eq!(keys, expected);
    }
}
