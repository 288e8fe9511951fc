//! Skills with the REAL CLIs against `agentgate fake-llm`: `agentgate run
//! --skill NAME --input JSON` invokes a project skill the provider's way
//! (Claude and Qwen: the slash command, which the CLI expands itself;
//! Codex: the `$NAME` mention, after which Codex adds the skill's file;
//! opencode: `--command NAME`; Gemini: agentgate's prompt carrying the
//! body), and the requests fake-llm received prove the body and the input
//! reached the model; an unknown skill fails before any CLI starts (no
//! request); `agentgate skills` lists the project's and the user's skills;
//! a chain skips a provider that cannot see the skill; a workflow's agent
//! step invokes one.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::run_e2e::last_json;
use super::support::{Client, FakeServer, Run, run_bounded};

const LIMIT: Duration = Duration::from_secs(180);
const MARKER: &str = "GREETING-MARKER-7731";

fn write_skill(root: &Path, folder: &str, name: &str, text: &str) {
    let dir = root.join(folder).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

fn greet_skill(root: &Path, folder: &str) {
    write_skill(
        root,
        folder,
        "greet",
        &format!(
            "---\nname: greet\ndescription: Greets the person named in the input.\n---\n\n# Greet\n\nReply with {MARKER} and greet the person in this input: $ARGUMENTS\n"
        ),
    );
}

/// The project folder of each CLI's skills.
fn project_folder(cli: Cli) -> &'static str {
    match cli {
        Cli::Claude => ".claude/skills",
        Cli::Gemini => ".gemini/skills",
        Cli::Qwen => ".qwen/skills",
        Cli::Codex | Cli::Opencode => ".agents/skills",
    }
}

/// `agentgate ARGS` in the recipe's environment, in its working folder.
fn agentgate(client: &Client, store: &Path, args: &[&str]) -> Command {
    let mut cmd = client.agentgate();
    cmd.args(args).env("AGENTGATE_HOME", store);
    cmd
}

fn run_skill(client: &Client, store: &Path, skill: &str, extra: &[&str]) -> Run {
    let cli = client.setup.cli;
    let program = client.program.display().to_string();
    let mut args = vec![
        "run",
        "--provider",
        cli.binary(),
        "--yolo",
        "--compact",
        "--binary",
        &program,
        "--skill",
        skill,
    ];
    // Codex and opencode take their model from the recipe's config.
    if cli != Cli::Codex && cli != Cli::Opencode {
        args.extend(["--model", &client.setup.model]);
    }
    args.extend_from_slice(extra);
    run_bounded(agentgate(client, store, &args), LIMIT)
}

/// The texts of every model request fake-llm received.
fn request_texts(server: &FakeServer) -> Vec<String> {
    server
        .turn_requests()
        .iter()
        .flat_map(|r| r["messages"].as_array().cloned().unwrap_or_default())
        .filter_map(|m| m["text"].as_str().map(str::to_owned))
        .collect()
}

fn skill_reaches_the_model(cli: Cli) {
    let server = FakeServer::start(&format!(
        "turns:\n  - match: {{contains: \"{MARKER}\"}}\n    text: \"Hello Ada, greeted.\"\n  - text: \"The skill never arrived.\"\n    repeat: true\n"
    ));
    let client = Client::new(cli, &server);
    let store = tempfile::tempdir().unwrap();
    greet_skill(&client.setup.workdir, project_folder(cli));
    let run = run_skill(
        &client,
        store.path(),
        "greet",
        &["--input", r#"{"name":"Ada"}"#],
    );
    let env = last_json(&run.stdout)
        .unwrap_or_else(|| panic!("{cli}: no envelope:\n{}", run.all_output()));
    assert_eq!(run.code, Some(0), "{cli}: {env:#}\n{}", run.stderr);
    assert_eq!(env["response"], "Hello Ada, greeted.", "{cli}: {env:#}");
    assert_eq!(env["skill"], "greet", "{cli}: {env:#}");
    let texts = request_texts(&server);
    let carried = |needle: &str| texts.iter().any(|t| t.contains(needle));
    // The body reached the model with the input.
    assert!(carried(MARKER), "{cli}: no skill body in {texts:#?}");
    assert!(
        carried(r#"{"name":"Ada"}"#),
        "{cli}: no input in {texts:#?}"
    );
    match cli {
        // Claude expanded its own slash command: the marker arrived with
        // `$ARGUMENTS` replaced, which only Claude's expansion does.
        Cli::Claude => {
            assert!(carried("<command-name>/greet</command-name>"), "{texts:#?}");
            assert!(carried(r#"in this input: {"name":"Ada"}"#), "{texts:#?}");
        }
        // Codex added the skill's file to the request after the `$greet`
        // mention.
        Cli::Codex => {
            assert!(carried("<name>greet</name>"), "{texts:#?}");
        }
        // Qwen expanded its own slash command, with the arguments.
        Cli::Qwen => {
            assert!(carried("<skill-args>"), "{texts:#?}");
        }
        // opencode ran the command: `$ARGUMENTS` replaced.
        Cli::Opencode => {
            assert!(carried(r#"in this input: {"name":"Ada"}"#), "{texts:#?}");
        }
        // Gemini got agentgate's prompt naming the skill and its file.
        Cli::Gemini => {
            let path = client
                .setup
                .workdir
                .join(".gemini/skills/greet/SKILL.md")
                .display()
                .to_string();
            assert!(carried("Use the skill `greet`"), "{texts:#?}");
            assert!(carried(&path), "{path} not in {texts:#?}");
        }
    }
}

fn unknown_skill_fails_fast(cli: Cli) {
    let server =
        FakeServer::start("turns:\n  - text: \"Should not be asked.\"\n    repeat: true\n");
    let client = Client::new(cli, &server);
    let store = tempfile::tempdir().unwrap();
    greet_skill(&client.setup.workdir, project_folder(cli));
    let run = run_skill(&client, store.path(), "no-such-skill", &["--input", "{}"]);
    assert_eq!(run.code, Some(2), "{cli}: {}", run.all_output());
    let wanted = format!("skill `no-such-skill` not found for {}", cli.binary());
    assert!(run.stderr.contains(&wanted), "{cli}: {}", run.stderr);
    // Where it looked: the project's folder.
    let folder = client.setup.workdir.join(project_folder(cli));
    assert!(
        run.stderr.contains(&folder.display().to_string()),
        "{cli}: {}",
        run.stderr
    );
    assert!(
        server.requests().is_empty(),
        "{cli}: {:#?}",
        server.requests()
    );
}

fn rows(out: &str) -> Vec<Value> {
    serde_json::from_str::<Value>(out)
        .unwrap_or_else(|e| panic!("{e}: {out}"))
        .as_array()
        .unwrap()
        .clone()
}

fn lists_project_and_user_skills(cli: Cli) {
    let server = FakeServer::start("turns:\n  - text: \"unused\"\n");
    let client = Client::new(cli, &server);
    let store = tempfile::tempdir().unwrap();
    let workdir = &client.setup.workdir;
    // The user's folder: opencode's is under its config home.
    let (home, user_folder) = match cli {
        Cli::Opencode => (
            client
                .setup
                .env
                .iter()
                .find(|(k, _)| k == "XDG_CONFIG_HOME")
                .map(|(_, v)| std::path::PathBuf::from(v))
                .unwrap_or_else(|| client.setup.home.join(".config")),
            "opencode/skills",
        ),
        _ => (client.setup.home.clone(), project_folder(cli)),
    };
    let home = &home;
    greet_skill(workdir, project_folder(cli));
    // A user skill of the same name is shadowed by the project's.
    greet_skill(home, user_folder);
    write_skill(
        home,
        user_folder,
        "mine",
        "---\ndescription: Mine.\n---\nbody\n",
    );
    write_skill(home, user_folder, "broken", "---\nname: [\n---\n");
    let run = run_bounded(
        agentgate(
            &client,
            store.path(),
            &["skills", "--provider", cli.binary(), "--json"],
        ),
        LIMIT,
    );
    assert_eq!(run.code, Some(0), "{cli}: {}", run.all_output());
    let listed: Vec<(String, String, String)> = rows(&run.stdout)
        .iter()
        .map(|r| {
            assert_eq!(r["provider"], cli.binary());
            (
                r["name"].as_str().unwrap().to_owned(),
                r["scope"].as_str().unwrap().to_owned(),
                r["path"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let at = |root: &Path, name: &str| {
        let folder = if root == workdir.as_path() {
            project_folder(cli)
        } else {
            user_folder
        };
        root.join(folder)
            .join(name)
            .join("SKILL.md")
            .display()
            .to_string()
    };
    let expected =
        |name: &str, scope: &str, root: &Path| (name.to_owned(), scope.to_owned(), at(root, name));
    assert_eq!(
        listed,
        [
            expected("greet", "project", workdir),
            expected("broken", "user", home),
            expected("mine", "user", home),
        ],
        "{cli}: {}",
        run.stdout
    );
    let all = rows(&run.stdout);
    assert_eq!(
        all[0]["description"],
        "Greets the person named in the input."
    );
    assert!(
        all[1]["error"].as_str().unwrap().contains("not valid YAML"),
        "{all:#?}"
    );
    let invocation = if cli == Cli::Gemini {
        "prompt"
    } else {
        "native"
    };
    assert_eq!(all[0]["invocation"], invocation);
    // --all shows the shadowed user copy too.
    let run = run_bounded(
        agentgate(
            &client,
            store.path(),
            &["skills", "--provider", cli.binary(), "--json", "--all"],
        ),
        LIMIT,
    );
    let shadowed: Vec<Value> = rows(&run.stdout)
        .into_iter()
        .filter(|r| r["shadowed"] == true)
        .collect();
    assert_eq!(shadowed.len(), 1, "{cli}: {}", run.stdout);
    assert_eq!(shadowed[0]["path"], at(home, "greet"));
    // The table names them too.
    let run = run_bounded(
        agentgate(
            &client,
            store.path(),
            &["skills", "--provider", cli.binary()],
        ),
        LIMIT,
    );
    assert!(
        run.stdout.contains("greet") && run.stdout.contains("ERROR: "),
        "{}",
        run.stdout
    );
}

/// `CLAUDE_CONFIG_DIR` replaces `~/.claude` for the user's skills, in the
/// listing as in Claude.
#[test]
fn claude_config_dir_moves_the_user_skills() {
    let server = FakeServer::start("turns:\n  - text: \"unused\"\n");
    let client = Client::new(Cli::Claude, &server);
    let store = tempfile::tempdir().unwrap();
    write_skill(
        &client.setup.home,
        ".claude/skills",
        "in-home",
        "---\ndescription: h\n---\n",
    );
    let moved = tempfile::tempdir().unwrap();
    write_skill(
        moved.path(),
        "skills",
        "in-config-dir",
        "---\ndescription: m\n---\n",
    );
    let mut cmd = agentgate(
        &client,
        store.path(),
        &["skills", "--provider", "claude", "--json"],
    );
    cmd.env("CLAUDE_CONFIG_DIR", moved.path());
    let run = run_bounded(cmd, LIMIT);
    let names: Vec<String> = rows(&run.stdout)
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["in-config-dir"], "{}", run.all_output());
}

macro_rules! skill_tests {
    ($($module:ident => $cli:expr),* $(,)?) => {$(
        mod $module {
            use super::*;
            #[test] fn a_project_skill_reaches_the_model() { skill_reaches_the_model($cli) }
            #[test] fn an_unknown_skill_fails_before_the_cli_starts() { unknown_skill_fails_fast($cli) }
            #[test] fn project_and_user_skills_are_listed() { lists_project_and_user_skills($cli) }
        }
    )*};
}

skill_tests! {
    claude => Cli::Claude,
    gemini => Cli::Gemini,
    codex => Cli::Codex,
    qwen => Cli::Qwen,
    opencode => Cli::Opencode,
}

/// A chain where only the second provider sees the skill: the first is
/// skipped with a warning saying why (its CLI never starts), the second
/// invokes the skill its own way.
#[test]
fn a_chain_skips_the_provider_that_cannot_see_the_skill() {
    let server = FakeServer::start(&format!(
        "turns:\n  - match: {{contains: \"{MARKER}\"}}\n    text: \"Hello Ada, greeted.\"\n  - text: \"The skill never arrived.\"\n    repeat: true\n"
    ));
    let gemini = Client::new(Cli::Gemini, &server);
    let store = tempfile::tempdir().unwrap();
    greet_skill(&gemini.setup.workdir, ".gemini/skills");
    let mut cmd = agentgate(
        &gemini,
        store.path(),
        &[
            "run",
            "--provider",
            "claude,gemini",
            "--yolo",
            "--compact",
            "--model",
            &gemini.setup.model,
            "--skill",
            "greet",
            "--input",
            r#"{"name":"Ada"}"#,
        ],
    );
    // A Claude that would fail loudly if it were started.
    cmd.env("AGENTGATE_CLAUDE_BIN", "/nonexistent/claude")
        .env("AGENTGATE_GEMINI_BIN", &gemini.program);
    let run = run_bounded(cmd, LIMIT);
    let env =
        last_json(&run.stdout).unwrap_or_else(|| panic!("no envelope:\n{}", run.all_output()));
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["provider"], "gemini", "{env:#}");
    assert_eq!(env["skill"], "greet");
    assert_eq!(env["response"], "Hello Ada, greeted.");
    assert_eq!(env["attempts"].as_array().unwrap().len(), 1, "{env:#}");
    assert!(
        run.stderr
            .contains("skipped: skill `greet` not found for claude"),
        "{}",
        run.stderr
    );
}

/// A workflow's agent step takes `skill` and `input`, the input's texts
/// rendered from the workflow's own input.
#[test]
fn a_workflow_agent_step_invokes_a_skill() {
    let server = FakeServer::start(&format!(
        "turns:\n  - match: {{contains: \"{MARKER}\"}}\n    text: \"Hello Ada, greeted.\"\n  - text: \"The skill never arrived.\"\n    repeat: true\n"
    ));
    let client = Client::new(Cli::Claude, &server);
    let store = tempfile::tempdir().unwrap();
    let workdir = &client.setup.workdir;
    greet_skill(workdir, ".claude/skills");
    std::fs::write(
        workdir.join("greet.yaml"),
        format!(
            "version: 1\nname: greeting\nsteps:\n  - id: greet\n    agent:\n      provider: claude\n      binary: {}\n      model: {}\n      permission_mode: bypass\n      cwd: .\n      skill: greet\n      input: {{name: \"${{input.who}}\"}}\n",
            client.program.display(),
            client.setup.model
        ),
    )
    .unwrap();
    let run = run_bounded(
        agentgate(
            &client,
            store.path(),
            &[
                "workflow",
                "run",
                "greet.yaml",
                "--input",
                r#"{"who": "Ada"}"#,
            ],
        ),
        LIMIT,
    );
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let texts = request_texts(&server);
    let carried = |needle: &str| texts.iter().any(|t| t.contains(needle));
    assert!(carried("<command-name>/greet</command-name>"), "{texts:#?}");
    assert!(carried(r#"in this input: {"name":"Ada"}"#), "{texts:#?}");
}

/// `--native` asks Codex itself (`app-server` `skills/list`): it lists
/// what agentgate's scan finds, project and user, with `source: cli`.
#[test]
fn codex_native_listing_matches_the_scan() {
    let server = FakeServer::start("turns:\n  - text: \"unused\"\n");
    let client = Client::new(Cli::Codex, &server);
    let store = tempfile::tempdir().unwrap();
    greet_skill(&client.setup.workdir, ".agents/skills");
    write_skill(
        &client.setup.home,
        ".agents/skills",
        "mine",
        "---\ndescription: Mine.\n---\nbody\n",
    );
    let listed = |native: bool| {
        let mut args = vec!["skills", "--provider", "codex", "--json"];
        if native {
            args.push("--native");
        }
        let mut cmd = agentgate(&client, store.path(), &args);
        cmd.env("AGENTGATE_CODEX_BIN", &client.program);
        let run = run_bounded(cmd, LIMIT);
        assert_eq!(run.code, Some(0), "{}", run.all_output());
        rows(&run.stdout)
    };
    let brief = |rows: &[Value]| -> Vec<(String, String, String, String)> {
        let mut v: Vec<_> = rows
            .iter()
            .map(|r| {
                let s = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
                (s("name"), s("scope"), s("path"), s("source"))
            })
            .collect();
        v.sort();
        v
    };
    let scanned = brief(&listed(false));
    let native = brief(&listed(true));
    assert_eq!(scanned.len(), 2, "{scanned:#?}");
    assert!(native.iter().all(|r| r.3 == "cli"), "{native:#?}");
    let strip = |v: &[(String, String, String, String)]| -> Vec<(String, String, String)> {
        v.iter()
            .map(|r| (r.0.clone(), r.1.clone(), r.2.clone()))
            .collect()
    };
    assert_eq!(strip(&native), strip(&scanned));
}
