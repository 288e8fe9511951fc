//! `--sandbox strict` with each REAL CLI (Claude Code, Codex, Gemini CLI,
//! Qwen Code, opencode) through the run's model gateway, against
//! `agentgate fake-llm` over HTTPS requiring the real key (as
//! `gateway_e2e.rs`). The model has the CLI's shell tool run the probe of
//! `sandbox_e2e.rs`, plus a connect to an outside address (192.0.2.1:80,
//! TEST-NET-1). Checked: the environment, `~/.ssh` and the writes as in
//! `workspace`; the loopback server the test runs and the outside address
//! are NOT reached (the CLI has a network namespace of its own whose only
//! port is the gateway's, relayed to its Unix socket), while the run
//! answers through the gateway (its model calls are `model_call` events);
//! the envelope's `sandbox.network` is enforced by a network namespace.
//!
//! These need the tools sandbox's `NetworkRule::Forward` and the gateway's
//! `unix_socket` (built in parallel, stubs until they merge): until then
//! the loopback server is reached and the network is `not_enforced`.

use std::ffi::OsStr;

use agentgate_fakellm::clients::Cli;

use super::gateway_e2e::{https_upstream, test_ca, with_real_key};
use super::sandbox_e2e::{Probe, confined, envelope, events, finding, plant_ssh_key, run, script};
use super::support::Client;

/// An address outside the machine nobody answers (RFC 5737).
const OUTSIDE: &str = "192.0.2.1:80";

fn strict(cli: Cli) {
    let ca = test_ca();
    let probe = Probe::new();
    let upstream = https_upstream(&script(cli, &probe.command(Some(OUTSIDE))), &ca);
    let mut client = Client::new(cli, &upstream);
    with_real_key(cli, &mut client);
    plant_ssh_key(&client);
    let store = tempfile::tempdir().unwrap();
    let config = ca.dir.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        format!(
            "version: 1\ngateway:\n  ca_file: {}\n",
            ca.ca_file.display()
        ),
    )
    .unwrap();
    let run = run(
        &client,
        store.path(),
        &[
            OsStr::new("--gateway"),
            OsStr::new("--config"),
            config.as_os_str(),
            OsStr::new("--sandbox"),
            OsStr::new("strict"),
        ],
    );
    let all = run.all_output();
    let work = &client.setup.workdir;
    assert_eq!(
        finding(work, "loopback.txt", &all),
        "refused",
        "{cli}: the machine's loopback server was reached"
    );
    assert_eq!(
        finding(work, "remote.txt", &all),
        "refused",
        "{cli}: an outside address was reached"
    );
    let env = confined(cli, &client, &probe, &run);
    assert_eq!(env["sandbox"]["level"], "strict", "{env:#}");
    let network = &env["sandbox"]["network"];
    assert_eq!(network["state"], "enforced", "{cli}: {network:#}");
    assert_eq!(network["by"], "network namespace", "{cli}: {network:#}");
    // The answer came through the gateway.
    let calls = events(&run)
        .iter()
        .filter(|e| e["type"] == "model_call" && e["status"] == 200)
        .count();
    assert!(calls >= 2, "{cli}: {calls} model calls: {all}");
    assert!(envelope(&run)["gateway"]["model_calls"].as_u64() >= Some(2));
}

#[test]
fn claude_in_strict() {
    strict(Cli::Claude);
}

#[test]
fn codex_in_strict() {
    strict(Cli::Codex);
}

#[test]
fn gemini_in_strict() {
    strict(Cli::Gemini);
}

#[test]
fn qwen_in_strict() {
    strict(Cli::Qwen);
}

#[test]
fn opencode_in_strict() {
    strict(Cli::Opencode);
}
