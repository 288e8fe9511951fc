//! Skills over the HTTP API of a real `agentgate serve`: `GET /v1/skills`
//! lists what `agentgate skills --json` does, and `POST /v1/runs` with
//! `skill` is planned at submit: an unknown skill is refused there, naming
//! the field, before anything is queued; a known one needs no prompt.

use std::path::Path;

use serde_json::Value;

use super::serve::Home;
use super::serve_api::start;
use super::serve_support::{get, post_json};

const TOKEN: &str = "api-test-token-0123456789abcdef012";

fn write_skill(root: &Path, name: &str, description: &str) {
    let dir = root.join(".claude/skills").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\nBody.\n"),
    )
    .unwrap();
}

#[test]
fn skills_are_listed_and_a_run_request_names_one() {
    let home = Home::new("0");
    let project = home.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    write_skill(&project, "greet", "Greets.");
    write_skill(home.path(), "mine", "The user's.");
    let serve = start(&home, &[]);
    let url = &serve.url;
    let project = project.canonicalize().unwrap();

    let path = format!("/v1/skills?provider=claude&cwd={}", project.display());
    let r = get(url, &path, Some(TOKEN));
    assert_eq!(r.status, 200, "{r:?}");
    let rows: Vec<(String, String, String)> = r
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            assert_eq!(row["provider"], "claude");
            let s = |k: &str| row[k].as_str().unwrap().to_owned();
            (s("name"), s("scope"), s("description"))
        })
        .collect();
    let row = |n: &str, s: &str, d: &str| (n.to_owned(), s.to_owned(), d.to_owned());
    assert_eq!(
        rows,
        [
            row("greet", "project", "Greets."),
            row("mine", "user", "The user's.")
        ]
    );
    let bad = get(url, "/v1/skills?cwd=relative", Some(TOKEN));
    assert_eq!(bad.status, 400, "{bad:?}");
    let bad = get(url, "/v1/skills?provider=nope", Some(TOKEN));
    assert_eq!(bad.status, 400, "{bad:?}");

    let submit = |skill: &str| {
        post_json(
            url,
            "/v1/runs",
            TOKEN,
            &format!(
                r#"{{"providers": ["claude"], "skill": "{skill}", "input": {{"name": "Ada"}}, "cwd": "{}"}}"#,
                project.display()
            ),
        )
    };
    let refused = submit("no-such-skill");
    assert_eq!(refused.status, 422, "{refused:?}");
    let body: Value = refused.json();
    assert_eq!(body["error"]["field"], "skill", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("skill `no-such-skill` not found for claude"),
        "{message}"
    );
    let queued = submit("greet");
    assert_eq!(queued.status, 201, "{queued:?}");
}
