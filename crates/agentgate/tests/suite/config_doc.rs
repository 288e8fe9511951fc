//! `docs/config.md`, the book's config reference, names every key the
//! config types accept. The types are strict: an unknown key is refused
//! with the list of the keys its section takes (`unknown field `zzz`,
//! expected one of ...`), so the test asks the real binary (`agentgate
//! config check`) for each section's list and looks each key up in that
//! section of the page. A key added to the types without a word in the
//! reference fails here.

use std::process::Command;

use super::support::workspace_root;

/// (where the key is documented: the page and its section's heading, or
/// None for the whole page; a config whose section holds the unknown key
/// `zzz`). A described CLI's own keys (`command`, `output`, ...) are
/// documented in docs/custom-providers.md.
const SECTIONS: &[(&str, Option<&str>, &str)] = &[
    ("config.md", None, "zzz: 1"),
    (
        "config.md|custom-providers.md",
        Some("### `providers:`"),
        "providers: {claude: {zzz: 1}}",
    ),
    (
        "config.md",
        Some("### `agents:`"),
        "agents: {a: {provider: claude, zzz: 1}}",
    ),
    (
        "config.md",
        Some("### `chains:`"),
        "chains: {c: {agents: [a], zzz: 1}}",
    ),
    ("config.md", Some("### `queue:`"), "queue: {zzz: 1}"),
    ("config.md", Some("### `event_log:`"), "event_log: {zzz: 1}"),
    ("config.md", Some("### `models:`"), "models: {zzz: 1}"),
    ("config.md", Some("### `gateway:`"), "gateway: {zzz: 1}"),
    (
        "config.md",
        Some("### `gateway:`"),
        "gateway: {limits: {zzz: 1}}",
    ),
    (
        "config.md",
        Some("### `gateway:`"),
        "gateway: {providers: {claude: {zzz: 1}}}",
    ),
    ("config.md", Some("### `sandbox:`"), "sandbox: {zzz: 1}"),
    (
        "config.md",
        Some("### `sandbox:`"),
        "sandbox: {container: {zzz: 1}}",
    ),
    (
        "config.md",
        Some("### `sandbox:`"),
        "sandbox: {providers: {claude: {zzz: 1}}}",
    ),
    (
        "config.md",
        Some("### `schedules:`"),
        "schedules: {s: {cron: \"* * * * *\", request: {prompt: x}, zzz: 1}}",
    ),
    (
        "config.md",
        Some("### `watch:`"),
        "watch: {w: {folder: /tmp, request: {}, zzz: 1}}",
    ),
    ("config.md", Some("### `budgets:`"), "budgets: {zzz: 1}"),
    (
        "config.md",
        Some("### `budgets:`"),
        "budgets: {run: {zzz: 1}}",
    ),
    (
        "config.md",
        Some("### `budgets:`"),
        "budgets: {global: {zzz: 1}}",
    ),
    ("config.md", Some("### `pricing:`"), "pricing: {zzz: 1}"),
    (
        "config.md",
        Some("### `pricing:`"),
        "pricing: {flag_above: {zzz: 1}}",
    ),
    (
        "config.md",
        Some("### `pricing:`"),
        "pricing: {providers: {x: [{model: m, usd_per_million: {}, zzz: 1}]}}",
    ),
    (
        "config.md",
        Some("### `pricing:`"),
        "pricing: {providers: {x: [{model: m, usd_per_million: {zzz: 1}}]}}",
    ),
    ("config.md", Some("### `webhooks:`"), "webhooks: {zzz: 1}"),
    (
        "config.md",
        Some("### `webhooks:`"),
        "webhooks: {secret_env: S, subscriptions: [{url: \"https://x/\", events: [run.ended], zzz: 1}]}",
    ),
    ("config.md", Some("### `tools:`"), "tools: {zzz: 1}"),
    ("config.md", Some("### `approvals:`"), "approvals: {zzz: 1}"),
    (
        "config.md",
        Some("### `approvals:`"),
        "approvals: {rules: [{decision: allow, zzz: 1}]}",
    ),
];

#[test]
fn the_config_reference_names_every_key_of_the_config_types() {
    let docs = workspace_root().join("docs");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("agentgate.yaml");
    let mut undocumented = Vec::new();
    for (pages, heading, snippet) in SECTIONS {
        std::fs::write(&file, format!("version: 1\n{snippet}\n")).unwrap();
        let keys = accepted_keys(&file);
        assert!(!keys.is_empty(), "{snippet}: {keys:?}");
        let texts: Vec<String> = pages
            .split('|')
            .enumerate()
            .map(|(n, page)| {
                let text = std::fs::read_to_string(docs.join(page)).unwrap();
                // The section holds the keys on the first page; the others
                // are read whole.
                match heading {
                    Some(heading) if n == 0 => section(&text, heading),
                    _ => text,
                }
            })
            .collect();
        for key in keys {
            if !texts.iter().any(|text| documents(text, &key)) {
                undocumented.push(format!(
                    "`{key}` ({snippet}) in {pages} {}",
                    heading.unwrap_or("")
                ));
            }
        }
    }
    assert!(
        undocumented.is_empty(),
        "keys the config types accept that docs/config.md does not name:\n{}",
        undocumented.join("\n")
    );
}

/// The keys of the section holding `zzz`, from `config check`'s refusal.
fn accepted_keys(file: &std::path::Path) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_agentgate"))
        .args(["config", "check", "--config"])
        .arg(file)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", file.parent().unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let list = stderr
        .split("unknown field `zzz`, expected one of ")
        .nth(1)
        .unwrap_or_else(|| panic!("no list of keys in: {stderr}"));
    list.lines()
        .next()
        .unwrap_or("")
        .split(", ")
        .map(|key| key.trim().trim_matches('`').to_owned())
        .filter(|key| !key.is_empty())
        .collect()
}

/// The text of `page` from `heading` to the next heading of its level or
/// above (lines in fenced code are not headings).
fn section(page: &str, heading: &str) -> String {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let mut inside = false;
    let mut fenced = false;
    let mut found = false;
    let mut text = String::new();
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        let is_heading = !fenced && hashes > 0 && line[hashes..].starts_with(' ');
        if line == heading {
            inside = true;
            found = true;
            continue;
        }
        if inside && is_heading && hashes <= level {
            inside = false;
        }
        if inside {
            text.push_str(line);
            text.push('\n');
        }
    }
    assert!(found, "docs/config.md has no heading {heading:?}");
    text
}

/// Whether `text` names `key` as a key: `` `key` ``, `` `key: ``, a list
/// item's `` [].key` ``, or a list's `` `key[]. ``.
fn documents(text: &str, key: &str) -> bool {
    [
        format!("`{key}`"),
        format!("`{key}:"),
        format!("[].{key}`"),
        format!("`{key},"),
        format!("`{key}[]."),
    ]
    .iter()
    .any(|form| text.contains(form.as_str()))
}
