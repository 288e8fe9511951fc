use std::path::Path;

use agentgate_core::{Config, ConfigSource};
use agentgate_protocol::ToolErrorClass;

use super::*;

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn tool(name: &str) -> String {
    format!("name: {name}\nversion: '1.0'\nentry: run.sh\n")
}

fn config(path: &Path, text: &str) -> Config {
    write(path, text);
    Config::read(ConfigSource::Flag(path.to_path_buf())).unwrap()
}

#[test]
fn the_registry_is_found_upwards_and_its_tools_resolve_next_to_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(&root.join("tools/registry/good/tool.yaml"), &tool("good"));
    write(
        &root.join("tools/registry/bad/tool.yaml"),
        "name: bad\nversion: '1'\nentry: x\ncolour: 1\n",
    );
    write(
        &root.join("tools/registry/error_codes.yaml"),
        "version: 1\ncodes:\n  E_MINE: {class: retryable, retryable: true}\n",
    );
    std::fs::create_dir_all(root.join("tools/registry/notes")).unwrap();
    let deep = root.join("a/b");
    std::fs::create_dir_all(&deep).unwrap();
    let reg = Registry::discover(&Config::default(), &deep).unwrap();
    assert_eq!(
        reg.root.as_deref(),
        Some(root.join("tools/registry").as_path())
    );
    let names: Vec<&str> = reg.list().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["bad", "good"]);
    let good = reg.get("good").unwrap();
    assert_eq!(good.tool_dir, root.join("tools/good"));
    assert_eq!(good.entry, root.join("tools/good/run.sh"));
    assert_eq!(
        good.source,
        ToolSource::Registry(root.join("tools/registry/good/tool.yaml"))
    );
    // The broken one is listed with its error, and only it is refused.
    let e = reg.get("bad").unwrap_err().to_string();
    assert!(e.contains("colour") && e.contains("line 4"), "{e}");
    let e = reg.get("nope").unwrap_err().to_string();
    assert!(
        e.contains("unknown tool `nope`") && e.contains("bad, good"),
        "{e}"
    );
    assert_eq!(
        reg.error_codes().classify("E_MINE"),
        (ToolErrorClass::Retryable, true)
    );
    // No policy file: the default policy.
    assert_eq!(reg.policy(), &crate::policy::Policy::default());
}

#[test]
fn without_a_registry_a_lookup_says_how_to_make_one() {
    let tmp = tempfile::tempdir().unwrap();
    let reg = Registry::discover(&Config::default(), tmp.path()).unwrap();
    assert!(reg.root.is_none() && reg.list().is_empty());
    let e = reg.get("x").unwrap_err().to_string();
    assert!(
        e.contains("no tool registry was found") && e.contains("tools.registry"),
        "{e}"
    );
}

#[test]
fn the_config_names_the_registry_and_the_policy_and_defines_tools() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(&root.join("elsewhere/registry/fmt/tool.yaml"), &tool("fmt"));
    write(&root.join("pol.yaml"), "version: 1\ndeny_tools: [fmt]\n");
    // A registry in the working directory is not used when one is named.
    write(&root.join("tools/registry/other/tool.yaml"), &tool("other"));
    let cfg = config(
        &root.join("agentgate.yaml"),
        "version: 1\ntools:\n  registry: elsewhere/registry\n  policy: pol.yaml\n  define:\n    lint:\n      version: '2'\n      dir: scripts\n      entry: lint.sh\n    here:\n      version: '1'\n      entry: here.sh\n",
    );
    let reg = Registry::discover(&cfg, root).unwrap();
    let names: Vec<&str> = reg.list().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["fmt", "here", "lint"]);
    let lint = reg.get("lint").unwrap();
    assert_eq!(lint.entry, root.join("scripts/lint.sh"));
    assert_eq!(lint.manifest.name, "lint");
    assert_eq!(
        lint.source,
        ToolSource::Config {
            path: root.join("agentgate.yaml"),
            line: 6
        }
    );
    assert_eq!(reg.get("here").unwrap().entry, root.join("here.sh"));
    assert_eq!(reg.get("fmt").unwrap().tool_dir, root.join("elsewhere/fmt"));
    assert_eq!(reg.policy().deny_tools, ["fmt"]);
    assert_eq!(
        reg.policy().source.as_deref(),
        Some(root.join("pol.yaml").as_path())
    );
}

#[test]
fn a_name_defined_twice_is_broken_and_names_both_places() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(&root.join("tools/registry/fmt/tool.yaml"), &tool("fmt"));
    let cfg = config(
        &root.join("agentgate.yaml"),
        "version: 1\ntools:\n  define:\n    fmt: {version: '1', entry: f.sh}\n",
    );
    let reg = Registry::discover(&cfg, root).unwrap();
    assert_eq!(reg.list().len(), 1);
    let e = reg.get("fmt").unwrap_err().to_string();
    assert!(e.contains("defined twice"), "{e}");
    assert!(
        e.contains("tools/registry/fmt/tool.yaml") && e.contains("agentgate.yaml:4"),
        "{e}"
    );
}

#[test]
fn defined_tools_are_checked_with_the_config_files_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let cfg = config(
        &root.join("agentgate.yaml"),
        "version: 1\ntools:\n  define:\n    ok: {version: '1', entry: ok.sh}\n    bad:\n      version: '1'\n      entry: b.sh\n      env: {require: ['1X']}\n    named:\n      name: other\n      version: '1'\n      entry: n.sh\n",
    );
    let reg = Registry::discover(&cfg, root).unwrap();
    assert!(reg.get("ok").is_ok());
    let e = reg.get("bad").unwrap_err().to_string();
    assert!(e.contains("line 8") && e.contains("env.require[0]"), "{e}");
    let e = reg.get("named").unwrap_err().to_string();
    assert!(
        e.contains("line 10") && e.contains("the tool's key `named`"),
        "{e}"
    );
    // An unknown key: every defined tool is broken with the key's line.
    let cfg = config(
        &root.join("agentgate.yaml"),
        "version: 1\ntools:\n  define:\n    ok: {version: '1', entry: ok.sh}\n    bad: {version: '1', entry: b.sh, colour: red}\n",
    );
    let reg = Registry::discover(&cfg, root).unwrap();
    for name in ["ok", "bad"] {
        let e = reg.get(name).unwrap_err().to_string();
        assert!(e.contains("line 5") && e.contains("colour"), "{e}");
    }
}

#[test]
fn missing_named_files_and_broken_shared_files_fail_the_load() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let cfg = config(
        &root.join("agentgate.yaml"),
        "version: 1\ntools:\n  registry: nope\n",
    );
    let e = Registry::discover(&cfg, root).unwrap_err();
    assert!(matches!(e, RegistryError::MissingRegistry { .. }), "{e}");
    let cfg = config(
        &root.join("agentgate.yaml"),
        "version: 1\ntools:\n  policy: nope.yaml\n",
    );
    let e = Registry::discover(&cfg, root).unwrap_err();
    assert!(matches!(e, RegistryError::MissingPolicy { .. }), "{e}");
    write(
        &root.join("tools/registry/policy.yaml"),
        "version: 1\nbogus: 1\n",
    );
    let e = Registry::discover(&Config::default(), root)
        .unwrap_err()
        .to_string();
    assert!(e.contains("policy.yaml") && e.contains("line 2"), "{e}");
    std::fs::remove_file(root.join("tools/registry/policy.yaml")).unwrap();
    write(
        &root.join("tools/registry/error_codes.yaml"),
        "version: 1\ncodes:\n  E_POLICY: {class: unknown, retryable: true}\n",
    );
    let e = Registry::discover(&Config::default(), root)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("runner's own codes") && e.contains("line 3"),
        "{e}"
    );
}
