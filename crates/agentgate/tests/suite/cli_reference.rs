//! `docs/reference/cli.md`, the book's CLI reference, is the real binary's
//! help: `agentgate --help` and the `--help` of every command under it,
//! found by reading each help's `Commands:` list (so hidden commands, which
//! clap leaves out of that list, are left out here too). The test fails
//! when the page drifts from the binary; `AGENTGATE_BLESS=1` rewrites it.
//!
//! The help is made machine-independent: the binary runs with a cleared
//! environment (a variable a flag reads, such as `AGENTGATE_STORE`, would
//! otherwise show its value in the help) and `COLUMNS=100`, with stdout a
//! pipe, so clap wraps at 100 columns whatever the terminal.

use std::process::Command;

use super::support::workspace_root;

/// The page, relative to the workspace root.
const PAGE: &str = "docs/reference/cli.md";

#[test]
fn the_cli_reference_is_the_help_of_every_command() {
    let commands = command_tree();
    assert!(
        commands.iter().any(|c| c == &["run"]) && commands.iter().any(|c| c.len() == 2),
        "the command tree lacks `run` or a nested command: {commands:?}"
    );
    assert!(
        !commands
            .iter()
            .any(|c| c.iter().any(|name| name.starts_with("__"))),
        "a hidden command is listed: {commands:?}"
    );
    let page = render(&commands);
    let path = workspace_root().join(PAGE);
    if std::env::var("AGENTGATE_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &page).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current != page {
        let first = current
            .lines()
            .zip(page.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| current.lines().count().min(page.lines().count()));
        panic!(
            "{PAGE} drifted from the binary's help (first difference at line {}: \
             {:?} on the page, {:?} from the binary); if the change is intended, \
             regenerate it with\n\n    AGENTGATE_BLESS=1 cargo test -p agentgate --test all \
             -- suite::cli_reference\n",
            first + 1,
            current.lines().nth(first).unwrap_or("<end>"),
            page.lines().nth(first).unwrap_or("<end>"),
        );
    }
}

/// The help is the same whatever the caller's terminal and environment:
/// a caller with a narrow terminal and agentgate's variables set gets, once
/// its command goes through [`isolated`], the same help as a bare one.
#[test]
fn the_help_does_not_depend_on_the_callers_environment() {
    let noisy = || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agentgate"));
        command
            .args(["serve", "--help"])
            .env("COLUMNS", "37")
            .env("AGENTGATE_STORE", "/somewhere/else.db")
            .env("AGENTGATE_TOKEN", "x".repeat(40))
            .env("AGENTGATE_SERVER", "http://10.9.8.7:1")
            .env("AGENTGATE_HOME", "/elsewhere");
        command
    };
    let plain = help(&["serve"]);
    let raw = output_of(&mut noisy(), &["serve"]);
    assert_ne!(plain, raw, "the environment had no effect to guard against");
    let guarded = output_of(isolated(&mut noisy()), &["serve"]);
    assert_eq!(plain, guarded, "the caller's environment reached the help");
}

/// Every command path under `agentgate` (`["run"]`, `["config", "show"]`,
/// ...), in the order the helps list them, depth first; the root is `[]`.
fn command_tree() -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut stack = vec![Vec::<String>::new()];
    while let Some(path) = stack.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let children = subcommands(&help(&args));
        for child in children.into_iter().rev() {
            let mut next = path.clone();
            next.push(child);
            stack.push(next);
        }
        found.push(path);
    }
    found
}

/// The names in a help's `Commands:` list, but `help`.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| line.trim_end() != "Commands:")
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// `agentgate ARGS --help`, [`isolated`].
fn help(args: &[&str]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    command.args(args).arg("--help");
    output_of(isolated(&mut command), args)
}

/// `command` in a cleared environment, 100 columns wide.
fn isolated(command: &mut Command) -> &mut Command {
    command
        .env_clear()
        .env("COLUMNS", "100")
        .env("PATH", "/usr/bin:/bin")
}

fn output_of(command: &mut Command, args: &[&str]) -> String {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "agentgate {} --help: {:?}\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The page: a list of the commands, then each command's help.
fn render(commands: &[Vec<String>]) -> String {
    let title = |path: &[String]| {
        let mut words = vec!["agentgate".to_owned()];
        words.extend(path.iter().cloned());
        words.join(" ")
    };
    let anchor = |path: &[String]| title(path).replace(' ', "-");
    let mut page = String::from(
        "# The CLI reference\n\n\
         Generated from the binary: `agentgate --help` and the `--help` of every\n\
         command under it (hidden ones left out), 100 columns wide. Do not edit\n\
         it by hand: `cargo test -p agentgate --test all -- suite::cli_reference`\n\
         fails when it drifts from the binary, and\n\
         `AGENTGATE_BLESS=1 cargo test -p agentgate --test all -- suite::cli_reference`\n\
         rewrites it.\n\n",
    );
    for path in commands {
        let indent = "  ".repeat(path.len().saturating_sub(1));
        let bullet = if path.is_empty() { "" } else { "  " };
        page.push_str(&format!(
            "{bullet}{indent}- [`{}`](#{})\n",
            title(path),
            anchor(path)
        ));
    }
    for path in commands {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args);
        page.push_str(&format!(
            "\n## `{}`\n\n```text\n{}\n```\n",
            title(path),
            text.trim_end()
        ));
    }
    page
}
