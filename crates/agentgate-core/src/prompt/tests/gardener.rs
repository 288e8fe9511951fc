//! The Gardener's prompt: instruction files first, the note's file name on
//! the task, the output schema with the JSON-only instruction.

use super::*;

#[test]
fn a_named_task_always_has_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let p = PromptParts {
        task_file_name: Some("2026-11-29 idea.md".into()),
        ..parts(dir.path(), "buy milk")
    };
    let a = assemble(&p).unwrap();
    assert_eq!(
        a.fresh,
        format!("--- task: 2026-11-29 idea.md ---\nbuy milk\n\n{UNATTENDED_INSTRUCTION}")
    );
    assert_eq!(a.parts[0].label.as_deref(), Some("2026-11-29 idea.md"));
}

#[test]
fn the_schema_follows_the_task_fresh_and_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "CONTEXT.md", "ctx");
    let schema = r#"{"type": "object", "required": ["action"]}"#;
    let p = PromptParts {
        output_schema: Some(schema.into()),
        ..parts(dir.path(), "classify")
    };
    let a = assemble(&p).unwrap();
    let tail = format!(
        "--- task ---\nclassify\n\n--- output schema ---\n{SCHEMA_INSTRUCTION}\n{schema}\n\n{UNATTENDED_INSTRUCTION}"
    );
    assert!(a.fresh.ends_with(&tail), "{}", a.fresh);
    // The resumed prompt has no CONTEXT.md, and the schema all the same.
    assert!(a.resumed.contains(SCHEMA_INSTRUCTION), "{}", a.resumed);
    assert!(!a.resumed.contains("ctx"), "{}", a.resumed);
    let kinds: Vec<_> = a.parts.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [
            PieceKind::Context,
            PieceKind::Task,
            PieceKind::OutputSchema,
            PieceKind::Instruction
        ]
    );
}

#[test]
fn instruction_files_come_first_in_order_and_a_missing_optional_one_is_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let agents = write(dir.path(), "AGENTS.md", "Be tidy.\n");
    let gardener = write(dir.path(), "GARDENER.md", "File notes by topic.\n");
    write(dir.path(), "persona.md", "You are the gardener.");
    let file = |path: &Path, required| InstructionFile {
        path: path.to_path_buf(),
        required,
    };
    let p = PromptParts {
        instructions: vec![
            file(&dir.path().join("global/AGENTS.md"), false),
            file(&agents, false),
            file(&gardener, true),
        ],
        agent_file: Some("persona.md".into()),
        task_file_name: Some("note.md".into()),
        ..parts(dir.path(), "a note")
    };
    let a = assemble(&p).unwrap();
    assert_eq!(
        a.fresh,
        format!(
            "{INSTRUCTIONS_LEAD}\n\n--- instructions: {} ---\nBe tidy.\n\n--- instructions: {} ---\nFile notes by topic.\n\nYou are the gardener.\n\n--- task: note.md ---\na note\n\n{UNATTENDED_INSTRUCTION}",
            agents.display(),
            gardener.display()
        )
    );
    // Standing instructions: not sent again on resume.
    assert_eq!(
        a.resumed,
        format!("--- task: note.md ---\na note\n\n{UNATTENDED_INSTRUCTION}")
    );
    let kinds: Vec<_> = a.parts.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds[..2],
        [PieceKind::Instructions, PieceKind::Instructions]
    );

    // A required file that is missing is an error naming it.
    let p = PromptParts {
        instructions: vec![file(&dir.path().join("missing.md"), true)],
        ..parts(dir.path(), "a note")
    };
    let e = assemble(&p).unwrap_err().to_string();
    assert!(
        e.contains("missing.md") && e.contains("instructions file"),
        "{e}"
    );
}
