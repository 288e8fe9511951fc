use std::path::Path;

use super::parse::parse_skill;
use super::*;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill_file(root: &Path, folder: &str, name: &str, text: &str) {
    write(&root.join(folder).join(name).join(SKILL_FILE), text);
}

const FACTS: SkillFacts = SkillFacts {
    project_dirs: &[".claude/skills"],
    user_dirs: &[UserDir::moved_by(
        "CLAUDE_CONFIG_DIR",
        "skills",
        ".claude/skills",
    )],
    invoke: SkillInvoke::Slash,
    native: None,
};

#[test]
fn front_matter_gives_name_description_and_the_rest_as_json() {
    let doc = parse_skill(
        "---\nname: greet\ndescription: Greets someone.\nallowed-tools: [Read]\nmetadata:\n  short-description: hi\n---\n\n# Greet\nSay hi to $ARGUMENTS\n",
    )
    .unwrap();
    assert_eq!(doc.name.as_deref(), Some("greet"));
    assert_eq!(doc.description.as_deref(), Some("Greets someone."));
    assert_eq!(doc.front_matter["allowed-tools"][0], "Read");
    assert_eq!(doc.front_matter["metadata"]["short-description"], "hi");
    assert_eq!(doc.body, "# Greet\nSay hi to $ARGUMENTS\n");
}

#[test]
fn front_matter_variants_are_read() {
    // A byte-order mark, CRLF lines, a folded description, `...` closing.
    let doc = parse_skill(
        "\u{feff}---\r\nname: a\r\ndescription: >\r\n  two\r\n  lines\r\n...\r\nbody\r\n",
    )
    .unwrap();
    assert_eq!(doc.name.as_deref(), Some("a"));
    assert_eq!(doc.description.as_deref(), Some("two lines"));
    assert_eq!(doc.body, "body\r\n");
    // Empty front matter: no name, no description, still a skill.
    let doc = parse_skill("---\n---\nbody").unwrap();
    assert_eq!((doc.name, doc.description), (None, None));
    // Quoted values.
    let doc = parse_skill("---\nname: \"q\"\ndescription: 'it''s'\n---\n").unwrap();
    assert_eq!(doc.description.as_deref(), Some("it's"));
}

#[test]
fn bad_files_say_why() {
    let e = parse_skill("# no front matter\n").unwrap_err();
    assert!(e.contains("no front matter"), "{e}");
    let e = parse_skill("---\nname: a\n").unwrap_err();
    assert!(e.contains("not closed"), "{e}");
    let e = parse_skill("---\nname: [unclosed\n---\n").unwrap_err();
    assert!(e.contains("not valid YAML"), "{e}");
    let e = parse_skill("---\n- a list\n---\n").unwrap_err();
    assert!(e.contains("not a YAML mapping"), "{e}");
    let e = parse_skill("---\nname: {a: 1}\n---\n").unwrap_err();
    assert!(e.contains("`name` is not text"), "{e}");
}

#[test]
fn the_walk_finds_project_then_user_skills_and_the_project_wins() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let sub = repo.join("a/b");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(&sub).unwrap();
    let home = tmp.path().join("home");
    // Above the repository root: never read.
    skill_file(
        tmp.path(),
        ".claude/skills",
        "outside",
        "---\ndescription: x\n---\n",
    );
    skill_file(
        &repo,
        ".claude/skills",
        "greet",
        "---\nname: greet\ndescription: repo greet\n---\nhi",
    );
    skill_file(
        &sub,
        ".claude/skills",
        "near",
        "---\ndescription: nearest\n---\n",
    );
    skill_file(
        &home,
        ".claude/skills",
        "greet",
        "---\ndescription: user greet\n---\n",
    );
    skill_file(
        &home,
        ".claude/skills",
        "mine",
        "---\ndescription: user only\n---\n",
    );
    skill_file(&home, ".claude/skills", "bad", "---\nname: [\n---\n");
    skill_file(
        &home,
        ".claude/skills",
        "nodesc",
        "---\nname: nodesc\n---\n",
    );
    let h = home.display().to_string();
    let var = |k: &str| (k == "HOME").then(|| h.clone());
    let scan = scan(&FACTS, &sub, &var);
    let rows: Vec<(&str, SkillScope, bool)> = scan
        .skills
        .iter()
        .map(|s| (s.name.as_str(), s.scope, s.shadowed))
        .collect();
    assert_eq!(
        rows,
        [
            ("near", SkillScope::Project, false),
            ("greet", SkillScope::Project, false),
            ("bad", SkillScope::User, false),
            ("greet", SkillScope::User, true),
            ("mine", SkillScope::User, false),
            ("nodesc", SkillScope::User, false),
        ]
    );
    let greet = scan.find("greet").unwrap();
    assert_eq!(greet.description.as_deref(), Some("repo greet"));
    assert_eq!(greet.path, repo.join(".claude/skills/greet/SKILL.md"));
    let bad = scan.find("bad").unwrap();
    assert!(
        bad.error.as_deref().unwrap().contains("not valid YAML"),
        "{bad:?}"
    );
    let nodesc = scan.find("nodesc").unwrap();
    assert!(nodesc.error.is_none());
    assert!(
        nodesc.warnings[0].contains("no `description`"),
        "{nodesc:?}"
    );
    assert!(scan.find("outside").is_none());
    assert_eq!(
        scan.searched,
        [
            sub.join(".claude/skills"),
            repo.join("a/.claude/skills"),
            repo.join(".claude/skills"),
            home.join(".claude/skills"),
        ]
    );
}

#[test]
fn the_variable_moves_the_user_folder_instead_of_home() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let moved = tmp.path().join("moved");
    skill_file(
        &home,
        ".claude/skills",
        "in-home",
        "---\ndescription: h\n---\n",
    );
    skill_file(&moved, "skills", "in-moved", "---\ndescription: m\n---\n");
    let (h, m) = (home.display().to_string(), moved.display().to_string());
    let var = |k: &str| match k {
        "HOME" => Some(h.clone()),
        "CLAUDE_CONFIG_DIR" => Some(m.clone()),
        _ => None,
    };
    let work = tmp.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let names: Vec<String> = scan(&FACTS, &work, &var)
        .skills
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names, ["in-moved"]);
}

#[test]
fn each_way_of_invoking_writes_its_text() {
    let p = Path::new("/r/.x/skills/greet/SKILL.md");
    let slash = invocation(SkillInvoke::Slash, "greet", p, "BODY", r#"{"n":1}"#, "");
    assert_eq!(slash.prefix.as_deref(), Some(r#"/greet {"n":1}"#));
    assert_eq!(slash.way, "native");
    let mention = invocation(SkillInvoke::Mention, "greet", p, "BODY", r#"{"n":1}"#, "t");
    assert_eq!(
        mention.prefix.as_deref(),
        Some("$greet\n\nInput (JSON): {\"n\":1}")
    );
    assert_eq!(mention.task, "t");
    let cmd = invocation(
        SkillInvoke::CommandFlag("--command"),
        "greet",
        p,
        "BODY",
        "{}",
        "",
    );
    assert_eq!(cmd.extra_args, ["--command", "greet"]);
    assert_eq!(cmd.task, "{}");
    let prompt = invocation(SkillInvoke::Prompt, "greet", p, "BODY\n", "{}", "also this");
    assert_eq!(prompt.way, "prompt");
    assert!(prompt.prefix.is_none());
    for part in [
        "`greet`",
        "/r/.x/skills/greet/SKILL.md",
        "<skill name=\"greet\">\nBODY\n</skill>",
        "Input (JSON): {}",
        "also this",
    ] {
        assert!(prompt.task.contains(part), "{part} in {}", prompt.task);
    }
}

#[test]
fn every_builtin_provider_says_where_its_skills_are() {
    for d in crate::BUILTIN {
        assert!(d.skills.is_some(), "{}", d.name);
    }
}
