//! The Gardener's contract in the config: instruction files (a migrated
//! cli_agents.yaml's defaults in the seed's order, or `instructions:`),
//! and a watched folder's `on_failure`.

use std::path::{Path, PathBuf};

use super::super::*;
use super::{invalid, parse, parse_at};
use crate::prompt::InstructionFile;

fn paths(files: &[InstructionFile]) -> Vec<(PathBuf, bool)> {
    files.iter().map(|f| (f.path.clone(), f.required)).collect()
}

#[test]
fn a_migrated_agent_reads_agents_then_gardener_md_of_the_data_folder() {
    let text = "version: 1\nagents:\n  - name: c\n    provider: claude\n    working_dir: /data\n";
    // Kept where the seed keeps it: DATA_DIR/.gardener/cli_agents.yaml.
    let cfg = parse_at(text, "/srv/notes/.gardener/cli_agents.yaml").unwrap();
    let got = paths(&cfg.agent("c").unwrap().instructions);
    // The global AGENTS.md first (where depends on the environment), then
    // the data folder's, all optional.
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got[0].0.ends_with("agentgate/AGENTS.md"), "{got:?}");
    assert_eq!(
        got[1..],
        [
            (PathBuf::from("/srv/notes/AGENTS.md"), false),
            (PathBuf::from("/srv/notes/GARDENER.md"), false)
        ]
    );
    assert!(got.iter().all(|(_, required)| !required));
    // Elsewhere: DATA_DIR is the agent's working directory.
    let cfg = parse_at(text, "/etc/cli_agents.yaml").unwrap();
    let got = paths(&cfg.agent("c").unwrap().instructions);
    assert_eq!(got[1].0, Path::new("/data/AGENTS.md"));
    assert_eq!(got[2].0, Path::new("/data/GARDENER.md"));
}

#[test]
fn instructions_are_listed_files_relative_to_the_config_file() {
    let migrated = "version: 1\nagents:\n  - name: c\n    provider: claude\n    instructions: [AGENTS.md, ~/x/G.md]\n";
    let cfg = parse(migrated).unwrap();
    let a = cfg.agent("c").unwrap();
    let home = PathBuf::from(std::env::var_os("HOME").unwrap());
    assert_eq!(
        paths(&a.instructions),
        [
            (PathBuf::from("/cfg/AGENTS.md"), true),
            (home.join("x/G.md"), true)
        ]
    );
    let native = "version: 1\nagents:\n  g:\n    provider: codex\n    instructions: [AGENTS.md, GARDENER.md]\n";
    let cfg = parse(native).unwrap();
    let a = cfg.agent("g").unwrap();
    assert_eq!(
        paths(&a.instructions),
        [
            (PathBuf::from("/cfg/AGENTS.md"), true),
            (PathBuf::from("/cfg/GARDENER.md"), true)
        ]
    );
    assert_eq!(a.origins.key("instructions"), Some(5));
    // A native agent has none unless it lists them.
    let cfg = parse("version: 1\nagents:\n  g:\n    provider: codex\n").unwrap();
    assert!(cfg.agent("g").unwrap().instructions.is_empty());
    let (line, e) =
        invalid("version: 1\nagents:\n  g:\n    provider: codex\n    instructions: [\" \"]\n");
    assert_eq!(line, Some(5));
    assert!(e.contains("an `instructions` path is empty"), "{e}");
}

#[test]
fn a_watch_moves_failed_files_unless_told_to_keep_them() {
    let base = "version: 1\nwatch:\n  inbox:\n    folder: /srv/inbox\n    request: {providers: [claude]}\n";
    let cfg = parse(base).unwrap();
    assert_eq!(cfg.watches[0].on_failure, OnFailure::Move);
    let cfg = parse(&format!("{base}    on_failure: keep\n")).unwrap();
    assert_eq!(cfg.watches[0].on_failure, OnFailure::Keep);
    let (line, e) = invalid(&format!("{base}    on_failure: stay\n"));
    assert_eq!(line, Some(6));
    assert!(e.contains("keep"), "{e}");
}

#[test]
fn an_edit_agent_writes_its_summary_where_the_seed_says_unless_told() {
    let text = "version: 1\nagents:\n  - name: e\n    provider: claude\n    mode: edit\n  - name: c\n    provider: claude\n    mode: classify\n";
    let cfg = parse_at(text, "/srv/notes/.gardener/cli_agents.yaml").unwrap();
    assert_eq!(
        cfg.agent("e").unwrap().summary_file.as_deref(),
        Some(Path::new("/srv/notes/.gardener/last_cli_result.json"))
    );
    assert_eq!(cfg.agent("c").unwrap().summary_file, None);
    let text = text.replace(
        "mode: edit\n",
        "mode: edit\n    summary_file: out/sum.json\n",
    );
    let cfg = parse_at(&text, "/srv/notes/.gardener/cli_agents.yaml").unwrap();
    assert_eq!(
        cfg.agent("e").unwrap().summary_file.as_deref(),
        Some(Path::new("/srv/notes/.gardener/out/sum.json"))
    );
    let native = "version: 1\nagents:\n  g:\n    provider: codex\n    mode: edit\n    summary_file: s.json\n";
    assert_eq!(
        parse(native)
            .unwrap()
            .agent("g")
            .unwrap()
            .summary_file
            .as_deref(),
        Some(Path::new("/cfg/s.json"))
    );
}
