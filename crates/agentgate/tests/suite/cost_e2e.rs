//! `cost_usd` from the rate card with the REAL Claude Code, Codex, Gemini
//! CLI, Qwen Code and opencode against `agentgate fake-llm`: the script
//! gives known token figures, and the envelope's `tokens_used.cost_usd` is
//! checked to the cent against the card's prices of the tokens the
//! envelope reports (the built-in card's for the models it prices, the
//! config's `pricing:` entries for fake-llm's own model names), with
//! `cost.source` and `cost.card`. Claude Code reports its own cost: with
//! the card's real price the two agree (`both`, not flagged); with a
//! config that prices the model ten times higher the difference is
//! flagged, and the card's figure is the cost. opencode reports 0 for a
//! model its config does not price: flagged beside the card's figure.
//! Claude's cache writes with a 1-hour lifetime (the script's
//! `cache_write_1h`) are priced at the card's 1-hour rate, not the
//! 5-minute one, from the CLI's figures and from the gateway's.

use std::path::Path;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::support::{Client, FakeServer, Run, run_bounded};

const LIMIT: Duration = Duration::from_secs(180);

/// The answer every turn gives.
const ANSWER: &str = "Priced.";

/// A script whose every model call reports `usage`.
fn script(usage: &str) -> String {
    format!("turns:\n  - repeat: true\n    text: \"{ANSWER}\"\n    usage: {usage}\n")
}

/// The config: fake-llm's model names the card does not know, priced.
const PRICING: &str = r#"version: 1
pricing:
  flag_above: {relative: 0.05, usd: 0.01}
  providers:
    openai:
      - model: gpt-5.5
        usd_per_million: {input: 1.25, cache_read: 0.125, cache_write_5m: 0, cache_write_1h: 0, output: 10}
    fake:
      - model: fake-model
        usd_per_million: {input: 2, cache_read: 0.2, cache_write_5m: 2.5, output: 8}
"#;

/// Prices per million tokens: uncached input, cache read, cache write
/// (5-minute), output.
type Prices = [f64; 4];

/// The card's cost of the tokens `env` reports.
fn card_cost(env: &Value, p: Prices) -> f64 {
    let t = &env["tokens_used"];
    let n = |k: &str| t[k].as_u64().unwrap() as f64;
    let read = n("cache_read_input_tokens");
    let write = n("cache_creation_input_tokens");
    let uncached = n("input_tokens") - read - write;
    (uncached * p[0] + read * p[1] + write * p[2] + n("output_tokens") * p[3]) / 1e6
}

/// `agentgate run` of `client`'s CLI with `config` (and `extra` flags).
fn run(client: &Client, home: &Path, config: &str, extra: &[&str]) -> Run {
    let cli = client.setup.cli;
    let config_file = home.join("agentgate.yaml");
    std::fs::write(&config_file, config).unwrap();
    let mut cmd = client.agentgate();
    cmd.arg("--config")
        .arg(&config_file)
        .args(["run", "--provider", cli.binary(), "--yolo", "--stream"])
        .arg("--binary")
        .arg(&client.program);
    // Codex and opencode do not report the model their config chose:
    // named here, as a run must for the card to price it.
    let model = match cli {
        Cli::Opencode => format!("fake/{}", client.setup.model),
        _ => client.setup.model.clone(),
    };
    cmd.args(["--model", &model]).args(extra);
    if let Some((k, v)) = client
        .setup
        .env
        .iter()
        .find(|(k, _)| k == "FAKE_LLM_API_KEY")
    {
        cmd.arg("--env").arg(format!("{k}={v}"));
    }
    cmd.arg("Say something, please.")
        .env("AGENTGATE_HOME", home.join("store"));
    run_bounded(cmd, LIMIT)
}

fn envelope(run: &Run) -> Value {
    run.stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|e| e["envelope"].clone())
        .unwrap_or_default()
}

/// Run `cli` on `usage`, check the answer and that the tokens are at
/// least the scripted ones; the envelope.
fn priced_run(cli: Cli, usage: &str, config: &str, min_input: u64) -> Value {
    priced_run_with(cli, usage, config, min_input, &[])
}

/// [`priced_run`] with `extra` flags.
fn priced_run_with(cli: Cli, usage: &str, config: &str, min_input: u64, extra: &[&str]) -> Value {
    let server = FakeServer::start(&script(usage));
    let client = Client::new(cli, &server);
    let home = tempfile::tempdir().unwrap();
    let run = run(&client, home.path(), config, extra);
    let all = run.all_output();
    assert_eq!(run.code, Some(0), "{cli}: {all}");
    let env = envelope(&run);
    assert_eq!(env["response"], ANSWER, "{cli}: {env:#}");
    assert!(
        env["tokens_used"]["input_tokens"].as_u64().unwrap() >= min_input,
        "{cli}: {env:#}"
    );
    env
}

/// `cost_usd` is the card's price of the envelope's tokens, to the cent,
/// from the entry `(provider, model, version)`.
fn assert_card_priced(cli: Cli, env: &Value, prices: Prices, entry: (&str, &str, &str)) -> f64 {
    let want = card_cost(env, prices);
    let got = env["tokens_used"]["cost_usd"]
        .as_f64()
        .unwrap_or_else(|| panic!("{cli}: no cost_usd: {:#}", env["cost"]));
    assert!(
        (got - want).abs() < 0.005,
        "{cli}: cost_usd {got}, the card says {want}: {env:#}"
    );
    assert!(want >= 0.01, "{cli}: the script's figures price to {want}");
    let cost = &env["cost"];
    assert_eq!(cost["usd"].as_f64(), Some(got), "{cli}: {cost:#}");
    assert_eq!(cost["card_usd"].as_f64(), Some(got), "{cli}: {cost:#}");
    assert_eq!(cost["card"]["provider"], entry.0, "{cli}: {cost:#}");
    assert_eq!(cost["card"]["model"], entry.1, "{cli}: {cost:#}");
    assert_eq!(cost["card"]["version"], entry.2, "{cli}: {cost:#}");
    got
}

/// The built-in card's version.
fn card_version() -> String {
    agentgate_core::builtin_card().unwrap().version.clone()
}

#[test]
fn claude_is_priced_by_the_card_beside_its_own_cost() {
    let usage = "{input: 30000, cache_read: 100000, cache_write: 20000, output: 2000}";
    let env = priced_run(Cli::Claude, usage, "version: 1\n", 150_000);
    let version = card_version();
    let card = assert_card_priced(
        Cli::Claude,
        &env,
        [3.0, 0.3, 3.75, 15.0],
        ("anthropic", "claude-sonnet-4-5", &version),
    );
    let cost = &env["cost"];
    assert_eq!(cost["source"], "both", "{cost:#}");
    let cli = cost["cli_usd"].as_f64().unwrap();
    assert!(
        (cost["difference_usd"].as_f64().unwrap() - (cli - card)).abs() < 1e-6,
        "{cost:#}"
    );
    assert_eq!(cost["flagged"], false, "{cost:#}");

    // Priced ten times higher by the config: Claude's own figure is now
    // far below the card's, and flagged.
    let tenfold = format!(
        "{PRICING}    anthropic:\n      - model: claude-sonnet-4-5\n        usd_per_million: {{input: 30, cache_read: 3, cache_write_5m: 37.5, output: 150}}\n"
    );
    let env = priced_run(Cli::Claude, usage, &tenfold, 150_000);
    let card = assert_card_priced(
        Cli::Claude,
        &env,
        [30.0, 3.0, 37.5, 150.0],
        ("anthropic", "claude-sonnet-4-5", "config"),
    );
    let cost = &env["cost"];
    assert_eq!(cost["source"], "both", "{cost:#}");
    assert_eq!(cost["flagged"], true, "{cost:#}");
    assert!(cost["cli_usd"].as_f64().unwrap() < card / 2.0, "{cost:#}");
}

#[test]
fn codex_is_priced_by_the_configs_entry() {
    let env = priced_run(
        Cli::Codex,
        "{input: 20000, cache_read: 8000, output: 2000}",
        PRICING,
        28_000,
    );
    assert_card_priced(
        Cli::Codex,
        &env,
        [1.25, 0.125, 0.0, 10.0],
        ("openai", "gpt-5.5", "config"),
    );
    assert_eq!(env["cost"]["source"], "rate_card", "{:#}", env["cost"]);
    assert!(env["cost"]["cli_usd"].is_null());
}

#[test]
fn gemini_is_priced_by_the_builtin_card() {
    let env = priced_run(Cli::Gemini, "{input: 20000, output: 4000}", PRICING, 20_000);
    assert_card_priced(
        Cli::Gemini,
        &env,
        [0.3, 0.0, 0.0, 2.5],
        ("google", "gemini-2.5-flash", &card_version()),
    );
    assert_eq!(env["cost"]["source"], "rate_card", "{:#}", env["cost"]);
}

#[test]
fn qwen_is_priced_by_the_builtin_card() {
    let env = priced_run(Cli::Qwen, "{input: 20000, output: 2000}", PRICING, 20_000);
    assert_card_priced(
        Cli::Qwen,
        &env,
        [1.0, 0.0, 0.0, 5.0],
        ("qwen", "qwen3-coder-plus", &card_version()),
    );
    assert_eq!(env["cost"]["source"], "rate_card", "{:#}", env["cost"]);
}

#[test]
fn opencode_is_priced_by_the_configs_entry_beside_its_own_cost() {
    let env = priced_run(
        Cli::Opencode,
        "{input: 20000, cache_read: 8000, output: 2000}",
        PRICING,
        20_000,
    );
    assert_card_priced(
        Cli::Opencode,
        &env,
        [2.0, 0.2, 2.5, 8.0],
        ("fake", "fake-model", "config"),
    );
    // opencode reports a cost of its own, 0 for a model its config gives
    // no price: beside the card's, a difference that is flagged.
    let cost = &env["cost"];
    assert_eq!(cost["source"], "both", "{cost:#}");
    assert_eq!(cost["cli_usd"].as_f64(), Some(0.0), "{cost:#}");
    assert_eq!(cost["flagged"], true, "{cost:#}");
}

#[test]
fn an_unknown_model_has_no_cost_and_says_why() {
    // Codex's fake-llm model without the config's entry.
    let env = priced_run(
        Cli::Codex,
        "{input: 20000, output: 2000}",
        "version: 1\n",
        20_000,
    );
    assert!(env["tokens_used"]["cost_usd"].is_null(), "{env:#}");
    let cost = &env["cost"];
    assert!(
        cost["usd"].is_null() && cost["source"].is_null(),
        "{cost:#}"
    );
    assert!(
        cost["reason"].as_str().unwrap().contains("gpt-5.5"),
        "{cost:#}"
    );
}

/// Prices per million tokens: uncached input, cache read, 5-minute cache
/// write, 1-hour cache write, output.
type PricesByTtl = [f64; 5];

/// The card's cost of the tokens `env` reports, cache writes by lifetime;
/// with `all_5m`, every write at the 5-minute rate (the bug this guards).
fn card_cost_by_ttl(env: &Value, p: PricesByTtl, all_5m: bool) -> f64 {
    let t = &env["tokens_used"];
    let n = |k: &str| t[k].as_u64().unwrap_or(0) as f64;
    let read = n("cache_read_input_tokens");
    let write = n("cache_creation_input_tokens");
    let write_1h = if all_5m {
        0.0
    } else {
        n("cache_creation_1h_input_tokens")
    };
    let uncached = n("input_tokens") - read - write;
    (uncached * p[0]
        + read * p[1]
        + (write - write_1h) * p[2]
        + write_1h * p[3]
        + n("output_tokens") * p[4])
        / 1e6
}

/// Claude Code on a script whose every call writes 20000 tokens to the
/// cache, 15000 of them for an hour: the envelope tells the 1-hour part,
/// and `cost_usd` is the card's figure with the 1-hour rate, to the cent,
/// apart from the 5-minute-priced one by more than a cent. Claude's own
/// figure agrees with it (not flagged). `extra`: `--gateway` or nothing.
fn claude_one_hour_writes(extra: &[&str]) -> Value {
    let usage = "{input: 30000, cache_read: 100000, cache_write: 20000, cache_write_1h: 15000, output: 2000}";
    let env = priced_run_with(Cli::Claude, usage, "version: 1\n", 150_000, extra);
    let t = &env["tokens_used"];
    let write = t["cache_creation_input_tokens"].as_u64().unwrap();
    let write_1h = t["cache_creation_1h_input_tokens"]
        .as_u64()
        .unwrap_or_else(|| panic!("no 1-hour writes: {env:#}"));
    // Each call's figures, as many calls as the run made.
    assert!(write >= 20_000 && write.is_multiple_of(20_000), "{env:#}");
    assert_eq!(write_1h * 4, write * 3, "{env:#}");
    // Sonnet 4.5 on the built-in card: $3, $0.30, $3.75, $6, $15.
    let prices = [3.0, 0.3, 3.75, 6.0, 15.0];
    let want = card_cost_by_ttl(&env, prices, false);
    let at_5m = card_cost_by_ttl(&env, prices, true);
    let got = env["tokens_used"]["cost_usd"]
        .as_f64()
        .unwrap_or_else(|| panic!("no cost_usd: {:#}", env["cost"]));
    let cents = |usd: f64| (usd * 100.0).round() as i64;
    assert_eq!(
        cents(got),
        cents(want),
        "cost_usd {got}, the card says {want}: {env:#}"
    );
    assert!(
        (got - want).abs() < 1e-6,
        "cost_usd {got}, the card says {want}"
    );
    assert!(
        cents(want) - cents(at_5m) >= 3,
        "1-hour {want} vs 5-minute {at_5m}"
    );
    let cost = &env["cost"];
    assert_eq!(cost["card"]["model"], "claude-sonnet-4-5", "{cost:#}");
    assert_eq!(cost["card_usd"].as_f64(), Some(got), "{cost:#}");
    assert_eq!(cost["source"], "both", "{cost:#}");
    assert_eq!(cost["flagged"], false, "{cost:#}");
    let notes = cost["notes"].to_string();
    assert!(!notes.contains("5-minute rate"), "{cost:#}");
    env
}

#[test]
fn claude_one_hour_cache_writes_are_priced_at_the_one_hour_rate() {
    let env = claude_one_hour_writes(&[]);
    assert!(env["metadata"]["usage_source"].is_null(), "{env:#}");
}

#[test]
fn claude_one_hour_cache_writes_from_the_wire_are_priced_at_the_one_hour_rate() {
    let env = claude_one_hour_writes(&["--gateway"]);
    assert_eq!(env["metadata"]["usage_source"], "wire", "{env:#}");
    let gateway = &env["gateway"];
    assert_eq!(
        gateway["wire_usage"]["cache_creation_1h_input_tokens"],
        env["tokens_used"]["cache_creation_1h_input_tokens"],
        "{env:#}"
    );
    // The CLI told the same 1-hour writes as the wire.
    assert_eq!(gateway["differences"], serde_json::json!([]), "{env:#}");
}
