//! A step's skill (`--skill NAME --input JSON`): found among the folders
//! its CLI reads (else the step cannot run it), then written the
//! provider's way ([`agentgate_providers::skills::invocation`]).

use std::path::Path;

use super::error::PlanError;
use crate::skills::{SkillCall, scan_for};
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
