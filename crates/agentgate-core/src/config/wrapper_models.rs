//! The model settings of the wrappers' `providers.yaml` users migrate
//! from, honoured before the config's own (seed 000's resolution order):
//!
//! 1. the file `AI_CLI_PROVIDERS_CONFIG`, else `AUTONOM8_PROVIDERS_CONFIG`
//!    names (it must exist and parse);
//! 2. else the first of `providers.yaml`, `go-autonom8/providers.yaml`,
//!    `.ai-cli-wrappers/providers.yaml`, `.autonom8/providers.yaml`,
//!    `defaults/providers.yaml` found in the run's working folder, then in
//!    each parent up to the repository root (the folder holding `.git`);
//!    outside a repository, the working folder only, so that a stray
//!    `/tmp/providers.yaml` is never picked up. A file found this way that
//!    does not parse is skipped with a warning.
//!
//! Only its `models:` (aliases) and `default_model:` are used, read as
//! `providers_yaml.rs` reads such a file as a config. The file that is the
//! config itself is not read twice.

use std::path::{Path, PathBuf};

use super::defaults::ProviderDefaults;
use super::file;
use super::source::ConfigError;
use crate::read_limit::{CONFIG_MAX_BYTES, read_text_file};

/// The variables that name a wrapper `providers.yaml`, in order.
pub const WRAPPER_CONFIG_VARS: [&str; 2] = ["AI_CLI_PROVIDERS_CONFIG", "AUTONOM8_PROVIDERS_CONFIG"];

/// The wrapper file names looked for near the working folder, in order.
pub const WRAPPER_FILES: [&str; 5] = [
    "providers.yaml",
    "go-autonom8/providers.yaml",
    ".ai-cli-wrappers/providers.yaml",
    ".autonom8/providers.yaml",
    "defaults/providers.yaml",
];

/// A wrapper `providers.yaml` and the defaults it gives.
#[derive(Debug, Clone)]
pub struct WrapperModels {
    /// The file.
    pub path: PathBuf,
    /// Its providers' aliases and default models.
    pub defaults: Vec<ProviderDefaults>,
}

impl WrapperModels {
    /// The defaults it gives `provider` (its canonical name).
    pub fn provider(&self, provider: &str) -> Option<&ProviderDefaults> {
        self.defaults.iter().find(|d| d.provider == provider)
    }
}

/// The wrapper file for a run in `cwd` (see the module notes), `var`
/// reading the environment; `config` is the config file read already.
/// `Ok((None, warnings))` when there is none.
pub fn find_wrapper_models(
    cwd: &Path,
    config: Option<&Path>,
    var: &dyn Fn(&str) -> Option<String>,
) -> Result<(Option<WrapperModels>, Vec<String>), ConfigError> {
    let same = |p: &Path| {
        config.is_some_and(|c| {
            c == p
                || (c.canonicalize().ok().is_some()
                    && c.canonicalize().ok() == p.canonicalize().ok())
        })
    };
    for name in WRAPPER_CONFIG_VARS {
        let Some(value) = var(name).filter(|v| !v.trim().is_empty()) else {
            continue;
        };
        let path = cwd.join(value.trim());
        if !path.is_file() {
            return Err(ConfigError::Missing {
                path,
                given_by: name.to_owned(),
                detail: "does not exist".into(),
            });
        }
        if same(&path) {
            return Ok((None, Vec::new()));
        }
        return read(&path).map(|w| (Some(w), Vec::new()));
    }
    let mut warnings = Vec::new();
    for dir in search_dirs(cwd) {
        for name in WRAPPER_FILES {
            let path = dir.join(name);
            if !path.is_file() {
                continue;
            }
            if same(&path) {
                return Ok((None, warnings));
            }
            match read(&path) {
                Ok(w) => return Ok((Some(w), warnings)),
                Err(e) => warnings.push(format!("{e} (the wrapper file is skipped)")),
            }
        }
    }
    Ok((None, warnings))
}

/// `cwd`, then its parents up to the repository root; `cwd` alone outside
/// a repository.
fn search_dirs(cwd: &Path) -> Vec<&Path> {
    let mut dirs = Vec::new();
    for dir in cwd.ancestors() {
        dirs.push(dir);
        if dir.join(".git").exists() {
            return dirs;
        }
    }
    vec![cwd]
}

fn read(path: &Path) -> Result<WrapperModels, ConfigError> {
    let text = read_text_file(path, CONFIG_MAX_BYTES, "a providers.yaml").map_err(|e| {
        ConfigError::Read {
            path: path.to_path_buf(),
            reason: e,
        }
    })?;
    let parsed = file::parse(&text, path)?;
    Ok(WrapperModels {
        path: path.to_path_buf(),
        defaults: parsed.defaults,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str =
        "providers:\n  claude:\n    default_model: fast\n    models: {fast: claude-haiku-4-5}\n";

    fn none(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn a_nearby_file_is_found_up_to_the_repository_root() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        let deep = repo.join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        // Outside a repository only the working folder counts.
        std::fs::create_dir_all(repo.join("defaults")).unwrap();
        std::fs::write(repo.join("defaults/providers.yaml"), FILE).unwrap();
        assert!(find_wrapper_models(&deep, None, &none).unwrap().0.is_none());
        std::fs::create_dir(repo.join(".git")).unwrap();
        let (found, _) = find_wrapper_models(&deep, None, &none).unwrap();
        let found = found.unwrap();
        assert_eq!(found.path, repo.join("defaults/providers.yaml"));
        let claude = found.provider("claude").unwrap();
        assert_eq!(claude.default_model.as_deref(), Some("fast"));
        assert_eq!(claude.alias("fast"), Some("claude-haiku-4-5"));
        // A nearer file wins; the config file itself is not read twice.
        std::fs::create_dir_all(deep.join(".autonom8")).unwrap();
        std::fs::write(deep.join(".autonom8/providers.yaml"), FILE).unwrap();
        let (found, _) = find_wrapper_models(&deep, None, &none).unwrap();
        assert_eq!(found.unwrap().path, deep.join(".autonom8/providers.yaml"));
        let config = deep.join(".autonom8/providers.yaml");
        assert!(
            find_wrapper_models(&deep, Some(&config), &none)
                .unwrap()
                .0
                .is_none()
        );
    }

    #[test]
    fn the_variable_wins_and_must_name_a_file() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(
            tmp.path().join("providers.yaml"),
            "providers:\n  codex: {default_model: x}\n",
        )
        .unwrap();
        std::fs::write(tmp.path().join("mine.yaml"), FILE).unwrap();
        let var = |k: &str| (k == "AUTONOM8_PROVIDERS_CONFIG").then(|| "mine.yaml".to_owned());
        let (found, _) = find_wrapper_models(tmp.path(), None, &var).unwrap();
        assert_eq!(found.unwrap().path, tmp.path().join("mine.yaml"));
        let missing = |k: &str| (k == "AI_CLI_PROVIDERS_CONFIG").then(|| "gone.yaml".to_owned());
        assert!(find_wrapper_models(tmp.path(), None, &missing).is_err());
    }

    #[test]
    fn a_bad_nearby_file_is_skipped_with_a_warning() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("providers.yaml"), "providers: [1, 2]\n").unwrap();
        let (found, warnings) = find_wrapper_models(tmp.path(), None, &none).unwrap();
        assert!(found.is_none());
        assert_eq!(warnings.len(), 1, "{warnings:?}");
    }
}
