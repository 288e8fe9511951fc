//! What one-shot runs do with a turn's settings, done by warm turns too,
//! with the REAL opencode against `agentgate fake-llm` through the run
//! engine: `--debug-prompt` saves each turn's prompt, redacted, in its run
//! folder, and `--reasoning-effort` selects opencode's model variant of
//! that name (as `opencode run --variant` does), which reaches the model
//! request (without it, opencode would use the model's first variant).

use agentgate_core::Config;
use agentgate_fakellm::clients::Cli;
use agentgate_providers::PermissionMode;
use serde_json::{Value, json};

use super::warm_run::Bench;

const SECRET: &str = "s3cr3t-warm-token-0123456789abcdef";

#[test]
fn opencode_warm_turns_save_their_prompts_and_select_the_effort_variant() {
    let b = Bench::new(
        Cli::Opencode,
        "turns:\n  - text: \"ok\"\n    repeat: true\n",
    );
    // The fake model gets variants that set the request's reasoning
    // effort; opencode picks the first (`low`, the file's keys are sorted)
    // unless told otherwise.
    let setup = &b.client.setup;
    let config_file = setup.home.join(".config/opencode/opencode.json");
    let mut oc: Value =
        serde_json::from_str(&std::fs::read_to_string(&config_file).unwrap()).unwrap();
    oc["provider"]["fake"]["models"][&setup.model]["variants"] =
        json!({"low": {"reasoningEffort": "low"}, "xhigh": {"reasoningEffort": "xhigh"}});
    std::fs::write(&config_file, oc.to_string()).unwrap();

    let config = Config {
        redact: vec![SECRET.to_owned()],
        ..Config::default()
    };
    let mut run_ids = Vec::new();
    for prompt in [format!("turn ONE, key {SECRET}"), "turn TWO".to_owned()] {
        let mut plan = b.plan(&prompt, PermissionMode::Bypass, &config);
        plan.debug_prompt = true;
        for step in &mut plan.steps {
            step.request.reasoning_effort = Some("xhigh".into());
        }
        let (outcome, _) = b.turn_with(&plan);
        let env = serde_json::to_value(&outcome.envelope).unwrap();
        assert_eq!(outcome.exit_code, 0, "{env:#}");
        assert!(env["warm"].is_object(), "not a warm turn: {env:#}");
        run_ids.push(env["run_id"].as_str().unwrap().to_owned());
    }

    // Each turn's prompt, in its own run folder, the secret redacted.
    let runs = b._db.path().join("runs");
    let saved: Vec<String> = run_ids
        .iter()
        .map(|id| {
            let path = runs.join(id).join("prompt.txt");
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .collect();
    assert!(saved[0].contains("turn ONE, key "), "{saved:?}");
    assert!(
        !saved[0].contains(SECRET),
        "the secret was saved: {saved:?}"
    );
    assert!(saved[1].contains("turn TWO"), "{saved:?}");

    // The variant reached every model request of both turns.
    let efforts: Vec<Value> = b
        .server
        .turn_requests()
        .iter()
        .map(|r| r["reasoning"]["reasoning_effort"].clone())
        .collect();
    assert!(!efforts.is_empty(), "no model request");
    assert!(efforts.iter().all(|e| e == "xhigh"), "{efforts:?}");
}
