//! A server's own secrets are hidden from the CLIs it runs in a sandbox,
//! wherever they lie: its `--token-file` and the queue's key file, both
//! here in a folder of the user's home outside agentgate's data folder
//! (the home is readable under `workspace`). A stand-in `claude` tries to
//! read both and notes what it found in its working folder: a job under
//! `workspace` is refused both, the same job under `off` reads both (so
//! the files are readable to anything not sandboxed).

use std::os::unix::fs::PermissionsExt;

use serde_json::{Value, json};

use super::serve_queue_support::{QueueHome, TOKEN, wait_until};
use super::serve_support::{Env, Serve, post_json};

/// Notes in its working folder whether it read each secret, then answers.
const STAND_IN: &str = r#"#!/bin/bash
cat > /dev/null
for name in token queue.key; do
  if cat "@SECRETS@/$name" > /dev/null 2>&1; then echo read; else echo refused; fi > "found-$name"
done
echo '{"type":"system","subtype":"init","session_id":"sess-1","model":"fake-model"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"sess-1","num_turns":1}'
"#;

#[test]
fn a_servers_token_file_and_queue_key_are_hidden_from_sandboxed_clis() {
    let home = QueueHome::new("");
    let secrets = home.file("secrets");
    std::fs::create_dir(&secrets).unwrap();
    let token_file = secrets.join("token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let key_file = secrets.join("queue.key");
    std::fs::write(
        home.file("agentgate.yaml"),
        format!("version: 1\nqueue:\n  key_file: {}\n", key_file.display()),
    )
    .unwrap();
    let claude = home.file("bin/claude");
    std::fs::write(
        &claude,
        STAND_IN.replace("@SECRETS@", secrets.to_str().unwrap()),
    )
    .unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = home.file("bin");
    let env = Env {
        home: home.path(),
        bin: &bin,
        // No AGENTGATE_TOKEN: the token comes from the file.
        vars: vec![(
            "AGENTGATE_CONFIG",
            home.file("agentgate.yaml").display().to_string(),
        )],
    };
    let server = Serve::start(&env, &["--token-file", token_file.to_str().unwrap()]);
    assert!(key_file.exists(), "serve makes the queue's key file");

    for level in ["workspace", "off"] {
        let work = home.file(&format!("work-{level}"));
        std::fs::create_dir(&work).unwrap();
        let body = json!({
            "prompt": "look around",
            "providers": ["claude"],
            "no_unattended_instruction": true,
            "max_provider_retries": 0,
            "cwd": work,
            "sandbox": level,
        });
        let r = post_json(&server.url, "/v1/runs", TOKEN, &body.to_string());
        assert_eq!(r.status, 201, "{r:?}");
        let id = r.json()["run_id"].as_str().unwrap().to_owned();
        let envelope: Value = wait_until(&format!("the {level} job to end"), || {
            let job = home.job(&id);
            job.ended_at
                .is_some()
                .then(|| serde_json::to_value(job.envelope).unwrap())
        });
        assert_eq!(envelope["response"], "done", "{level}: {envelope:#}");
        let expected = if level == "off" { "read" } else { "refused" };
        for name in ["token", "queue.key"] {
            let found = std::fs::read_to_string(work.join(format!("found-{name}")))
                .unwrap_or_else(|e| panic!("{level}: no note for {name}: {e}"));
            assert_eq!(found.trim(), expected, "{level}: {name}");
        }
    }
}
