use std::path::{Path, PathBuf};

use super::claude::CLAUDE;
use super::codex::CODEX;
use super::gemini::GEMINI;
use super::test_support::{self, req};
use super::*;

fn argv(kind: &Description, r: &CliRequest) -> Vec<String> {
    test_support::argv(kind, r)
}

#[test]
fn every_cli_gets_the_prompt_on_stdin_and_its_streaming_format() {
    for kind in [&CLAUDE, &CODEX, &GEMINI] {
        let plan = kind
            .command(&req(), Path::new("/bin/cli"), &Scratch::temporary())
            .unwrap();
        assert_eq!(plan.stdin.as_deref(), Some(&b"do it"[..]), "{kind}");
        assert_eq!(plan.cwd, PathBuf::from("/work"));
        assert!(
            !plan.display_args().iter().any(|a| a == "do it"),
            "{kind}: prompt in argv"
        );
    }
    assert_eq!(
        argv(&CLAUDE, &req()),
        [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "default"
        ]
    );
    assert_eq!(
        argv(&CODEX, &req()),
        [
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--sandbox",
            "workspace-write",
            "-"
        ]
    );
    assert_eq!(
        argv(&GEMINI, &req()),
        [
            "--output-format",
            "stream-json",
            "--approval-mode",
            "default",
            "-p",
            ""
        ]
    );
}

#[test]
fn model_system_dirs_and_resume_map_per_cli() {
    let r = CliRequest {
        model: Some("m1".into()),
        system: Some("Be \"brief\".".into()),
        add_dirs: vec![PathBuf::from("/extra")],
        resume: Some("S1".into()),
        ..req()
    };
    assert_eq!(
        argv(&CLAUDE, &r),
        [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "default",
            "--model",
            "m1",
            "--append-system-prompt",
            "Be \"brief\".",
            "--add-dir",
            "/extra",
            "--resume",
            "S1"
        ]
    );
    let dir = tempfile::tempdir().unwrap();
    let plan = &GEMINI
        .command(&r, Path::new("/bin/gemini"), &dir.path().into())
        .unwrap();
    assert_eq!(
        plan.display_args(),
        [
            "--output-format",
            "stream-json",
            "--approval-mode",
            "default",
            "-m",
            "m1",
            "--resume",
            "S1",
            "--include-directories",
            "/extra",
            "-p",
            ""
        ]
    );
    let (key, file) = &plan.env[0];
    assert_eq!(key, "GEMINI_SYSTEM_MD");
    assert_eq!(std::fs::read_to_string(file).unwrap(), "Be \"brief\".");
    // `codex exec resume` has no --add-dir: the resumed turn runs
    // without it, and a notice names what was left out.
    let resumed = &CODEX
        .command(&r, Path::new("/bin/codex"), &dir.path().into())
        .unwrap();
    assert!(
        !resumed.display_args().contains(&"--add-dir".to_owned()),
        "{:?}",
        resumed.display_args()
    );
    assert_eq!(resumed.notices.len(), 1, "{:?}", resumed.notices);
    assert!(
        resumed.notices[0].contains("--add-dir /extra left out")
            && resumed.notices[0].contains("`codex exec resume` has no --add-dir"),
        "{:?}",
        resumed.notices
    );
    let fresh = CliRequest {
        resume: None,
        ..r.clone()
    };
    let fresh = &CODEX
        .command(&fresh, Path::new("/bin/codex"), &dir.path().into())
        .unwrap();
    assert!(fresh.display_args().join(" ").contains("--add-dir /extra"));
    assert!(fresh.notices.is_empty());
    let without_dirs = CliRequest {
        add_dirs: Vec::new(),
        ..r
    };
    assert!(
        CODEX
            .command(&without_dirs, Path::new("/bin/codex"), &dir.path().into())
            .unwrap()
            .notices
            .is_empty()
    );
    assert_eq!(resumed.display_args(), argv(&CODEX, &without_dirs));
    assert_eq!(
        argv(&CODEX, &without_dirs),
        [
            "exec",
            "resume",
            "--json",
            "--skip-git-repo-check",
            "-c",
            "sandbox_mode=\"workspace-write\"",
            "-m",
            "m1",
            "-c",
            "developer_instructions=\"Be \\\"brief\\\".\"",
            "S1",
            "-"
        ]
    );
}

#[test]
fn permission_modes_map_onto_each_cli() {
    let with = |mode| CliRequest {
        permission_mode: mode,
        ..req()
    };
    let claude: Vec<String> = [
        PermissionMode::Plan,
        PermissionMode::AcceptEdits,
        PermissionMode::Bypass,
    ]
    .into_iter()
    .map(|m| argv(&CLAUDE, &with(m))[5].clone())
    .collect();
    assert_eq!(claude, ["plan", "acceptEdits", "bypassPermissions"]);
    assert!(
        argv(&CODEX, &with(PermissionMode::Plan))
            .join(" ")
            .contains("--sandbox read-only")
    );
    assert!(
        argv(&CODEX, &with(PermissionMode::Bypass))
            .contains(&"--dangerously-bypass-approvals-and-sandbox".to_owned())
    );
    let gemini = |m| argv(&GEMINI, &with(m)).join(" ");
    assert!(gemini(PermissionMode::Plan).contains("--approval-mode plan"));
    assert!(gemini(PermissionMode::AcceptEdits).contains("--approval-mode auto_edit --skip-trust"));
    assert!(gemini(PermissionMode::Bypass).contains("--approval-mode yolo --skip-trust"));
    assert_eq!("yolo".parse::<PermissionMode>(), Ok(PermissionMode::Bypass));
    assert!(
        "root"
            .parse::<PermissionMode>()
            .unwrap_err()
            .contains("unknown permission mode")
    );
}

#[test]
fn retry_bound_and_extra_args_reach_the_cli() {
    let r = CliRequest {
        max_provider_retries: Some(2),
        extra_args: vec!["--debug".into()],
        ..req()
    };
    let plan = &CLAUDE
        .command(&r, Path::new("/bin/claude"), &Scratch::temporary())
        .unwrap();
    assert!(
        plan.env
            .contains(&("CLAUDE_CODE_MAX_RETRIES".into(), "2".into()))
    );
    assert_eq!(
        plan.display_args().last().map(String::as_str),
        Some("--debug")
    );
}

#[test]
fn provider_names_parse_and_missing_binaries_say_what_to_do() {
    assert_eq!(description("Claude").map(|d| d.name), Some("claude"));
    assert!(description("nonesuch").is_none());
    let err = locate_binary(&CLAUDE, Some(Path::new("/nonexistent/claude"))).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("/nonexistent/claude does not exist"),
        "{text}"
    );
    assert!(text.contains("AGENTGATE_CLAUDE_BIN"), "{text}");
}

#[test]
fn every_table_parses_and_says_what_it_does_with_extra_directories() {
    let dir = tempfile::tempdir().unwrap();
    for d in BUILTIN {
        for t in argv::templates(d.argv) {
            t.check().unwrap_or_else(|e| panic!("{}: {e}", d.name));
        }
        // An extra directory reaches the CLI, is refused, or is named
        // in a notice of what was left out: never dropped in silence,
        // on a fresh run or a resumed one.
        for resume in [None, Some("S1".to_owned())] {
            let r = CliRequest {
                add_dirs: vec![PathBuf::from("/extra/dir")],
                resume,
                ..req()
            };
            match d.command(&r, Path::new("/bin/cli"), &dir.path().into()) {
                Ok(cmd) => {
                    let said = cmd.display_args().join(" ")
                        + &cmd
                            .env
                            .iter()
                            .map(|(_, v)| v.to_string_lossy().into_owned())
                            .collect::<String>()
                        + &cmd.notices.join(" ");
                    assert!(said.contains("/extra/dir"), "{}: {said}", d.name);
                }
                Err(e) => assert!(e.to_string().contains("--add-dir"), "{}: {e}", d.name),
            }
        }
    }
}

#[test]
fn names_find_their_description_and_error_table() {
    for d in BUILTIN {
        assert!(std::ptr::eq(error_table(&d.name.to_uppercase()), d.errors));
        assert_eq!(
            builtin(d.name).map(|p| p.name().to_owned()).as_deref(),
            Some(d.name)
        );
    }
    assert_eq!(error_table("mycli").name, "generic");
    assert!(builtin("mycli").is_none());
    assert!(builtin_names().starts_with("claude, codex, gemini"));
}

mod mcp;
