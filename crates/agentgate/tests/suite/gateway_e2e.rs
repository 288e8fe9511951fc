//! The model gateway with each REAL CLI (Claude Code, Codex, Gemini CLI,
//! Qwen Code, opencode) against `agentgate fake-llm` over HTTPS, with a
//! CA the test makes (the gateway trusts it through `gateway.ca_file`; the
//! CLI never talks to the upstream itself) and `--require-key`: a model
//! call that does not carry the real key is refused with 401, so a run
//! that answers shows the gateway put the real key on every call while
//! the CLI held only a stub.
//!
//! Each run: the model calls the CLI's shell tool to dump its environment
//! into the working folder, then answers. Checked: the answer is the one
//! the same script gives without a gateway; every call is a `model_call`
//! event whose usage equals the script's figures class by class; the
//! envelope's usage comes from the wire; the dump, the CLI's home, the
//! working folder and the run folder hold no trace of the real key.

use std::ffi::OsStr;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, SanType};
use serde_json::{Value, json};

use super::run_e2e::last_json;
use super::support::{Client, FakeServer, Run, run_bounded};

const LIMIT: Duration = Duration::from_secs(240);

/// The key the upstream requires; only agentgate's environment holds it.
pub const REAL_KEY: &str = "sk-agentgate-e2e-real-key-7f3a9c21d04b";

/// A CA and a certificate for 127.0.0.1 it signed, as PEM files.
pub struct TestCa {
    pub dir: tempfile::TempDir,
    pub ca_file: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
}

pub fn test_ca() -> TestCa {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "agentgate gateway test CA");
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let server_key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.subject_alt_names = vec![SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST))];
    params
        .distinguished_name
        .push(DnType::CommonName, "127.0.0.1");
    let server_cert = params.signed_by(&server_key, &issuer).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    let cert = dir.path().join("server.pem");
    let key = dir.path().join("server.key");
    std::fs::write(&ca_file, ca_cert.pem()).unwrap();
    std::fs::write(&cert, server_cert.pem()).unwrap();
    std::fs::write(&key, server_key.serialize_pem()).unwrap();
    TestCa {
        dir,
        ca_file,
        cert,
        key,
    }
}

/// fake-llm over HTTPS with `ca`'s certificate, requiring [`REAL_KEY`].
pub fn https_upstream(script: &str, ca: &TestCa) -> FakeServer {
    let server = FakeServer::start_with(
        script,
        &[
            OsStr::new("--tls-cert"),
            ca.cert.as_os_str(),
            OsStr::new("--tls-key"),
            ca.key.as_os_str(),
            OsStr::new("--require-key"),
            OsStr::new(REAL_KEY),
        ],
    );
    assert!(server.url.starts_with("https://"), "{}", server.url);
    server
}

/// The script's figures per turn: (input, output, cache_read, cache_write, reasoning).
const TOOL_TURN: (u64, u64, u64, u64, u64) = (1201, 41, 302, 57, 9);
const ANSWER_TURN: (u64, u64, u64, u64, u64) = (1733, 23, 811, 0, 5);

fn usage_yaml((input, output, read, write, reasoning): (u64, u64, u64, u64, u64)) -> String {
    format!(
        "{{input: {input}, output: {output}, cache_read: {read}, cache_write: {write}, reasoning: {reasoning}}}"
    )
}

/// The CLI's shell call that dumps its environment into the working folder.
fn dump_call(cli: Cli) -> String {
    let command = "env > env-dump.txt";
    match cli {
        Cli::Codex => format!(r#"{{name: exec_command, args: {{cmd: "{command}"}}}}"#),
        Cli::Opencode => format!(
            r#"{{name: bash, args: {{command: "{command}", description: "dump the environment"}}}}"#
        ),
        _ => format!(r#"{{name: {}, command: "{command}"}}"#, cli.shell_tool()),
    }
}

fn script(cli: Cli) -> String {
    format!(
        "turns:\n  - match: {{tool_result: false}}\n    repeat: true\n    text: \"Dumping it.\"\n    tool_call: {call}\n    usage: {tool}\n  - match: {{tool_result: true}}\n    repeat: true\n    text: \"Dumped through the gateway.\"\n    usage: {answer}\n",
        call = dump_call(cli),
        tool = usage_yaml(TOOL_TURN),
        answer = usage_yaml(ANSWER_TURN),
    )
}

/// The script's figures as the gateway reads them off `cli`'s API (see
/// `agentgate-gateway`'s wire tests): input with cache reads and writes;
/// output with reasoning; Chat and Gemini have no cache-write figure, and
/// Anthropic no reasoning split.
fn wire_usage(
    cli: Cli,
    (input, output, read, write, reasoning): (u64, u64, u64, u64, u64),
) -> Value {
    let input_tokens = input + read + write;
    let output_tokens = output + reasoning;
    let (cache_creation, reasoning_tokens) = match cli {
        Cli::Claude => (write, 0),
        Cli::Codex => (write, reasoning),
        Cli::Gemini | Cli::Qwen | Cli::Opencode => (0, reasoning),
    };
    json!({
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": cache_creation,
        "reasoning_tokens": reasoning_tokens,
        "total_tokens": input_tokens + output_tokens,
        "cost_usd": null,
        "context_tokens": input_tokens + output_tokens,
        "estimated": false,
    })
}

/// The variable of `cli`'s recipe that holds its key (opencode's recipe
/// writes the key into its config: it is made to read this variable).
fn key_variable(cli: Cli) -> &'static str {
    match cli {
        Cli::Claude => "ANTHROPIC_API_KEY",
        Cli::Codex | Cli::Opencode => "FAKE_LLM_API_KEY",
        Cli::Gemini => "GEMINI_API_KEY",
        Cli::Qwen => "OPENAI_API_KEY",
    }
}

/// `client` with [`REAL_KEY`] as its key, in its key variable only.
pub fn with_real_key(cli: Cli, client: &mut Client) {
    let var = key_variable(cli);
    client.setup.env.retain(|(k, _)| k != var);
    client.setup.env.push((var.to_owned(), REAL_KEY.to_owned()));
    if cli == Cli::Opencode {
        let path = client.setup.home.join(".config/opencode/opencode.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut config: Value = serde_json::from_str(&text).unwrap();
        config["provider"]["fake"]["options"]["apiKey"] = json!(format!("{{env:{var}}}"));
        std::fs::write(&path, config.to_string()).unwrap();
    }
}

/// `agentgate run` of `client`'s CLI with `extra` flags, streamed.
fn run(client: &Client, store: &Path, extra: &[&OsStr]) -> Run {
    let cli = client.setup.cli;
    let mut cmd = client.agentgate();
    cmd.args(["run", "--provider", cli.binary(), "--yolo", "--stream"])
        .arg("--binary")
        .arg(&client.program);
    // opencode takes its provider/model from the recipe's config.
    if cli != Cli::Opencode {
        cmd.args(["--model", &client.setup.model]);
    }
    cmd.args(extra)
        .arg("Dump the environment, please.")
        .env("AGENTGATE_HOME", store);
    run_bounded(cmd, LIMIT)
}

fn events(run: &Run) -> Vec<Value> {
    run.stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

/// Every file under `root` whose bytes hold `needle`.
fn files_holding(root: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    let mut seen = 0;
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            assert!(seen < 200_000, "too many files under {}", root.display());
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                dirs.push(path);
            } else if kind.is_file()
                && let Ok(bytes) = std::fs::read(&path)
                && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
            {
                found.push(path);
            }
        }
    }
    found
}

fn through_the_gateway(cli: Cli) {
    let ca = test_ca();
    let upstream = https_upstream(&script(cli), &ca);
    let direct_server = FakeServer::start(&script(cli));

    // Without a gateway (plain HTTP, the recipe's own key): the answer to
    // compare with.
    let direct = Client::new(cli, &direct_server);
    let direct_store = tempfile::tempdir().unwrap();
    let plain = run(&direct, direct_store.path(), &[]);
    let plain_env = last_json(&plain.stdout).map(|e| e["envelope"].clone());
    let plain_answer = plain_env
        .as_ref()
        .and_then(|e| e["response"].as_str())
        .unwrap_or_else(|| panic!("{cli} direct: {}", plain.all_output()))
        .to_owned();
    assert_eq!(plain.code, Some(0), "{cli} direct: {}", plain.all_output());

    let mut client = Client::new(cli, &upstream);
    with_real_key(cli, &mut client);
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
    let gated = run(
        &client,
        store.path(),
        &[
            OsStr::new("--gateway"),
            OsStr::new("--config"),
            config.as_os_str(),
        ],
    );
    let all = gated.all_output();
    assert_eq!(gated.code, Some(0), "{cli} through the gateway: {all}");
    let events = events(&gated);
    let env = events
        .last()
        .map(|e| e["envelope"].clone())
        .unwrap_or_default();
    assert_eq!(env["response"], json!(plain_answer), "{cli}: {env:#}");

    // The wire's figures, call by call and summed.
    let calls: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "model_call")
        .collect();
    assert!(calls.len() >= 2, "{cli}: {calls:#?}\n{all}");
    for call in &calls {
        assert_eq!(call["status"], 200, "{cli}: {call:#}");
        assert!(call["error"].is_null(), "{cli}: {call:#}");
    }
    for turn in [TOOL_TURN, ANSWER_TURN] {
        let want = wire_usage(cli, turn);
        assert!(
            calls.iter().any(|c| c["usage"] == want),
            "{cli}: no call with usage {want:#} in {calls:#?}"
        );
    }
    let gateway = &env["gateway"];
    assert_eq!(gateway["key_mode"], "api_key", "{cli}: {env:#}");
    assert_eq!(gateway["model_calls"], json!(calls.len()), "{cli}: {env:#}");
    for class in [
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "reasoning_tokens",
    ] {
        let summed: u64 = calls
            .iter()
            .map(|c| c["usage"][class].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(
            gateway["wire_usage"][class],
            json!(summed),
            "{cli} {class}: {env:#}"
        );
    }
    assert_eq!(env["metadata"]["usage_source"], "wire", "{cli}: {env:#}");
    // What the CLI printed agrees with the wire, class by class.
    assert!(gateway["cli_usage"].is_object(), "{cli}: {env:#}");
    assert_eq!(gateway["differences"], json!([]), "{cli}: {env:#}");
    assert_eq!(
        env["tokens_used"]["input_tokens"], gateway["wire_usage"]["input_tokens"],
        "{cli}: {env:#}"
    );

    // Every model call reached the upstream with the real key.
    let logged = upstream.requests();
    assert!(
        logged.iter().all(|r| r["outcome"] != "unauthorized"),
        "{cli}: {logged:#?}"
    );

    // The agent never held the real key.
    let dump = std::fs::read_to_string(client.setup.workdir.join("env-dump.txt"))
        .unwrap_or_else(|e| panic!("{cli}: no env dump ({e}): {all}"));
    assert!(
        !dump.contains(REAL_KEY),
        "{cli}: the CLI's environment held the key"
    );
    assert!(
        dump.contains("agentgate-stub-"),
        "{cli}: the CLI holds no stub key: {dump}"
    );
    assert!(!all.contains(REAL_KEY), "{cli}: the key was printed");
    for root in [
        &client.setup.home,
        &client.setup.workdir,
        &store.path().to_path_buf(),
    ] {
        let holding = files_holding(root, REAL_KEY);
        assert!(holding.is_empty(), "{cli}: the key is in {holding:?}");
    }
}

#[test]
fn claude_through_the_gateway() {
    through_the_gateway(Cli::Claude);
}

#[test]
fn codex_through_the_gateway() {
    through_the_gateway(Cli::Codex);
}

#[test]
fn gemini_through_the_gateway() {
    through_the_gateway(Cli::Gemini);
}

#[test]
fn qwen_through_the_gateway() {
    through_the_gateway(Cli::Qwen);
}

#[test]
fn opencode_through_the_gateway() {
    through_the_gateway(Cli::Opencode);
}
