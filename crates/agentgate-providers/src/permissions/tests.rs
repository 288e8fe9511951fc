use super::*;

fn neutral(v: Value) -> Permissions {
    Permissions::from_value(v).unwrap()
}

#[test]
fn neutral_keys_make_the_neutral_format_and_anything_else_is_native() {
    let p = neutral(json!({"allow": ["read"], "deny": ["shell", "mcp__x"], "network": false}));
    assert_eq!(
        p,
        Permissions::Neutral(NeutralPermissions {
            allow: vec!["read".into()],
            deny: vec!["shell".into(), "mcp__x".into()],
            write_paths: Vec::new(),
            network: Some(false),
        })
    );
    let native = json!({"permissions": {"deny": ["Bash"]}});
    assert_eq!(neutral(native.clone()), Permissions::Native(native));
    assert!(Permissions::from_value(json!({"allow": "read"})).is_err());
    assert!(Permissions::from_value(json!({"network": "no"})).is_err());
    assert!(Permissions::from_value(json!([1])).is_err());
}

#[test]
fn classes_become_each_clis_tool_names_and_gaps_are_said() {
    let p = neutral(
        json!({"allow": ["read"], "deny": ["shell"], "network": false, "write_paths": ["notes"]}),
    );
    let (claude, gaps) = settings(PermissionsWay::ClaudeSettings, "claude", &p);
    assert_eq!(
        claude.unwrap(),
        json!({"permissions": {"allow": ["Read", "Glob", "Grep", "LS"], "deny": ["Bash", "WebFetch", "WebSearch"]}})
    );
    assert!(gaps.iter().any(|g| g.contains("write_paths")), "{gaps:?}");
    assert!(gaps.iter().any(|g| g.contains("network")), "{gaps:?}");
    // A CLI that takes none: not applied, and said so.
    let (none, gaps) = settings(PermissionsWay::None, "gemini", &p);
    assert!(none.is_none());
    assert!(gaps.iter().any(|g| g.contains("not applied")), "{gaps:?}");
    let (gemini, gaps) = settings(PermissionsWay::GeminiSettings, "gemini", &p);
    assert_eq!(
        gemini.unwrap(),
        json!({"tools": {
            "allowed": ["read_file", "read_many_files", "list_directory", "glob", "grep_search"],
            "exclude": ["run_shell_command", "web_fetch", "google_web_search"],
        }})
    );
    assert!(gaps.iter().any(|g| g.contains("write_paths")), "{gaps:?}");
    assert!(gaps.iter().all(|g| !g.contains("not applied")), "{gaps:?}");
    // Gemini's settings go into its settings copy, not the argv.
    let (args, _) = apply(PermissionsWay::GeminiSettings, "gemini", &p);
    assert!(args.is_empty(), "{args:?}");
    let own = neutral(json!({"deny": ["write", "mcp_x_tool"]}));
    let (v, _) = settings(PermissionsWay::GeminiSettings, "gemini", &own);
    assert_eq!(
        v.unwrap(),
        json!({"tools": {"exclude": ["write_file", "replace", "mcp_x_tool"]}})
    );
    let native = Permissions::Native(json!({"permissions": {"deny": ["Bash"]}}));
    let (v, gaps) = settings(PermissionsWay::ClaudeSettings, "claude", &native);
    assert_eq!(v.unwrap(), json!({"permissions": {"deny": ["Bash"]}}));
    assert!(gaps.is_empty());
}

#[test]
fn merged_settings_keep_the_users_and_add_to_lists() {
    let mut user = json!({"tools": {"exclude": ["glob"], "sandbox": false}, "ui": {"theme": "x"}})
        .as_object()
        .unwrap()
        .clone();
    let extra = json!({"tools": {"exclude": ["glob", "run_shell_command"], "sandbox": true}});
    merge_settings(&mut user, extra.as_object().unwrap());
    assert_eq!(
        Value::Object(user),
        json!({"tools": {"exclude": ["glob", "run_shell_command"], "sandbox": true}, "ui": {"theme": "x"}})
    );
}

#[test]
fn gemini_gets_the_permissions_in_its_runs_own_settings_copy() {
    use crate::gemini::GEMINI;
    use crate::provider::{CliRequest, Provider};
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
    std::fs::write(
        home.path().join(".gemini/settings.json"),
        r#"{"tools": {"exclude": ["glob"]}, "ui": {"theme": "mine"}}"#,
    )
    .unwrap();
    let mut r = CliRequest {
        env_clear: true,
        permissions: Some(neutral(
            json!({"deny": ["shell"], "write_paths": ["notes"]}),
        )),
        ..CliRequest::default()
    };
    r.env
        .push(("HOME".into(), home.path().display().to_string()));
    let c = GEMINI
        .command(&r, std::path::Path::new("/bin/gemini"), &dir.path().into())
        .unwrap();
    let root = c
        .env
        .iter()
        .find(|(k, _)| k == "GEMINI_CLI_HOME")
        .map(|(_, v)| PathBuf::from(v))
        .expect("a home of the run's own");
    let text = std::fs::read_to_string(root.join(".gemini/settings.json")).unwrap();
    let got: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        got["tools"]["exclude"],
        json!(["glob", "run_shell_command"])
    );
    assert_eq!(got["ui"]["theme"], "mine", "the user's settings kept");
    // Applied: only the unenforced part is said.
    assert!(
        c.notices.iter().all(|n| !n.contains("not applied")),
        "{:?}",
        c.notices
    );
    assert!(
        c.notices.iter().any(|n| n.contains("write_paths")),
        "{:?}",
        c.notices
    );
    assert!(!c.display_args().contains(&"--settings".to_owned()));
}

#[test]
fn qwen_and_opencode_get_their_own_names_and_never_an_ask() {
    let p =
        neutral(json!({"deny": ["shell", "mcp_x"], "allow": ["read", "shell"], "network": false}));
    let (qwen, gaps) = settings(PermissionsWay::QwenSettings, "qwen", &p);
    assert_eq!(
        qwen.unwrap(),
        json!({"permissions": {
            "allow": ["read_file", "grep_search", "glob", "list_directory", "run_shell_command", "exec"],
            "deny": ["run_shell_command", "exec", "mcp_x", "web_fetch", "web_search"],
        }})
    );
    assert!(gaps.iter().all(|g| !g.contains("not applied")), "{gaps:?}");
    let (opencode, _) = settings(PermissionsWay::OpencodeRules, "opencode", &p);
    // Allowed and denied: denied.
    assert_eq!(
        opencode.unwrap(),
        json!({"read": "allow", "glob": "allow", "grep": "allow", "list": "allow",
               "bash": "deny", "mcp_x": "deny", "webfetch": "deny", "websearch": "deny"})
    );
    // A native opencode config gives its `permission`, asks made denies.
    let native = Permissions::Native(
        json!({"permission": {"edit": "ask", "bash": {"git *": "allow", "*": "ask"}}}),
    );
    let (v, gaps) = settings(PermissionsWay::OpencodeRules, "opencode", &native);
    assert_eq!(
        v.unwrap(),
        json!({"edit": "deny", "bash": {"git *": "allow", "*": "deny"}})
    );
    assert!(gaps.is_empty());
    let other = Permissions::Native(json!({"permissions": {"deny": ["Bash"]}}));
    let (v, gaps) = settings(PermissionsWay::OpencodeRules, "opencode", &other);
    assert!(v.is_none());
    assert!(gaps.iter().any(|g| g.contains("not applied")), "{gaps:?}");
}

#[test]
fn qwen_gets_the_permissions_in_its_system_settings_copy() {
    use crate::provider::{CliRequest, Provider};
    use crate::qwen::QWEN;
    let dir = tempfile::tempdir().unwrap();
    let system = dir.path().join("system.json");
    std::fs::write(
        &system,
        r#"{"permissions": {"deny": ["glob"]}, "ui": {"theme": "x"}}"#,
    )
    .unwrap();
    let r = CliRequest {
        permissions: Some(neutral(json!({"deny": ["write"]}))),
        env: vec![(
            "QWEN_CODE_SYSTEM_SETTINGS_PATH".into(),
            system.display().to_string(),
        )],
        ..CliRequest::default()
    };
    let c = QWEN
        .command(&r, std::path::Path::new("/bin/qwen"), &dir.path().into())
        .unwrap();
    let copy = c
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == "QWEN_CODE_SYSTEM_SETTINGS_PATH")
        .map(|(_, v)| PathBuf::from(v))
        .unwrap();
    assert_ne!(copy, system);
    let got: Value = serde_json::from_str(&std::fs::read_to_string(copy).unwrap()).unwrap();
    assert_eq!(
        got["permissions"]["deny"],
        json!(["glob", "edit", "write_file", "notebook_edit"])
    );
    assert_eq!(got["ui"]["theme"], "x");
    assert!(
        c.notices.iter().all(|n| !n.contains("not applied")),
        "{:?}",
        c.notices
    );
}
