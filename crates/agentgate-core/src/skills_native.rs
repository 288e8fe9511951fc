//! `agentgate skills --native`: a CLI's own listing of its skills, where it
//! has a cheap one ([`NativeLister`]): Codex's `app-server`
//! ([`AppServer`]) answers
//! `skills/list` in a fraction of a second, with no model request.
//! Gemini's `skills list` and opencode's `debug skill` take 5 to 7 s and
//! Claude has none, so they are not asked.
//!
//! The CLI runs in the working directory with agentgate's environment under
//! the config's `env:` for the provider; it is ended (killed and reaped) as
//! soon as the answer arrives, or at [`NATIVE_TIMEOUT`].

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::app_server::AppServer;
use agentgate_providers::skills::{NativeLister, Skill, SkillScope};
use agentgate_providers::{Provider, locate_binary};

/// The longest a CLI's lister may take.
pub const NATIVE_TIMEOUT: Duration = Duration::from_secs(30);

/// The skills `provider`'s CLI lists itself for `cwd`; `Ok(None)` when it
/// has no lister.
pub(crate) fn native_skills(
    provider: &dyn Provider,
    binary: Option<&Path>,
    env: &[(String, String)],
    cwd: &Path,
) -> Result<Option<Vec<Skill>>, String> {
    let Some(lister) = provider.skills().native else {
        return Ok(None);
    };
    let program = locate_binary(provider, binary).map_err(|e| e.to_string())?;
    match lister {
        NativeLister::CodexAppServer => codex_skills(&program, env, cwd).map(Some),
    }
}

fn codex_skills(
    program: &Path,
    env: &[(String, String)],
    cwd: &Path,
) -> Result<Vec<Skill>, String> {
    let mut server = AppServer::start(program, env, cwd, NATIVE_TIMEOUT)?;
    let result = server.request("skills/list", json!({"cwds": [cwd]}))?;
    Ok(codex_rows(&result))
}

/// The skills of a `skills/list` result.
fn codex_rows(result: &Value) -> Vec<Skill> {
    let mut out: Vec<Skill> = Vec::new();
    let empty = Vec::new();
    for entry in result["data"].as_array().unwrap_or(&empty) {
        for s in entry["skills"].as_array().unwrap_or(&empty) {
            let scope = match s["scope"].as_str() {
                Some("repo") => SkillScope::Project,
                Some("user") => SkillScope::User,
                _ => SkillScope::System,
            };
            let mut warnings = Vec::new();
            if s["enabled"] == false {
                warnings.push("disabled in Codex's config".to_owned());
            }
            let name = s["name"].as_str().unwrap_or_default().to_owned();
            let shadowed = out.iter().any(|o| o.name == name);
            out.push(Skill {
                name,
                description: s["description"].as_str().map(str::to_owned),
                scope,
                path: s["path"].as_str().unwrap_or_default().into(),
                error: None,
                warnings,
                shadowed,
            });
        }
        for e in entry["errors"].as_array().unwrap_or(&empty) {
            out.push(Skill {
                name: String::new(),
                description: None,
                scope: SkillScope::Project,
                path: e["path"].as_str().unwrap_or_default().into(),
                error: Some(
                    e["message"]
                        .as_str()
                        .map_or_else(|| e.to_string(), str::to_owned),
                ),
                warnings: Vec::new(),
                shadowed: false,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skills_list_result_becomes_rows() {
        let result = json!({"data": [{"cwd": "/w", "errors": [{"path": "/w/.agents/skills/bad/SKILL.md", "message": "bad yaml"}],
            "skills": [
                {"name": "greet", "description": "G", "path": "/w/.agents/skills/greet/SKILL.md", "scope": "repo", "enabled": true},
                {"name": "mine", "description": "M", "path": "/h/.codex/skills/mine/SKILL.md", "scope": "user", "enabled": false},
                {"name": "imagegen", "description": "I", "path": "/h/.codex/skills/.system/imagegen/SKILL.md", "scope": "system", "enabled": true}]}]});
        let rows = codex_rows(&result);
        let brief: Vec<(&str, SkillScope)> =
            rows.iter().map(|s| (s.name.as_str(), s.scope)).collect();
        assert_eq!(
            brief,
            [
                ("greet", SkillScope::Project),
                ("mine", SkillScope::User),
                ("imagegen", SkillScope::System),
                ("", SkillScope::Project),
            ]
        );
        assert_eq!(rows[1].warnings, ["disabled in Codex's config"]);
        assert_eq!(rows[3].error.as_deref(), Some("bad yaml"));
    }
}
