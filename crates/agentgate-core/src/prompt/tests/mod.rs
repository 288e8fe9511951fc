use std::path::{Path, PathBuf};

use super::*;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, text).unwrap();
    path
}

fn parts(dir: &Path, task: &str) -> PromptParts {
    PromptParts::new(task, dir)
}

const AGENTS: &str = "\
Shared: be careful.

## Reviewer — strict code review
Find bugs.

## Writer
Write docs.
";

#[test]
fn a_bare_task_gets_only_the_unattended_instruction() {
    let dir = tempfile::tempdir().unwrap();
    let a = assemble(&parts(dir.path(), "\n\n  fix it  \n")).unwrap();
    assert_eq!(a.fresh, format!("  fix it\n\n{UNATTENDED_INSTRUCTION}"));
    assert_eq!(a.resumed, a.fresh);
    let kinds: Vec<_> = a.parts.iter().map(|p| p.kind).collect();
    assert_eq!(kinds, [PieceKind::Task, PieceKind::Instruction]);

    let p = PromptParts {
        unattended_instruction: false,
        ..parts(dir.path(), "fix it")
    };
    let a = assemble(&p).unwrap();
    assert_eq!((a.fresh.as_str(), a.resumed.as_str()), ("fix it", "fix it"));
    assert!(matches!(
        assemble(&parts(dir.path(), " \n ")),
        Err(PromptError::EmptyTask)
    ));
}

#[test]
fn a_persona_is_sent_fresh_with_the_preamble_and_not_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "agents.md", AGENTS);
    let p = PromptParts {
        agent_file: Some("agents.md".into()),
        persona: Some("rev".into()),
        ..parts(dir.path(), "check main.rs")
    };
    let a = assemble(&p).unwrap();
    assert_eq!(
        a.fresh,
        format!(
            "Shared: be careful.\n\n## Reviewer — strict code review\nFind bugs.\n\n--- task ---\ncheck main.rs\n\n{UNATTENDED_INSTRUCTION}"
        )
    );
    assert_eq!(
        a.resumed,
        format!("check main.rs\n\n{UNATTENDED_INSTRUCTION}")
    );
    assert_eq!(a.persona.as_deref(), Some("Reviewer — strict code review"));
    let kinds: Vec<_> = a
        .parts
        .iter()
        .map(|p| (p.kind, p.label.as_deref()))
        .collect();
    assert_eq!(
        kinds,
        [
            (PieceKind::AgentFile, Some("preamble")),
            (PieceKind::Persona, Some("Reviewer — strict code review")),
            (PieceKind::Task, None),
            (PieceKind::Instruction, None),
        ]
    );
    assert_eq!(a.parts[0].source, Some(dir.path().join("agents.md")));
    assert_eq!(
        a.parts[1].bytes,
        "## Reviewer — strict code review\nFind bugs.".len()
    );
    let resumed: Vec<_> = a.resumed_parts.iter().map(|p| p.kind).collect();
    assert_eq!(resumed, [PieceKind::Task, PieceKind::Instruction]);
}

#[test]
fn without_a_persona_the_whole_agent_file_is_used() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "agents.md", AGENTS);
    let p = PromptParts {
        agent_file: Some(file),
        unattended_instruction: false,
        ..parts(dir.path(), "go")
    };
    let a = assemble(&p).unwrap();
    assert_eq!(a.fresh, format!("{}\n\n--- task ---\ngo", AGENTS.trim()));
    assert_eq!((a.persona, a.resumed.as_str()), (None, "go"));
}

#[test]
fn persona_errors_name_the_file_and_the_headings() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "agents.md", AGENTS);
    let with = |persona: &str| PromptParts {
        agent_file: Some("agents.md".into()),
        persona: Some(persona.into()),
        ..parts(dir.path(), "go")
    };
    let msg = assemble(&with("tester")).unwrap_err().to_string();
    assert!(msg.contains("agents.md"), "{msg}");
    assert!(msg.contains("`## Writer` (line 6)"), "{msg}");
    let p = PromptParts {
        persona: Some("rev".into()),
        ..parts(dir.path(), "go")
    };
    let e = assemble(&p).unwrap_err();
    assert!(
        matches!(e, PromptError::PersonaWithoutAgentFile { .. }),
        "{e:?}"
    );
    let p = PromptParts {
        agent_file: Some("missing.md".into()),
        ..parts(dir.path(), "go")
    };
    let msg = assemble(&p).unwrap_err().to_string();
    assert!(
        msg.contains("missing.md") && msg.contains("--agent-file"),
        "{msg}"
    );
}

#[test]
fn the_working_directory_context_file_is_found_and_can_be_skipped() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "CONTEXT.md", "project facts\n");
    write(dir.path(), "notes.md", "my notes\n");
    let p = PromptParts {
        context_files: vec!["notes.md".into()],
        unattended_instruction: false,
        ..parts(dir.path(), "go")
    };
    let a = assemble(&p).unwrap();
    assert_eq!(
        a.fresh,
        "--- context: CONTEXT.md ---\nproject facts\n\n--- context: notes.md ---\nmy notes\n\n--- task ---\ngo"
    );
    // CONTEXT.md is standing context: not resent; --context files are.
    assert_eq!(
        a.resumed,
        "--- context: notes.md ---\nmy notes\n\n--- task ---\ngo"
    );

    let skip = PromptParts {
        skip_context_file: true,
        ..p
    };
    let a = assemble(&skip).unwrap();
    assert_eq!(
        a.fresh,
        "--- context: notes.md ---\nmy notes\n\n--- task ---\ngo"
    );

    let none = tempfile::tempdir().unwrap();
    let a = assemble(&parts(none.path(), "go")).unwrap();
    assert!(!a.fresh.contains("--- context"), "{}", a.fresh);
}

#[test]
fn a_context_dir_must_hold_a_context_file_and_replaces_the_working_directory_one() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "CONTEXT.md", "cwd facts");
    write(dir.path(), "ctx/CONTEXT.md", "dir facts");
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let p = PromptParts {
        context_dir: Some("ctx".into()),
        unattended_instruction: false,
        ..parts(dir.path(), "go")
    };
    let a = assemble(&p).unwrap();
    assert_eq!(
        a.fresh,
        "--- context: ctx/CONTEXT.md ---\ndir facts\n\n--- task ---\ngo"
    );
    assert_eq!(a.parts[0].source, Some(dir.path().join("ctx/CONTEXT.md")));

    for (folder, detail) in [
        ("empty", "the folder has no CONTEXT.md"),
        ("nowhere", "the folder does not exist"),
    ] {
        let p = PromptParts {
            context_dir: Some(folder.into()),
            ..parts(dir.path(), "go")
        };
        let msg = assemble(&p).unwrap_err().to_string();
        assert!(msg.contains(folder) && msg.contains(detail), "{msg}");
        assert!(msg.contains("--context-dir"), "{msg}");
    }
}

#[test]
fn context_max_truncates_across_files_with_a_marker_of_exact_bytes() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "CONTEXT.md", "0123456789\n"); // 11 bytes
    write(dir.path(), "big.log", &"line of log\n".repeat(1000)); // 12000
    write(dir.path(), "late.md", "dropped");
    let p = PromptParts {
        context_files: vec!["big.log".into(), "late.md".into()],
        context_max: Some(40),
        unattended_instruction: false,
        ..parts(dir.path(), "go")
    };
    let a = assemble(&p).unwrap();
    // 29 bytes left for big.log: two whole lines (24 bytes).
    assert_eq!(
        a.fresh,
        "--- context: CONTEXT.md ---\n0123456789\n\n--- context: big.log ---\nline of log\nline of log\n[... context truncated by agentgate: 35 of 12018 bytes kept (--context-max 40) ...]\n\n--- task ---\ngo"
    );
    let ctx: Vec<_> = a.parts[..3]
        .iter()
        .map(|p| (p.bytes, p.total_bytes, p.truncated))
        .collect();
    assert_eq!(ctx, [(11, 11, false), (24, 12000, true), (0, 7, true)]);
    assert!(
        a.warnings.iter().any(|w| w.contains("late.md")),
        "{:?}",
        a.warnings
    );
    // On resume CONTEXT.md is not sent, so big.log gets the whole budget.
    assert!(
        a.resumed
            .contains("[... context truncated by agentgate: 36 of 12007 bytes kept"),
        "{}",
        a.resumed
    );
}

#[test]
fn truncation_never_splits_a_character() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "accents.txt", "ééé");
    let p = PromptParts {
        context_files: vec!["accents.txt".into()],
        context_max: Some(3),
        ..parts(dir.path(), "go")
    };
    let a = assemble(&p).unwrap();
    assert!(
        a.fresh.starts_with(
            "--- context: accents.txt ---\né\n[... context truncated by agentgate: 2 of 6 bytes kept (--context-max 3) ...]"
        ),
        "{}",
        a.fresh
    );
}

#[test]
fn a_context_file_that_is_not_utf8_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("image.png"), b"\x89PNG\r\n").unwrap();
    let p = PromptParts {
        context_files: vec!["image.png".into()],
        ..parts(dir.path(), "go")
    };
    let msg = assemble(&p).unwrap_err().to_string();
    assert!(
        msg.contains("image.png") && msg.contains("not UTF-8"),
        "{msg}"
    );
}

#[test]
fn the_size_limit_is_an_error_and_the_threshold_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let task = "x".repeat(100);
    let p = PromptParts {
        max_bytes: 99,
        unattended_instruction: false,
        ..parts(dir.path(), &task)
    };
    let e = assemble(&p).unwrap_err();
    assert!(
        matches!(
            e,
            PromptError::TooLarge {
                bytes: 100,
                limit: 99
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .contains("100 bytes, over the limit of 99 bytes"),
        "{e}"
    );

    let p = PromptParts {
        max_bytes: 100,
        warn_bytes: 50,
        ..p
    };
    let a = assemble(&p).unwrap();
    assert_eq!(
        a.warnings,
        [
            "the prompt is 100 bytes (about 25 tokens), over the warning threshold of 50 bytes (--prompt-warn-bytes)"
        ]
    );
    assert_eq!(a.estimated_tokens(), 25);
    let p = PromptParts {
        warn_bytes: 100,
        ..p
    };
    assert!(assemble(&p).unwrap().warnings.is_empty());
}

#[test]
fn a_file_over_the_limit_fails_before_it_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "huge.log", &"y".repeat(5000));
    let p = PromptParts {
        context_files: vec!["huge.log".into()],
        max_bytes: 1000,
        ..parts(dir.path(), "go")
    };
    let e = assemble(&p).unwrap_err();
    assert!(
        matches!(
            e,
            PromptError::FileTooLarge {
                bytes: 5000,
                limit: 1000,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("--context-max"), "{e}");
    // With --context-max the file is cut instead.
    let p = PromptParts {
        context_max: Some(100),
        ..p
    };
    let a = assemble(&p).unwrap();
    assert_eq!((a.parts[0].bytes, a.parts[0].total_bytes), (100, 5000));
}

#[test]
fn json_task_input_adds_files_context_and_persona() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "agents.md", AGENTS);
    write(dir.path(), "spec.md", "the spec");
    let mut p = PromptParts {
        agent_file: Some("agents.md".into()),
        unattended_instruction: false,
        skip_context_file: true,
        ..parts(dir.path(), "")
    };
    task_from_stdin(r#"{"prompt": "write it", "persona": "wri", "files": ["spec.md"], "context": {"ticket": 7}}"#)
        .unwrap()
        .apply_to(&mut p);
    let a = assemble(&p).unwrap();
    assert_eq!(a.persona.as_deref(), Some("Writer"));
    assert_eq!(
        a.resumed,
        "--- context: spec.md ---\nthe spec\n\n--- context: task input ---\n{\n  \"ticket\": 7\n}\n\n--- task ---\nwrite it"
    );
    assert!(
        a.fresh
            .starts_with("Shared: be careful.\n\n## Writer\nWrite docs.\n\n--- context: spec.md"),
        "{}",
        a.fresh
    );
}

#[test]
fn a_file_given_twice_is_included_once() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "CONTEXT.md", "facts");
    let p = PromptParts {
        context_files: vec!["CONTEXT.md".into(), dir.path().join("CONTEXT.md")],
        ..parts(dir.path(), "go")
    };
    let a = assemble(&p).unwrap();
    assert_eq!(a.fresh.matches("facts").count(), 1, "{}", a.fresh);
    assert_eq!(a.warnings.len(), 2, "{:?}", a.warnings);
    // Given with --context, the CONTEXT.md is resent on resume.
    assert!(
        a.resumed.contains("--- context: CONTEXT.md ---\nfacts"),
        "{}",
        a.resumed
    );
}

#[test]
fn pieces_serialize_for_dry_run() {
    let dir = tempfile::tempdir().unwrap();
    let a = assemble(&parts(dir.path(), "go")).unwrap();
    let json = serde_json::to_value(&a.parts[0]).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"kind": "task", "source": null, "label": null, "bytes": 2, "total_bytes": 2, "truncated": false})
    );
}

mod gardener;
