//! Each CLI's rendering of a request's MCP servers: the exact arguments,
//! variables and files, the user's files left alone, and the refusals. (A
//! described CLI's refusal needs the config loader: it is tested in
//! `agentgate-core/tests/suite/custom_provider.rs`.)

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::agy::AGY;
use crate::claude::CLAUDE;
use crate::codex::CODEX;
use crate::cursor::CURSOR;
use crate::gemini::GEMINI;
use crate::opencode::OPENCODE;
use crate::qwen::QWEN;
use crate::test_support::req;
use crate::{CliCommand, CliRequest, Description, McpServer, Provider, Scratch, builtins};

fn probe() -> McpServer {
    let mut s = McpServer::new("probe", "/opt/probe", &["--key", "a \"b\" \\c"]);
    s.env.push(("PROBE_LOG".into(), "/tmp/probe.log".into()));
    s
}

fn with_servers(servers: Vec<McpServer>) -> CliRequest {
    CliRequest {
        mcp_servers: servers,
        ..req()
    }
}

fn plan(p: &dyn Provider, r: &CliRequest, scratch: &Path) -> CliCommand {
    p.command(r, Path::new("/bin/cli"), &Scratch::at(scratch))
        .unwrap_or_else(|e| panic!("{}: {e}", p.name()))
}

fn env<'a>(c: &'a CliCommand, key: &str) -> Option<&'a OsString> {
    c.env.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    out.sort();
    out
}

#[test]
fn claude_gets_a_strict_config_file_and_the_servers_tools_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let other = McpServer::new("other", "other-server", &[]);
    let c = plan(&CLAUDE, &with_servers(vec![probe(), other]), dir.path());
    let file = files_in(dir.path());
    assert_eq!(file.len(), 1, "{file:?}");
    let name = file[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("claude-mcp-") && name.ends_with(".json"));
    assert_eq!(c.files, file);
    assert_eq!(
        c.display_args(),
        [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--mcp-config",
            &file[0].display().to_string(),
            "--strict-mcp-config",
            "--allowedTools",
            "mcp__probe,mcp__other",
            "--permission-mode",
            "default",
        ]
    );
    assert_eq!(
        read_json(&file[0]),
        json!({"mcpServers": {
            "probe": {"command": "/opt/probe", "args": ["--key", "a \"b\" \\c"], "env": {"PROBE_LOG": "/tmp/probe.log"}},
            "other": {"command": "other-server", "args": []},
        }})
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file[0]).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the servers' variables are private");
    }
    // No server, no file and no flag.
    let empty = tempfile::tempdir().unwrap();
    let c = plan(&CLAUDE, &req(), empty.path());
    assert!(!c.display_args().iter().any(|a| a.contains("mcp")));
    assert!(files_in(empty.path()).is_empty());
}

#[test]
fn codex_gets_config_overrides_and_the_variables_in_its_environment() {
    let dir = tempfile::tempdir().unwrap();
    let c = plan(&CODEX, &with_servers(vec![probe()]), dir.path());
    let args = c.display_args();
    let at = args.iter().position(|a| a == "-c").unwrap();
    assert_eq!(
        args[at..at + 6],
        [
            "-c",
            "mcp_servers.probe.command=\"/opt/probe\"",
            "-c",
            r#"mcp_servers.probe.args=["--key","a \"b\" \\c"]"#,
            "-c",
            r#"mcp_servers.probe.env_vars=["PROBE_LOG"]"#,
        ]
    );
    assert!(
        !args.iter().any(|a| a.contains("/tmp/probe.log")),
        "a variable's value is not in the argv: {args:?}"
    );
    assert_eq!(
        env(&c, "PROBE_LOG"),
        Some(&OsString::from("/tmp/probe.log"))
    );
    assert_eq!(args.last().map(String::as_str), Some("-"));
    assert!(files_in(dir.path()).is_empty(), "no file written");

    let mut clash = McpServer::new("b", "/bin/b", &[]);
    clash.env.push(("PROBE_LOG".into(), "/elsewhere".into()));
    let err = CODEX
        .command(
            &with_servers(vec![probe(), clash]),
            Path::new("/bin/codex"),
            &Scratch::at(dir.path()),
        )
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("codex cannot") && err.contains("PROBE_LOG"),
        "{err}"
    );
}

/// Qwen: `--allowed-mcp-server-names` before the next flag, and
/// a copy of the system settings (given by its variable) with the servers
/// trusted under `mcpServers`; the original is untouched.
fn settings_overlay(p: &Description, settings_env: &str, defaults_env: &str) {
    let dir = tempfile::tempdir().unwrap();
    let system = dir.path().join("system.json");
    let original = "// admin\n{\"mcpServers\": {\"admin\": {\"command\": \"a\"}}, \"x\": 1}";
    std::fs::write(&system, original).unwrap();
    let scratch = dir.path().join("run");
    std::fs::create_dir(&scratch).unwrap();
    let r = CliRequest {
        env: vec![(settings_env.into(), system.display().to_string())],
        ..with_servers(vec![probe()])
    };
    let c = plan(p, &r, &scratch);
    let args = c.display_args();
    let at = args
        .iter()
        .position(|a| a == "--allowed-mcp-server-names")
        .unwrap();
    assert_eq!(args[at + 1], "probe", "{args:?}");
    assert!(args[at + 2].starts_with("--"), "a flag follows: {args:?}");
    let copy = files_in(&scratch);
    assert_eq!(copy.len(), 1);
    assert_eq!(c.files, copy);
    assert_eq!(
        env(&c, settings_env),
        Some(&copy[0].clone().into_os_string())
    );
    assert_eq!(
        env(&c, defaults_env),
        Some(&dir.path().join("system-defaults.json").into_os_string())
    );
    let mut want = json!({"x": 1, "mcpServers": {
        "admin": {"command": "a"},
        "probe": {"command": "/opt/probe", "args": ["--key", "a \"b\" \\c"], "env": {"PROBE_LOG": "/tmp/probe.log"}, "trust": true},
    }});
    assert_eq!(read_json(&copy[0]), want, "{}", p.name);
    assert_eq!(std::fs::read_to_string(&system).unwrap(), original);

    // Without system settings, a fresh file.
    let fresh = tempfile::tempdir().unwrap();
    let r = CliRequest {
        env: vec![(
            settings_env.into(),
            fresh.path().join("none.json").display().to_string(),
        )],
        ..with_servers(vec![probe()])
    };
    let c = plan(p, &r, fresh.path());
    want["mcpServers"].as_object_mut().unwrap().remove("admin");
    want.as_object_mut().unwrap().remove("x");
    if p.name == "qwen" {
        want["$version"] = json!(4);
    }
    assert_eq!(read_json(&c.files[0]), want, "{}", p.name);
}

#[test]
fn qwen_gets_the_servers_in_a_copy_of_its_system_settings() {
    settings_overlay(
        &QWEN,
        "QWEN_CODE_SYSTEM_SETTINGS_PATH",
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH",
    );
}

#[test]
fn qwen_puts_a_retry_bound_and_the_servers_in_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let r = CliRequest {
        max_provider_retries: Some(2),
        env: vec![(
            "QWEN_CODE_SYSTEM_SETTINGS_PATH".into(),
            dir.path().join("none.json").display().to_string(),
        )],
        ..with_servers(vec![McpServer::new("p", "/bin/p", &[])])
    };
    let c = plan(&QWEN, &r, dir.path());
    assert_eq!(c.files.len(), 1);
    assert_eq!(
        read_json(&c.files[0]),
        json!({"$version": 4, "model": {"generationConfig": {"maxRetries": 2}},
               "mcpServers": {"p": {"command": "/bin/p", "args": [], "trust": true}}})
    );
}

#[test]
fn opencode_gets_the_servers_in_its_config_content_with_the_instructions() {
    let dir = tempfile::tempdir().unwrap();
    let r = CliRequest {
        system: Some("be brief".into()),
        env_clear: true,
        ..with_servers(vec![probe()])
    };
    let c = plan(&OPENCODE, &r, dir.path());
    let content: Value = serde_json::from_str(
        env(&c, "OPENCODE_CONFIG_CONTENT")
            .unwrap()
            .to_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        content,
        json!({
            "instructions": [c.files[0].display().to_string()],
            "mcp": {"probe": {"type": "local", "command": ["/opt/probe", "--key", "a \"b\" \\c"],
                              "environment": {"PROBE_LOG": "/tmp/probe.log"}, "enabled": true}},
        })
    );
    let explicit = CliRequest {
        env: vec![("OPENCODE_CONFIG_CONTENT".into(), "{}".into())],
        ..with_servers(vec![probe()])
    };
    let err = OPENCODE
        .command(
            &explicit,
            Path::new("/bin/opencode"),
            &Scratch::at(dir.path()),
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("take MCP servers while --env sets"), "{err}");
}

#[test]
fn gemini_gets_a_home_of_the_runs_own_with_the_users_settings_and_links_to_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let user = home.path().join(".gemini");
    std::fs::create_dir_all(&user).unwrap();
    let settings = "// the user's\n{\"general\": {\"maxAttempts\": 2}, \"mcpServers\": {\"mine\": {\"command\": \"mine\"}}}";
    std::fs::write(user.join("settings.json"), settings).unwrap();
    std::fs::write(user.join("oauth_creds.json"), "{}").unwrap();
    std::fs::write(home.path().join(".env"), "X=1").unwrap();
    let mut r = with_servers(vec![probe()]);
    // Only the request's variables: a GEMINI_CLI_HOME of the test's own
    // environment would win over its HOME.
    r.env_clear = true;
    r.env
        .push(("HOME".into(), home.path().display().to_string()));
    let c = plan(&GEMINI, &r, dir.path());

    let root = PathBuf::from(env(&c, "GEMINI_CLI_HOME").unwrap());
    assert!(root.starts_with(dir.path()), "{}", root.display());
    let copy = root.join(".gemini/settings.json");
    let got = read_json(&copy);
    assert_eq!(got["general"]["maxAttempts"], 2);
    assert_eq!(got["mcpServers"]["mine"]["command"], "mine");
    assert_eq!(
        got["mcpServers"]["probe"],
        json!({"command": "/opt/probe", "args": ["--key", "a \"b\" \\c"],
               "env": {"PROBE_LOG": "/tmp/probe.log"}, "trust": true})
    );
    // Only the run's servers start.
    let args: Vec<&OsString> = c.args.iter().collect();
    let at = args
        .iter()
        .position(|a| *a == "--allowed-mcp-server-names")
        .unwrap();
    assert_eq!(args[at + 1], "probe");
    // The login, the sessions and the history are the user's own.
    for name in ["oauth_creds.json", "tmp", "history"] {
        let link = root.join(".gemini").join(name);
        assert_eq!(
            std::fs::read_link(&link).unwrap(),
            user.join(name),
            "{name}"
        );
    }
    assert!(user.join("tmp").is_dir() && user.join("history").is_dir());
    assert_eq!(
        std::fs::read_link(root.join(".env")).unwrap(),
        home.path().join(".env")
    );
    // The user's settings are as they were; what the run wrote goes when
    // the attempt ends.
    assert_eq!(
        std::fs::read_to_string(user.join("settings.json")).unwrap(),
        settings
    );
    assert!(c.files.contains(&copy));
    assert!(c.files.contains(&root.join(".gemini/oauth_creds.json")));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&copy).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // Without a home to take the login from, it refuses.
    let mut bare = with_servers(vec![probe()]);
    bare.env_clear = true;
    let err = GEMINI
        .command(&bare, Path::new("/bin/gemini"), &Scratch::at(dir.path()))
        .unwrap_err()
        .to_string();
    assert!(err.contains("no home folder is known"), "{err}");
    // Settings it cannot read are refused, not overwritten.
    std::fs::write(user.join("settings.json"), "{not json").unwrap();
    let err = GEMINI
        .command(&r, Path::new("/bin/gemini"), &Scratch::at(dir.path()))
        .unwrap_err()
        .to_string();
    assert!(err.contains("failed to parse its settings"), "{err}");
}

#[test]
fn builtin_clis_without_a_per_run_way_refuse_naming_the_provider() {
    let r = with_servers(vec![probe()]);
    let dir = tempfile::tempdir().unwrap();
    for p in [&CURSOR, &AGY] {
        let err = p
            .command(&r, Path::new("/bin/cli"), &Scratch::at(dir.path()))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&format!("{} cannot run with MCP servers", p.name)),
            "{err}"
        );
    }
    assert!(files_in(dir.path()).is_empty());
}

/// No built-in CLI drops the servers in silence: each one names the
/// server somewhere it reads (argv, environment, a file) or refuses.
#[test]
fn every_builtin_renders_the_servers_or_refuses() {
    for p in builtins() {
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let r = CliRequest {
            env: vec![
                (
                    "QWEN_CODE_SYSTEM_SETTINGS_PATH".into(),
                    "/nonexistent/s.json".into(),
                ),
                // Gemini's home: not the user's of the test's environment.
                ("GEMINI_CLI_HOME".into(), home.path().display().to_string()),
            ],
            ..with_servers(vec![McpServer::new("srv-7731", "/bin/p", &[])])
        };
        match p.command(&r, Path::new("/bin/cli"), &Scratch::at(dir.path())) {
            Err(e) => assert!(e.to_string().contains("MCP servers"), "{}: {e}", p.name()),
            Ok(c) => {
                let mut seen = c.display_args().join(" ");
                for (_, v) in &c.env {
                    seen.push_str(&v.to_string_lossy());
                }
                for f in files_in(dir.path()).iter().chain(&c.files) {
                    if f.is_file() {
                        seen.push_str(&std::fs::read_to_string(f).unwrap());
                    }
                }
                assert!(seen.contains("srv-7731"), "{} dropped the server", p.name());
            }
        }
        // A bad name is refused by every one of them.
        let bad = with_servers(vec![McpServer::new("a b", "/bin/p", &[])]);
        let err = p
            .command(&bad, Path::new("/bin/cli"), &Scratch::at(dir.path()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("MCP server"), "{}: {err}", p.name());
    }
}
