//! A step's skill (`--skill NAME --input JSON`): found among the folders
//! its CLI reads (else the step cannot run it), then written the
//! provider's way ([`agentgate_providers::skills::invocation`]).

use std::path::Path;

use super::error::PlanError;
use crate::run_flags::SkillCall;
use crate::skills::scan_for;
use agentgate_providers::Provider;
use agentgate_providers::skills::{SkillInvocation, SkillInvoke, invocation, read_skill};

/// How `provider`, working in `cwd` with `env`, invokes `call`, the
/// caller's task text being `task`.
pub(super) fn skill_invocation(
    call: &SkillCall,
    provider: &dyn Provider,
    env: &[(String, String)],
    cwd: &Path,
    task: &str,
) -> Result<SkillInvocation, PlanError> {
    let name = provider.name().to_owned();
    let found = scan_for(provider, env, cwd);
    let Some(skill) = found.find(&call.name) else {
        let searched: Vec<String> = found
            .searched
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        return Err(PlanError::SkillNotFound {
            name: call.name.clone(),
            provider: name,
            searched: searched.join(", "),
        });
    };
    let unusable = |reason: String| PlanError::SkillUnusable {
        name: call.name.clone(),
        provider: name.clone(),
        path: skill.path.clone(),
        reason,
    };
    if let Some(e) = &skill.error {
        return Err(unusable(e.clone()));
    }
    let facts = provider.skills();
    // Only the written prompt carries the body; the CLI reads it itself.
    let body = match facts.invoke {
        SkillInvoke::Prompt => read_skill(&skill.path).map_err(unusable)?.body,
        _ => String::new(),
    };
    Ok(invocation(
        facts.invoke,
        &call.name,
        &skill.path,
        &body,
        &call.input_text(),
        task,
    ))
}

#[cfg(test)]
mod tests {
    use crate::config::{Config, ConfigSource};
    use crate::plan::{Plan, PlanError, plan};
    use crate::request::RunRequest;

    const NAME: &str = "agentgate-plan-test-skill";

    fn planned(dir: &std::path::Path, providers: &str, skill: &str) -> Result<Plan, PlanError> {
        let cfg = Config::parse("version: 1\n", ConfigSource::Default).unwrap();
        let request = format!(
            r#"{{"providers": {providers}, "cwd": "{}", "skill": "{skill}", "input": {{"n": 1}}}}"#,
            dir.display()
        );
        let (flags, task) = RunRequest::from_json(&request).unwrap().to_flags().unwrap();
        plan(&cfg, &flags, task)
    }

    fn project_with_claude_skill() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join(".claude/skills").join(NAME);
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(
            skill.join("SKILL.md"),
            "---\ndescription: d\n---\nDo the thing.\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn a_slash_skill_opens_the_prompt_and_the_envelope_gets_its_name() {
        let dir = project_with_claude_skill();
        let p = planned(dir.path(), r#"["claude"]"#, NAME).unwrap();
        assert!(
            p.steps[0]
                .request
                .prompt
                .starts_with(&format!("/{NAME} {{\"n\":1}}\n\n")),
            "{}",
            p.steps[0].request.prompt
        );
        assert_eq!(p.skill.as_deref(), Some(NAME));
    }

    #[test]
    fn a_chain_skips_the_provider_that_cannot_see_the_skill() {
        let dir = project_with_claude_skill();
        let p = planned(dir.path(), r#"["gemini", "claude"]"#, NAME).unwrap();
        let names: Vec<&str> = p.steps.iter().map(|s| s.provider.name()).collect();
        assert_eq!(names, ["claude"]);
        assert!(
            p.warnings
                .iter()
                .any(|w| w.starts_with("skipped: skill") && w.contains("for gemini")),
            "{:?}",
            p.warnings
        );
        // No step can: the run is refused, naming each reason.
        let e = planned(dir.path(), r#"["gemini", "codex"]"#, NAME).unwrap_err();
        assert_eq!(e.field(), "skill");
        let text = e.to_string();
        assert!(
            text.contains("for gemini") && text.contains("for codex"),
            "{text}"
        );
    }

    #[test]
    fn an_unknown_skill_names_where_it_looked() {
        let dir = project_with_claude_skill();
        let e = planned(dir.path(), r#"["claude"]"#, "no-such-skill").unwrap_err();
        assert!(matches!(e, PlanError::SkillNotFound { .. }), "{e:?}");
        let text = e.to_string();
        let folder = dir
            .path()
            .canonicalize()
            .unwrap()
            .join(".claude/skills")
            .display()
            .to_string();
        assert!(
            text.contains("skill `no-such-skill` not found for claude"),
            "{text}"
        );
        assert!(text.contains(&folder), "{text}");
    }

    #[test]
    fn a_prompt_skill_carries_its_body_and_input() {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join(".gemini/skills").join(NAME);
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(
            skill.join("SKILL.md"),
            "---\ndescription: d\n---\nDo the thing.\n",
        )
        .unwrap();
        let p = planned(dir.path(), r#"["gemini"]"#, NAME).unwrap();
        let prompt = &p.steps[0].request.prompt;
        for part in ["Do the thing.", "Input (JSON): {\"n\":1}", "SKILL.md"] {
            assert!(prompt.contains(part), "{part}: {prompt}");
        }
    }
}
