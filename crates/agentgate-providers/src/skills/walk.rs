//! Finding the skills of a [`SkillFacts`]: the project folders from the
//! working directory up to the repository root, then the user folders.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::parse::{SKILL_FILE, read_skill};
use super::{Skill, SkillFacts, SkillScope};

/// What one scan found, and where it looked.
#[derive(Debug, Clone, Default)]
pub struct SkillScan {
    /// Every skill found, in order of precedence (the first of a name
    /// wins; the later ones have `shadowed`).
    pub skills: Vec<Skill>,
    /// The folders looked in, in order (whether they exist or not).
    pub searched: Vec<PathBuf>,
}

impl SkillScan {
    /// The skill `name` that wins, if any.
    pub fn find(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name && !s.shadowed)
    }
}

/// Scan the folders of `facts` for a CLI working in `cwd`; `var` reads
/// the environment the CLI would have (`HOME`, `CLAUDE_CONFIG_DIR`, ...).
pub fn scan(facts: &SkillFacts, cwd: &Path, var: &dyn Fn(&str) -> Option<String>) -> SkillScan {
    let mut folders: Vec<(PathBuf, SkillScope)> = Vec::new();
    for dir in project_roots(cwd) {
        for rel in facts.project_dirs {
            folders.push((dir.join(rel), SkillScope::Project));
        }
    }
    let home = var("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    for u in facts.user_dirs {
        let moved = u.var.and_then(var).filter(|v| !v.is_empty());
        let path = match (moved, &home) {
            (Some(base), _) => PathBuf::from(base).join(u.under_var),
            (None, Some(home)) => home.join(u.under_home),
            (None, None) => continue,
        };
        folders.push((path, u.scope));
    }
    let mut out = SkillScan::default();
    let mut seen_folders = HashSet::new();
    let mut seen_names = HashSet::new();
    for (folder, scope) in folders {
        if !seen_folders.insert(folder.clone()) {
            continue;
        }
        for skill in skills_in(&folder, scope) {
            let mut skill = skill;
            skill.shadowed = !seen_names.insert(skill.name.clone());
            out.skills.push(skill);
        }
        out.searched.push(folder);
    }
    out
}

/// `cwd` and its parents up to the first that holds `.git` (the
/// repository root); only `cwd` when no parent does.
fn project_roots(cwd: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for dir in cwd.ancestors() {
        dirs.push(dir.to_path_buf());
        if dir.join(".git").exists() {
            return dirs;
        }
    }
    vec![cwd.to_path_buf()]
}

/// The skills of one folder: each sub-folder with a `SKILL.md`, by name.
fn skills_in(folder: &Path, scope: SkillScope) -> Vec<Skill> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !n.starts_with('.'))
                && p.join(SKILL_FILE).is_file()
        })
        .collect();
    dirs.sort();
    dirs.into_iter().map(|d| one_skill(&d, scope)).collect()
}

fn one_skill(dir: &Path, scope: SkillScope) -> Skill {
    let folder_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let path = dir.join(SKILL_FILE);
    let mut skill = Skill {
        name: folder_name.clone(),
        description: None,
        scope,
        path: path.clone(),
        error: None,
        warnings: Vec::new(),
        shadowed: false,
    };
    match read_skill(&path) {
        Err(e) => skill.error = Some(e),
        Ok(doc) => {
            if let Some(name) = doc.name {
                if name != folder_name {
                    skill.warnings.push(format!(
                        "its name `{name}` is not its folder's `{folder_name}` (some CLIs use one, some the other)"
                    ));
                }
                skill.name = name;
            }
            if doc.description.is_none() {
                skill.warnings.push(
                    "it has no `description` (Gemini CLI, Codex and opencode skip such a skill)"
                        .to_owned(),
                );
            }
            skill.description = doc.description;
        }
    }
    skill
}
